"""Return to player of every bet: exact enumeration where no strategy is needed, else Monte Carlo.

Every figure is computed through the same rules objects that settle real rounds: exact
side-bet returns from the paytables in config and exhaustive hand counts, the Triple Action
main game by enumerating every deal, and strategy-dependent main games by simulating whole
rounds through :meth:`Game.settle` with a published strategy, with a 95% interval.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from controller import _handeval
from controller.cards import Card, Deck
from controller.errors import UnknownName
from controller.games import GameId
from controller.games.base import Game, Walk
from controller.games.paytable import HandPaytable
from controller.games.rules import RoundCards, Spot
from controller.games.strategy import DEFAULT_STRATEGY, View, strategy
from controller.games.texas_holdem_bonus import bonus_line
from controller.hands import (
    Category,
    Qualifier,
    Ranking,
    count_categories,
    evaluate,
    strength_batch,
)
from controller.work import JobMap, Progress

__all__ = ["PUBLISHED", "RtpResult", "bets_of", "rtp"]

#: the side bet each game offers, as named on the command line
SIDE_BETS: dict[GameId, tuple[str, Spot]] = {
    GameId.TEXAS_HOLDEM_BONUS: ("bonus", Spot.BONUS),
    GameId.TEXAS_POKER: ("bonus", Spot.BONUS),
    GameId.ULTIMATE_TEXAS_HOLDEM: ("best-five", Spot.BEST_FIVE),
    GameId.CASINO_HOLDEM: ("bonus", Spot.BONUS),
    GameId.TRIPLE_ACTION_HOLDEM: ("bonus", Spot.BONUS),
}

#: published figures to set beside ours: (source, return, paytable variant it is for or None)
PUBLISHED: dict[tuple[GameId, str], tuple[tuple[str, float, str | None], ...]] = {
    (GameId.TEXAS_HOLDEM_BONUS, "main"): (
        ("seed 000", 0.9688, None),
        ("published, optimal play", 0.9796, None),
    ),
    (GameId.TEXAS_HOLDEM_BONUS, "bonus"): (
        ("seed 000", 0.9110, None),
        ("REFERENCE, exact 1208/1326", 1208 / 1326, None),
    ),
    (GameId.TEXAS_POKER, "bonus"): (("REFERENCE, exact", 0.8701, None),),
    (GameId.ULTIMATE_TEXAS_HOLDEM, "main"): (
        ("seed 002, initial main bet", 0.9782, None),
        ("published, optimal play", 1 - 0.02185, None),
    ),
    (GameId.ULTIMATE_TEXAS_HOLDEM, "best-five"): (
        ("seed 002", 0.9650, None),
        ("REFERENCE, exact", 0.96502, None),
    ),
    (GameId.CASINO_HOLDEM, "main"): (
        ("seed 003", 0.9784, None),
        ("published, optimal play", 0.9784, None),
    ),
    (GameId.CASINO_HOLDEM, "bonus"): (
        ("seed 003", 0.9374, None),
        ("REFERENCE, exact", 0.93742, None),
    ),
    (GameId.TRIPLE_ACTION_HOLDEM, "main"): (("REFERENCE, exact, always bet", 0.9637, None),),
    (GameId.TRIPLE_ACTION_HOLDEM, "bonus"): (
        ("REFERENCE, exact, paytable A", 0.9564, "A"),
        ("REFERENCE, exact, paytable B", 0.9461, "B"),
    ),
}


def bets_of(game: GameId) -> tuple[str, ...]:
    """The BET names ``tablectl rtp`` accepts for ``game``."""
    return ("main", SIDE_BETS[game][0])


@dataclass(frozen=True, slots=True)
class RtpResult:
    """One bet's return to player, how it was found, and the figures published beside it."""

    game: GameId
    bet: str
    rtp: float
    hit_frequency: float
    method: str  # "exact" or "monte-carlo"
    hands: int
    exact: Fraction | None = None
    ci95: tuple[float, float] | None = None
    strategy: str | None = None
    paytables: dict[str, dict[str, str]] = field(default_factory=dict)
    details: dict[str, float] = field(default_factory=dict)
    variant: str | None = None  # the side bet's paytable variant
    modified: bool = False  # a paytable line was changed: published figures do not apply

    @property
    def house_edge(self) -> float:
        """One minus the return."""
        return 1.0 - self.rtp

    @property
    def published(self) -> tuple[tuple[str, float], ...]:
        """Published figures for this bet and paytable, to set beside ours."""
        if self.modified:
            return ()
        return tuple(
            (source, value)
            for source, value, variant in PUBLISHED.get((self.game, self.bet), ())
            if variant is None or variant == self.variant
        )

    def to_json(self) -> dict[str, object]:
        """The JSON form of ``tablectl rtp --json``."""
        return {
            "game": self.game.value,
            "bet": self.bet,
            "rtp": self.rtp,
            "house_edge": self.house_edge,
            "hit_frequency": self.hit_frequency,
            "method": self.method,
            "ci95": list(self.ci95) if self.ci95 else None,
            "hands": self.hands,
            "exact": None
            if self.exact is None
            else f"{self.exact.numerator}/{self.exact.denominator}",
            "strategy": self.strategy,
            "paytables": self.paytables,
            "details": self.details,
            "published": [{"source": s, "rtp": v} for s, v in self.published],
        }


