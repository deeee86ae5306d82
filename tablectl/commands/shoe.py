"""``tablectl shoe monitor``: the field engineer's view of a card shoe, one event per line."""

from __future__ import annotations

import argparse
import json
import queue
import signal
import threading
import time
from collections import Counter
from types import FrameType
from typing import Any

from controller.errors import DeviceError, InvalidSpec
from drivers.shoe import Dialect, load_deck_map, make_codec
from drivers.shoe.events import CardRead, Connected, ShoeEvent, must_halt
from drivers.shoe.framed import FramedHostCodec, MessageType
from drivers.shoe.transport import SerialTransport

__all__ = ["register", "run_monitor"]


def register(subparsers: Any) -> None:
    """Add the ``shoe`` command group."""
    parser = subparsers.add_parser("shoe", help="card-shoe tools")
    sub = parser.add_subparsers(dest="shoe_command", metavar="WHAT", required=True)
    monitor = sub.add_parser(
        "monitor",
        help="decode a shoe's port and print every event",
        description=(
            "Open a shoe's port (a device path, socket://HOST:PORT or rfc2217://HOST:PORT), "
            "decode its dialect and print every event; a summary follows on Ctrl-C, "
            "SIGTERM, --count, --duration, or when the port closes under --no-reconnect."
        ),
    )
    monitor.add_argument("--port", required=True, help="device path or pyserial URL")
    monitor.add_argument(
        "--dialect", required=True, choices=[d.value for d in Dialect], help="wire dialect"
    )
    monitor.add_argument("--baud", type=int, default=None, help="9600 (uspc) or 115200 (others)")
    monitor.add_argument(
        "--deck-map", metavar="FILE", help="jsonl: tag uid to card table (default: the demo deck)"
    )
    monitor.add_argument("--json", action="store_true", help="one JSON object per line")
    monitor.add_argument("--count", type=int, default=None, help="stop after N cards")
    monitor.add_argument("--duration", type=float, default=None, help="stop after S seconds")
    monitor.add_argument(
        "--no-reconnect", action="store_true", help="end when the port closes (end of file)"
    )
    monitor.add_argument(
        "--identify", action="store_true", help="framed: ask the shoe for HELLO on every connect"
    )
    monitor.set_defaults(run=run_monitor)


def _describe(event: ShoeEvent) -> str:
    fields = event.to_dict()
    kind = fields.pop("event")
    parts = [f"{k}={v}" for k, v in fields.items() if v not in (None, "", False, [])]
    flag = "  HALT" if must_halt(event) else ""
    return f"{kind:<17} {' '.join(parts)}{flag}"


def run_monitor(args: argparse.Namespace) -> int:
    """Decode the port until stopped; print events and a summary."""
    dialect = Dialect(args.dialect)
    if args.identify and dialect is not Dialect.FRAMED:
        raise InvalidSpec(
            f"--identify needs the framed dialect; a {dialect.value} shoe has no command"
        )
    deck_map = load_deck_map(args.deck_map) if args.deck_map else None
    baud = args.baud or (9600 if dialect is Dialect.USPC else 115200)
    events: queue.SimpleQueue[ShoeEvent] = queue.SimpleQueue()
    codec = make_codec(dialect, deck_map)
    transport = SerialTransport(
        args.port,
        codec,
        events.put,
        baudrate=baud,
        reconnect=not args.no_reconnect,
    )
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    started = time.monotonic()
    counts: Counter[str] = Counter()
    halts = 0
    connected = False
    transport.start()
    try:
        while not stop.is_set():
            if args.duration is not None and time.monotonic() - started >= args.duration:
                break
            try:
                event = events.get(timeout=0.05)
            except queue.Empty:
                if transport.finished.is_set() and events.empty():
                    break
                continue
            counts[event.kind.value] += 1
            halts += must_halt(event)
            if isinstance(event, Connected):
                connected = True
                if args.identify and isinstance(codec, FramedHostCodec):
                    transport.send(codec.command(MessageType.IDENTIFY))
            elapsed = time.monotonic() - started
            if args.json:
                record = {**event.to_dict(), "t": round(elapsed, 4)}
                print(json.dumps(record), flush=True)
            else:
                print(f"{elapsed:9.3f}  {_describe(event)}", flush=True)
            if (
                args.count is not None
                and isinstance(event, CardRead)
                and counts["card"] >= args.count
            ):
                break
    finally:
        transport.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    status = transport.status()
    if args.no_reconnect and not connected:
        raise DeviceError(status.last_error or f"cannot open {args.port}")
    summary = {
        "event": "summary",
        "port": args.port,
        "dialect": dialect.value,
        "seconds": round(time.monotonic() - started, 3),
        "cards": counts["card"],
        "halting_events": halts,
        "events": dict(sorted(counts.items())),
        "status": status.to_dict(),
        "codec": transport.codec.stats.as_dict(),
    }
    if args.json:
        print(json.dumps(summary), flush=True)
    else:
        print(
            f"summary: {summary['cards']} cards, {halts} halting events, "
            f"{status.frames} messages, {status.errors} errors, {status.reconnects} reconnects "
            f"in {summary['seconds']} s",
            flush=True,
        )
        for kind, n in summary["events"].items():
            print(f"  {kind:<17} {n}", flush=True)
    return 0
