"""Player strategies, for simulation and game mathematics only: never to decide for a real player.

Each strategy answers one question: at this decision point, with these cards in view, which
option? Strategies that weigh a choice by its expected value count the completions of the
round with :func:`~controller.games.odds.tally`, sampling first and counting more only
when the choice is close, so a clear decision is cheap and a close one is exact enough.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from controller.cards import Card, Rank
from controller.errors import UnknownName
from controller.games import GameId
from controller.games.base import Game
from controller.games.odds import LOSE, TIE, WIN, Tally, tally
from controller.hands import Category, Qualifier, evaluate, strength

__all__ = ["STRATEGIES", "Strategy", "View", "strategy"]


@dataclass(frozen=True, slots=True)
class View:
    """What a player sees at a decision: own hole cards, the visible board, dealer up cards."""

    game: Game
    player: tuple[Card, ...]
    board: tuple[Card, ...]
    dealer_up: tuple[Card, ...]
    seed: int


class Strategy(Protocol):
    """A way to play: one option name per decision point."""

    @property
    def name(self) -> str:
        """The strategy's name on the command line."""
        ...

    @property
    def description(self) -> str:
        """What the strategy does, in a sentence."""
        ...

    def decide(self, point: str, view: View) -> str:
        """The option chosen at decision point ``point``."""
        ...


def _tally(view: View, samples: int) -> Tally:
    info = view.game.info
    return tally(
        view.player,
        view.board,
        deck=info.deck,
        ranking=info.ranking,
        board_total=info.board_cards,
        qualifier=info.dealer_qualifier,
        dealer=view.dealer_up,
        samples=samples,
        seed=view.seed,
    )


#: sampled completions for a first look, and for a close choice
FIRST_LOOK, CLOSE_LOOK = 400, 2500
#: how far from the threshold a first look must be to decide: about three standard errors of
#: a 400-completion estimate, for a value in antes and for a probability
EV_MARGIN, PROBABILITY_MARGIN = 0.45, 0.15


def _close_call(
    view: View, value: Callable[[Tally], float], threshold: float, margin: float
) -> bool:
    """Whether ``value`` of the round's completions exceeds ``threshold``.

    A first look at 400 sampled completions settles a clear choice; a close one is decided on
    2,500. A close choice wrongly made costs at most the small difference between its options
    (about 0.02 points of return over a game), and a sampling error can only make play worse
    than optimal, never better. The compiled simulator applies the same rule.
    """
    estimate = value(_tally(view, FIRST_LOOK))
    if abs(estimate - threshold) > margin:
        return estimate > threshold
    return value(_tally(view, CLOSE_LOOK)) > threshold


# --------------------------------------------------------------------------- per game


def _odds(game: Game, role: str, category: Category) -> float:
    """The odds a winning hand of ``category`` earns (a line such as pair_of_fours counts as pair:
    a hand that beats a qualifying dealer always reaches it)."""
    for line in game.hand_paytable(role).lines:
        if line.qualifier.category is category:
            return float(line.odds)
    return 0.0


@dataclass(frozen=True, slots=True)
class BonusPokerStrategy:
    """Texas Hold'em Bonus: published pre-flop folds; turn and river by the chance of winning."""

    name: str
    description: str
    rule: str  # "optimal": bet when P(win) > P(lose); "seed": bet when P(win) > 50%

    FOLDS = frozenset(
        {(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 2)}
    )  # 2-3 … 2-7 and 3-4 off-suit

    def decide(self, point: str, view: View) -> str:
        """Fold only the six worst off-suit hands pre-flop; bet later streets on the odds."""
        if point == "preflop":
            a, b = sorted(view.player)
            offsuit = a.suit != b.suit
            return "fold" if offsuit and (int(a.rank), int(b.rank)) in self.FOLDS else "bet"
        if self.rule == "seed":
            chance = _close_call(view, lambda t: t.probability(WIN), 0.5, PROBABILITY_MARGIN)
            return "bet" if chance else "check"
        edge = _close_call(
            view, lambda t: t.probability(WIN) - t.probability(LOSE), 0.0, PROBABILITY_MARGIN
        )
        return "bet" if edge else "check"


