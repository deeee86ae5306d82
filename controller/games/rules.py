"""What every game declares: bet spots, deal script, decision points, and settlement records.

A game is data (its :class:`DealScript`, its spots, its paytables from config) plus one pure
``settle`` function. Money is exact: stakes and payouts are :data:`Money` amounts in table
units, an ``int`` when whole and a :class:`~fractions.Fraction` otherwise, so a 3:2 payout on
an odd stake is never rounded silently; whoever pays in chips applies the house's rounding
rule and records it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from controller.cards import Card
from controller.errors import TableError
from controller.hands import HandValue

#: An exact amount of money in table units: an ``int`` when whole (the usual case, and cheap
#: to add and compare), a :class:`~fractions.Fraction` when not (a 3:2 payout on an odd stake).
#: Both compare, hash and print alike when equal: ``Fraction(10) == 10``, ``str()`` is ``10``.
Money = int | Fraction

#: Even money: odds of 1:1.
EVEN = Fraction(1)

__all__ = [
    "EVEN",
    "DealBoard",
    "DealHoleCards",
    "DealScript",
    "Decide",
    "DecisionPoint",
    "Face",
    "IllegalBet",
    "IllegalDecision",
    "Money",
    "Option",
    "Result",
    "Reveal",
    "RoundCards",
    "Settlement",
    "SettlementLine",
    "Spot",
    "Step",
    "exact",
    "format_amount",
    "say_amount",
    "times",
]


class IllegalBet(TableError):
    """A bet that the game's limits or rules do not allow."""


class IllegalDecision(TableError):
    """A decision that is not one of the options open at this point of the round."""


class Spot(StrEnum):
    """Betting spots on the layouts of the five games."""

    ANTE = "ante"
    ANTE_PLUS = "ante_plus"  # Ultimate: placed automatically, equal to the ante
    CALL = "call"  # Ultimate (4x/3x/2x/1x) and Casino Hold'em (2x)
    BET = "bet"  # Texas poker (2x) and Triple Action (1x)
    FLOP = "flop"  # Texas Hold'em Bonus: 2x before the flop
    TURN = "turn"  # Texas Hold'em Bonus: 1x
    RIVER = "river"  # Texas Hold'em Bonus: 1x
    BONUS = "bonus"  # side bet: 000, 001, 003, 004
    BEST_FIVE = "best_five"  # side bet: 002
    ANTE_BONUS = "ante_bonus"  # Triple Action: paid on the ante, no stake of its own

    @property
    def is_side_bet(self) -> bool:
        """Side bets are settled apart from the main game (and outside the table maximum)."""
        return self in (Spot.BONUS, Spot.BEST_FIVE)


class Face(StrEnum):
    """Whether a dealt card lies face up or face down."""

    UP = "up"
    DOWN = "down"


