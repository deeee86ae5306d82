"""The shape every game module fills in: config, bet limits, decisions, and ``settle``.

A game module subclasses :class:`Game`, declares its :class:`~controller.games.rules.DealScript`,
its spots and the paytables it needs, and implements :meth:`Game.settle`. Everything else
(checking initial bets against the limits, walking a hand's decisions through the script,
turning decisions into placed bets) is shared here and raises one clear error per refusal.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from controller.errors import TableError
from controller.games import GameInfo, Seating
from controller.games.paytable import HandPaytable, NamedPaytable, Paytable
from controller.games.rules import (
    DealScript,
    DecisionPoint,
    IllegalBet,
    IllegalDecision,
    Money,
    Option,
    RoundCards,
    Settlement,
    SettlementLine,
    Spot,
    exact,
    lose,
    only_staked,
    say_amount,
    times,
    win,
)
from controller.hands import HandValue, evaluate

__all__ = ["Buttons", "Game", "GameConfig", "SpotLimit", "Walk"]


@dataclass(frozen=True, slots=True)
class SpotLimit:
    """Limits of one spot: minimum, maximum, step (every bet a multiple of it), and a cap spot.

    The amounts are kept in their exact cheapest form (:func:`~controller.games.rules.exact`).
    """

    minimum: Money
    maximum: Money
    step: Money = 1
    at_most: Spot | None = None  # seed 001: the bonus may not exceed the ante

    def __post_init__(self) -> None:
        object.__setattr__(self, "minimum", exact(self.minimum))
        object.__setattr__(self, "maximum", exact(self.maximum))
        object.__setattr__(self, "step", exact(self.step))

    def verify(self, spot: Spot, amount: Money, bets: Mapping[Spot, Money]) -> None:
        """Raise :class:`IllegalBet` saying which limit ``amount`` breaks: what the spot takes
        and what arrived, in amounts as a person writes them.

        >>> try:
        ...     SpotLimit(10, 500).verify(Spot.ANTE, Fraction(21, 2), {})
        ... except IllegalBet as refusal:
        ...     print(refusal)
        ante bet: expected a whole number of chips of 1 (table minimum 10, maximum 500); got 10.5
        """
        cap = bets.get(self.at_most, 0) if self.at_most is not None else None
        if (
            self.minimum <= amount <= self.maximum
            and amount % self.step == 0
            and (cap is None or amount <= cap)
        ):
            return  # the usual case: no words are made for a bet that is taken
        low, high = say_amount(self.minimum), say_amount(self.maximum)
        what = f"{spot.value.replace('_', ' ')} bet"
        got = say_amount(amount)
        if amount < self.minimum:
            raise IllegalBet(
                f"{what}: expected at least the table minimum {low} (maximum {high}); got {got}"
            )
        if amount > self.maximum:
            raise IllegalBet(
                f"{what}: expected at most the table maximum {high} (minimum {low}); got {got}"
            )
        if amount % self.step != 0:
            raise IllegalBet(
                f"{what}: expected a whole number of chips of {say_amount(self.step)} "
                f"(table minimum {low}, maximum {high}); got {got}"
            )
        assert self.at_most is not None and cap is not None
        raise IllegalBet(
            f"{what}: expected at most the {self.at_most.value.replace('_', ' ')} bet "
            f"({say_amount(cap)}); got {got}"
        )


@dataclass(frozen=True, slots=True)
class Buttons:
    """What a studio game's betting buttons do, as its own document says.

    ``rebet`` ("Rebet", "Repeat"): ``all_bets`` places every bet of the seat's last round
    again; ``previous_ante`` makes the ante the last round's ante (and nothing else).
    ``double``: ``bets_on_layout`` doubles every bet on the layout; ``previous_ante`` makes
    the ante twice the last round's ante; ``rebet`` doubles what a Rebet of this round placed
    (refused before a Rebet). ``double_once_per_round``: one Double a round, an Undo or a
    Clear does not give a second. ``double_up_to_credit``: when the balance cannot cover every
    doubled bet, the first bets are doubled until it runs out (else the Double is refused
    whole). ``fill_to_maximum``: a chip or a Double past a spot's maximum fills the spot to
    its maximum. ``undo``: ``last_bet`` takes back the last bet placed (a Rebet's or a
    Double's bets one by one); ``last_action`` takes back the last action whole (a chip, a
    Rebet or a Double). Clear takes back every bet in every game. ``deal``: each seat has a
    Deal button ("deal me in"), and betting closes as soon as every seat with a bet on the
    layout has pressed it (or at the betting timer); a seat's bets are final once it
    pressed Deal. ``rebet_deals``: the Rebet also presses that seat's Deal. ``labels``: the
    buttons a seat's page shows, as ``(command, name)`` in the document's order, each named as
    the document names it (``("rebet", "Repeat")``); a command the document has no button for
    is not shown (empty: the page's own names for every button).

    The defaults are the buttons of tables whose journals predate this choice.
    """

    rebet: str = "all_bets"
    double: str = "bets_on_layout"
    double_once_per_round: bool = False
    double_up_to_credit: bool = True
    fill_to_maximum: bool = False
    undo: str = "last_bet"
    deal: bool = False
    rebet_deals: bool = False
    labels: tuple[tuple[str, str], ...] = ()

    def describe(self) -> list[str]:
        """The buttons in words, for ``tablectl games``."""
        rebet = {
            "all_bets": "places every bet of the seat's last round again",
            "previous_ante": "places the last round's ante (only the ante)",
        }[self.rebet]
        double = {
            "bets_on_layout": "doubles every bet on the layout",
            "previous_ante": "makes the ante twice the last round's ante",
            "rebet": "doubles what this round's Rebet placed (after a Rebet only)",
        }[self.double]
        if self.double_once_per_round:
            double += ", once a round (an Undo or a Clear gives no second Double)"
        if self.fill_to_maximum:
            double += ", a spot past its maximum filled to the maximum"
        if self.double_up_to_credit:
            double += "; past the balance, the first bets doubled until it runs out"
        elif self.double != "previous_ante":
            past = "the balance" if self.fill_to_maximum else "the limits or the balance"
            double += f"; refused whole past {past}"
        undo = {
            "last_bet": "takes back the last bet placed, one by one",
            "last_action": "cancels the last action whole (a chip, a Rebet or a Double)",
        }[self.undo]
        chips = (
            "a chip past a spot's maximum fills it to the maximum"
            if self.fill_to_maximum
            else "a chip past a spot's maximum is refused"
        )
        if self.rebet_deals:
            rebet += ", and presses the seat's Deal"
        deal = (
            "a seat's Deal deals it in: its bets are final; betting closes once every seat "
            "with a bet pressed it, or at the betting timer"
            if self.deal
            else "no Deal button: betting closes by the dealer's no more bets or the timer"
        )
        return [
            f"rebet: {rebet}",
            f"double: {double}",
            f"undo: {undo}",
            "clear: takes back every bet",
            f"chips: {chips}",
            f"deal: {deal}",
            *(
                ["names: " + ", ".join(name for _, name in self.labels) + " (on a seat's page)"]
                if self.labels
                else []
            ),
        ]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """A game's validated configuration, as the core uses it (built from ``config/games``)."""

    limits: Mapping[Spot, SpotLimit]
    paytables: Mapping[str, Paytable]
    seating: tuple[Seating, ...]
    table_max_payout: Fraction | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    buttons: Buttons | None = None  # studio games whose document describes its buttons
    change_deck_each_game: bool = False  # seed 003: "the deck is changed anew for each game"


@dataclass(frozen=True, slots=True)
class Walk:
    """A hand's decisions checked against the script: the options taken and the bets they place."""

    taken: tuple[tuple[DecisionPoint, Option], ...]
    bets: Mapping[Spot, Money]
    folded: bool
    pending: DecisionPoint | None  # the next decision this hand owes, if any


class Game(ABC):
    """A game: its data (class attributes) and its pure settlement."""

    info: ClassVar[GameInfo]
    script: ClassVar[DealScript]
    initial_spots: ClassVar[tuple[Spot, ...]]  # spots a player fills before the deal
    paytable_roles: ClassVar[tuple[str, ...]]  # paytables the config must provide
    options_defaults: ClassVar[Mapping[str, object]] = {}
    named_lines: ClassVar[Mapping[str, tuple[str, ...]]] = {}  # lines of named-line paytables

    def __init__(self, config: GameConfig) -> None:
        missing = [role for role in self.paytable_roles if role not in config.paytables]
        if missing:
            raise TableError(f"{self.info.id}: the configuration lacks paytables {missing}")
        for role, known in self.named_lines.items():
            table = config.paytables.get(role)
            unknown = (
                sorted(set(table.odds) - set(known)) if isinstance(table, NamedPaytable) else []
            )
            if unknown:
                raise TableError(
                    f"{self.info.id}: paytable {role!r} has unknown lines {unknown}: "
                    f"expected some of {', '.join(known)}"
                )
        unknown_options = sorted(set(config.options) - set(self.options_defaults))
        if unknown_options:
            known_options = ", ".join(self.options_defaults) or "none"
            raise TableError(
                f"{self.info.id}: unknown rule options {unknown_options}: expected {known_options}"
            )
        self.config = config

    def __eq__(self, other: object) -> bool:
        """Two games are equal when they are the same game with the same configuration."""
        return type(other) is type(self) and other.config == self.config

    def __hash__(self) -> int:
        return hash(self.info.id)

    # ------------------------------------------------------------------ data access

    def hand_paytable(self, role: str) -> HandPaytable:
        """The paytable used for ``role`` (``ante``, ``bonus`` …), keyed by hand."""
        table = self.config.paytables[role]
        if not isinstance(table, HandPaytable):
            raise TableError(f"{self.info.id}: paytable {role!r} must be keyed by hand")
        return table

    def named_paytable(self, role: str) -> NamedPaytable:
        """The paytable used for ``role``, keyed by named line."""
        table = self.config.paytables[role]
        if not isinstance(table, NamedPaytable):
            raise TableError(f"{self.info.id}: paytable {role!r} must be keyed by named line")
        return table

    def option(self, name: str) -> object:
        """A rule option from config, or its default."""
        return self.config.options.get(name, self.options_defaults.get(name))

    # ------------------------------------------------------------------ bets

    def verify_initial_bets(self, bets: Mapping[Spot, Money]) -> None:
        """Raise :class:`IllegalBet` unless ``bets`` is a valid set of bets before the deal."""
        for spot in bets:
            if spot not in self.initial_spots:
                allowed = ", ".join(s.value for s in self.initial_spots)
                raise IllegalBet(
                    f"{self.info.id}: no bet on {spot} before the deal: expected one of {allowed}"
                )
        if bets.get(Spot.ANTE, 0) <= 0:
            raise IllegalBet(f"{self.info.id}: every hand needs an ante; got {dict(bets)}")
        for spot, amount in bets.items():
            limit = self.config.limits.get(spot)
            if limit is None:
                raise IllegalBet(f"{self.info.id}: no limits are configured for {spot}")
            limit.verify(spot, exact(amount), bets)

    def can_place_initial_bets(self, bets: Mapping[Spot, Money]) -> bool:
        """Whether :meth:`verify_initial_bets` would accept ``bets``."""
        try:
            self.verify_initial_bets(bets)
        except TableError:
            return False
        return True

    def automatic_bets(self, bets: Mapping[Spot, Money]) -> dict[Spot, Money]:
        """Bets the table places by itself once the initial bets are in (Ultimate's Ante Plus)."""
        return {}

    # ------------------------------------------------------------------ decisions

    def walk(self, initial: Mapping[Spot, Money], decisions: Sequence[str]) -> Walk:
        """Check ``decisions`` against the script and work out every bet they place."""
        ante = exact(initial.get(Spot.ANTE, 0))
        bets: dict[Spot, Money] = {s: exact(a) for s, a in initial.items()}
        bets.update(self.automatic_bets(bets))
        taken: list[tuple[DecisionPoint, Option]] = []
        remaining = list(decisions)
        folded = False
        pending: DecisionPoint | None = None
        for point in self.script.decision_points:
            if folded:
                break
            if point.only_if_no_bet_on is not None and bets.get(point.only_if_no_bet_on):
                continue
            if not remaining:
                pending = point
                break
            option = point.option(remaining.pop(0))
            taken.append((point, option))
            if option.folds:
                folded = True
            elif option.spot is not None and option.multiple > 0:
                bets[option.spot] = exact(bets.get(option.spot, 0) + times(ante, option.multiple))
        if remaining:
            raise IllegalDecision(
                f"{self.info.id}: decisions {remaining} come after the hand "
                + ("folded" if folded else "has no decision left")
            )
        return Walk(tuple(taken), bets, folded, pending)

    def verify_complete(self, initial: Mapping[Spot, Money], decisions: Sequence[str]) -> Walk:
        """:meth:`walk`, and refuse a hand that still owes a decision."""
        return self.completed(self.walk(initial, decisions))

    def completed(self, walk: Walk) -> Walk:
        """``walk``, refused if the hand still owes a decision."""
        if walk.pending is not None:
            raise IllegalDecision(
                f"{self.info.id}: the hand has not decided at '{walk.pending.name}' yet"
            )
        return walk

    # ------------------------------------------------------------------ settlement

    def evaluate_hands(self, cards: RoundCards) -> tuple[HandValue, HandValue]:
        """The player's and the dealer's best five from their hole cards and the board."""
        ranking = self.info.ranking
        return (
            evaluate((*cards.player, *cards.board), ranking),
            evaluate((*cards.dealer, *cards.board), ranking),
        )

    def check_cards(self, cards: RoundCards) -> None:
        """Refuse a round whose card counts or deck do not fit the game."""
        info = self.info
        expected = (info.hole_cards, info.dealer_cards, info.board_cards)
        got = (len(cards.player), len(cards.dealer), len(cards.board))
        if expected != got:
            raise TableError(
                f"{info.id}: expected {expected[0]} player, {expected[1]} dealer and "
                f"{expected[2]} board cards; got {got[0]}, {got[1]} and {got[2]}"
            )
        info.deck.check((*cards.player, *cards.dealer, *cards.board))

    def settle(
        self,
        cards: RoundCards,
        initial: Mapping[Spot, Money],
        decisions: Sequence[str],
        *,
        values: tuple[HandValue, HandValue] | None = None,
    ) -> Settlement:
        """Settle one player hand: every spot's line, from the cards, bets and decisions.

        ``values`` may carry the player's and the dealer's hands already evaluated from these
        cards (a table settling many stakes on the same hands evaluates each once).
        """
        self.check_cards(cards)
        walk = self.verify_complete(initial, decisions)
        player, dealer = values if values is not None else self.evaluate_hands(cards)
        return self.settle_walk(cards, walk, player, dealer)

    def settle_walk(
        self, cards: RoundCards, walk: Walk, player: HandValue, dealer: HandValue
    ) -> Settlement:
        """:meth:`settle` of a complete ``walk`` on cards already checked and evaluated."""
        side = self.settle_side(cards, walk, player)
        main, qualifies = self.settle_main(walk, player, dealer)
        settlement = Settlement(only_staked(side + main), player, dealer, qualifies, walk.folded)
        if self.config.table_max_payout is None:
            return settlement
        return self._apply_table_maximum(settlement)

    def dealer_qualifies(self, dealer: HandValue) -> bool | None:
        """Whether the dealer's hand qualifies (None where the game has no qualifier)."""
        qualifier = self.info.dealer_qualifier
        return None if qualifier is None else qualifier.holds(dealer)

    def paid_on_hand(
        self, walk: Walk, spot: Spot, role: str, value: HandValue, label: str = ""
    ) -> list[SettlementLine]:
        """A bet on ``spot`` paid by paytable ``role`` on the hand ``value`` (or lost below it)."""
        stake = walk.bets.get(spot, 0)
        if not stake:
            return []
        table = self.hand_paytable(role)
        line = table.lookup(value)
        if line is not None:
            return [win(spot, stake, line.odds, line.name, f"{label}{value.name}")]
        lowest = table.lowest(value.ranking).qualifier.describe()
        return [lose(spot, stake, f"{label}{value.name}: below {lowest}")]

    @abstractmethod
    def settle_side(self, cards: RoundCards, walk: Walk, player: HandValue) -> list[SettlementLine]:
        """The side bet's line (it never depends on the dealer's hand)."""

    @abstractmethod
    def settle_main(
        self, walk: Walk, player: HandValue, dealer: HandValue
    ) -> tuple[list[SettlementLine], bool | None]:
        """The main game's lines and whether the dealer qualified.

        The dealer's hand matters only through its value, so game mathematics can settle
        one representative dealer hand per outcome instead of every one.
        """

    def _apply_table_maximum(self, settlement: Settlement) -> Settlement:
        """Cap the main game's winnings at the table maximum payout (side bets are outside it)."""
        cap = self.config.table_max_payout
        if cap is None:
            return settlement
        main = [ln for ln in settlement.lines if not ln.spot.is_side_bet]
        won = exact(sum((ln.paid for ln in main), 0))
        if won <= cap:
            return settlement
        excess = exact(won - cap)
        lines: list[SettlementLine] = []
        for line in settlement.lines:
            if line.spot.is_side_bet or excess == 0 or line.paid == 0:
                lines.append(line)
                continue
            cut = min(line.paid, excess)
            excess = exact(excess - cut)
            lines.append(
                SettlementLine(
                    line.spot, line.stake, line.result, line.odds, exact(line.paid - cut),
                    line.paytable_line,
                    f"{line.reason}; reduced by {cut} to the table maximum payout {cap}",
                )
            )  # fmt: skip
        note = f"main-game winnings {won} capped at the table maximum payout {cap}"
        return Settlement(
            tuple(lines),
            settlement.player_hand,
            settlement.dealer_hand,
            settlement.dealer_qualifies,
            settlement.folded,
            (*settlement.notes, note),
        )