# --------------------------------------------------------------------------- enumeration helpers


def _combinations(n: int, k: int) -> npt.NDArray[np.uint8]:
    """Every k-subset of range(n), one per row, in lexicographic order."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(n), k))
    return np.fromiter(flat, dtype=np.uint8, count=math.comb(n, k) * k).reshape(-1, k)


def _line_counts(
    strengths: npt.NDArray[np.uint32], table: HandPaytable, ranking: Ranking
) -> dict[str, int]:
    """How many of ``strengths`` earn each line of ``table`` (the best line each reaches)."""
    counts: dict[str, int] = {}
    taken = np.zeros(strengths.shape, dtype=bool)
    for line in table.ordered(ranking):
        hit = (strengths >= line.qualifier.threshold(ranking)) & ~taken
        counts[line.name] = int(hit.sum())
        taken |= hit
    return counts


def _table_return(
    counts: dict[str, int], table: HandPaytable, total: int
) -> tuple[Fraction, Fraction]:
    odds = table.odds_by_line()
    returned = sum((Fraction(n) * (1 + odds[line]) for line, n in counts.items()), Fraction(0))
    return returned / total, Fraction(sum(counts.values()), total)


def _exact_hand_table(
    table: HandPaytable, cards: int, deck: Deck, ranking: Ranking
) -> tuple[Fraction, Fraction, int]:
    """Exact return of a bet paid by ``table`` on the best hand of ``cards`` cards from ``deck``."""
    total = math.comb(len(deck), cards)
    if cards == 7:
        plain = all(line.qualifier.rank is None for line in table.lines)
        if not plain:
            raise UnknownName("seven-card paytables with rank-restricted lines are not enumerated")
        by_category = count_categories(7, deck, ranking)
        counts = {line.name: 0 for line in table.lines}
        for category, n in by_category.items():
            line = next(
                (
                    ln
                    for ln in table.ordered(ranking)
                    if ranking.level(category) >= ranking.level(ln.qualifier.category)
                ),
                None,
            )
            if line is not None:
                counts[line.name] += n
        rtp, hits = _table_return(counts, table, total)
        return rtp, hits, total
    numbers = np.frombuffer(bytes(map(int, deck.cards)), dtype=np.uint8)
    hands = numbers[_combinations(len(deck), cards)]
    counts = _line_counts(strength_batch(hands, ranking), table, ranking)
    rtp, hits = _table_return(counts, table, total)
    return rtp, hits, total


def _exact_bonus_poker_bonus(game: Game) -> tuple[Fraction, Fraction, int]:
    table = game.named_paytable("bonus")
    returned, hits = Fraction(0), 0
    pairs = list(itertools.combinations(game.info.deck.cards, 2))
    for hole in pairs:
        line = bonus_line(hole)
        odds = table.get(line) if line else None
        if odds is not None:
            returned += 1 + odds
            hits += 1
    return returned / len(pairs), Fraction(hits, len(pairs)), len(pairs)


def _exact_triple_action_main(
    game: Game, progress: Progress | None
) -> tuple[Fraction, Fraction, int, Fraction]:
    """Every deal of Triple Action (board, player, dealer) with the player always betting.

    Returns the return per unit of ante, the frequency of a winning round, the number of
    deals, and the ante bonus's share of the return.
    """
    info = game.info
    deck = np.frombuffer(bytes(map(int, info.deck.cards)), dtype=np.uint8)
    n = len(deck)
    qualifier = info.dealer_qualifier
    assert qualifier is not None
    threshold = qualifier.threshold(info.ranking)
    ante_bonus = game.hand_paytable("ante_bonus")
    bonus_lines = ante_bonus.ordered(info.ranking)
    rest_pairs = _combinations(n - 3, 2)  # player or dealer hole cards, as indices into the rest
    overlap = (
        (rest_pairs[:, None, 0] == rest_pairs[None, :, 0])
        | (rest_pairs[:, None, 0] == rest_pairs[None, :, 1])
        | (rest_pairs[:, None, 1] == rest_pairs[None, :, 0])
        | (rest_pairs[:, None, 1] == rest_pairs[None, :, 1])
    )
    valid = ~overlap
    dealers_each = int(valid[0].sum())
    main_total = 0  # ante and bet results, in antes (integers)
    winning = 0
    bonus_counts = {line.name: 0 for line in bonus_lines}
    boards = _combinations(n, 3)
    for b, board in enumerate(boards):
        rest = np.delete(deck, board)
        hands = np.empty((len(rest_pairs), 5), dtype=np.uint8)
        hands[:, :2] = rest[rest_pairs]
        hands[:, 2:] = deck[board]
        s = strength_batch(hands, info.ranking).astype(np.int64)
        qualifies = s >= threshold
        sign = np.sign(s[:, None] - s[None, :])
        main = np.where(qualifies[None, :], 2 * sign, 1)
        main_total += int(main[valid].sum())
        has_bonus = np.zeros(len(s), dtype=bool)
        for line in bonus_lines:
            hit = (s >= line.qualifier.threshold(info.ranking)) & ~has_bonus
            bonus_counts[line.name] += int(hit.sum()) * dealers_each
            has_bonus |= hit
        winning += int(((main > 0) | has_bonus[:, None])[valid].sum())
        if progress is not None and b % 64 == 0:
            progress(b + 1, len(boards))
    deals = len(boards) * int(valid.sum())
    odds = ante_bonus.odds_by_line()
    bonus_total = sum((odds[name] * count for name, count in bonus_counts.items()), Fraction(0))
    rtp = 1 + (main_total + bonus_total) / deals
    if progress is not None:
        progress(len(boards), len(boards))
    return rtp, Fraction(winning, deals), deals, bonus_total / deals


def triple_action_worst_bet(game: Game, progress: Progress | None = None) -> tuple[float, str]:
    """The lowest expected value of betting, over every (hole cards, dealer up card) view.

    Folding is worth -1 ante; when the lowest value of betting is above that, always betting
    is the optimal strategy. Returns that value and the view it belongs to.
    """
    from controller.games.odds import tally
    from controller.games.strategy import _staying_in_value

    info = game.info
    option = next(o for o in game.script.decision_points[0].options if o.places_bet)
    net = _staying_in_value(game, option.multiple)
    worst, where = float("inf"), ""
    pairs = list(itertools.combinations(info.deck.cards, 2))
    for i, hole in enumerate(pairs):
        for up in info.deck.cards:
            if up in hole:
                continue
            t = tally(
                hole, (), deck=info.deck, ranking=info.ranking, board_total=info.board_cards,
                qualifier=info.dealer_qualifier, dealer=(up,),
            )  # fmt: skip
            value = t.expectation(net)
            if value < worst:
                worst, where = value, f"{hole[0]} {hole[1]} against {up}"
        if progress is not None:
            progress(i + 1, len(pairs))
    return worst, where


# --------------------------------------------------------------------------- simulation


@dataclass(frozen=True, slots=True)
class _Batch:
    game: Game
    strategy: str
    spot: Spot | None  # None: the main game
    hands: int
    seed: int


def _expected_main_net(
    game: Game,
    walk: Walk,
    player: tuple[Card, ...],
    board: tuple[Card, ...],
    dealer_known: tuple[Card, ...],
) -> tuple[float, float]:
    """The main game's net over every dealer hand, settled by the game's own rules, and the
    chance that the round wins.

    The dealer's hand matters only through whether it qualifies and how it compares, so one
    representative hand per such cell is settled and weighted by the cell's size.
    """
    info = game.info
    threshold = info.dealer_qualifier.threshold(info.ranking) if info.dealer_qualifier else 0
    cells = _handeval.dealer_cells(
        bytes(map(int, player)), bytes(map(int, board)), bytes(map(int, dealer_known)),
        bytes(map(int, info.deck.cards)), int(info.ranking), threshold,
    )  # fmt: skip
    value = evaluate((*player, *board), info.ranking)
    total, weighted, winning = 0, Fraction(0), 0
    for count, first, second in cells:
        if not count:
            continue
        hidden = (first,) if second < 0 else (first, second)
        dealer = evaluate((*dealer_known, *(Card(c) for c in hidden), *board), info.ranking)
        lines, _ = game.settle_main(walk, value, dealer)
        net = sum((ln.returned - ln.stake for ln in lines), Fraction(0))
        weighted += count * net
        winning += count if net > 0 else 0
        total += count
    return float(weighted / total), winning / total


def _simulate(batch: _Batch) -> tuple[int, float, float, float]:
    """Play ``batch.hands`` rounds; return (hands, sum of nets, sum of squares, winning hands).

    For the main game each round's net is its expectation over the dealer's hidden cards
    (see :func:`_expected_main_net`), which removes the dealer's share of the variance; a
    side bet is settled on the dealt cards as they fall.
    """
    game = batch.game
    info = game.info
    play = strategy(info.id, batch.strategy)
    rng = random.Random(batch.seed)
    views = game.script.views()
    bets = {Spot.ANTE: Fraction(1)}
    if batch.spot is not None:
        bets[batch.spot] = Fraction(1)
    cards = list(info.deck.cards)
    total, squares, wins = 0.0, 0.0, 0.0
    for hand in range(batch.hands):
        rng.shuffle(cards)
        player = (cards[0], cards[2])
        dealer = (cards[1], cards[3])
        board = tuple(cards[4 : 4 + info.board_cards])
        decisions: list[str] = []
        walk = game.walk(bets, decisions)
        shown_up = False
        for name, visible, shown in views:
            if walk.pending is None or walk.pending.name != name:
                continue
            shown_up = shown_up or shown
            view = View(
                game, player, board[:visible], dealer[:1] if shown else (), batch.seed + hand
            )
            decisions.append(play.decide(name, view))
            walk = game.walk(bets, decisions)
        if batch.spot is None:
            known = dealer[:1] if shown_up else ()
            net, chance = _expected_main_net(game, walk, player, board, known)
        else:
            settlement = game.settle(RoundCards(player, dealer, board), bets, decisions)
            line = settlement.line(batch.spot)
            net = float(line.returned - line.stake)
            chance = float(net > 0)
        total += net
        squares += net * net
        wins += chance
    return batch.hands, total, squares, wins


# --------------------------------------------------------------------------- compiled simulation

_SIM_GAME = {
    GameId.TEXAS_HOLDEM_BONUS: 0,
    GameId.ULTIMATE_TEXAS_HOLDEM: 1,
    GameId.CASINO_HOLDEM: 2,
    GameId.TEXAS_POKER: 2,
}


SimParameters = tuple[int, int, int, int, int, bytes, bytes, float, bytes]


def compiled_parameters(game: Game, strategy_name: str) -> SimParameters | None:
    """The compiled simulator's parameters for ``game``, or None where it does not apply.

    It applies to the strategy-dependent main games with the strategies of
    :mod:`controller.games.strategy`, where every paytable the main game uses pays by hand
    category (a rank-restricted line such as Texas poker's pair of fours is allowed only
    where every hand reaching its category against a qualifying dealer reaches the line).
    """
    from controller.games.strategy import _staying_in_value

    info = game.info
    code = _SIM_GAME.get(info.id)
    if code is None or strategy_name not in ("optimal", "seed"):
        return None
    if strategy_name == "seed" and info.id is not GameId.TEXAS_HOLDEM_BONUS:
        return None
    qualifier = info.dealer_qualifier
    threshold = qualifier.threshold(info.ranking) if qualifier else 0
    plus = np.full(10, -1.0)
    cells = np.zeros(60)
    call = 0.0
    ante_from = 0
    for role in game.paytable_roles:
        table = game.config.paytables[role]
        if not isinstance(table, HandPaytable) or role in ("bonus", "best_five"):
            continue
        for line in table.lines:
            rank = line.qualifier.rank
            if rank is None:
                continue
            covered = (
                qualifier is not None
                and qualifier.rank is not None
                and line.qualifier.category is qualifier.category
                and rank <= qualifier.rank
            )
            if not covered:
                return None
    if info.id is GameId.TEXAS_HOLDEM_BONUS:
        ante_from = Qualifier.parse(str(game.option("ante_pays_from"))).threshold(info.ranking)
    elif info.id is GameId.ULTIMATE_TEXAS_HOLDEM:
        for line in game.hand_paytable("ante_plus").lines:
            plus[line.qualifier.category.kind] = float(line.odds)
        # a category above a line earns that line: fill upwards from each line
        ordered = list(Ranking.STANDARD.categories)[::-1]  # worst first
        best = -1.0
        for category in ordered:
            if plus[category.kind] >= 0:
                best = plus[category.kind]
            elif best >= 0:
                plus[category.kind] = best
    else:
        option = next(o for o in game.script.decision_points[0].options if o.places_bet)
        call = float(option.multiple)
        net = _staying_in_value(game, option.multiple)
        for q in (0, 1):
            for outcome in range(3):
                for category in Category:
                    cells[q * 30 + outcome * 10 + category.kind] = net(bool(q), outcome, category)
    two_pair = Qualifier_two_pair()
    rule = 1 if strategy_name == "seed" else 0
    deck = bytes(map(int, info.deck.cards))
    return (code, rule, threshold, ante_from, two_pair, plus.tobytes(), cells.tobytes(), call, deck)


def Qualifier_two_pair() -> int:
    """The strength of the lowest two pair in the standard ranking."""
    from controller.hands import Qualifier

    return Qualifier.parse("two pair or better").threshold(Ranking.STANDARD)


def _simulate_compiled(
    job: tuple[SimParameters, tuple[int, int]],
) -> tuple[int, float, float, float]:
    """One job of :func:`_monte_carlo_compiled`: the kernel plays ``hands`` rounds from a seed
    (it releases the GIL)."""
    parameters, (hands, seed) = job
    count, total, squares, wins = _handeval.simulate(*parameters, (hands, seed))
    return count, total, squares, wins


def _estimate(
    results: Iterable[tuple[int, float, float, float]], hands: int, progress: Progress | None
) -> tuple[float, tuple[float, float], float]:
    """The return, its 95% interval and the hit frequency from every job's sums."""
    n, total, squares, wins = 0, 0.0, 0.0, 0.0
    for count, t, sq, w in results:
        n, total, squares, wins = n + count, total + t, squares + sq, wins + w
        if progress is not None:
            progress(n, hands)
    mean = total / n
    variance = max(0.0, squares / n - mean * mean)
    half = 1.959964 * math.sqrt(variance / n)
    return 1 + mean, (1 + mean - half, 1 + mean + half), wins / n


