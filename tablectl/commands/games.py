"""``tablectl games``: each game's deal script, bet spots, limits and paytables, as configured."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from config.schema import load_game
from controller.games import GameId
from controller.games.base import Game
from controller.games.paytable import format_odds
from controller.games.rules import format_amount


def register(subparsers: Any) -> None:
    """Add the ``games`` command."""
    parser = subparsers.add_parser(
        "games",
        help="show each game's deal script, bet spots, limits and paytables",
        description="Print how each game is dealt and paid, from the shipped configuration.",
    )
    parser.add_argument("game", nargs="?", choices=[g.value for g in GameId], help="one game only")
    parser.add_argument("--json", action="store_true", help="print one JSON object per game")
    parser.set_defaults(run=run)


def describe(game: Game) -> dict[str, object]:
    """One game as plain data."""
    info = game.info
    cfg = game.config
    return {
        "game": info.id.value,
        "title": info.title,
        "seed": info.seed,
        "deck": info.deck.name,
        "ranking": info.ranking.label,
        "dealer_qualifies_with": info.dealer_qualifier.describe()
        if info.dealer_qualifier
        else None,
        "seating": [s.value for s in cfg.seating],
        "script": game.script.describe(),
        "initial_spots": [s.value for s in game.initial_spots],
        "limits": {
            spot.value: {
                "min": format_amount(lm.minimum),
                "max": format_amount(lm.maximum),
                "step": format_amount(lm.step),
                **({"at_most": lm.at_most.value} if lm.at_most else {}),
            }
            for spot, lm in cfg.limits.items()
        },
        "table_max_payout": format_amount(cfg.table_max_payout) if cfg.table_max_payout else None,
        "paytables": {
            role: {
                "variant": table.name,
                **{k: format_odds(v) for k, v in table.odds_by_line().items()},
            }
            for role, table in cfg.paytables.items()
        },
        "rules": {k: game.option(k) for k in game.options_defaults},
        "buttons": dataclasses.asdict(cfg.buttons) if cfg.buttons else None,
        "change_deck_each_game": cfg.change_deck_each_game,
    }


def run(args: argparse.Namespace) -> int:
    """Print the games."""
    ids = [GameId(args.game)] if args.game else list(GameId)
    for game_id in ids:
        game = load_game(game_id)
        if args.json:
            print(json.dumps(describe(game)))
            continue
        info, cfg = game.info, game.config
        qualifier = (
            info.dealer_qualifier.describe() if info.dealer_qualifier else "no qualification"
        )
        print(f"{info.title} ({info.id}, seed {info.seed})")
        seating = ", ".join(s.value for s in cfg.seating)
        print(f"  deck {info.deck.name}, ranking {info.ranking.label}, seating {seating}")
        if cfg.change_deck_each_game:
            print("  a new deck for each game: betting closes only once the deck was changed")
        print(f"  dealer qualifies with: {qualifier}")
        for i, step in enumerate(game.script.describe(), 1):
            print(f"  {i}. {step}")
        for spot, lm in cfg.limits.items():
            cap = f", at most the {lm.at_most}" if lm.at_most else ""
            print(
                f"  {spot}: {format_amount(lm.minimum)} to {format_amount(lm.maximum)} "
                f"in steps of {format_amount(lm.step)}{cap}"
            )
        if cfg.table_max_payout:
            cap_text = format_amount(cfg.table_max_payout)
            print(f"  table maximum payout (side bets excluded): {cap_text}")
        for role, table in cfg.paytables.items():
            odds = ", ".join(f"{k} {format_odds(v)}" for k, v in table.odds_by_line().items())
            print(f"  paytable {role} ({table.name}): {odds}")
        if cfg.buttons:
            for line in cfg.buttons.describe():
                print(f"  button {line}")
        print()
    return 0
