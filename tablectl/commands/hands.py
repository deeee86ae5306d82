"""``tablectl hands``: evaluate hands and name the winners, as a pit manager settles a dispute."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cards import format_cards
from controller.games import GameId, game
from controller.hands import HandValue, Ranking, evaluate, parse_hand, winners


def register(subparsers: Any) -> None:
    """Add the ``hands`` command."""
    parser = subparsers.add_parser(
        "hands",
        help="evaluate poker hands and name the winners",
        description=(
            "Evaluate each hand (5 to 7 space-separated card codes in one quoted argument) "
            "and name the best. Card codes: rank then suit, e.g. AS, td, 10h, A♠."
        ),
    )
    parser.add_argument(
        "hands", nargs="+", metavar="CARDS", help='one hand, e.g. "AS KS QH JD TC 2C 3C"'
    )
    parser.add_argument(
        "--game",
        choices=[g.value for g in GameId],
        help="rank and check the cards as this game does (Triple Action: 28 cards, own ranking)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate the hands and print them, best first marked."""
    ranking = Ranking.STANDARD
    deck = None
    if args.game:
        info = game(args.game)
        ranking, deck = info.ranking, info.deck
    values: list[HandValue] = []
    for text in args.hands:
        cards = parse_hand(text)
        if deck is not None:
            deck.check(cards)
        values.append(evaluate(cards, ranking))
    best = winners(values)
    if args.json:
        print(
            json.dumps(
                {"hands": [v.to_json() for v in values], "winners": best}, ensure_ascii=False
            )
        )
        return 0
    width = max(len(format_cards(v.cards)) for v in values)
    for i, v in enumerate(values):
        mark = "winner" if i in best else ""
        if i in best and len(best) > 1:
            mark = "tie"
        print(
            f"{i}  {format_cards(v.cards):<{width}}  {v.name:<34} "
            f"best five: {format_cards(v.best_five)}  {mark}".rstrip()
        )
    return 0
