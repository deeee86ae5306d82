"""Shoe decode latency: last byte of a frame written to a pty -> decoded event in the consumer.

For each dialect the frame is written to a real pseudo-terminal in two writes, all but its
last byte first; the clock starts as the last byte is written and stops inside the event
callback of the real transport (pyserial read thread, codec, callback). Beside it: a bare
baseline measured the same way in the same run (a thread blocked reading the pty, no pyserial,
no codec), and the time the frame takes on a real wire at 9600 and 115200 baud (8N1).

    python benchmarks/shoe_latency.py [--frames N] [--json]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import select
import statistics
import threading
import time
import tty
from collections.abc import Callable
from typing import Any

from controller.cards import Card
from drivers.shoe import make_codec
from drivers.shoe.deckmap import demo_deck_map
from drivers.shoe.events import Connected, ShoeEvent
from drivers.shoe.framed import MessageType, card_payload, encode_frame, hello_payload
from drivers.shoe.jsonl import format_jsonl
from drivers.shoe.transport import SerialTransport
from drivers.shoe.uspc import format_uspc_card

TARGET_P99_MS = 1.0
DECK = demo_deck_map()


def open_pty() -> tuple[int, str]:
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.close(slave)
    return master, name


def frame_for(dialect: str, i: int) -> bytes:
    card = Card(i % 52)
    if dialect == "framed":
        record = i + 2
        return encode_frame(record & 0xFF, MessageType.CARD, card_payload(record, card, 95))
    if dialect == "uspc":
        return format_uspc_card(card).rstrip().encode()  # the token ends at its '>'
    return format_jsonl(
        {"type": "card", "seq": i + 2, "device_id": "reader-1", "uid": DECK.uid_for(card)}
    )


def preamble(dialect: str) -> bytes:
    if dialect == "framed":
        return encode_frame(1, MessageType.HELLO, hello_payload(1, 1, "bench", "B-1", "1.0"))
    if dialect == "jsonl":
        return format_jsonl({"type": "boot", "seq": 1, "device_id": "reader-1"})
    return b""


def drain(master: int) -> None:
    while select.select([master], [], [], 0)[0]:
        try:
            if not os.read(master, 4096):
                return
        except OSError:
            return


def timed_writes(
    master: int, frames: list[bytes], arrived: list[int], signal: threading.Event
) -> list[float]:
    """Write each frame in two parts; the latency of each from its last byte, in ms."""
    out = []
    for frame in frames:
        signal.clear()
        os.write(master, frame[:-1])
        time.sleep(0.0005)  # let the reader take the head: the last byte arrives on its own
        start = time.perf_counter_ns()
        os.write(master, frame[-1:])
        if not signal.wait(1.0):
            raise RuntimeError("no event within a second")
        out.append((arrived[-1] - start) / 1e6)
        drain(master)  # acknowledgements the host wrote back
        time.sleep(0.0005)
    return out


def measure_transport(dialect: str, n: int) -> list[float]:
    master, name = open_pty()
    arrived: list[int] = []
    signal = threading.Event()
    connected = threading.Event()

    def on_event(event: ShoeEvent) -> None:
        if isinstance(event, Connected):
            connected.set()
            return
        if event.kind.value in ("card", "duplicate_card"):
            arrived.append(time.perf_counter_ns())
            signal.set()

    transport = SerialTransport(name, make_codec(dialect, DECK), on_event, baudrate=115200)
    transport.start()
    try:
        if not connected.wait(5):
            raise RuntimeError(f"could not open {name}")
        time.sleep(0.05)
        os.write(master, preamble(dialect))
        time.sleep(0.05)
        frames = [frame_for(dialect, i) for i in range(n)]
        return timed_writes(master, frames, arrived, signal)
    finally:
        transport.stop()
        os.close(master)


def measure_baseline(n: int, size: int) -> list[float]:
    """The floor: a thread blocked reading the pty wakes and timestamps the last byte."""
    master, name = open_pty()
    reader = os.open(name, os.O_RDWR | os.O_NOCTTY)
    arrived: list[int] = []
    signal = threading.Event()
    stop = threading.Event()
    got = 0

    def run() -> None:
        nonlocal got
        while not stop.is_set():
            if not select.select([reader], [], [], 0.05)[0]:
                continue
            got += len(os.read(reader, 4096))
            if got % size == 0:
                arrived.append(time.perf_counter_ns())
                signal.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        return timed_writes(master, [b"x" * size] * n, arrived, signal)
    finally:
        stop.set()
        thread.join(1)
        os.close(reader)
        os.close(master)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def wire_ms(nbytes: int, baud: int) -> float:
    return nbytes * 10 / baud * 1000  # 8N1: start + 8 data + stop bits per byte


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000, help="frames per dialect")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    measures: list[tuple[str, int, Callable[[], list[float]]]] = []
    for dialect in ("framed", "uspc", "jsonl"):
        size = len(frame_for(dialect, 0))
        measures.append((dialect, size, functools.partial(measure_transport, dialect, args.frames)))
    measures.append(("baseline: bare pty read", 16, lambda: measure_baseline(args.frames, 16)))
    for label, size, run in measures:
        values = run()
        rows.append(
            {
                "path": label,
                "frame_bytes": size,
                "p50_ms": statistics.median(values),
                "p99_ms": percentile(values, 0.99),
                "max_ms": max(values),
                "wire_9600_ms": wire_ms(size, 9600),
                "wire_115200_ms": wire_ms(size, 115200),
                "n": len(values),
            }
        )
    if args.json:
        print(json.dumps({"machine": platform.machine(), "cpus": os.cpu_count(), "rows": rows}))
        return
    print(f"shoe decode latency, last byte written -> event delivered ({args.frames} frames each,")
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()})")
    header = f"{'path':<26}{'bytes':>6}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}"
    print(header + f"{'wire 9600':>11}{'wire 115200':>13}")
    for row in rows:
        print(
            f"{row['path']:<26}{row['frame_bytes']:>6}{row['p50_ms']:>9.3f}{row['p99_ms']:>9.3f}"
            f"{row['max_ms']:>9.3f}{row['wire_9600_ms']:>10.2f} {row['wire_115200_ms']:>12.3f}"
        )
    worst = max(row["p99_ms"] for row in rows[:3])
    verdict = "met" if worst <= TARGET_P99_MS else "NOT met"
    print(f"target p99 <= {TARGET_P99_MS} ms: {verdict} (worst dialect p99 {worst:.3f} ms)")


if __name__ == "__main__":
    main()
