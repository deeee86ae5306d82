"""The game-mathematics report (``docs/math.md``), produced by the tool from the shipped config."""

from __future__ import annotations

from collections.abc import Callable
from math import comb

from controller.cards import STANDARD_52, STRIPPED_28
from controller.games import GAMES, GameId
from controller.games.base import Game
from controller.games.rtp import RtpResult, bets_of, rtp, triple_action_worst_bet
from controller.hands import Ranking, count_categories
from controller.work import JobMap, Progress

__all__ = ["EXPLANATIONS", "math_report"]

#: why our figure differs from (or matches) the seed's, per game and bet
EXPLANATIONS: dict[tuple[GameId, str], str] = {
    (GameId.TEXAS_HOLDEM_BONUS, "main"): (
        'The seed states 96.88% "based on below optimal strategy" (flop bet when it beats '
        "folding; turn and river bets when the chance of winning is over 50%). That figure matches "
        "no strategy: optimal play returns 97.96% of the ante (REFERENCE.md), and the seed's own "
        "rule, simulated here too (`--strategy seed`), returns about a quarter of a point less "
        "than optimal play, still well above 96.88%. The turn and river bets are each worth "
        "P(win) - P(lose) per unit whatever else happens, so betting exactly when winning is "
        'likelier than losing is optimal for them; the seed\'s "over 50%" rule also checks '
        "hands that win more often than they lose but tie often. Pre-flop both strategies fold "
        "only 2-3, 2-4, 2-5, 2-6, 2-7 and 3-4 off-suit."
    ),
    (GameId.TEXAS_HOLDEM_BONUS, "bonus"): (
        'Exactly the seed\'s 91.10%: 1208/1326, reading the "10-10 through 2-2" line as any '
        "pocket pair from deuces to tens (DESIGN.md)."
    ),
    (GameId.TEXAS_POKER, "main"): (
        "The seed publishes no return. With DESIGN.md's defaults for the lines its ante paytable "
        "omits (flush 2:1, straight 1:1) its rules pay exactly what Casino Hold'em pays: the "
        "no-game rule (ante 1:1 up to a straight, by the table from a flush, bet returned) is "
        "Casino Hold'em's rule for a dealer who does not qualify, and a hand that beats a dealer "
        "with a pair of fours or better always reaches the table's lowest line. So its return is "
        "Casino Hold'em's; a different flush or straight line changes that."
    ),
    (GameId.TEXAS_POKER, "bonus"): (
        "A flat 7:1 on a pair of aces or better in the first five cards (DESIGN.md): exactly "
        "87.01%, as REFERENCE.md gives."
    ),
    (GameId.ULTIMATE_TEXAS_HOLDEM, "main"): (
        "The seed gives 97.82% for the initial main bet (a house edge of 2.18% of the ante) and "
        "99.47% of the total stake; the published optimum is a 2.185% edge. We simulate the "
        "published strategy of REFERENCE.md, which simplifies the optimal one into a few rules: "
        "its return sits a few tenths of a point below the optimum, the price of the "
        "simplification, within the half point we hold it to. When the dealer does not qualify "
        "and beats the player, the call and Ante Plus lose (the standard rule; the seed says "
        "only that they are not paid)."
    ),
    (
        GameId.ULTIMATE_TEXAS_HOLDEM,
        "best-five",
    ): "Exactly the seed's 96.50% (96.502%, REFERENCE.md).",
    (GameId.CASINO_HOLDEM, "main"): (
        "The seed states 97.84% for optimal play. Our strategy calls when the call's expected "
        "value, from counted completions of the round, beats losing the ante."
    ),
    (GameId.CASINO_HOLDEM, "bonus"): "Exactly the seed's 93.74% (93.742%, REFERENCE.md).",
    (GameId.TRIPLE_ACTION_HOLDEM, "main"): (
        "Exact over every deal, always betting: 96.37% of the ante, the ante bonus contributing "
        "3.541 points, as REFERENCE.md gives. Always betting is optimal: over every pair of hole "
        "cards and every dealer up card, betting's expected value is above folding's -1 (its "
        "lowest value is shown below)."
    ),
    (GameId.TRIPLE_ACTION_HOLDEM, "bonus"): (
        "Exact: paytable A 95.64%, paytable B 94.61% (REFERENCE.md), ace high only as DESIGN.md "
        "decides (with an ace-low 8-9-T-J-A straight both tables would return over 100%)."
    ),
}

#: makes the bar of one computation, called by its label (or None: no bar)
NewBar = Callable[[str], Progress | None]