class Result(StrEnum):
    """How one bet spot ended."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


def _odds_text(odds: Fraction) -> str:
    """Odds as JSON text: ``3:2``."""
    return f"{odds.numerator}:{odds.denominator}"


# ---------------------------------------------------------------------- deal script


@dataclass(frozen=True, slots=True)
class DealHoleCards:
    """Hole cards: one at a time round the player hands from the dealer's left, then the dealer.

    Repeated ``count`` times, so with two boxes and two cards: box 1, box 2, dealer, box 1,
    box 2, dealer.
    """

    count: int
    player_face: Face
    dealer_face: Face


@dataclass(frozen=True, slots=True)
class DealBoard:
    """Community cards, dealt to the board in one step (the flop, the turn, the river)."""

    name: str
    count: int
    face: Face


@dataclass(frozen=True, slots=True)
class Reveal:
    """Cards turned face up: ``dealer_first`` (Triple Action's up card), ``dealer`` or ``board``."""

    what: str


@dataclass(frozen=True, slots=True)
class Option:
    """One choice at a decision point: its name and the bet it places (spot, ante multiple)."""

    name: str
    spot: Spot | None = None
    multiple: Fraction = Fraction(0)
    folds: bool = False

    @property
    def places_bet(self) -> bool:
        """Whether choosing this option puts money on a spot."""
        return self.spot is not None and self.multiple.numerator > 0


@dataclass(frozen=True, slots=True)
class DecisionPoint:
    """A point where every live player hand must decide; ``on_timeout`` is chosen for the idle."""

    name: str
    options: tuple[Option, ...]
    on_timeout: str
    only_if_no_bet_on: Spot | None = None  # Ultimate: later decisions only after checking

    def option(self, name: str) -> Option:
        """The option called ``name``; raises :class:`IllegalDecision` naming the choices."""
        for option in self.options:
            if option.name == name:
                return option
        choices = ", ".join(o.name for o in self.options)
        raise IllegalDecision(
            f"{name!r} is not a choice at the {self.name} decision: expected {choices}"
        )


@dataclass(frozen=True, slots=True)
class Decide:
    """A decision step in the script."""

    point: DecisionPoint


Step = DealHoleCards | DealBoard | Reveal | Decide


@dataclass(frozen=True, slots=True)
class DealScript:
    """The ordered steps of a round, from the hole cards to the dealer's reveal."""

    steps: tuple[Step, ...]

    @property
    def decision_points(self) -> tuple[DecisionPoint, ...]:
        """Every decision point, in order."""
        return tuple(s.point for s in self.steps if isinstance(s, Decide))

    def views(self) -> tuple[tuple[str, int, bool], ...]:
        """What a player sees at each decision point: its name, the board cards face up by
        then, and whether the dealer's first card is shown (Triple Action)."""
        views: list[tuple[str, int, bool]] = []
        dealt, seen, shown = 0, 0, False
        for step in self.steps:
            if isinstance(step, DealBoard):
                dealt += step.count
                if step.face is Face.UP:
                    seen = dealt
            elif isinstance(step, Reveal) and step.what == "dealer_first":
                shown = True
            elif isinstance(step, Decide):
                views.append((step.point.name, seen, shown))
        return tuple(views)

    @property
    def board_cards(self) -> int:
        """How many community cards a round deals."""
        return sum(s.count for s in self.steps if isinstance(s, DealBoard))

    def describe(self) -> list[str]:
        """One line per step, for the operator's guide and ``tablectl games``."""
        lines: list[str] = []
        for step in self.steps:
            if isinstance(step, DealHoleCards):
                lines.append(
                    f"deal {step.count} hole cards one at a time round the player hands "
                    f"(face {step.player_face}) then the dealer (face {step.dealer_face})"
                )
            elif isinstance(step, DealBoard):
                lines.append(
                    f"deal the {step.name}: {step.count} card(s) to the board, face {step.face}"
                )
            elif isinstance(step, Reveal):
                lines.append(f"reveal {step.what.replace('_', ' ')}")
            elif isinstance(step, Decide):
                point = step.point
                opts = ", ".join(
                    o.name + (f" ({o.spot} {o.multiple}x)" if o.places_bet else "")
                    for o in point.options
                )
                lines.append(f"decision '{point.name}': {opts}; on timeout: {point.on_timeout}")
        return lines


# ---------------------------------------------------------------------- a round's cards


@dataclass(frozen=True, slots=True)
class RoundCards:
    """The cards a settlement needs: one player hand's hole cards, the dealer's, the board."""

    player: tuple[Card, ...]
    dealer: tuple[Card, ...]
    board: tuple[Card, ...]

    def __post_init__(self) -> None:
        everything = (*self.player, *self.dealer, *self.board)
        if len(set(everything)) != len(everything):
            raise TableError(
                "the same card appears twice among player, dealer and board: "
                + " ".join(c.code for c in everything)
            )


# ---------------------------------------------------------------------- settlement


def exact(amount: Money | str) -> Money:
    """``amount`` in its cheapest exact form: an ``int`` when whole, else a ``Fraction``.

    >>> exact(Fraction(12)), exact(Fraction(15, 2)), exact(7), exact("2.5")
    (12, Fraction(15, 2), 7, Fraction(5, 2))
    """
    if isinstance(amount, int):
        return amount
    value = amount if isinstance(amount, Fraction) else Fraction(amount)
    return value.numerator if value.denominator == 1 else value


def times(amount: Money, ratio: Fraction) -> Money:
    """``amount`` multiplied by ``ratio`` (odds, a bet multiple), exactly.

    >>> times(10, Fraction(3, 2)), times(5, Fraction(3, 2)), times(Fraction(5, 2), Fraction(2))
    (15, Fraction(15, 2), 5)
    """
    if isinstance(amount, int):
        num, den = ratio.as_integer_ratio()  # one call, where .numerator is a property
        num *= amount
        if den == 1:
            return num
        whole, rest = divmod(num, den)
        return whole if rest == 0 else Fraction(num, den)
    return exact(amount * ratio)


def format_amount(amount: Money) -> str:
    """An exact amount as text: ``7.5``, ``12``, or ``10/3`` when no decimal is exact.

    >>> format_amount(Fraction(15, 2)), format_amount(Fraction(12)), format_amount(Fraction(10, 3))
    ('7.5', '12', '10/3')
    """
    if amount.__class__ is int:
        return str(amount)
    num, den = amount.numerator, amount.denominator
    if den == 1:
        return str(num)
    d, twos, fives = den, 0, 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return f"{num}/{den}"
    digits = max(twos, fives)  # the decimals needed: 10**digits is a multiple of den
    scaled = num * 10**digits // den  # exact, in integers
    sign = "-" if scaled < 0 else ""
    text = str(abs(scaled)).rjust(digits + 1, "0")
    return f"{sign}{text[:-digits]}.{text[-digits:]}"


def say_amount(amount: Money) -> str:
    """An amount as a person writes it, for messages: ``10``, ``10.5``; an amount no decimal
    writes exactly is rounded to the cent and says so (never ``31/2`` or ``10/3``).

    >>> say_amount(Fraction(21, 2)), say_amount(10), say_amount(Fraction(10, 3))
    ('10.5', '10', 'about 3.33')
    """
    text = format_amount(amount)
    if "/" not in text:
        return text
    return f"about {format_amount(exact(round(Fraction(amount), 2)))}"


# Settlement records are made by the thousand (a table settles every stake of a round at
# once, the game mathematics millions of hands): they are frozen dataclasses whose __init__
# sets the instance dictionary in one step instead of one object.__setattr__ per field.
_set = object.__setattr__


@dataclass(frozen=True, init=False)
class SettlementLine:
    """One bet spot's outcome: the stake, win/lose/push, what was paid and why."""

    spot: Spot
    stake: Money
    result: Result
    odds: Fraction | None  # the odds applied on a win (None otherwise)
    paid: Money  # winnings on top of the stake (0 on a push or a loss)
    paytable_line: str | None
    reason: str

    def __init__(
        self,
        spot: Spot,
        stake: Money,
        result: Result,
        odds: Fraction | None,
        paid: Money,
        paytable_line: str | None,
        reason: str,
    ) -> None:
        _set(self, "__dict__", {
            "spot": spot, "stake": stake, "result": result, "odds": odds, "paid": paid,
            "paytable_line": paytable_line, "reason": reason,
        })  # fmt: skip

    @property
    def returned(self) -> Money:
        """What goes back to the player: stake plus winnings, the stake on a push, 0 on a loss."""
        if self.result is Result.LOSE:
            return 0
        return exact(self.stake + self.paid) if self.paid else self.stake

    def to_json(self) -> dict[str, object]:
        """The JSON form used in reports, scenarios and messages (a new dict on every call)."""
        odds, stake, paid, result = self.odds, self.stake, self.paid, self.result
        if stake.__class__ is int and paid.__class__ is int:  # whole amounts: the usual case
            money = str(stake), str(paid), "0" if result is Result.LOSE else str(stake + paid)
        else:
            back = 0 if result is Result.LOSE else exact(stake + paid)
            money = format_amount(stake), format_amount(paid), format_amount(back)
        return {
            "spot": self.spot.value,
            "stake": money[0],
            "result": result.value,
            "odds": None if odds is None else _odds_text(odds),
            "paid": money[1],
            "returned": money[2],
            "paytable_line": self.paytable_line,
            "reason": self.reason,
        }


@dataclass(frozen=True, init=False)
class Settlement:
    """A player hand's whole settlement: one line per spot, and the hands that justify it."""

    lines: tuple[SettlementLine, ...]
    player_hand: HandValue
    dealer_hand: HandValue
    dealer_qualifies: bool | None
    folded: bool
    notes: tuple[str, ...] = field(default=())
    staked: Money = field(init=False, compare=False)  # total money put at risk
    returned: Money = field(init=False, compare=False)  # total given back, stakes included

    def __init__(
        self,
        lines: tuple[SettlementLine, ...],
        player_hand: HandValue,
        dealer_hand: HandValue,
        dealer_qualifies: bool | None,
        folded: bool,
        notes: tuple[str, ...] = (),
    ) -> None:
        staked: Money = 0
        returned: Money = 0
        for line in lines:
            staked += line.stake
            if line.result is not Result.LOSE:  # what line.returned is, summed
                returned += line.stake + line.paid
        _set(self, "__dict__", {
            "lines": lines, "player_hand": player_hand, "dealer_hand": dealer_hand,
            "dealer_qualifies": dealer_qualifies, "folded": folded, "notes": notes,
            "staked": staked if staked.__class__ is int else exact(staked),
            "returned": returned if returned.__class__ is int else exact(returned),
        })  # fmt: skip

    @property
    def net(self) -> Money:
        """The player's result: returned minus staked (the house result with the sign flipped)."""
        return exact(self.returned - self.staked)

    def line(self, spot: Spot) -> SettlementLine:
        """The line of ``spot``; raises ``KeyError`` if that spot was not settled."""
        for line in self.lines:
            if line.spot is spot:
                return line
        raise KeyError(spot)

    def spots(self) -> Mapping[Spot, SettlementLine]:
        """Lines by spot."""
        return {line.spot: line for line in self.lines}

    def to_json(
        self, hands: tuple[dict[str, object], dict[str, object]] | None = None
    ) -> dict[str, object]:
        """The JSON form used in reports, scenarios and messages.

        ``hands`` may carry the player's and the dealer's hands in their JSON form already (a
        table settling many stakes on the same hands builds them once).
        """
        player, dealer = hands or (self.player_hand.to_json(), self.dealer_hand.to_json())
        staked, returned = self.staked, self.returned
        net = returned - staked
        return {
            "player_hand": player,
            "dealer_hand": dealer,
            "dealer_qualifies": self.dealer_qualifies,
            "folded": self.folded,
            "lines": [line.to_json() for line in self.lines],
            "staked": str(staked) if staked.__class__ is int else format_amount(staked),
            "returned": str(returned) if returned.__class__ is int else format_amount(returned),
            "net": str(net) if net.__class__ is int else format_amount(exact(net)),
            "notes": list(self.notes),
        }


def win(spot: Spot, stake: Money, odds: Fraction, line: str | None, reason: str) -> SettlementLine:
    """A winning line paying ``odds`` to one."""
    return SettlementLine(spot, stake, Result.WIN, odds, times(stake, odds), line, reason)


def _unpaid(spot: Spot, stake: Money, result: Result, reason: str) -> SettlementLine:
    """A line that pays nothing: lost, or its stake returned."""
    return SettlementLine(spot, stake, result, None, 0, None, reason)


def lose(spot: Spot, stake: Money, reason: str) -> SettlementLine:
    """A losing line."""
    return _unpaid(spot, stake, Result.LOSE, reason)


def push(spot: Spot, stake: Money, reason: str) -> SettlementLine:
    """A line whose stake is returned."""
    return _unpaid(spot, stake, Result.PUSH, reason)


def beats(player: HandValue, dealer: HandValue) -> str:
    """The reason of a win: ``flush, ace beats the dealer's pair of fours``."""
    return f"{player.name} beats the dealer's {dealer.name}"


def ties(stakes: Iterable[tuple[Spot, Money]], player: HandValue) -> list[SettlementLine]:
    """Every spot returned on equal hands."""
    reason = f"tie: both hands are {player.name}"
    return [push(spot, stake, reason) for spot, stake in stakes]


def losses(
    stakes: Iterable[tuple[Spot, Money]], player: HandValue, dealer: HandValue
) -> list[SettlementLine]:
    """Every spot lost to a better dealer hand."""
    reason = f"the dealer's {dealer.name} beats {player.name}"
    return [lose(spot, stake, reason) for spot, stake in stakes]


def only_staked(lines: Iterable[SettlementLine]) -> tuple[SettlementLine, ...]:
    """Drop lines of spots that carried no stake (an un-placed bet has nothing to settle).

    The Triple Action ante bonus has no stake of its own and is kept when it pays.
    """
    return tuple(
        [
            line
            for line in lines
            if line.stake > 0 or (line.spot is Spot.ANTE_BONUS and line.paid > 0)
        ]
    )