def _hidden_pair_or_better(player: tuple[Card, ...], board: tuple[Card, ...]) -> bool:
    """A pair or better that uses at least one of the player's own cards."""
    value = evaluate((*player, *board))
    if value.category is Category.HIGH_CARD:
        return False
    five = value.best_five
    ranks = [c.rank for c in five]
    if value.category in (
        Category.STRAIGHT,
        Category.FLUSH,
        Category.STRAIGHT_FLUSH,
        Category.ROYAL_FLUSH,
    ):
        made = set(five)
    else:
        made = {c for c in five if ranks.count(c.rank) >= 2}
    return any(c in made for c in player)


@dataclass(frozen=True, slots=True)
class UltimateStrategy:
    """Ultimate Texas Hold'em: the published near-optimal strategy (REFERENCE.md)."""

    name: str
    description: str

    def decide(self, point: str, view: View) -> str:
        """Raise 4x, 2x or 1x by the published rules; otherwise check, and fold at the river."""
        if point == "preflop":
            return "call_4x" if self._raise_preflop(view.player) else "check"
        if point == "flop":
            return "call_2x" if self._raise_flop(view.player, view.board) else "check"
        return "call_1x" if self._raise_river(view.player, view.board) else "fold"

    @staticmethod
    def _raise_preflop(hole: tuple[Card, ...]) -> bool:
        hi, lo = sorted(hole, reverse=True)
        h, low, suited = hi.rank, lo.rank, hi.suit == lo.suit
        if h == low:
            return h >= Rank.THREE
        if h is Rank.ACE:
            return True
        minimum = {
            Rank.KING: (Rank.TWO, Rank.FIVE),
            Rank.QUEEN: (Rank.SIX, Rank.EIGHT),
            Rank.JACK: (Rank.EIGHT, Rank.TEN),
        }.get(h)
        if minimum is None:
            return False
        return low >= (minimum[0] if suited else minimum[1])

    @staticmethod
    def _raise_flop(hole: tuple[Card, ...], board: tuple[Card, ...]) -> bool:
        value = evaluate((*hole, *board))
        if value.strength >= Qualifier.parse("two pair or better").threshold():
            return True
        pocket_deuces = hole[0].rank == hole[1].rank == Rank.TWO
        if (
            value.category is Category.PAIR
            and not pocket_deuces
            and _hidden_pair_or_better(hole, board)
        ):
            return True
        for suit in {c.suit for c in hole}:
            same = [c for c in (*hole, *board) if c.suit is suit]
            if len(same) >= 4 and any(c.suit is suit and c.rank >= Rank.TEN for c in hole):
                return True
        return False

    @staticmethod
    def _raise_river(hole: tuple[Card, ...], board: tuple[Card, ...]) -> bool:
        if _hidden_pair_or_better(hole, board):
            return True
        mine = strength((*hole, *board))
        seen = {*hole, *board}
        from controller.cards import STANDARD_52

        outs = sum(1 for c in STANDARD_52.cards if c not in seen and strength((*board, c)) > mine)
        return outs < 21


@dataclass(frozen=True, slots=True)
class CallByValueStrategy:
    """Call (or bet) when its expected value beats folding's loss of the ante."""

    name: str
    description: str

    def decide(self, point: str, view: View) -> str:
        """Compare the expected value of staying in with -1 (the ante lost by folding)."""
        game = view.game
        option = next(o for o in game.script.decision_points[0].options if o.places_bet)
        net = _staying_in_value(game, option.multiple)
        worth = _close_call(view, lambda t: t.expectation(net), -1.0, EV_MARGIN)
        return option.name if worth else "fold"