def _monte_carlo_compiled(
    parameters: SimParameters, hands: int, seed: int, map_jobs: JobMap, progress: Progress | None
) -> tuple[float, tuple[float, float], float]:
    chunk = 20_000
    jobs = [
        (parameters, (min(chunk, hands - start), seed * 1_000_003 + i + 1))
        for i, start in enumerate(range(0, hands, chunk))
    ]
    return _estimate(map_jobs(_simulate_compiled, jobs), hands, progress)


def _monte_carlo(
    game: Game,
    spot: Spot | None,
    strategy_name: str,
    hands: int,
    seed: int,
    map_jobs: JobMap,
    progress: Progress | None,
) -> tuple[float, tuple[float, float], float]:
    chunk = 2_000
    batches = [
        _Batch(game, strategy_name, spot, min(chunk, hands - start), seed * 1_000_003 + i)
        for i, start in enumerate(range(0, hands, chunk))
    ]
    return _estimate(map_jobs(_simulate, batches), hands, progress)


# --------------------------------------------------------------------------- the entry point


def _paytables(game: Game) -> dict[str, dict[str, str]]:
    return {
        role: {line: f"{o.numerator}:{o.denominator}" for line, o in table.odds_by_line().items()}
        for role, table in game.config.paytables.items()
    }


