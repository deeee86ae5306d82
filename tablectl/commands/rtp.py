"""``tablectl rtp``: the return to player of a game's bet, exact or simulated, beside the seed's."""

from __future__ import annotations

import argparse
import json
from typing import Any

from config.schema import load_game
from controller.errors import UnknownName
from controller.games import GameId
from controller.games.base import Game, GameConfig
from controller.games.paytable import parse_odds
from controller.games.rtp import RtpResult, bets_of, rtp
from tablectl.progress import Bars
from tablectl.workers import MAX_WORKERS, int_from, processes

BETS = ("main", "bonus", "best-five")

#: the most rounds one simulation plays (about an hour on two processes with the C kernel)
MAX_HANDS = 10**9


def register(subparsers: Any) -> None:
    """Add the ``rtp`` command."""
    parser = subparsers.add_parser(
        "rtp",
        help="return to player of a bet: exact enumeration or Monte Carlo",
        description=(
            "Return to player of one bet. BET is 'main' (every main-game spot together, per unit "
            "of the initial ante) or the side bet: 'bonus' (texas-holdem-bonus, texas-poker, "
            "casino-holdem, triple-action-holdem) or 'best-five' (ultimate-texas-holdem). Bets "
            "that need no strategy are enumerated exactly; the others are simulated with a "
            "strategy and reported with a 95% interval."
        ),
    )
    parser.add_argument("--game", required=True, choices=[g.value for g in GameId])
    parser.add_argument("--bet", required=True, choices=BETS)
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--exact", action="store_true", help="enumerate exactly (refused if impossible)"
    )
    how.add_argument(
        "--hands",
        type=int_from(1, MAX_HANDS),
        metavar="N",
        help=f"simulate N rounds, 1 to {MAX_HANDS} (default: exact where possible)",
    )
    parser.add_argument("--seed", type=int, default=1, help="simulation seed (default: 1)")
    parser.add_argument("--strategy", help="player strategy for the main game (default: optimal)")
    parser.add_argument("--paytable", help="paytable variant, e.g. A or B for triple-action-holdem")
    parser.add_argument(
        "--pay",
        action="append",
        default=[],
        metavar="SPOT.LINE=ODDS",
        help="override one paytable line, e.g. best-five.flush=6 or bonus.full_house=8:1",
    )
    parser.add_argument(
        "--workers",
        type=int_from(1, MAX_WORKERS),
        default=2,
        metavar="N",
        help=f"processes for simulation, 1 to {MAX_WORKERS} (default: 2)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def configure(game_id: str, paytable: str | None, pays: list[str]) -> Game:
    """Load ``game_id`` with a paytable variant and line overrides applied."""
    game = load_game(game_id)
    if paytable is not None:
        from config.schema import GAMES_DIR, load_game_file

        model = load_game_file(GAMES_DIR / f"{game_id}.toml")
        roles = {role: paytable for role, pt in model.paytables.items() if paytable in pt.variants}
        if not roles:
            variants = sorted({v for pt in model.paytables.values() for v in pt.variants})
            raise UnknownName(
                f"{game_id} has no paytable variant {paytable!r}: expected one of {variants}"
            )
        game = load_game(game_id, variants=roles)
    if not pays:
        return game
    tables = dict(game.config.paytables)
    for item in pays:
        target, sep, odds_text = item.partition("=")
        role, dot, line = target.partition(".")
        if not sep or not dot:
            raise UnknownName(
                f"bad --pay {item!r}: expected SPOT.LINE=ODDS, e.g. best-five.flush=6"
            )
        role = role.replace("-", "_")
        if role not in tables:
            raise UnknownName(
                f"bad --pay {item!r}: {game_id} has no paytable {role!r}: "
                f"expected one of {', '.join(tables)}"
            )
        odds = parse_odds(odds_text if ":" in odds_text or "to" in odds_text else f"{odds_text}:1")
        tables[role] = tables[role].with_odds(line, odds)
    config = game.config
    return type(game)(
        GameConfig(config.limits, tables, config.seating, config.table_max_payout, config.options)
    )


def run(args: argparse.Namespace) -> int:
    """Compute and print the return."""
    game = configure(args.game, args.paytable, args.pay)
    if args.bet not in bets_of(game.info.id):
        raise UnknownName(
            f"{args.game} has no bet {args.bet!r}: "
            f"expected one of {', '.join(bets_of(game.info.id))}"
        )
    with Bars() as bars, processes(args.workers) as map_jobs:
        result = rtp(
            game,
            args.bet,
            exact=True if args.exact else (False if args.hands else None),
            hands=args.hands or 200_000,
            seed=args.seed,
            strategy_name=args.strategy,
            map_jobs=map_jobs,
            progress=bars.bar(f"{args.game} {args.bet}", "hands"),
            modified=bool(args.pay),
        )
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(describe(result))
    return 0


def describe(result: RtpResult) -> str:
    """The text report of one result, with published figures beside ours."""
    lines = [
        f"{result.game} {result.bet}: return to player {result.rtp:.4%} "
        f"(house edge {result.house_edge:.4%})"
    ]
    if result.method == "exact":
        exact = result.exact
        fraction = f" = {exact.numerator}/{exact.denominator}" if exact is not None else ""
        lines.append(f"  exact enumeration of {result.hands:,} outcomes{fraction}")
    else:
        assert result.ci95 is not None
        lo, hi = result.ci95
        lines.append(
            f"  Monte Carlo, {result.hands:,} rounds, strategy {result.strategy}: 95% interval "
            f"{lo:.4%} to {hi:.4%}"
        )
    lines.append(f"  hit frequency {result.hit_frequency:.4%}")
    for key, value in result.details.items():
        lines.append(f"  {key.replace('_', ' ')}: {value:.4%}")
    if result.modified:
        lines.append("  paytable changed with --pay: published figures do not apply")
    for source, figure in result.published:
        lines.append(f"  {source}: {figure:.4%} (ours {100 * (result.rtp - figure):+.3f} points)")
    return "\n".join(lines)