def _staying_in_value(game: Game, multiple: Fraction) -> Callable[[bool, int, Category], float]:
    """The net result per ante of staying in, by dealer qualification, outcome and category."""
    m = float(multiple)
    gid = game.info.id
    if gid is GameId.CASINO_HOLDEM:

        def casino(qualifies: bool, outcome: int, category: Category) -> float:
            if not qualifies:
                return _odds(game, "ante", category)  # call returned
            if outcome == WIN:
                return _odds(game, "ante", category) + m
            return 0.0 if outcome == TIE else -1.0 - m

        return casino
    if gid is GameId.TEXAS_POKER:
        table_from = Qualifier.parse(str(game.option("no_game_table_from")))

        level = game.info.ranking.level

        def texas(qualifies: bool, outcome: int, category: Category) -> float:
            if not qualifies:  # no game: the bet is returned
                if level(category) >= level(table_from.category):
                    return _odds(game, "ante", category)
                return 1.0
            if outcome == WIN:
                return _odds(game, "ante", category) + m
            return 0.0 if outcome == TIE else -1.0 - m

        return texas
    if gid is GameId.TRIPLE_ACTION_HOLDEM:

        def triple(qualifies: bool, outcome: int, category: Category) -> float:
            bonus = next(
                (
                    float(ln.odds)
                    for ln in game.hand_paytable("ante_bonus").lines
                    if ln.qualifier.category is category
                ),
                0.0,
            )
            if not qualifies:
                return 1.0 + bonus
            return {WIN: 1.0 + m, TIE: 0.0, LOSE: -1.0 - m}[outcome] + bonus

        return triple
    raise UnknownName(f"{gid}: no call-by-value rule for this game")


@dataclass(frozen=True, slots=True)
class AlwaysStrategy:
    """Take the same option at every decision (Triple Action: always bet)."""

    name: str
    description: str
    choice: str

    def decide(self, point: str, view: View) -> str:
        """Always the same choice."""
        return self.choice


STRATEGIES: dict[GameId, dict[str, Strategy]] = {
    GameId.TEXAS_HOLDEM_BONUS: {
        "optimal": BonusPokerStrategy(
            "optimal",
            "fold only 2-3, 2-4, 2-5, 2-6, 2-7 and 3-4 off-suit; bet turn and river when "
            "winning is likelier than losing",
            "optimal",
        ),
        "seed": BonusPokerStrategy(
            "seed",
            "the seed's stated strategy: pre-flop as optimal; bet turn and river when the chance "
            "of winning is over 50%",
            "seed",
        ),
    },
    GameId.TEXAS_POKER: {
        "optimal": CallByValueStrategy(
            "optimal", "bet when the bet's expected value beats losing the ante (counted odds)"
        ),
    },
    GameId.ULTIMATE_TEXAS_HOLDEM: {
        "optimal": UltimateStrategy(
            "optimal",
            "published strategy: 4x with 3-3+, any ace, K2s+, K5o+, Q6s+, Q8o+, J8s+, JTo+; 2x "
            "on the flop with two pair+, a hidden pair (not 2-2) or four to a flush with a hidden "
            "ten+; 1x at the river with a hidden pair+ or under 21 dealer outs",
        ),
    },
    GameId.CASINO_HOLDEM: {
        "optimal": CallByValueStrategy(
            "optimal", "call when the call's expected value beats losing the ante (counted odds)"
        ),
    },
    GameId.TRIPLE_ACTION_HOLDEM: {
        "always-bet": AlwaysStrategy("always-bet", "always bet (optimal: see docs/math.md)", "bet"),
        "optimal": CallByValueStrategy(
            "optimal", "bet when the bet's expected value beats losing the ante (counted odds)"
        ),
    },
}
DEFAULT_STRATEGY: dict[GameId, str] = {
    GameId.TEXAS_HOLDEM_BONUS: "optimal",
    GameId.TEXAS_POKER: "optimal",
    GameId.ULTIMATE_TEXAS_HOLDEM: "optimal",
    GameId.CASINO_HOLDEM: "optimal",
    GameId.TRIPLE_ACTION_HOLDEM: "always-bet",
}


def strategy(game: GameId, name: str | None = None) -> Strategy:
    """The strategy called ``name`` for ``game`` (default: the game's optimal one)."""
    choices = STRATEGIES[game]
    key = name or DEFAULT_STRATEGY[game]
    if key not in choices:
        raise UnknownName(f"{game} has no strategy {key!r}: expected one of {', '.join(choices)}")
    return choices[key]
