"""``tablectl deal``: deal, decide and settle seeded rounds of every game offline, and show each."""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction
from typing import Any

from config.schema import load_game
from controller.cards import format_cards
from controller.games import GameId, Seating
from controller.games.base import Game
from controller.games.rules import (
    RoundCards,
    Settlement,
    Spot,
    format_amount,
)
from controller.games.strategy import View, strategy
from controller.showdown import Showdown, deal_showdown
from tablectl.workers import int_from

#: the most rounds dealt per game (each is printed)
MAX_HANDS = 100_000


def register(subparsers: Any) -> None:
    """Add the ``deal`` command."""
    parser = subparsers.add_parser(
        "deal",
        help="deal, decide and settle seeded rounds of every game",
        description=(
            "Shuffle and deal in table order (one card at a time round the boxes, then the "
            "dealer, twice; then the board); simulated players bet the table minimum plus the "
            "side bet and decide by the game's published strategy; every box is settled line "
            "by line from the shipped paytables."
        ),
    )
    parser.add_argument(
        "--game", choices=[g.value for g in GameId], help="one game only (default: all five)"
    )
    parser.add_argument(
        "--hands",
        type=int_from(1, MAX_HANDS),
        default=3,
        metavar="N",
        help=f"rounds per game, 1 to {MAX_HANDS} (default: 3)",
    )
    parser.add_argument("--seed", type=int, default=2026, help="shuffle seed (default: 2026)")
    parser.add_argument(
        "--boxes",
        type=int,
        default=None,
        metavar="N",
        help="player boxes at a boxes table (default: 3); a studio game has one shared hand",
    )
    parser.set_defaults(run=run)


def _has_boxes(game: Game) -> bool:
    """Whether ``game`` is played on boxes (a studio game deals one shared hand)."""
    return Seating.BOXES in game.config.seating and game.info.seating is Seating.BOXES


def decide(game: Game, round_: Showdown, box: int, seed: int) -> list[str]:
    """The simulated player's decisions for one box, seeing only what the rules show."""
    play = strategy(game.info.id)
    hole = round_.boxes[box].hole
    decisions: list[str] = []
    bets = {Spot.ANTE: Fraction(1)}
    for name, board_seen, dealer_up in game.script.views():
        walk = game.walk(bets, decisions)
        if walk.pending is None or walk.pending.name != name:
            continue
        up = round_.dealer.hole[:1] if dealer_up else ()
        view = View(game, hole, round_.board[:board_seen], up, seed)
        decisions.append(play.decide(name, view))
    return decisions


def show(settlement: Settlement) -> str:
    """One box's settlement lines in a row."""
    parts = []
    for line in settlement.lines:
        if line.result.value == "win":
            parts.append(f"{line.spot} +{format_amount(line.paid)}")
        elif line.result.value == "push":
            parts.append(f"{line.spot} push")
        else:
            parts.append(f"{line.spot} -{format_amount(line.stake)}")
    return ", ".join(parts)


def run(args: argparse.Namespace) -> int:
    """Deal, decide, settle and print the rounds, then a tally per game."""
    rng = random.Random(args.seed)
    ids = [GameId(args.game)] if args.game else list(GameId)
    games = [load_game(game_id) for game_id in ids]
    studio = [g.info.id for g in games if not _has_boxes(g)]
    if args.boxes is not None and len(studio) == len(games):
        print(
            f"tablectl deal: --boxes {args.boxes}: expected a game played on boxes "
            f"({', '.join(g.value for g in GameId if _has_boxes(load_game(g)))}); "
            f"{', '.join(studio)} is dealt to one shared hand",
            file=sys.stderr,
        )
        return 2
    if args.boxes is not None and args.boxes < 1:
        print(f"tablectl deal: --boxes: expected 1 or more; got {args.boxes}", file=sys.stderr)
        return 2
    for game in games:
        info = game.info
        boxes = (args.boxes or 3) if _has_boxes(game) else 1
        qualifier = info.dealer_qualifier.describe() if info.dealer_qualifier else "none"
        print(
            f"\n=== {info.title} ({info.id}, seed {info.seed}) — dealer qualifies with: {qualifier}"
        )
        if args.boxes is not None and not _has_boxes(game):
            print(f"(--boxes {args.boxes} not used: a studio game deals one shared hand)")
        side = next(s for s in game.initial_spots if s is not Spot.ANTE)
        bets = {
            Spot.ANTE: game.config.limits[Spot.ANTE].minimum,
            side: game.config.limits[side].minimum,
        }
        staked = returned = Fraction(0)
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
                decisions = decide(game, round_, i, args.seed + number)
                cards = RoundCards(seat.hole, dealer.hole, round_.board)
                settlement = game.settle(cards, bets, decisions)
                staked += settlement.staked
                returned += settlement.returned
                label = seat.name if boxes > 1 else "player"
                hand = f"{format_cards(seat.hole, pretty=True):<8} {seat.value.name:<30}"
                net = format_amount(settlement.net)
                print(
                    f"  {label:<7} {hand} {'/'.join(decisions):<22} {show(settlement)}  net {net}"
                )
        print(
            f"  staked {format_amount(staked)}, returned {format_amount(returned)}, "
            f"player result {format_amount(returned - staked)}"
        )
    return 0
