"""``tablectl math``: exact game mathematics by exhaustive enumeration."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from controller.cards import DECKS, Deck
from controller.hands import Ranking, count_categories
from controller.progress import ProgressBar


def register(subparsers: Any) -> None:
    """Add the ``math`` command group."""
    parser = subparsers.add_parser("math", help="exact game mathematics by enumeration")
    sub = parser.add_subparsers(dest="math_command", metavar="WHAT", required=True)
    counts = sub.add_parser(
        "counts",
        help="count every hand by category",
        description="Enumerate every hand of N cards from the deck and count each category.",
    )
    counts.add_argument("--cards", type=int, choices=(5, 6, 7), required=True, help="hand size")
    counts.add_argument(
        "--deck", choices=sorted(DECKS), default="standard", help="deck (default: standard)"
    )
    counts.add_argument(
        "--ranking",
        choices=[r.label for r in Ranking],
        default=None,
        help="category order (default: triple-action for the stripped28 deck, else standard)",
    )
    counts.add_argument("--json", action="store_true", help="print one JSON object")
    counts.set_defaults(run=run_counts)


def run_counts(args: argparse.Namespace) -> int:
    """Enumerate and print the category counts."""
    deck = Deck.named(args.deck)
    if args.ranking is not None:
        ranking = Ranking.named(args.ranking)
    else:
        ranking = Ranking.TRIPLE_ACTION if deck.name == "stripped28" else Ranking.STANDARD
    bar = ProgressBar(f"{args.cards}-card hands", sys.stderr)
    started = time.perf_counter()
    try:
        counts = count_categories(args.cards, deck, ranking, progress=bar)
    finally:
        bar.close()
    elapsed = time.perf_counter() - started
    total = sum(counts.values())
    if args.json:
        print(json.dumps({"total": total, "counts": {c.value: n for c, n in counts.items()}}))
        return 0
    print(f"{args.cards}-card hands from the {deck.description}, {ranking.label} ranking")
    for category, n in counts.items():
        print(f"  {category.title:<16} {n:>13,}  {n / total:8.4%}")
    print(f"  {'total':<16} {total:>13,}  ({elapsed:.2f} s)")
    return 0