def rtp(
    game: Game,
    bet: str,
    *,
    exact: bool | None = None,
    hands: int = 200_000,
    seed: int = 1,
    strategy_name: str | None = None,
    map_jobs: JobMap = map,
    progress: Progress | None = None,
    modified: bool = False,
) -> RtpResult:
    """The return to player of ``bet`` (``main`` or the game's side bet) in ``game``.

    ``exact=None`` chooses: exact enumeration wherever the bet needs no strategy, Monte
    Carlo otherwise; ``exact=True`` refuses a bet that cannot be enumerated. ``modified``
    says a paytable line was changed, so published figures are not set beside the result.
    A simulation's batches run through ``map_jobs`` (the builtin :func:`map` by default; a
    process pool's ``map`` spreads them over the processors).
    """
    info = game.info
    side_name, side_spot = SIDE_BETS[info.id]
    if bet not in ("main", side_name):
        raise UnknownName(f"{info.id} has no bet {bet!r}: expected main or {side_name}")
    chosen = strategy_name or DEFAULT_STRATEGY[info.id]
    strategy(info.id, chosen)  # refuse an unknown name before any work
    role = "best_five" if side_spot is Spot.BEST_FIVE else "bonus"
    variant = game.config.paytables[role].name if bet != "main" else None
    can_enumerate = bet != "main" or (
        info.id is GameId.TRIPLE_ACTION_HOLDEM and chosen == "always-bet"
    )
    if exact and not can_enumerate:
        raise UnknownName(
            f"{info.id} {bet} depends on the player's strategy and is estimated by simulation: "
            "use --hands N instead of --exact"
        )
    tables = _paytables(game)
    if exact is not False and can_enumerate:
        if bet == "main":
            value, hits, deals, bonus_share = _exact_triple_action_main(game, progress)
            return RtpResult(
                info.id, bet, float(value), float(hits), "exact", deals, value,
                strategy=chosen, paytables=tables, details={"ante_bonus_share": float(bonus_share)},
                variant=variant, modified=modified,
            )  # fmt: skip
        if info.id is GameId.TEXAS_HOLDEM_BONUS:
            value, hits, total = _exact_bonus_poker_bonus(game)
        else:
            table = game.hand_paytable(role)
            size = 7 if side_spot is Spot.BEST_FIVE else 5
            value, hits, total = _exact_hand_table(table, size, info.deck, info.ranking)
        return RtpResult(
            info.id,
            bet,
            float(value),
            float(hits),
            "exact",
            total,
            value,
            paytables=tables,
            variant=variant,
            modified=modified,
        )
    spot = None if bet == "main" else side_spot
    parameters = compiled_parameters(game, chosen) if spot is None else None
    if parameters is not None:
        value_mc, ci, hits_mc = _monte_carlo_compiled(parameters, hands, seed, map_jobs, progress)
    else:
        value_mc, ci, hits_mc = _monte_carlo(game, spot, chosen, hands, seed, map_jobs, progress)
    return RtpResult(
        info.id, bet, value_mc, hits_mc, "monte-carlo", hands, None, ci,
        strategy=chosen if bet == "main" else None, paytables=tables,
        variant=variant, modified=modified,
    )  # fmt: skip