#: Ultimate's main game varies most per round and simulates fastest: it gets more rounds
ROUNDS_FACTOR = {GameId.ULTIMATE_TEXAS_HOLDEM: 5}


def _row(result: RtpResult) -> str:
    if result.method == "exact":
        how = "exact"
        interval = "—"
    else:
        assert result.ci95 is not None
        how = f"Monte Carlo, {result.hands:,} rounds ({result.strategy})"
        interval = f"{result.ci95[0]:.3%} – {result.ci95[1]:.3%}"
    published = "; ".join(f"{source}: {value:.3%}" for source, value in result.published) or "—"
    return (
        f"| {result.bet} | {how} | **{result.rtp:.4%}** | {interval} | {result.hit_frequency:.3%} "
        f"| {published} |"
    )


def math_report(
    load: Callable[[GameId, str | None], Game],
    *,
    hands: int,
    seed: int,
    map_jobs: JobMap = map,
    command: str,
    progress: NewBar | None = None,
) -> str:
    """The whole report as Markdown; ``load(game, bonus_variant)`` configures a game, and
    ``map_jobs`` runs the simulations' batches (see :func:`~controller.games.rtp.rtp`)."""
    out = [
        "# Game mathematics",
        "",
        f"Generated by `{command}` from the paytables in `config/games/`; do not edit by hand.",
        "Returns are per unit of the bet (the main game: per unit of the initial ante, every",
        "main-game spot included). Exact figures enumerate every outcome; simulated ones play",
        "whole rounds through the same settlement code that pays real players, with the dealer's",
        "hidden cards averaged out exactly, and give a 95% interval.",
        "",
        "## Hand counts",
        "",
        "| category | 5 of 52 | 7 of 52 | 5 of 28 (Triple Action) |",
        "|---|---:|---:|---:|",
    ]
    five = count_categories(5, map_jobs=map_jobs)
    seven = count_categories(7, map_jobs=map_jobs)
    stripped = count_categories(5, STRIPPED_28, Ranking.TRIPLE_ACTION, map_jobs=map_jobs)
    for category in five:
        counts = (five[category], seven[category], stripped[category])
        out.append(f"| {category.title} | " + " | ".join(f"{n:,}" for n in counts) + " |")
    out.append(f"| total | {comb(52, 5):,} | {comb(52, 7):,} | {comb(28, 5):,} |")
    out += ["", f"Decks: {STANDARD_52.description}; {STRIPPED_28.description}.", ""]
    for game_id in GameId:
        info = GAMES[game_id]
        game = load(game_id, None)
        out += [f"## {info.title} (`{game_id}`, seed {info.seed})", ""]
        out += [
            "| bet | method | return | 95% interval | hit frequency | published |",
            "|---|---|---:|---|---:|---|",
        ]
        notes: list[str] = []
        for bet in bets_of(game_id):
            bar = progress(f"{game_id} {bet}") if progress else None
            rounds = hands * ROUNDS_FACTOR.get(game_id, 1)
            result = rtp(game, bet, hands=rounds, seed=seed, map_jobs=map_jobs, progress=bar)
            out.append(_row(result))
            if game_id is GameId.TEXAS_HOLDEM_BONUS and bet == "main":
                bar = progress(f"{game_id} {bet}, the seed's strategy") if progress else None
                seed_play = rtp(
                    game, bet, hands=rounds, seed=seed, map_jobs=map_jobs, progress=bar,
                    strategy_name="seed",
                )  # fmt: skip
                out.append(_row(seed_play))
            for key, value in result.details.items():
                notes.append(f"- {bet}: {key.replace('_', ' ')} {value:.4%}")
            if game_id is GameId.TRIPLE_ACTION_HOLDEM and bet == "bonus":
                other = "B" if result.variant == "A" else "A"
                alt_result = rtp(load(game_id, other), bet)
                out.append(
                    _row(alt_result).replace("| bonus |", f"| bonus (paytable {other}) |", 1)
                )
        if game_id is GameId.TRIPLE_ACTION_HOLDEM:
            bar = progress("triple-action optimal play check") if progress else None
            worst, where = triple_action_worst_bet(game, bar)
            notes.append(
                f"- lowest expected value of betting, over every view: {worst:.4f} ante "
                f"({where}); folding is worth -1, so always betting is optimal"
            )
        out.append("")
        out += notes
        if notes:
            out.append("")
        for bet in bets_of(game_id):
            text = EXPLANATIONS.get((game_id, bet))
            if text:
                out += [f"**{bet}.** {text}", ""]
    return "\n".join(out).rstrip() + "\n"
