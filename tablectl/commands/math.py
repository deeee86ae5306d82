"""``tablectl math``: exact game mathematics by exhaustive enumeration."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from config.files import output_file, write_text
from controller.cards import DECKS, Deck
from controller.games import GameId
from controller.games.base import Game
from controller.hands import Ranking, count_categories
from tablectl.commands.rtp import MAX_HANDS
from tablectl.progress import Bars
from tablectl.workers import MAX_WORKERS, int_from, processes, threads


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
    counts.add_argument(
        "--workers",
        type=int_from(1, MAX_WORKERS),
        default=2,
        metavar="N",
        help=f"threads, 1 to {MAX_WORKERS} (default: 2)",
    )
    counts.add_argument("--json", action="store_true", help="print one JSON object")
    counts.set_defaults(run=run_counts)
    report = sub.add_parser(
        "report",
        help="write the game-mathematics report (docs/math.md)",
        description="Compute every game's returns from the shipped config and write the report.",
    )
    report.add_argument(
        "--hands",
        type=int_from(1, MAX_HANDS),
        default=200_000,
        metavar="N",
        help=f"rounds per simulated bet, 1 to {MAX_HANDS} (default: 200000)",
    )
    report.add_argument("--seed", type=int, default=1, help="simulation seed (default: 1)")
    report.add_argument(
        "--workers",
        type=int_from(1, MAX_WORKERS),
        default=2,
        metavar="N",
        help=f"processes, 1 to {MAX_WORKERS} (default: 2)",
    )
    report.add_argument("--out", type=Path, default=Path("docs/math.md"), help="output file")
    report.set_defaults(run=run_report)


def run_report(args: argparse.Namespace) -> int:
    """Compute the report and write it."""
    from config.schema import load_game
    from controller.games.report import math_report

    def load(game: GameId, bonus_variant: str | None) -> Game:
        return load_game(game, variants={"bonus": bonus_variant} if bonus_variant else None)

    output_file(args.out, "--out")
    command = f"tablectl math report --hands {args.hands} --seed {args.seed}"
    with Bars() as bars, processes(args.workers) as map_jobs:
        text = math_report(
            load, hands=args.hands, seed=args.seed, map_jobs=map_jobs, command=command,
            progress=lambda label: bars.bar(label, "hands"),
        )  # fmt: skip
    write_text(args.out, text, "--out")
    print(f"wrote {args.out}")
    return 0


def run_counts(args: argparse.Namespace) -> int:
    """Enumerate and print the category counts."""
    deck = Deck.named(args.deck)
    if args.ranking is not None:
        ranking = Ranking.named(args.ranking)
    else:
        ranking = Ranking.TRIPLE_ACTION if deck.name == "stripped28" else Ranking.STANDARD
    started = time.perf_counter()
    with Bars() as bars, threads(args.workers) as map_jobs:
        bar = bars.bar(f"{args.cards}-card hands", "hands")
        counts = count_categories(args.cards, deck, ranking, map_jobs=map_jobs, progress=bar)
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
