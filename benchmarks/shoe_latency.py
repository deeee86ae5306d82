"""Shoe decode latency: last byte of a frame written to a pty -> decoded event in the consumer.

For each dialect the frame is written to a real pseudo-terminal in two writes, all but its
last byte first; the clock starts as the last byte is written and stops inside the event
callback of the real transport (pyserial read thread, codec, callback). Beside it: a bare
baseline measured the same way in the same run (a thread blocked reading the pty, no pyserial,
no codec), and the time the frame takes on a real wire at 9600 and 115200 baud (8N1). The
paths take turns frame by frame, so each sees the same load on the machine.

    python benchmarks/shoe_latency.py [--frames N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import statistics
import threading
import time
import tty
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


class Path:
    """One measured path: a pty, a reader at its other end, and the frames to send."""

    def __init__(self, label: str, frames: list[bytes]) -> None:
        self.label = label
        self.frames = frames
        self.master, self.name = open_pty()
        self.arrived: list[int] = []
        self.signal = threading.Event()
        self.latencies: list[float] = []

    def mark(self) -> None:
        """Called by the reader when a frame is complete."""
        self.arrived.append(time.perf_counter_ns())
        self.signal.set()

    def send(self, i: int) -> None:
        """Write frame ``i`` in two parts and time its last byte to the reader's mark."""
        frame = self.frames[i % len(self.frames)]
        self.signal.clear()
        os.write(self.master, frame[:-1])
        time.sleep(0.0005)  # let the reader take the head: the last byte arrives on its own
        start = time.perf_counter_ns()
        os.write(self.master, frame[-1:])
        if not self.signal.wait(1.0):
            raise RuntimeError(f"{self.label}: no event within a second")
        self.latencies.append((self.arrived[-1] - start) / 1e6)
        drain(self.master)  # acknowledgements the host wrote back

    def close(self) -> None:
        """Release the pty."""
        os.close(self.master)


class TransportPath(Path):
    """The real thing: SerialTransport with the dialect's codec, events to a callback."""

    def __init__(self, dialect: str, n: int) -> None:
        super().__init__(dialect, [frame_for(dialect, i) for i in range(n)])
        connected = threading.Event()

        def on_event(event: ShoeEvent) -> None:
            if isinstance(event, Connected):
                connected.set()
            elif event.kind.value in ("card", "duplicate_card"):
                self.mark()

        self.transport = SerialTransport(
            self.name, make_codec(dialect, DECK), on_event, baudrate=115200
        )
        self.transport.start()
        if not connected.wait(5):
            raise RuntimeError(f"could not open {self.name}")
        time.sleep(0.05)
        os.write(self.master, preamble(dialect))
        time.sleep(0.05)

    def close(self) -> None:
        """Stop the transport and release the pty."""
        self.transport.stop()
        super().close()


class BaselinePath(Path):
    """The floor: a thread blocked reading the pty wakes and marks each complete frame."""

    def __init__(self, size: int) -> None:
        super().__init__("baseline: bare pty read", [b"x" * size])
        self.reader = os.open(self.name, os.O_RDWR | os.O_NOCTTY)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        got = 0
        size = len(self.frames[0])
        while not self.stop.is_set():
            if not select.select([self.reader], [], [], 0.05)[0]:
                continue
            got += len(os.read(self.reader, 4096))
            if got % size == 0:
                self.mark()

    def close(self) -> None:
        """Stop the reader thread and release the pty."""
        self.stop.set()
        self.thread.join(1)
        os.close(self.reader)
        super().close()


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
    paths: list[Path] = [TransportPath(d, args.frames) for d in ("framed", "uspc", "jsonl")]
    paths.append(BaselinePath(16))
    try:
        for i in range(args.frames):  # round-robin: every path sees the same machine load
            for path in paths:
                path.send(i)
                time.sleep(0.0003)
    finally:
        for path in paths:
            path.close()
    for path in paths:
        size = len(path.frames[0])
        values = path.latencies
        rows.append(
            {
                "path": path.label,
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
