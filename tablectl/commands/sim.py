"""``tablectl sim``: hardware simulators that speak the real wire protocols."""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import threading
from collections import Counter
from types import FrameType
from typing import Any

from controller.cards import DECKS, STANDARD_52
from drivers.shoe import Dialect, load_deck_map
from simulators.shoe import FaultSpec, ShoeSimulator, load_stack
from simulators.shoe.faults import __doc__ as FAULTS_DOC
from tablectl.workers import int_from, number_from

__all__ = ["register", "run_shoe"]

#: the most decks one run deals (a real shoe holds up to 8)
MAX_DECKS = 1000
#: the fastest deal, cards per second
MAX_RATE = 1000


def register(subparsers: Any) -> None:
    """Add the ``sim`` command group."""
    parser = subparsers.add_parser("sim", help="hardware simulators")
    sub = parser.add_subparsers(dest="sim_command", metavar="WHAT", required=True)
    shoe = sub.add_parser(
        "shoe",
        help="a virtual card shoe on a pseudo-terminal or TCP port",
        # kept as written (the list in the epilog), so lines are broken here
        description=(
            "Run a virtual card shoe. The first line printed is the device to open (a path,\n"
            "or socket://127.0.0.1:PORT); then it deals until every card is dealt\n"
            "(--exit-when-done) or until Ctrl-C / SIGTERM."
        ),
        # the fault module's description of SPEC, literal markup as quotes, examples left out
        epilog=(FAULTS_DOC or "").split("\n\n", 1)[-1].split("\n>>>", 1)[0].replace("``", "'"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shoe.add_argument("--dialect", required=True, choices=[d.value for d in Dialect])
    shoe.add_argument(
        "--link", default="pty", help="pty, pty:SYMLINK_PATH or tcp:PORT (127.0.0.1; 0 = any)"
    )
    order = shoe.add_mutually_exclusive_group()
    order.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random)")
    order.add_argument("--stack", metavar="FILE", help="deal the cards of FILE in order")
    shoe.add_argument(
        "--decks",
        type=int_from(1, MAX_DECKS),
        default=1,
        metavar="N",
        help=f"shuffled decks to deal, 1 to {MAX_DECKS} (default 1)",
    )
    shoe.add_argument(
        "--deck",
        choices=sorted(DECKS),
        default=STANDARD_52.name,
        help="which deck: standard, or stripped28 for Triple Action Hold'em (default standard)",
    )
    shoe.add_argument(
        "--rate",
        type=number_from(0, MAX_RATE),
        default=2.0,
        help=f"cards per second, 0 = instant, at most {MAX_RATE} (default 2)",
    )
    shoe.add_argument("--faults", default="", metavar="SPEC", help="fault injection, see below")
    shoe.add_argument("--deck-map", metavar="FILE", help="jsonl: tag table (default: demo deck)")
    shoe.add_argument("--exit-when-done", action="store_true", help="exit once every card is dealt")
    shoe.set_defaults(run=run_shoe)


def run_shoe(args: argparse.Namespace) -> int:
    """Run the simulator until done or stopped."""
    dialect = Dialect(args.dialect)
    faults = FaultSpec.parse(args.faults, dialect)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    cards = load_stack(args.stack) if args.stack else None
    deck_map = load_deck_map(args.deck_map) if args.deck_map else None
    sim = ShoeSimulator(
        dialect,
        link=args.link,
        cards=cards,
        seed=seed,
        decks=args.decks,
        deck=DECKS[args.deck],
        rate=args.rate,
        faults=faults,
        deck_map=deck_map,
    )
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        print(sim.start(), flush=True)
        print(f"shoe: {dialect.value}, {sim.total_cards} cards, seed {seed}", file=sys.stderr)
        while not stop.is_set():
            if sim.done.wait(0.1) and (args.exit_when_done or sim.error is not None):
                stop.wait(0.3)  # let the host take the last bytes
                break
    finally:
        sim.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    fates = Counter(d.fate.value for d in sim.log)
    print(
        json.dumps(
            {
                "drawn": len(sim.log),
                "fates": dict(fates),
                "disconnects": sim.disconnects,
                "reboots": sim.reboots,
                "seed": seed,
            }
        ),
        file=sys.stderr,
    )
    if sim.error is not None:
        raise sim.error
    return 0
