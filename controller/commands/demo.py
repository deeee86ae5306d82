"""``tablectl demo``: deal shuffled rounds of every game in table order and show each showdown."""

from __future__ import annotations

import argparse
import random
from collections import Counter
from typing import Any

from controller.cards import format_cards
from controller.games import GAMES, GameId, Seating, game
from controller.showdown import Outcome, deal_showdown


def register(subparsers: Any) -> None:
    """Add the ``demo`` command."""
    parser = subparsers.add_parser(
        "demo",
        help="deal seeded rounds of every game and show each showdown",
        description=(
            "Shuffle, deal in table order (one card at a time round the boxes, then the dealer, "
            "twice; then the board), evaluate every hand, check the dealer's qualification and "
            "show who beats whom, for each game."
        ),
    )
    parser.add_argument(
        "--game", choices=[g.value for g in GameId], help="one game only (default: all five)"
    )
    parser.add_argument(
        "--hands", type=int, default=3, metavar="N", help="rounds per game (default: 3)"
    )
    parser.add_argument("--seed", type=int, default=2026, help="shuffle seed (default: 2026)")
    parser.add_argument(
        "--boxes", type=int, default=3, help="player boxes at a boxes table (default: 3)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Deal and print the rounds, then a tally per game."""
    rng = random.Random(args.seed)
    games = [game(args.game)] if args.game else list(GAMES.values())
    for info in games:
        boxes = args.boxes if info.seating is Seating.BOXES else 1
        qualifier = info.dealer_qualifier.describe() if info.dealer_qualifier else "none"
        print(
            f"\n=== {info.title} ({info.id}, seed {info.seed}) — dealer qualifies with: {qualifier}"
        )
        tally: Counter[str] = Counter()
        for number in range(1, args.hands + 1):
            round_ = deal_showdown(info, boxes, rng)
            dealer = round_.dealer
            q = (
                ""
                if info.dealer_qualifier is None
                else ("  qualifies" if round_.dealer_qualifies else "  does NOT qualify")
            )
            print(f"round {number}: board {format_cards(round_.board, pretty=True)}")
            print(f"  dealer  {format_cards(dealer.hole, pretty=True):<8} {dealer.value.name}{q}")
            for i, seat in enumerate(round_.boxes):
                outcome = round_.outcome(i)
                tally[outcome] += 1
                label = seat.name if info.seating is Seating.BOXES else "player"
                shown = {
                    Outcome.WIN: "beats the dealer",
                    Outcome.LOSE: "loses",
                    Outcome.TIE: "ties",
                }
                print(
                    f"  {label:<7} {format_cards(seat.hole, pretty=True):<8} {seat.value.name:<32} "
                    f"{shown[outcome]}  [{format_cards(seat.value.best_five)}]"
                )
            if not round_.dealer_qualifies:
                tally["dealer did not qualify"] += 1
        summary = ", ".join(f"{k}: {v}" for k, v in sorted(tally.items()))
        print(f"  tally — {summary}")
    return 0
