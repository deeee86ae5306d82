"""The dealer-console state machine: one table, one round at a time, pure and deterministic.

``handle(state, event, now) -> (state, actions)`` is the whole interface. Nothing here reads
a clock, a port or a file: time is an input, so timers are just events, and the same events
replayed give the same states and actions. Every command has a ``verify`` step that raises
:class:`IllegalCommand` saying what it cannot do and why ("can't deal a card while betting"),
``can(state, event, now)`` for a console to grey out a button, and an apply step; a refused
command returns the state unchanged with one ``refused`` action.

A round: betting → dealing (each card to the next position of the game's deal script) →
decisions (as the script says; more dealing and decisions may follow) → reveal →
settlement → complete. Anything the table cannot explain (a card when none is due) halts it
until the dealer or the pit manager resumes or voids the round.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

from controller.cards import Card
from controller.errors import TableError
from controller.events import (
    Action,
    AllowPassenger,
    CardDrawn,
    ChangeDeck,
    ClearBets,
    CloseTable,
    ConfirmPayment,
    CorrectCard,
    DealerExposedEarly,
    Decide,
    Double,
    Event,
    Fault,
    Halt,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    Rebet,
    Redeal,
    ResolveUndecided,
    RestoreSequence,
    Resume,
    RevealDone,
    SeatDeal,
    SeatDisconnected,
    SeatReturned,
    StartRound,
    Tick,
    UndoBet,
    VoidRound,
)
from controller.games import Seating
from controller.games.base import Buttons, Game, Walk
from controller.games.rules import (
    DealBoard,
    DealHoleCards,
    DecisionPoint,
    Face,
    Money,
    Reveal,
    RoundCards,
    Settlement,
    Spot,
    exact,
    format_amount,
    say_amount,
    times,
)
from controller.games.rules import (
    Decide as DecideStep,
)
from controller.hands import HandValue

__all__ = [
    "RULES",
    "Due",
    "IllegalCommand",
    "Phase",
    "Round",
    "Stake",
    "TableConfig",
    "TableState",
    "can",
    "dealt_as",
    "handle",
    "new_table",
    "round_id",
    "transition_table",
    "who",
]

DEALER = "dealer"

#: The revision of the table's rules that new tables play by, kept in a journal's row 0:
#: 2, a void after confirmed payments needs the pit manager's confirmation (before: none);
#: 3, a passenger on one of a gambler's two open boxes follows him onto the other by himself
#: when betting closes (seed 001; before: betting could not close until the dealer entered it);
#: 4, the dealer's card exposed during the deal halts the table for a redeal (before: the pit
#: manager's return or fold), and a redeal opens a new game number linked to the abandoned
#: one (before: the round kept its id);
#: 5, the studio buttons (Rebet, Double, Undo, chips at a spot's maximum) do what the game's
#: ``[buttons]`` say (before: every game repeated all bets, doubled the bets on the layout
#: first bets first, and took back bet by bet);
#: 6, a seat's Deal (and seed 000's Rebet, which presses it) closes betting once every seat
#: with a bet pressed it, where the game's ``[buttons]`` have a Deal (before: no Deal); a game
#: whose deck is changed for each game (seed 003) closes betting only once the deck was
#: changed for the round, the dealer may change it, also while the bets are taken (before: the
#: pit manager's deck change between rounds, never required).
RULES = 6

#: the buttons of tables played by rules before 5, whatever their game file says
_LEGACY_BUTTONS = Buttons()

_Json = dict[str, object]


class IllegalCommand(TableError):
    """A command the table refuses in its current state; the state does not change."""


class Phase(StrEnum):
    """Where the table is."""

    CLOSED = "closed"
    IDLE = "idle"  # open, between rounds
    BETTING = "betting"
    DEALING = "dealing"  # a card is due from the shoe
    DECIDING = "deciding"  # players owe a decision
    REVEAL = "reveal"  # the dealer must turn cards
    SETTLING = "settling"  # the dealer confirms payments
    HALTED = "halted"  # waiting for the dealer or the pit manager


@dataclass(frozen=True, slots=True)
class TableConfig:
    """One table: its game, how players sit, its timers and how money moves; ``rules`` is
    the revision of the table's rules it plays by (:data:`RULES`; a journal keeps the one it
    was played under, so a replay plays an old journal by its own rules)."""

    table_id: str
    game: Game
    seating: Seating
    hands: tuple[str, ...]  # player hands: ("box 1", …) or ("player",)
    betting_seconds: float | None = None  # studio: betting closes by itself
    decision_seconds: float | None = None  # studio: undecided hands get the timeout choice
    confirm_payments: bool = False  # physical tables: the dealer confirms what was paid
    balances: Mapping[str, Money] | None = None  # studio seats' starting balances (no credit)
    rules: int = RULES


# Money in the state is exact and in its cheapest form (rules.Money): an int when whole, a
# Fraction otherwise. Equal amounts compare, hash and print alike in either form.
#
# Stake, Round and TableState are frozen records without __slots__: every event makes new
# ones from the old with _evolve, which copies the instance dictionary (many times cheaper
# than dataclasses.replace, which runs __init__ over every field again); a Stake, made at
# every bet, sets its dictionary in one step.
_set = object.__setattr__
_new = object.__new__


@dataclass(frozen=True, init=False)
class Stake:
    """One seat's bets on one player hand, in the order they were placed, and its decisions."""

    hand: str
    seat: str
    bets: tuple[tuple[Spot, Money], ...] = ()
    decisions: tuple[str, ...] = ()
    debited: Money = 0  # what the seat's balance has paid in for this stake
    ruling: str = ""  # "returned" when the pit manager returned its bets (dealer exposed early)
    doubled: bool = False  # a stake may be doubled once
    # rules 5: the betting actions that placed ``bets``, in order: (what, bets placed after
    # it), what being "bet" (a chip), "rebet" or "double"; for an Undo of the last action
    marks: tuple[tuple[str, int], ...] = ()

    def __init__(
        self,
        hand: str,
        seat: str,
        bets: tuple[tuple[Spot, Money], ...] = (),
        decisions: tuple[str, ...] = (),
        debited: Money = 0,
        ruling: str = "",
        doubled: bool = False,
        marks: tuple[tuple[str, int], ...] = (),
    ) -> None:
        _set(self, "__dict__", {
            "hand": hand, "seat": seat, "bets": bets, "decisions": decisions,
            "debited": debited, "ruling": ruling, "doubled": doubled, "marks": marks,
        })  # fmt: skip

    def totals(self) -> dict[Spot, Money]:
        """Amount on each spot."""
        return _totals(self.bets)

    @property
    def staked(self) -> Money:
        """Everything this stake put on the layout before the deal."""
        return exact(sum((amount for _, amount in self.bets), 0))


@dataclass(frozen=True, slots=True)
class Due:
    """One step of a round's expanded deal script: a card, a decision, or a reveal."""

    kind: str  # "card", "decision", "reveal"
    position: str = ""  # card: "box 2", "player", "dealer", "board"
    face: Face = Face.UP
    label: str = ""  # the board step's name ("flop"), or what a reveal shows
    point: DecisionPoint | None = None

    def describe(self) -> str:
        """What the table waits for, for a console: ``card to box 3``."""
        if self.kind == "card":
            what = f"{self.label} card" if self.label else "card"
            return f"{what} to {self.position} (face {self.face})"
        if self.kind == "decision":
            assert self.point is not None
            return f"decisions at {self.point.name}"
        return f"reveal {self.label.replace('_', ' ')}"


@dataclass(frozen=True)
class Round:
    """The round in play."""

    round_id: str
    started_at: float
    stakes: tuple[Stake, ...] = ()
    in_play: tuple[str, ...] = ()  # player hands dealt in, in deal order
    script: tuple[Due, ...] = ()
    cursor: int = 0
    cards: tuple[tuple[str, Card, Face], ...] = ()  # position, card, face, in the order dealt
    revealed: frozenset[str] = frozenset()
    betting_deadline: float | None = None
    decision_deadline: float | None = None
    settlements: tuple[tuple[str, str, Settlement], ...] = ()
    paid: tuple[tuple[str, str, Money], ...] = ()
    halted_from: Phase | None = None
    halt_reason: str = ""
    halted_by: str = ""  # the actor whose halt stopped the round: shoe, camera, dealer, pit…
    stray: tuple[Card, ...] = ()  # cards that arrived when none was due
    # of those, the cards that arrived while the deal was halted (a card read before the
    # controller restarted, resent by the shoe): dealt to the places due when it resumes
    held: tuple[Card, ...] = ()
    exposed_early: bool = False  # the dealer opened his cards before all decisions
    exposed_in_deal: bool = False  # the dealer's card was exposed during the deal: a redeal
    dark: frozenset[str] = frozenset()  # boxes their owners play dark (seed 001)
    permissions: tuple[tuple[str, str], ...] = ()  # (box, passenger) the owner allowed
    corrections: tuple[tuple[str, int, str, str, str, str], ...] = ()  # pos, i, was, now, who, why
    redeals: int = 0
    abandoned: tuple[str, ...] = ()  # the games this one replaced (redeals), oldest first
    removed: tuple[Card, ...] = ()  # cards taken out of play (redeals, restored sequences)
    # worked out as soon as known, for the reveal (see _settle_ahead): the hands of the cards
    # dealt, and the settlements of stakes whose outcome is fixed, each by what decides it
    hands_ahead: tuple[tuple[_CardsKey, _Hands], ...] = ()
    settled_ahead: tuple[tuple[_SettleKey, Settlement], ...] = ()
    doubles: tuple[tuple[str, str], ...] = ()  # (hand, seat) that doubled in this round
    ready: frozenset[str] = frozenset()  # rules 6: the seats that pressed Deal
    deck_changed: bool = False  # rules 6: the deck was changed for this game

    @property
    def due(self) -> Due | None:
        """The step the round waits for, or None after the script's end."""
        return self.script[self.cursor] if self.cursor < len(self.script) else None

    def cards_of(self, position: str) -> tuple[Card, ...]:
        """The cards dealt to ``position``."""
        return tuple([card for pos, card, _ in self.cards if pos == position])

    def stake(self, hand: str, seat: str) -> Stake | None:
        """``seat``'s stake on ``hand``, if any."""
        for s in self.stakes:
            if s.hand == hand and s.seat == seat:
                return s
        return None


@dataclass(frozen=True)
class TableState:
    """The whole table: configuration, phase, the round in play and the seats' balances."""

    config: TableConfig
    phase: Phase = Phase.CLOSED
    round: Round | None = None
    rounds_started: int = 0
    balances: tuple[tuple[str, Money], ...] = ()  # sorted by seat
    last_round: tuple[tuple[str, str], ...] = field(default=())  # (round id, outcome) of the last
    deck_id: str = ""
    last_bets: tuple[tuple[str, str, tuple[tuple[Spot, Money], ...]], ...] = ()  # for rebet
    deck_fresh: bool = False  # a deck changed between rounds, not dealt from yet
    away: tuple[str, ...] = ()  # remote seats disconnected and not back, sorted

    @property
    def deck_due(self) -> bool:
        """Whether the game in play, or the next one, still waits for its new deck (rules 6,
        games whose deck is changed for each game)."""
        if self.config.rules < 6 or not self.config.game.config.change_deck_each_game:
            return False
        if self.phase is Phase.IDLE:
            return not self.deck_fresh
        rnd = self.round
        return self.phase is Phase.BETTING and rnd is not None and not rnd.deck_changed

    def balance(self, seat: str) -> Money | None:
        """A studio seat's balance (None at a table without balances, or for a seat unknown)."""
        balances = self.balances
        i = bisect_left(balances, (seat,))  # sorted by seat
        if i < len(balances) and balances[i][0] == seat:
            return balances[i][1]
        return next((b for s, b in balances if s == seat), None)  # not sorted, or not there

    @property
    def next_due(self) -> str:
        """What the table waits for, in words, for the console."""
        if self.phase is Phase.HALTED and self.round is not None:
            return f"halted by {who(self.round.halted_by)}: {self.round.halt_reason}"
        if self.round is None:
            if self.deck_due:
                return "change the deck (a new deck for each game), then start a round"
            return _WAITING_FOR.get(self.phase, "")
        if self.phase is Phase.BETTING:
            if self.deck_due:
                return "change the deck for this game; bets, then no more bets"
            return "bets, then no more bets"
        if self.phase is Phase.SETTLING:
            return "payment confirmations"
        due = self.round.due
        return due.describe() if due is not None else ""


# what the table waits for with no round in play
_WAITING_FOR = {Phase.CLOSED: "open the table", Phase.IDLE: "start a round"}


def new_table(config: TableConfig) -> TableState:
    """A closed table with its seats' starting balances."""
    balances = tuple(sorted((seat, exact(b)) for seat, b in (config.balances or {}).items()))
    return TableState(config, balances=balances)


_Record = TypeVar("_Record", Stake, Round, TableState)


def _evolve(record: _Record, **changes: Any) -> _Record:
    """``dataclasses.replace`` for the state's records, by copying the instance dictionary."""
    new = _new(record.__class__)
    values = {**record.__dict__, **changes}
    # a record's dictionary holds its fields and nothing else: a name that is not a field
    # would add one
    assert len(values) == len(record.__dict__), changes.keys()
    _set(new, "__dict__", values)
    return new


def _totals(bets: tuple[tuple[Spot, Money], ...]) -> dict[Spot, Money]:
    out: dict[Spot, Money] = {}
    for spot, amount in bets:
        out[spot] = exact(out[spot] + amount) if spot in out else amount
    return out


def round_id(table_id: str, started_at: float, number: int) -> str:
    """A unique, sortable, readable round id: table, UTC start time, counter.

    >>> round_id("T7", 1_790_000_000.0, 42)
    'T7-20260921T141320Z-000042'
    """
    stamp = datetime.fromtimestamp(started_at, tz=UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{table_id}-{stamp}-{number:06d}"


# =========================================================================== verification


def _refuse(action: str, state: TableState, why: str = "") -> IllegalCommand:
    text = f"can't {action} while the table is {state.phase}"
    if state.phase is Phase.HALTED and state.round is not None:
        text += f" ({state.round.halt_reason})"
    return IllegalCommand(text + (f": {why}" if why else ""))


def _need_phase(state: TableState, action: str, *phases: Phase) -> None:
    if state.phase not in phases:
        wanted = " or ".join(p.value for p in phases)
        raise _refuse(action, state, f"only while {wanted}")


def _need(state: TableState, action: str, *phases: Phase) -> Round:
    """The round in play, when the table is in one of ``phases``."""
    if state.phase not in phases:
        _need_phase(state, action, *phases)
    if state.round is None:
        raise _refuse(action, state, "no round is in play")
    return state.round


def _verify_bet(
    state: TableState, event: PlaceBet
) -> tuple[Round, Stake | None, tuple[tuple[Spot, Money], ...], Money]:
    """Refuse a bet the table may not take; else the round, the seat's stake on the hand before
    the bet (None for its first bet), the stake's bets with this one and everything they place
    (with the bets they bring)."""
    rnd = _need(state, "place a bet", Phase.BETTING)
    cfg = state.config
    if event.hand not in cfg.hands:
        raise IllegalCommand(
            f"can't bet on '{event.hand}': expected a hand of this table ({', '.join(cfg.hands)})"
        )
    amount = exact(event.amount)
    if amount <= 0:
        raise IllegalCommand(
            f"can't bet {say_amount(amount)}: expected a positive amount such as 25 or 12.5"
        )
    if cfg.seating is Seating.BOXES:
        _verify_box_bet(state, rnd, event)
    before = rnd.stake(event.hand, event.seat)
    bets = (*before.bets, (event.spot, amount)) if before else ((event.spot, amount),)
    totals = _totals(bets)
    game = cfg.game
    if event.spot not in game.initial_spots:
        allowed = ", ".join(s.value for s in game.initial_spots)
        raise IllegalCommand(f"can't bet on {event.spot} before the deal: expected {allowed}")
    if event.spot is not Spot.ANTE and totals.get(Spot.ANTE, 0) <= 0:
        raise IllegalCommand(f"can't bet on {event.spot} without an ante on {event.hand}")
    limits = game.config.limits
    limit = limits.get(event.spot)
    if limit is not None:
        try:
            limit.verify(event.spot, totals[event.spot], totals)
        except TableError as error:
            on = totals[event.spot] - amount  # already on the spot: the limit is on the total
            if on == 0:
                raise
            raise IllegalCommand(
                f"{error} in all ({say_amount(on)} already on it, {say_amount(amount)} added)"
            ) from None
        if event.spot is Spot.ANTE:  # a lower ante must not leave a side bet above its cap
            for spot, total in totals.items():
                cap = limits.get(spot)
                if cap is not None and cap.at_most is Spot.ANTE and spot is not Spot.ANTE:
                    cap.verify(spot, total, totals)
    placed = _walked(game, bets, ())[1]
    balance = state.balance(event.seat)
    if cfg.balances is not None:
        if balance is None:
            raise IllegalCommand(f"can't take a bet from {event.seat}: the seat has no balance")
        # the cost includes what the bet brings with it (Ultimate's Ante Plus equals the ante)
        was = _placed(game, before) if before else _walked(game, (), ())[1]
        cost = exact(placed - was)
        if cost > balance:
            brings = "" if cost == amount else f" (with the bets it brings, {say_amount(cost)})"
            raise IllegalCommand(
                f"can't bet {say_amount(amount)} for {event.seat}{brings}: the balance is "
                f"{say_amount(balance)} (no credit)"
            )
    return rnd, before, bets, placed


def _box_rules(state: TableState) -> tuple[int, int] | None:
    """Seed 001's box rules, where the game has them: (bets per box, open boxes per gambler)."""
    game = state.config.game
    per_box, open_boxes = game.option("bets_per_box"), game.option("open_boxes_per_gambler")
    if isinstance(per_box, int) and isinstance(open_boxes, int):
        return per_box, open_boxes
    return None


def _box_number(hand: str) -> int:
    digits = "".join(ch for ch in hand if ch.isdigit())
    return int(digits) if digits else -1


def _owner_of(rnd: Round, hand: str) -> str | None:
    return next((s.seat for s in rnd.stakes if s.hand == hand and s.bets), None)


def _verify_box_bet(state: TableState, rnd: Round, event: PlaceBet) -> None:
    """One owner a box; where the game allows (seed 001), passengers and dark boxes."""
    owner = _owner_of(rnd, event.hand)
    rules = _box_rules(state)
    if owner is None or owner == event.seat:
        if owner is None and event.dark and rules is None:
            raise IllegalCommand(f"can't play {event.hand} dark: this game has no dark boxes")
        if owner is None and rules is not None and not event.dark:
            _, most_open = rules
            mine = sorted(
                _box_number(h) for h in {s.hand for s in rnd.stakes if s.seat == event.seat}
                if h not in rnd.dark and _owner_of(rnd, h) == event.seat
            )  # fmt: skip
            if len(mine) >= most_open:
                raise IllegalCommand(
                    f"can't give {event.seat} {event.hand}: a gambler plays at most "
                    f"{most_open} open boxes"
                )
            if mine and all(abs(_box_number(event.hand) - n) != 1 for n in mine):
                raise IllegalCommand(
                    f"can't give {event.seat} {event.hand}: a gambler's open boxes must be "
                    f"neighbours (has box {mine[0]})"
                )
        return
    if rules is None:
        raise IllegalCommand(
            f"can't bet for {event.seat} on {event.hand}: the box belongs to {owner}"
        )
    per_box, _ = rules
    seats = {s.seat for s in rnd.stakes if s.hand == event.hand}
    if event.seat not in seats and len(seats) >= per_box:
        raise IllegalCommand(
            f"can't bet for {event.seat} on {event.hand}: a box takes {per_box} bets"
        )
    if event.hand not in rnd.dark:
        if (event.hand, event.seat) not in rnd.permissions:
            raise IllegalCommand(
                f"can't bet for {event.seat} on {event.hand}: an open box needs its owner "
                f"{owner}'s permission"
            )
        if event.spot is Spot.ANTE:
            owners = next(s for s in rnd.stakes if s.hand == event.hand and s.seat == owner)
            own = rnd.stake(event.hand, event.seat)
            total = (own.totals().get(Spot.ANTE, 0) if own else 0) + event.amount
            if total > owners.totals().get(Spot.ANTE, 0):
                raise IllegalCommand(
                    f"can't bet {say_amount(exact(total))} for {event.seat} on {event.hand}: "
                    "a passenger on an open box bets the owner's amount "
                    f"({say_amount(owners.totals().get(Spot.ANTE, 0))})"
                )


def _verify_boxes_ready(state: TableState, rnd: Round) -> None:
    """Before the deal: open-box passengers bet the owner's ante and follow him to his 2nd box."""
    if state.config.seating is not Seating.BOXES or _box_rules(state) is None:
        return
    antes = {(s.hand, s.seat): s.totals().get(Spot.ANTE, 0) for s in rnd.stakes}
    owned: dict[str, list[str]] = {}
    for hand in state.config.hands:
        owner = _owner_of(rnd, hand)
        if owner is None:
            continue
        if hand not in rnd.dark:
            owned.setdefault(owner, []).append(hand)
        for s in rnd.stakes:
            open_rider = s.hand == hand and s.seat != owner and hand not in rnd.dark
            if open_rider and antes[(hand, s.seat)] != antes[(hand, owner)]:
                raise IllegalCommand(
                    f"can't close betting: {s.seat} on {hand} bets "
                    f"{say_amount(antes[(hand, s.seat)])}, the owner {owner} "
                    f"{say_amount(antes[(hand, owner)])}: open-box bets must be equal"
                )
    for owner, hands in owned.items():
        if len(hands) == 2:
            a, b = hands
            if antes[(a, owner)] != antes[(b, owner)]:
                raise IllegalCommand(
                    f"can't close betting: {owner}'s antes on {a} and {b} differ "
                    f"({say_amount(antes[(a, owner)])} and {say_amount(antes[(b, owner)])}): "
                    "they must be equal"
                )
            riders = {s.seat for s in rnd.stakes if s.hand == a and s.seat != owner}
            riders_b = {s.seat for s in rnd.stakes if s.hand == b and s.seat != owner}
            if riders != riders_b:
                missing = sorted(riders ^ riders_b)
                raise IllegalCommand(
                    f"can't close betting: {', '.join(missing)} must ride both of {owner}'s "
                    f"boxes ({a} and {b})"
                )


def _follow_owners(state: TableState, rnd: Round, now: float) -> tuple[TableState, list[Action]]:
    """Seed 001: "if the gambler plays on two open boxes, the passenger must play on two open
    boxes automatically": a passenger on one of them gets the same ante on the other.

    Done as betting closes (the owner and the passenger may change their bets until then);
    each bet placed is a ``bet`` action marked ``automatic``, naming the owner it follows.
    """
    if state.config.seating is not Seating.BOXES or _box_rules(state) is None:
        return state, []
    actions: list[Action] = []
    owned: dict[str, list[str]] = {}
    for hand in state.config.hands:
        owner = _owner_of(rnd, hand)
        if owner is not None and hand not in rnd.dark:
            owned.setdefault(owner, []).append(hand)
    for owner, hands in owned.items():
        if len(hands) != 2:
            continue
        for here, there in (hands, hands[::-1]):
            for stake in [s for s in rnd.stakes if s.hand == here and s.seat != owner]:
                ante = stake.totals().get(Spot.ANTE, 0)
                owners = next(s for s in rnd.stakes if s.hand == here and s.seat == owner)
                rides = any(s.hand == there and s.seat == stake.seat and s.bets for s in rnd.stakes)
                if ante != owners.totals().get(Spot.ANTE, 0) or rides:
                    continue
                if (there, stake.seat) not in rnd.permissions:
                    rnd = _evolve(rnd, permissions=(*rnd.permissions, (there, stake.seat)))
                    state = _evolve(state, round=rnd)
                bet = PlaceBet(actor=DEALER, hand=there, seat=stake.seat, spot=Spot.ANTE,
                               amount=Fraction(ante))  # fmt: skip
                try:
                    state, placed = _bet(state, bet, now)
                except IllegalCommand as error:
                    raise IllegalCommand(
                        f"can't close betting: {stake.seat} rides {owner}'s {here} and must "
                        f"follow him onto {there} automatically, but {error}"
                    ) from None
                for action in placed:
                    data = {**action.data, "automatic": True, "follows": owner, "from": here}
                    actions.append(Action(action.kind, data))
                assert state.round is not None
                rnd = state.round
    return state, actions


def _verify_decide(state: TableState, event: Decide) -> tuple[Round, DecisionPoint, list[Stake]]:
    rnd = _need(state, "take a decision", Phase.DECIDING)
    due = rnd.due
    assert due is not None and due.point is not None
    if state.config.seating is Seating.BOXES:
        stakes = [s for s in rnd.stakes if s.hand == event.hand]
        if not stakes:
            raise IllegalCommand(f"can't decide for {event.hand}: it has no bets in this round")
        owner = stakes[0].seat
        if event.seat != owner:
            raise IllegalCommand(
                f"can't decide for {event.hand} as {event.seat}: the box owner {owner} decides"
            )
        targets = stakes
        for hand in state.config.hands:  # a gambler decides his first box, then his second
            if hand == event.hand:
                break
            first = [s for s in rnd.stakes if s.hand == hand and s.seat == owner]
            if first and any(_owes(state.config.game, s, due.point) for s in first):
                raise IllegalCommand(
                    f"can't decide {event.hand} before {hand}: {owner} decides his first box first"
                )
    else:
        own = rnd.stake(event.hand, event.seat)  # a seat has one stake on a hand
        if own is None:
            if not any(s.hand == event.hand for s in rnd.stakes):
                raise IllegalCommand(f"can't decide for {event.hand}: it has no bets in this round")
            raise IllegalCommand(f"can't decide for {event.seat}: no stake on {event.hand}")
        targets = [own]
    game = state.config.game
    for stake in targets:
        if not _owes(game, stake, due.point):
            raise IllegalCommand(
                f"can't decide for {stake.seat} on {stake.hand} at {due.point.name}: "
                "that stake has no decision to make there"
            )
    option = due.point.option(event.option)  # raises naming the choices
    if option.places_bet and state.config.balances is not None:
        for stake in targets:
            ante = stake.totals().get(Spot.ANTE, 0)
            cost = times(ante, option.multiple)
            balance = state.balance(stake.seat) or 0
            if cost > balance:
                raise IllegalCommand(
                    f"can't {event.option} for {stake.seat}: it costs {say_amount(cost)} and "
                    f"the balance is {say_amount(balance)} (no credit)"
                )
    return rnd, due.point, targets


def _walk_through(
    game: Game, bets: tuple[tuple[Spot, Money], ...], decisions: tuple[str, ...]
) -> tuple[Walk, Money]:
    """A stake's walk through the decision points, and everything it has placed."""
    walk = game.walk(_totals(bets), decisions)
    return walk, exact(sum(walk.bets.values(), 0))


class _Memo:
    """A game's walks by (bets, decisions), with what each has placed in all."""

    __slots__ = ("game", "walks")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.walks: dict[
            tuple[tuple[tuple[Spot, Money], ...], tuple[str, ...]], tuple[Walk, Money]
        ] = {}


_MEMOS: dict[int, _Memo] = {}  # by id(game); the memo holds its game, so the id stays its own


def _walked(
    game: Game, bets: tuple[tuple[Spot, Money], ...], decisions: tuple[str, ...]
) -> tuple[Walk, Money]:
    """:func:`_walk_through`, memoized (stakes are immutable and games pure).

    Every event of a round asks for the walks of the stakes again (who owes a decision, what
    each has placed), mostly of stakes it did not change. The memo is needed for both
    targets: on ``python benchmarks/table.py`` (2 runs), without it handle() p99 was
    144-145 us instead of 79-81 us, and the 10,000 rounds replayed from a journal file took
    8.4-8.6 s instead of 4.8-4.9 s. The benchmark prints both figures, with and without.
    At most 64 games of 4,096 walks each are kept: the oldest walk goes first.
    """
    memo = _MEMOS.get(id(game))
    if memo is None or memo.game is not game:
        if len(_MEMOS) >= 64:
            _MEMOS.clear()
        memo = _MEMOS[id(game)] = _Memo(game)
    key = (bets, decisions)
    found = memo.walks.get(key)
    if found is None:
        if len(memo.walks) >= 4096:  # the oldest goes (one at a time: no pause to empty all)
            del memo.walks[next(iter(memo.walks))]
        found = memo.walks[key] = _walk_through(game, bets, decisions)
    return found


def _walk(game: Game, stake: Stake) -> Walk:
    """A stake's walk through the decision points."""
    return _walked(game, stake.bets, stake.decisions)[0]


def _placed(game: Game, stake: Stake) -> Money:
    """Everything on the layout for ``stake`` now: its bets, automatic bets and decisions' bets."""
    return _walked(game, stake.bets, stake.decisions)[1]


def _charge(state: TableState, stake: Stake) -> tuple[TableState, Stake]:
    """Debit the seat for whatever ``stake`` has placed beyond what it paid in."""
    owed = _placed(state.config.game, stake) - stake.debited
    if owed == 0:
        return state, stake
    return _debit(state, stake.seat, owed), _evolve(stake, debited=exact(stake.debited + owed))


def _owes(game: Game, stake: Stake, point: DecisionPoint) -> bool:
    pending = _walk(game, stake).pending
    return pending is not None and pending.name == point.name


def _anyone_owes(
    game: Game, stakes: tuple[Stake, ...], point: DecisionPoint, start: int = 0
) -> bool:
    """Whether any of ``stakes`` owes a decision at ``point`` (looked for from ``start`` on,
    then from the first: the next seat to decide is usually the next one)."""
    name = point.name
    for part in (stakes[start:], stakes[:start]) if start else (stakes,):
        for stake in part:
            pending = _walk(game, stake).pending
            if pending is not None and pending.name == name:
                return True
    return False


# =========================================================================== the round


# The script is the same for every round of a table: made once per game and hands (at most
# 256 kept), it is not rebuilt, one record per step, at every round's close of betting. Kept
# for the journal target, whose figure is close to its 5 s: on ``python benchmarks/table.py``
# (2 runs), the 10,000 rounds replayed from a journal file took 4.95 s without it instead of
# 4.8-4.9 s (handle() p99 unchanged). The benchmark prints both figures, with and without it.
@lru_cache(maxsize=256)
def _expand(game: Game, hands: tuple[str, ...]) -> tuple[Due, ...]:
    """The game's deal script for these hands, one step per card, decision or reveal."""
    steps: list[Due] = []
    for step in game.script.steps:
        if isinstance(step, DealHoleCards):
            for _ in range(step.count):
                steps += [Due("card", hand, step.player_face) for hand in hands]
                steps.append(Due("card", "dealer", step.dealer_face))
        elif isinstance(step, DealBoard):
            steps += [Due("card", "board", step.face, step.name) for _ in range(step.count)]
        elif isinstance(step, Reveal):
            steps.append(Due("reveal", label=step.what))
        elif isinstance(step, DecideStep):
            steps.append(Due("decision", point=step.point))
    return tuple(steps)


_PHASE_OF_DUE = {"card": Phase.DEALING, "decision": Phase.DECIDING, "reveal": Phase.REVEAL}


def _phase_of(due: Due | None) -> Phase:
    if due is None:
        return Phase.SETTLING
    return _PHASE_OF_DUE[due.kind]


def _phase_action(state: TableState) -> Action:
    rnd = state.round
    return Action(
        "phase",
        {
            "phase": str(state.phase),
            "round_id": rnd.round_id if rnd else None,
            "next": state.next_due,
        },
    )


def _gate(before: TableState, after: TableState) -> list[Action]:
    """Unlock the shoe exactly while a card is due; lock it otherwise."""
    was, now = before.phase is Phase.DEALING, after.phase is Phase.DEALING
    if was == now:
        return []
    return [Action("shoe_gate", {"locked": not now})]


def _advance(state: TableState, rnd: Round, now: float) -> tuple[TableState, list[Action]]:
    """With ``rnd`` the round in play, move past steps that need nobody: reveals before
    decisions, decisions nobody owes."""
    actions: list[Action] = []
    game = state.config.game
    while True:
        due = rnd.due
        if due is None:
            return _settle(_evolve(state, round=rnd), now, actions)
        if due.kind == "reveal" and due.label == "dealer_first":
            rnd = _evolve(rnd, cursor=rnd.cursor + 1, revealed=rnd.revealed | {"dealer_first"})
            first = rnd.cards_of("dealer")[:1]
            actions.append(
                Action("reveal", {"what": "dealer_first", "cards": [c.code for c in first]})
            )
            continue
        if due.kind == "decision":
            assert due.point is not None
            if not _anyone_owes(game, rnd.stakes, due.point):
                rnd = _evolve(rnd, cursor=rnd.cursor + 1)
                continue
            deadline = (
                now + state.config.decision_seconds if state.config.decision_seconds else None
            )
            if deadline != rnd.decision_deadline:
                rnd = _evolve(rnd, decision_deadline=deadline)
        break
    rnd = _settle_ahead(game, rnd, rnd.stakes)
    state = _evolve(state, round=rnd, phase=_phase_of(rnd.due))
    actions.append(_phase_action(state))
    return state, actions


def _held(rnd: Round) -> dict[str, tuple[Card, ...]]:
    """The cards of every position, in one pass."""
    held: dict[str, list[Card]] = {}
    for position, card, _ in rnd.cards:
        if position in held:
            held[position].append(card)
        else:
            held[position] = [card]
    return {position: tuple(cards) for position, cards in held.items()}


_CardsKey = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]  # player, dealer, board
_Hands = tuple[RoundCards, HandValue, HandValue, tuple["_Json", "_Json"]]
_SettleKey = tuple[_CardsKey, tuple[tuple[Spot, Money], ...], tuple[str, ...]]


def _settled(
    game: Game,
    held: dict[str, tuple[Card, ...]],
    stake: Stake,
    hands: dict[_CardsKey, _Hands],
    settled: dict[_SettleKey, Settlement],
) -> tuple[Settlement, tuple[_Json, _Json]]:
    """The settlement of a complete ``stake`` on the cards ``held``, with the JSON forms of
    its hands, from ``settled`` when it is there; a hand evaluated, or a settlement made,
    is added to ``hands`` or ``settled``."""
    cards_key = (held.get(stake.hand, ()), held.get("dealer", ()), held.get("board", ()))
    hand = hands.get(cards_key)
    if hand is None:
        cards = RoundCards(*cards_key)
        player, dealers = game.evaluate_hands(cards)
        game.check_cards(cards)
        hand = hands[cards_key] = (cards, player, dealers, (player.to_json(), dealers.to_json()))
    key = (cards_key, stake.bets, stake.decisions)
    settlement = settled.get(key)
    if settlement is None:
        cards, player, dealers, _ = hand
        walk = game.completed(_walk(game, stake))
        settlement = settled[key] = game.settle_walk(cards, walk, player, dealers)
    return settlement, hand[3]


def _settle_ahead(game: Game, rnd: Round, stakes: Iterable[Stake]) -> Round:
    """``rnd`` with those of ``stakes`` settled whose outcome is already fixed (their cards
    all dealt, their decisions all made), for the reveal to find them done.

    A settlement is a pure function of the cards, bets and decisions, and is kept by them
    (a card corrected later makes another key). The work is the same, done when each
    outcome becomes known rather than all at once when the dealer reveals: the reveal, the
    step the players watch for, publishes settlements already made (only their messages'
    JSON is left to it). Nothing of it is shown before the reveal: no view reads these
    fields.
    """
    if _cards_to_come(rnd):
        return rnd
    held = _held(rnd)
    hands, settled = dict(rnd.hands_ahead), dict(rnd.settled_ahead)
    made = len(settled)
    for stake in stakes:
        if stake.ruling or _walk(game, stake).pending is not None:
            continue
        try:
            _settled(game, held, stake, hands, settled)
        except TableError:  # cards that do not fit the game: the reveal says so, in its turn
            break
    if len(settled) == made:
        return rnd
    return _evolve(rnd, hands_ahead=tuple(hands.items()), settled_ahead=tuple(settled.items()))


def _cards_to_come(rnd: Round) -> bool:
    """Whether a card step is due now or later in the round's script."""
    return any(due.kind == "card" for due in rnd.script[rnd.cursor :])


def _settle(
    state: TableState, now: float, actions: list[Action]
) -> tuple[TableState, list[Action]]:
    rnd = state.round
    assert rnd is not None
    game = state.config.game
    held = _held(rnd)
    settlements: list[tuple[str, str, Settlement]] = []
    hands, settled = dict(rnd.hands_ahead), dict(rnd.settled_ahead)
    for stake in rnd.stakes:
        if stake.ruling == "returned":  # the pit manager returned its bets: nothing is settled
            placed = _walk(game, stake).bets
            paid_in = format_amount(exact(sum(placed.values(), 0)))
            lines = [
                {"spot": spot.value, "stake": format_amount(amount), "result": "push",
                 "odds": None, "paid": "0", "returned": format_amount(amount),
                 "paytable_line": None, "reason": "returned by the pit manager's ruling"}
                for spot, amount in placed.items() if amount > 0
            ]  # fmt: skip
            data = {"hand": stake.hand, "seat": stake.seat, "ruling": "returned"}
            money = {"staked": paid_in, "returned": paid_in, "net": "0", "lines": lines}
            actions.append(Action("settled", {**data, **money}))
            continue
        settlement, shown = _settled(game, held, stake, hands, settled)
        settlements.append((stake.hand, stake.seat, settlement))
        shape = settlement.to_json(shown)
        actions.append(Action("settled", {"hand": stake.hand, "seat": stake.seat, **shape}))
    rnd = _evolve(rnd, settlements=tuple(settlements))
    if state.config.confirm_payments and any(s.returned > 0 for _, _, s in settlements):
        state = _evolve(state, round=rnd, phase=Phase.SETTLING)
        actions.append(_phase_action(state))
        return state, actions
    return _complete(state, actions, rnd)  # the state between, settling, is never seen


def _credit(
    balances: tuple[tuple[str, Money], ...], amounts: Iterable[tuple[str, Money]]
) -> tuple[tuple[str, Money], ...]:
    """``balances`` (sorted by seat) with ``amounts`` added to their seats' balances."""
    totals: dict[str, Money] = dict(balances)
    for seat, amount in amounts:
        totals[seat] = totals.get(seat, 0) + amount
    out = tuple([(seat, b if b.__class__ is int else exact(b)) for seat, b in totals.items()])
    return out if len(out) == len(balances) else tuple(sorted(out))  # a new seat: sort again


def _complete(
    state: TableState, actions: list[Action], rnd: Round | None = None
) -> tuple[TableState, list[Action]]:
    """End the round in play (or ``rnd``, its settled form): balances credited, round ended."""
    if rnd is None:
        rnd = state.round
    assert rnd is not None
    game = state.config.game
    back = [(s.seat, _placed(game, s)) for s in rnd.stakes if s.ruling == "returned"]
    won: list[tuple[str, Money]] = []
    staked: Money = 0
    returned: Money = 0
    for _, seat, settlement in rnd.settlements:
        staked += settlement.staked
        returned += settlement.returned
        won.append((seat, settlement.returned))
    for _, amount in back:
        staked += amount
        returned += amount
    balances = state.balances
    if state.config.balances is not None:
        balances = _credit(balances, [*won, *back] if back else won)
    actions.append(
        Action(
            "round_ended",
            {
                "round_id": rnd.round_id,
                "outcome": "complete",
                "staked": format_amount(exact(staked)),
                "returned": format_amount(exact(returned)),
            },
        )
    )
    state = _evolve(
        state,
        phase=Phase.IDLE,
        round=None,
        balances=balances,
        last_round=((rnd.round_id, "complete"),),
        last_bets=tuple([(st.hand, st.seat, st.bets) for st in rnd.stakes]),
    )
    actions.append(_phase_action(state))
    return state, actions


# =========================================================================== applying commands


def _start(state: TableState, event: StartRound, now: float) -> tuple[TableState, list[Action]]:
    _need_phase(state, "start a round", Phase.IDLE)
    number = state.rounds_started + 1
    deadline = now + state.config.betting_seconds if state.config.betting_seconds else None
    rnd = Round(round_id(state.config.table_id, now, number), now, betting_deadline=deadline,
                deck_changed=state.deck_fresh)  # fmt: skip
    state = _evolve(state, phase=Phase.BETTING, round=rnd, rounds_started=number, deck_fresh=False)
    return state, [_phase_action(state)]


def _bet(state: TableState, event: PlaceBet, now: float) -> tuple[TableState, list[Action]]:
    filled: list[Action] = []
    if state.config.rules >= 5 and _buttons(state).fill_to_maximum:
        asked = event.amount
        event, filled = _fill(state, event)
        if filled:
            try:
                rnd, stake, bets, placed = _verify_bet(state, event)
            except TableError as error:
                raise IllegalCommand(
                    f"{error} (asked {say_amount(exact(asked))}, cut to fill the spot to "
                    "its maximum)"
                ) from None
    if not filled:
        rnd, stake, bets, placed = _verify_bet(state, event)
    # paid in now, with whatever the bet brings with it (Ultimate's Ante Plus)
    debited = stake.debited if stake else 0
    owed = placed - debited
    if owed != 0:
        debited = exact(debited + owed)
    if state.config.rules >= 5:  # a chip keeps the stake's Double and its actions
        marks = (*stake.marks, ("bet", len(bets))) if stake else (("bet", len(bets)),)
        doubled = stake.doubled if stake else False
        new = Stake(event.hand, event.seat, bets, debited=debited, doubled=doubled, marks=marks)
    else:
        new = Stake(event.hand, event.seat, bets, debited=debited)
    stakes = (
        (*rnd.stakes, new)
        if stake is None
        else tuple([new if s is stake else s for s in rnd.stakes])
    )
    dark = (
        rnd.dark | {event.hand} if event.dark and _owner_of(rnd, event.hand) is None else rnd.dark
    )
    rnd = _evolve(rnd, stakes=stakes, dark=dark)
    if owed != 0 and state.config.balances is not None:
        state = _evolve(state, round=rnd, balances=_debited(state.balances, event.seat, owed))
    else:
        state = _evolve(state, round=rnd)
    return state, [Action("bet", {"hand": event.hand, "seat": event.seat, "spot": str(event.spot),
                                  "amount": format_amount(bets[-1][1])}), *filled]  # fmt: skip


def _buttons(state: TableState) -> Buttons:
    """What the studio buttons do at this table: its game's, from rules 5 on."""
    buttons = state.config.game.config.buttons if state.config.rules >= 5 else None
    return buttons or _LEGACY_BUTTONS


def _fill(state: TableState, event: PlaceBet) -> tuple[PlaceBet, list[Action]]:
    """A bet past its spot's maximum, cut to fill the spot to the maximum (seed 002: "up to
    the maximum limit"); refused when the spot already holds the maximum."""
    rnd = state.round
    limit = state.config.game.config.limits.get(event.spot)
    if rnd is None or state.phase is not Phase.BETTING or limit is None:
        return event, []
    stake = rnd.stake(event.hand, event.seat)
    on = stake.totals().get(event.spot, 0) if stake else 0
    room = exact(limit.maximum - on)
    asked = exact(event.amount)
    if asked <= room or asked % limit.step != 0:  # a bad chip is refused as it came
        return event, []
    if room <= 0:
        raise IllegalCommand(
            f"can't bet {say_amount(asked)} more on {event.spot} for {event.seat}: the maximum "
            f"{say_amount(limit.maximum)} is already bet; expected no more on that spot"
        )
    note = (
        f"{event.spot} filled to the maximum {say_amount(limit.maximum)}: "
        f"{say_amount(room)} taken of {say_amount(asked)}"
    )
    alert = Action("alert", {"level": "info", "audience": event.seat, "message": note})
    return replace(event, amount=Fraction(room)), [alert]


def _marked(
    state: TableState, hand: str, seat: str, what: str, before: tuple[tuple[str, int], ...]
) -> TableState:
    """Rules 3: the bets an action placed become one action of the stake (for an Undo)."""
    rnd = state.round
    if state.config.rules < 5 or rnd is None:
        return state
    stake = rnd.stake(hand, seat)
    if stake is None:
        return state
    new = _evolve(stake, marks=(*before, (what, len(stake.bets))),
                  doubled=stake.doubled or what == "double")  # fmt: skip
    rnd = _evolve(rnd, stakes=tuple([new if s is stake else s for s in rnd.stakes]))
    if what == "double" and (hand, seat) not in rnd.doubles:
        rnd = _evolve(rnd, doubles=(*rnd.doubles, (hand, seat)))
    return _evolve(state, round=rnd)


def _debited(
    balances: tuple[tuple[str, Money], ...], seat: str, amount: Money
) -> tuple[tuple[str, Money], ...]:
    """``balances`` (sorted by seat) with ``amount`` taken from ``seat``'s."""
    i = bisect_left(balances, (seat,))
    if i < len(balances) and balances[i][0] == seat:
        return (*balances[:i], (seat, exact(balances[i][1] - amount)), *balances[i + 1 :])
    return _credit(balances, ((seat, -amount),))


def _debit(state: TableState, seat: str, amount: Money) -> TableState:
    if state.config.balances is None:
        return state
    return _evolve(state, balances=_debited(state.balances, seat, amount))


def _take_back(state: TableState, hand: str, seat: str, how_many: int | None, what: str
               ) -> tuple[TableState, list[Action]]:  # fmt: skip
    rnd = _need(state, what, Phase.BETTING)
    stake = rnd.stake(hand, seat)
    if stake is None or not stake.bets:
        raise IllegalCommand(f"can't {what} for {seat} on {hand}: there is no bet to take back")
    marks = stake.marks
    if how_many == 1 and marks and _buttons(state).undo == "last_action":
        how_many = len(stake.bets) - (marks[-2][1] if len(marks) > 1 else 0)
    keep = stake.bets[:-how_many] if how_many else ()
    if state.config.rules >= 5:  # the actions left, and a Double only while it stays
        marks = tuple([m for m in marks if m[1] <= len(keep)])
        doubled = any(what == "double" for what, _ in marks)
        remaining = Stake(hand, seat, keep, debited=stake.debited, doubled=doubled, marks=marks)
    else:
        remaining = Stake(hand, seat, keep, debited=stake.debited)
    if keep and remaining.totals().get(Spot.ANTE, 0) <= 0:
        raise IllegalCommand(f"can't {what}: the side bet would stay without an ante")
    # everything the removed bets paid in comes back (an ante's Ante Plus with it)
    state, remaining = _charge(state, remaining)
    refund = exact(stake.debited - remaining.debited)
    stakes = tuple((remaining if s is stake else s) for s in rnd.stakes if s is not stake or keep)
    state = _evolve(state, round=_evolve(rnd, stakes=stakes))
    return state, [Action("bets_taken_back", {"hand": hand, "seat": seat,
                                              "amount": format_amount(refund)})]  # fmt: skip


def _no_more_bets(state: TableState, now: float, actor: str) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "close betting", Phase.BETTING)
    unchanged: list[Action] = []
    if _deck_missing(state, rnd):  # prompted, flagged to the pit; never a stop of the table
        message = (
            f"round {rnd.round_id} is dealt without the deck change: "
            f"{state.config.game.info.title} is dealt from a new deck each game and the deck "
            "was not changed for this game; change the deck before the next round (the pit "
            "manager may void this one)"
        )
        unchanged.append(Action("alert", {"level": "warning", "message": message}))
    followed: list[Action] = []
    if state.config.rules >= 3:
        state, followed = _follow_owners(state, rnd, now)
        assert state.round is not None
        rnd = state.round
    _verify_boxes_ready(state, rnd)
    in_play = tuple(
        h for h in state.config.hands if any(s.hand == h and s.bets for s in rnd.stakes)
    )
    actions = [*unchanged, *followed,
               Action("no_more_bets", {"round_id": rnd.round_id, "by": actor})]  # fmt: skip
    if not in_play:
        state = _evolve(state, phase=Phase.IDLE, round=None, deck_fresh=rnd.deck_changed,
                        last_round=((rnd.round_id, "no bets"),))  # fmt: skip
        actions.append(Action("round_ended", {"round_id": rnd.round_id, "outcome": "no bets"}))
        actions.append(_phase_action(state))
        return state, actions
    script = _expand(state.config.game, in_play)
    charged: list[Stake] = []
    for stake in rnd.stakes:  # automatic bets (Ultimate's Ante Plus) are paid in now
        state, stake = _charge(state, stake)
        charged.append(stake)
    rnd = _evolve(rnd, stakes=tuple(charged), in_play=in_play, script=script, cursor=0,
                  betting_deadline=None)  # fmt: skip
    before = state
    state, more = _advance(state, rnd, now)
    return state, actions + more + _gate(before, state)


def _card(state: TableState, event: CardDrawn, now: float) -> tuple[TableState, list[Action]]:
    rnd = state.round
    due = rnd.due if rnd is not None else None
    if state.phase is not Phase.DEALING or rnd is None or due is None or due.kind != "card":
        return _halt_for_card(state, event.card)
    card = event.card
    if card in rnd.stray or any(c is card for _, c, _ in rnd.cards):
        # every game shuffles a fresh deck for each round: the round's cards are the deck's
        due_as = f"{due.position}'s {_nth(1 + sum(p == due.position for p, _, _ in rnd.cards))}"
        reason = (
            f"card {card} was already dealt in this round as {dealt_as(rnd, card)}; it came "
            f"again as card {len(rnd.cards) + 1} (due: {due_as} card)"
        )
        return _halt(state, reason, "shoe")
    deck = state.config.game.info.deck
    if event.card not in deck:
        due_as = f"{due.position}'s {_nth(1 + sum(p == due.position for p, _, _ in rnd.cards))}"
        reason = (
            f"card {event.card} is not in the {deck.description}: the shoe read it as card "
            f"{len(rnd.cards) + 1} (due: {due_as} card); a card of another deck is in the shoe"
        )
        return _halt(state, reason, "shoe")
    rnd = _evolve(
        rnd, cards=(*rnd.cards, (due.position, event.card, due.face)), cursor=rnd.cursor + 1
    )
    actions = [Action("card", {"position": due.position, "card": event.card.code,
                               "face": str(due.face), "label": due.label})]  # fmt: skip
    before = state
    state, more = _advance(state, rnd, now)
    return state, actions + more + _gate(before, state)


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def _nth(n: int) -> str:
    """``first``, ``second`` … in words, then ``9th``."""
    return _ORDINALS[n - 1] if 1 <= n <= len(_ORDINALS) else f"{n}th"


def dealt_as(rnd: Round, card: Card) -> str:
    """Where ``card`` already is in ``rnd``, in the round's terms; empty when it is not.

    Cards count in the order dealt, and per position:

    >>> qc, ks, js = Card.parse("QC"), Card.parse("KS"), Card.parse("JS")
    >>> rnd = Round("R", 0.0, cards=(("box 1", ks, Face.UP), ("box 1", qc, Face.UP)), stray=(js,))
    >>> dealt_as(rnd, qc), dealt_as(rnd, js), dealt_as(rnd, Card.parse("2C"))
    ("card 2 (box 1's second card)", 'a stray card (it came while none was due)', '')
    """
    for n, (position, dealt, _) in enumerate(rnd.cards, start=1):
        if dealt is card:
            nth = _nth(sum(p == position for p, _, _ in rnd.cards[:n]))
            return f"card {n} ({position}'s {nth} card)"
    if card in rnd.stray:
        return "a stray card (it came while none was due)"
    return ""


def _halt_for_card(state: TableState, card: Card) -> tuple[TableState, list[Action]]:
    rnd = state.round
    due = rnd.due if rnd is not None else None
    if (
        state.phase is Phase.HALTED
        and rnd is not None
        and rnd.halted_from is Phase.DEALING
        and due is not None
        and due.kind == "card"
    ):
        # A card drawn during the deal that reaches the table only now (read before the
        # controller restarted, and sent again by the shoe): it lies on the felt where the
        # deal put it. It is held, and dealt to the places due when the round resumes.
        held = (*rnd.held, card)
        place = _held_place(rnd, len(held))
        rnd = _evolve(rnd, stray=(*rnd.stray, card), held=held)
        state = _evolve(state, round=rnd)
        message = (
            f"card {card} arrived while the deal was halted: it is held for {place}, where "
            "the deal puts it, and is dealt there when the round resumes (to place it "
            "elsewhere, restore the sequence; to take it back, redeal)"
        )
        # the pit's alone: the card may be one the dealer's console does not show (face down)
        alert = {"level": "warning", "audience": "pit", "message": message}
        return state, [Action("alert", alert)]
    if state.phase is Phase.HALTED:  # the halt's reason is already there: not quoted again
        reason = f"card {card} arrived while the table was halted"
    else:
        where = state.next_due or state.phase.value
        reason = f"card {card} arrived while no card was due ({state.phase}: waiting for {where})"
    dealt = dealt_as(state.round, card) if state.round is not None else ""
    if dealt:
        reason += f"; it was already dealt in this round as {dealt}"
    if state.round is None:
        # no round to stop: the card is reported, and the table stays as it is
        return state, [Action("alert", {"level": "error", "message": reason, "card": card.code})]
    rnd = _evolve(state.round, stray=(*state.round.stray, card))
    return _halt(_evolve(state, round=rnd), reason, "shoe")


def _held_place(rnd: Round, n: int) -> str:
    """The place the ``n``-th card held during a halted deal goes to, in words."""
    steps = [d for d in rnd.script[rnd.cursor :] if d.kind == "card"]
    return steps[n - 1].describe() if n <= len(steps) else "no place (the deal has no more cards)"


def _halt(state: TableState, reason: str, actor: str) -> tuple[TableState, list[Action]]:
    rnd = state.round
    assert rnd is not None
    if state.phase is Phase.HALTED:  # already halted: add the reason, keep the first phase
        also = reason if actor == rnd.halted_by else f"then {who(actor)}: {reason}"
        rnd = _evolve(rnd, halt_reason=f"{rnd.halt_reason}; {also}")
        state = _evolve(state, round=rnd)
        return state, [Action("alert", {"level": "error", "message": reason, "by": actor})]
    rnd = _evolve(rnd, halted_from=state.phase, halt_reason=reason, halted_by=actor)
    before = state
    state = _evolve(state, round=rnd, phase=Phase.HALTED)
    actions = [
        Action("halted", {"round_id": rnd.round_id, "reason": reason, "by": actor,
                          "from": rnd.halted_from.value if rnd.halted_from else None}),
        Action("alert", {"level": "error", "message": f"halted by {who(actor)}: {reason}"}),
        _phase_action(state),
    ]  # fmt: skip
    return state, actions + _gate(before, state)


def _resume(state: TableState, event: Resume, now: float) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "resume", Phase.HALTED)
    if rnd.exposed_in_deal:
        raise _refuse("resume", state, "expected a redeal, or the pit manager's void")
    assert rnd.halted_from is not None
    before = state
    phase = rnd.halted_from
    rnd = _evolve(rnd, halted_from=None, halt_reason="", halted_by="")
    if phase is Phase.DECIDING and state.config.decision_seconds:
        rnd = _evolve(rnd, decision_deadline=now + state.config.decision_seconds)
    if phase is Phase.BETTING and state.config.betting_seconds:
        rnd = _evolve(rnd, betting_deadline=now + state.config.betting_seconds)
    held = rnd.held  # cards that came while the deal was halted: dealt now, in their order
    if held:
        rnd = _evolve(rnd, held=(), stray=tuple(c for c in rnd.stray if c not in held))
    state = _evolve(state, round=rnd, phase=phase)
    actions = [Action("resumed", {"round_id": rnd.round_id, "by": event.actor, "note": event.note}),
               _phase_action(state)]  # fmt: skip
    for card in held:
        state, dealt = _card(state, CardDrawn(actor="shoe", card=card), now)
        actions += dealt
    return state, actions + _gate(before, state)


def _void(state: TableState, event: VoidRound) -> tuple[TableState, list[Action]]:
    if state.round is None:
        raise _refuse("void a round", state, "no round is in play")
    rnd = state.round
    # payments the dealer confirmed were made: after one, only the pit manager's confirmation
    # voids the round (rules 2), and those stakes are recorded as paid, not returned again
    paid = {(h, s): amount for h, s, amount in rnd.paid} if state.config.rules >= 2 else {}
    if paid and not event.confirm_paid:
        which = _listed([f"{h} ({s})" for h, s in paid])
        raise _refuse(
            "void the round", state,
            f"payments already confirmed for {which}: the pit manager must confirm the void "
            "(void_round with confirm_paid=true); the record then shows those stakes as "
            "already paid, and every other bet returned",
        )  # fmt: skip
    before = state
    refunds: list[dict[str, str]] = []
    for stake in rnd.stakes:  # the round did not happen: every amount paid in comes back
        amount = paid.get((stake.hand, stake.seat))
        if amount is not None:  # paid out already: nothing more comes back
            refunds.append({"hand": stake.hand, "seat": stake.seat, "status": "already paid",
                            "returned": "0", "paid": format_amount(amount)})  # fmt: skip
            continue
        paid_in = _placed(state.config.game, stake)
        refunds.append({"hand": stake.hand, "seat": stake.seat, "status": "returned",
                        "returned": format_amount(paid_in)})  # fmt: skip
        state = _debit(state, stake.seat, -stake.debited)
    state = _evolve(
        state, phase=Phase.IDLE, round=None, last_round=((rnd.round_id, "void"),),
        last_bets=tuple((st.hand, st.seat, st.bets) for st in rnd.stakes),
    )  # fmt: skip
    actions = [
        Action("round_ended", {"round_id": rnd.round_id, "outcome": "void", "reason": event.reason,
                               "by": event.actor, "refunds": refunds}),
        _phase_action(state),
    ]  # fmt: skip
    if paid:
        which = _listed([f"{h} ({s}) {say_amount(amount)}" for (h, s), amount in paid.items()])
        message = (
            f"round {rnd.round_id} voided by {who(event.actor)} after payments: already paid "
            f"{which}; their bets were not returned again, every other bet was returned. The "
            "house rules say whether those payments are taken back"
        )
        actions.append(Action("alert", {"level": "warning", "audience": "pit", "message": message}))
    return state, actions + _gate(before, state)


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _decide(state: TableState, event: Decide, now: float, automatic: bool = False
            ) -> tuple[TableState, list[Action]]:  # fmt: skip
    rnd, point, targets = _verify_decide(state, event)
    game = state.config.game
    chosen = {id(s) for s in targets}
    balances = state.balances
    stakes: list[Stake] = []
    decided: list[Stake] = []
    after = 0  # where the stakes after the last one decided begin
    for stake in rnd.stakes:  # a bet the decision places is paid in now
        if id(stake) in chosen:
            decisions = (*stake.decisions, event.option)
            owed = _walked(game, stake.bets, decisions)[1] - stake.debited
            if owed == 0:
                stake = _evolve(stake, decisions=decisions)
            else:
                stake = _evolve(stake, decisions=decisions, debited=exact(stake.debited + owed))
                if state.config.balances is not None:
                    balances = _debited(balances, stake.seat, owed)
            after = len(stakes) + 1
            decided.append(stake)
        stakes.append(stake)
    rnd = _evolve(rnd, stakes=tuple(stakes))
    actions = [Action("decision", {"hand": event.hand, "seat": event.seat, "option": event.option,
                                   "automatic": automatic})]  # fmt: skip
    if _anyone_owes(game, rnd.stakes, point, after % len(stakes)):
        rnd = _settle_ahead(game, rnd, decided)
        return _evolve(state, round=rnd, balances=balances), actions
    state = before = _evolve(state, balances=balances)
    rnd = _evolve(rnd, cursor=rnd.cursor + 1, decision_deadline=None)
    state, more = _advance(state, rnd, now)
    return state, actions + more + _gate(before, state)


def _reveal(state: TableState, event: RevealDone, now: float) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "reveal", Phase.REVEAL)
    shown: list[str] = []
    while rnd.due is not None and rnd.due.kind == "reveal":
        shown.append(rnd.due.label)
        rnd = _evolve(rnd, cursor=rnd.cursor + 1, revealed=rnd.revealed | {rnd.due.label})
    actions = [Action("reveal", {"what": label, "cards": [c.code for c in rnd.cards_of(
        "dealer" if label == "dealer" else "board")]}) for label in shown]  # fmt: skip
    state, more = _advance(state, rnd, now)
    return state, actions + more


def _payment(state: TableState, event: ConfirmPayment) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "confirm a payment", Phase.SETTLING)
    owed = next((s.returned for h, seat, s in rnd.settlements
                 if h == event.hand and seat == event.seat), None)  # fmt: skip
    if owed is None:
        due_now = [f"{h} ({s})" for h, s, st in rnd.settlements if st.returned > 0]
        raise IllegalCommand(
            f"can't confirm a payment for {event.seat} on {event.hand}: no such stake; "
            f"expected one of {', '.join(due_now) or 'none (nothing is owed)'}"
        )
    actions: list[Action] = []
    who = f"{event.hand} ({event.seat})"
    paid, due = say_amount(exact(event.paid)), say_amount(owed)
    if event.paid < owed:
        gap = say_amount(exact(owed - event.paid))
        message = f"short payment on {who}: paid {paid}, owed {due}: pay {gap} more"
        actions.append(
            Action("alert", {"level": "warning", "audience": "dealer", "message": message})
        )
        return state, actions
    if event.paid > owed:
        gap = say_amount(exact(event.paid - owed))
        message = f"overpayment on {who}: paid {paid}, owed {due}: {gap} too much"
        actions.append(Action("alert", {"level": "error", "audience": "pit", "message": message}))
    others = tuple(p for p in rnd.paid if (p[0], p[1]) != (event.hand, event.seat))
    rnd = _evolve(rnd, paid=(*others, (event.hand, event.seat, event.paid)))
    state = _evolve(state, round=rnd)
    actions.append(
        Action(
            "payment",
            {
                "hand": event.hand,
                "seat": event.seat,
                "paid": format_amount(event.paid),
                "owed": format_amount(owed),
            },
        )
    )
    confirmed = {(h, s) for h, s, _ in rnd.paid}
    waiting = [
        (h, s) for h, s, st in rnd.settlements if st.returned > 0 and (h, s) not in confirmed
    ]
    if waiting:
        return state, actions
    return _complete(state, actions)


# =========================================================================== irregularities


def _positions(spec: str) -> list[tuple[str, Card]]:
    """Parse ``box 1:AS box 2:KD dealer:7C`` into (position, card) pairs."""
    pairs: list[tuple[str, Card]] = []
    tokens = spec.replace(",", " ").split()
    pending: list[str] = []
    for token in tokens:
        if ":" in token:
            head, _, code = token.rpartition(":")
            position = " ".join([*pending, head]).strip()
            if not position:
                raise IllegalCommand(f"bad card placement {token!r}: expected position:card")
            pairs.append((position, Card.parse(code)))
            pending = []
        else:
            pending.append(token)
    if pending:
        raise IllegalCommand(f"bad card placements {spec!r}: {' '.join(pending)!r} has no card")
    return pairs


def _restore(
    state: TableState, event: RestoreSequence, now: float
) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "restore the deal sequence", Phase.HALTED)
    if rnd.exposed_in_deal:
        raise _refuse(
            "restore the deal sequence", state, "expected a redeal, or the pit manager's void"
        )
    placed = _positions(event.cards)
    known = [c for _, c, _ in rnd.cards] + list(rnd.stray)
    card_steps = [i for i, d in enumerate(rnd.script) if d.kind == "card"]
    if len(placed) > len(card_steps):
        raise IllegalCommand(f"can't place {len(placed)} cards: the round deals {len(card_steps)}")
    seen: set[Card] = set()
    cards: list[tuple[str, Card, Face]] = []
    for n, (position, card) in enumerate(placed):
        step = rnd.script[card_steps[n]]
        if position != step.position:
            raise IllegalCommand(
                f"can't restore: card {n + 1} of the deal goes to {step.position}, not {position}"
            )
        if card not in known:
            raise IllegalCommand(f"can't place {card}: it was not dealt in this round")
        if card in seen:
            raise IllegalCommand(f"can't place {card} twice")
        seen.add(card)
        cards.append((position, card, step.face))
    cursor = card_steps[len(placed) - 1] + 1 if placed else 0
    done_decisions = [i for i, d in enumerate(rnd.script[: rnd.cursor]) if d.kind == "decision"]
    if done_decisions and cursor <= done_decisions[-1] and any(s.decisions for s in rnd.stakes):
        raise IllegalCommand(
            "can't restore cards from before a decision already taken: redeal or void instead"
        )
    removed = tuple(c for c in known if c not in seen)
    rnd = _evolve(
        rnd, cards=tuple(cards), cursor=cursor, stray=(), held=(), removed=(*rnd.removed, *removed),
        halted_from=None, halt_reason="", halted_by="",
    )  # fmt: skip
    actions = [Action("sequence_restored", {"by": event.actor, "cards": event.cards,
                                            "removed": [c.code for c in removed]})]  # fmt: skip
    before = state
    state, more = _advance(state, rnd, now)
    return state, actions + more + _gate(before, state)


def _redeal(state: TableState, event: Redeal, now: float) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "redeal", Phase.HALTED, Phase.DEALING, Phase.DECIDING, Phase.REVEAL)
    collected = (*[c for _, c, _ in rnd.cards], *rnd.stray)
    stakes: list[Stake] = []
    for stake in rnd.stakes:  # bets stay where they were before the deal; calls come back
        state, stake = _charge(state, _evolve(stake, decisions=(), ruling=""))
        stakes.append(stake)
    data: _Json = {"by": event.actor, "reason": event.reason,
                   "collected": [c.code for c in collected]}  # fmt: skip
    changes: _Json = {}
    if state.config.rules >= 4:
        # the abandoned game keeps its number; the cards dealt again are a new game (seed 001:
        # "the new game starts"), its number linked to the game it replaces
        number = state.rounds_started + 1
        new_id = round_id(state.config.table_id, now, number)
        changes = {
            "round_id": new_id,
            "started_at": now,
            "abandoned": (*rnd.abandoned, rnd.round_id),
        }
        data.update(abandoned_round=rnd.round_id, round_id=new_id)
        state = _evolve(state, rounds_started=number)
    rnd = _evolve(
        rnd, stakes=tuple(stakes), cards=(), stray=(), held=(), cursor=0, revealed=frozenset(),
        removed=(*rnd.removed, *collected), redeals=rnd.redeals + 1, exposed_early=False,
        exposed_in_deal=False, halted_from=None, halt_reason="", halted_by="",
        decision_deadline=None, **changes,
    )  # fmt: skip
    actions = [Action("redeal", data)]
    before = state
    state, more = _advance(_evolve(state, phase=Phase.DEALING), rnd, now)
    return state, actions + more + _gate(before, state)


def _in_deal(rnd: Round) -> bool:
    """Whether the round is still in its deal: no decision point reached yet."""
    return all(d.kind != "decision" for d in rnd.script[: rnd.cursor + 1])


def _exposed(state: TableState, event: DealerExposedEarly) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "report the dealer's cards exposed", Phase.DEALING, Phase.DECIDING)
    if state.config.rules >= 4 and state.phase is Phase.DEALING and _in_deal(rnd):
        # seed 001: "If the stickman opened the first or the second card at the bank, cards
        # re-handing starts": the bets stay, and the redeal pays no ante
        dealt = len(rnd.cards_of(DEALER))
        if not dealt:
            raise IllegalCommand(
                "can't report the dealer's card exposed during the deal: expected a card "
                "dealt to the dealer, and none is dealt yet"
            )
        which = "first card" if dealt == 1 else "first or second card"
        reason = (
            f"the dealer's {which} was exposed during the deal: the cards are dealt again "
            "(redeal; the bets stay, a redeal pays no ante, and a new game number starts)"
        )
        rnd = _evolve(rnd, exposed_in_deal=True)
        return _halt(_evolve(state, round=rnd), reason, event.actor)
    if not any(_pending_points(state, s) for s in rnd.stakes):
        raise IllegalCommand("can't report an early exposure: every hand has decided")
    rnd = _evolve(rnd, exposed_early=True)
    reason = (
        "the dealer opened his cards before every hand decided: decided hands keep their "
        "decision; the pit manager rules on the others (return their bets, or fold)"
    )
    return _halt(_evolve(state, round=rnd), reason, event.actor)


def _pending_points(state: TableState, stake: Stake) -> bool:
    walk = _walk(state.config.game, stake)
    return walk.pending is not None and not stake.ruling


def _rule(
    state: TableState, event: ResolveUndecided, now: float
) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "rule on undecided hands", Phase.HALTED)
    if rnd.exposed_in_deal:
        raise _refuse(
            "rule on undecided hands", state, "expected a redeal, or the pit manager's void"
        )
    if not rnd.exposed_early:
        raise IllegalCommand(
            "can't rule on undecided hands: the dealer's cards were not exposed early"
        )
    if event.ruling not in ("return", "fold"):
        raise IllegalCommand(f"bad ruling {event.ruling!r}: expected return or fold")
    game = state.config.game
    stakes: list[Stake] = []
    ruled: list[dict[str, str]] = []
    for stake in rnd.stakes:
        if _pending_points(state, stake):
            if event.ruling == "return":
                stake = _evolve(stake, ruling="returned")
            else:
                decisions = list(stake.decisions)
                walk = game.walk(stake.totals(), decisions)
                while walk.pending is not None:
                    fold = next((o for o in walk.pending.options if o.folds), None)
                    if fold is None:
                        raise IllegalCommand(
                            f"can't fold {stake.hand}: {walk.pending.name} offers no fold; "
                            "rule return"
                        )
                    decisions.append(fold.name)
                    walk = game.walk(stake.totals(), decisions)
                stake = _evolve(stake, decisions=tuple(decisions))
            ruled.append({"hand": stake.hand, "seat": stake.seat, "ruling": event.ruling})
        stakes.append(stake)
    rnd = _evolve(rnd, stakes=tuple(stakes), halted_from=None, halt_reason="", halted_by="",
                  decision_deadline=None)  # fmt: skip
    due = rnd.due
    if due is not None and due.kind == "decision":
        rnd = _evolve(rnd, cursor=rnd.cursor + 1)
    actions = [Action("ruling", {"by": event.actor, "ruling": event.ruling, "hands": ruled})]
    before = state
    state, more = _advance(state, rnd, now)
    return state, actions + more + _gate(before, state)


def _correct(state: TableState, event: CorrectCard, now: float) -> tuple[TableState, list[Action]]:
    rnd = _need(
        state, "correct a card", Phase.DEALING, Phase.DECIDING, Phase.REVEAL, Phase.SETTLING,
        Phase.HALTED,
    )  # fmt: skip
    at = [i for i, (pos, _, _) in enumerate(rnd.cards) if pos == event.position]
    if not 1 <= event.index <= len(at):
        raise IllegalCommand(
            f"can't correct card {event.index} of {event.position}: it holds {len(at)} card(s)"
        )
    if event.card in {c for _, c, _ in rnd.cards}:
        raise IllegalCommand(f"can't correct to {event.card}: it is already in this round")
    if not event.reason.strip():
        raise IllegalCommand("can't correct a card without a reason")
    i = at[event.index - 1]
    position, was, face = rnd.cards[i]
    cards = (*rnd.cards[:i], (position, event.card, face), *rnd.cards[i + 1 :])
    record = (position, event.index, was.code, event.card.code, event.actor, event.reason)
    rnd = _evolve(rnd, cards=cards, corrections=(*rnd.corrections, record))
    state = _evolve(state, round=rnd)
    actions = [Action("card_corrected", {"position": position, "index": event.index,
                                         "was": was.code, "now": event.card.code,
                                         "by": event.actor, "reason": event.reason})]  # fmt: skip
    if state.phase is Phase.SETTLING:  # settlement is recomputed from the corrected cards
        rnd = _evolve(rnd, settlements=(), paid=())
        return _settle(_evolve(state, round=rnd), now, actions)
    return state, actions


def _deck_required(state: TableState) -> bool:
    """Rules 6: the game is dealt from a new deck each game (seed 003)."""
    return state.config.rules >= 6 and state.config.game.config.change_deck_each_game


def _deck_missing(state: TableState, rnd: Round) -> bool:
    """Whether this round, with bets on it, has not had the deck change its game requires."""
    return _deck_required(state) and not rnd.deck_changed and any(s.bets for s in rnd.stakes)


def _change_deck(
    state: TableState, event: ChangeDeck, now: float
) -> tuple[TableState, list[Action]]:
    required = _deck_required(state)
    if not required and role_of(event.actor) != "pit":
        raise IllegalCommand(
            f"{event.actor} may not send change_deck at this game: only the pit manager (the "
            "dealer changes the deck only at a game dealt from a new deck each game)"
        )
    if not event.deck_id.strip():
        raise IllegalCommand("can't change the deck: expected the new deck's id, such as D-0042")
    changed = Action("deck_changed", {"deck_id": event.deck_id, "by": event.actor})
    rnd = state.round
    if required and state.phase is Phase.BETTING and rnd is not None:
        rnd = _evolve(rnd, deck_changed=True)
        state = _evolve(state, deck_id=event.deck_id, round=rnd)
        return state, [changed, _phase_action(state)]
    _need_phase(state, "change the deck", Phase.IDLE, Phase.CLOSED)
    state = _evolve(state, deck_id=event.deck_id, deck_fresh=True)
    return state, [changed] + ([_phase_action(state)] if required else [])


# =========================================================================== a seat's Deal

_Handler = Callable[[TableState, Any, float], tuple[TableState, list[Action]]]


def _waiting(rnd: Round) -> list[str]:
    """The seats with a bet on the layout that have not pressed Deal."""
    return sorted({s.seat for s in rnd.stakes if s.bets} - rnd.ready)


def _seat_deal(state: TableState, event: SeatDeal, now: float) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "deal", Phase.BETTING)
    if state.config.rules < 6 or not _buttons(state).deal:
        raise IllegalCommand(
            f"can't press Deal: {state.config.game.info.title} has no Deal button; expected "
            "the dealer's no more bets or the betting timer to close betting"
        )
    if event.seat in rnd.ready:
        waiting = ", ".join(_waiting(rnd)) or "nobody"
        raise IllegalCommand(
            f"can't press Deal for {event.seat} again: it pressed Deal already (waiting for "
            f"{waiting})"
        )
    if not any(s.seat == event.seat and s.totals().get(Spot.ANTE, 0) > 0 for s in rnd.stakes):
        raise IllegalCommand(
            f"can't deal {event.seat} in: expected an ante on the layout first (Deal comes once "
            "the ante is placed); it has none"
        )
    return _press_deal(state, event.seat, event.actor, now)


def _press_deal(
    state: TableState, seat: str, actor: str, now: float
) -> tuple[TableState, list[Action]]:
    """``seat`` pressed Deal: its bets are final; betting closes once no seat is waited for."""
    rnd = state.round
    assert rnd is not None
    rnd = _evolve(rnd, ready=rnd.ready | {seat})
    state = _evolve(state, round=rnd)
    # how many seats are still waited for (their ids are no other seat's business)
    actions = [Action("seat_ready", {"seat": seat, "waiting": len(_waiting(rnd))})]
    return _close_when_ready(state, actor, now, actions)


def _close_when_ready(
    state: TableState, actor: str, now: float, actions: list[Action]
) -> tuple[TableState, list[Action]]:
    """Close betting when seats pressed Deal and every seat with a bet is among them."""
    rnd = state.round
    if state.phase is not Phase.BETTING or rnd is None or not rnd.ready or _waiting(rnd):
        return state, actions
    if not any(s.bets for s in rnd.stakes):
        return state, actions
    state, more = _no_more_bets(state, now, actor)
    return state, actions + more


def _final(handler: _Handler) -> _Handler:
    """A betting command refused for a seat that pressed Deal: its bets are final."""

    def checked(state: TableState, event: Any, now: float) -> tuple[TableState, list[Action]]:
        rnd = state.round
        if state.phase is Phase.BETTING and rnd is not None and event.seat in rnd.ready:
            what = event.kind.replace("_", " ")
            raise IllegalCommand(
                f"can't {what} for {event.seat}: it pressed Deal, and its bets are final for "
                "this round"
            )
        return handler(state, event, now)

    return checked


# =========================================================================== studio betting


def _rebet(state: TableState, event: Rebet, now: float) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "rebet", Phase.BETTING)
    last = next((b for h, s, b in state.last_bets if h == event.hand and s == event.seat), None)
    if not last:
        raise IllegalCommand(f"can't rebet for {event.seat} on {event.hand}: no bets last round")
    if _buttons(state).rebet == "previous_ante":  # seed 000: "same as previous Ante bet"
        ante = _totals(last).get(Spot.ANTE, 0)
        return _ante_to(state, event, ante, "rebet", "the last round's ante", now)
    stake = rnd.stake(event.hand, event.seat)
    before = stake.marks if stake else ()
    actions: list[Action] = []
    for spot, amount in last:  # all or nothing: a refused bet refuses the rebet
        bet = PlaceBet(
            actor=event.actor, hand=event.hand, seat=event.seat, spot=spot, amount=Fraction(amount)
        )
        state, more = _bet(state, bet, now)
        actions += more
    return _marked(state, event.hand, event.seat, "rebet", before), actions


def _rebet_and_deal(state: TableState, event: Rebet, now: float) -> tuple[TableState, list[Action]]:
    """Seed 000's Rebet: the previous ante placed, and the seat dealt in (rules 6)."""
    state, actions = _rebet(state, event, now)
    buttons = _buttons(state)
    if state.config.rules >= 6 and buttons.deal and buttons.rebet_deals:
        state, more = _press_deal(state, event.seat, event.actor, now)
        actions += more
    return state, actions


def _ante_to(
    state: TableState, event: Rebet | Double, target: Money, what: str, of: str, now: float
) -> tuple[TableState, list[Action]]:
    """Seed 000's Rebet and Double: the ante made ``target`` (``of`` the last round's ante)."""
    rnd = _need(state, what, Phase.BETTING)
    if target <= 0:
        raise IllegalCommand(
            f"can't {what} for {event.seat} on {event.hand}: expected an ante last round; "
            "there was none"
        )
    stake = rnd.stake(event.hand, event.seat)
    on = stake.totals().get(Spot.ANTE, 0) if stake else 0
    if on >= target:
        raise IllegalCommand(
            f"can't {what} for {event.seat} on {event.hand}: it places {of} "
            f"({say_amount(target)}) and the ante is already {say_amount(on)}"
        )
    bet = PlaceBet(actor=event.actor, hand=event.hand, seat=event.seat, spot=Spot.ANTE,
                   amount=Fraction(exact(target - on)))  # fmt: skip
    before = stake.marks if stake else ()
    state, actions = _bet(state, bet, now)
    return _marked(state, event.hand, event.seat, what, before), actions


def _double(state: TableState, event: Double, now: float) -> tuple[TableState, list[Action]]:
    if state.config.rules < 5:
        return _double_before_5(state, event, now)
    buttons = _buttons(state)
    rnd = _need(state, "double", Phase.BETTING)
    last = next((b for h, s, b in state.last_bets if h == event.hand and s == event.seat), ())
    if buttons.double == "previous_ante":  # seed 000: "double the previous Ante bet"
        ante = _totals(last).get(Spot.ANTE, 0)
        return _ante_to(state, event, exact(2 * ante), "double", "twice the last round's ante", now)
    who_ = f"{event.seat} on {event.hand}"
    stake = rnd.stake(event.hand, event.seat)
    if stake is None or not stake.bets:
        raise IllegalCommand(f"can't double for {who_}: expected a bet placed first; there is none")
    if stake.doubled or (buttons.double_once_per_round and (event.hand, event.seat) in rnd.doubles):
        raise IllegalCommand(
            f"can't double for {who_} again: expected one Double a round; it has doubled"
        )
    if buttons.double == "rebet":  # seed 003: "The Double button doubles the rebet"
        if not any(what == "rebet" for what, _ in stake.marks):
            raise IllegalCommand(
                f"can't double for {who_}: the Double doubles a Rebet; expected a Rebet first"
            )
        doubling = list(_totals(last).items())
    else:
        doubling = list(stake.totals().items())
    limits = state.config.game.config.limits
    before = stake.marks
    actions: list[Action] = []
    doubled = 0
    for spot, amount in doubling:  # ante first: the first bets are doubled
        if buttons.fill_to_maximum:  # seed 002: "double your bet up to the maximum limit"
            now_on = _stake_totals(state, event).get(spot, 0)
            limit = limits.get(spot)
            if limit is not None and now_on >= limit.maximum:
                continue
        bet = PlaceBet(
            actor=event.actor, hand=event.hand, seat=event.seat, spot=spot, amount=Fraction(amount)
        )
        try:
            state, more = _bet(state, bet, now)
        except TableError as error:
            if buttons.double_up_to_credit and doubled and "(no credit)" in str(error):
                note = f"{spot} not doubled: {error}"  # seed 003: "only the first few bets"
                actions.append(
                    Action("alert", {"level": "info", "audience": event.seat, "message": note})
                )
                break
            raise IllegalCommand(f"can't double for {who_}: {error}") from None
        actions += more
        doubled += 1
    if not doubled:
        raise IllegalCommand(
            f"can't double for {who_}: every spot already holds its maximum; expected room"
        )
    return _marked(state, event.hand, event.seat, "double", before), actions


def _stake_totals(state: TableState, event: Double) -> dict[Spot, Money]:
    rnd = state.round
    stake = rnd.stake(event.hand, event.seat) if rnd else None
    return stake.totals() if stake else {}


def _double_before_5(
    state: TableState, event: Double, now: float
) -> tuple[TableState, list[Action]]:
    """Rules before 5: the bets on the layout doubled, first bets first, once a stake."""
    rnd = _need(state, "double", Phase.BETTING)
    stake = rnd.stake(event.hand, event.seat)
    if stake is None or not stake.bets:
        raise IllegalCommand(f"can't double for {event.seat} on {event.hand}: no bets to double")
    if stake.doubled:
        raise IllegalCommand(f"can't double for {event.seat} on {event.hand} again: once per round")
    actions: list[Action] = []
    doubled_any = False
    for spot, amount in stake.totals().items():  # ante first: the first bets are doubled
        bet = PlaceBet(
            actor=event.actor, hand=event.hand, seat=event.seat, spot=spot, amount=Fraction(amount)
        )
        try:
            _verify_bet(state, bet)
        except TableError as error:
            note = f"{spot} not doubled: {error}"
            actions.append(
                Action("alert", {"level": "info", "audience": event.seat, "message": note})
            )
            break
        state, more = _bet(state, bet, now)
        actions += more
        doubled_any = True
    if not doubled_any:
        raise IllegalCommand(f"can't double for {event.seat}: {actions[-1].data['message']}")
    after = state.round
    assert after is not None
    stakes = tuple(_evolve(s, doubled=True) if (s.hand, s.seat) == (event.hand, event.seat) else s
                   for s in after.stakes)  # fmt: skip
    return _evolve(state, round=_evolve(after, stakes=stakes)), actions


def _allow(state: TableState, event: AllowPassenger) -> tuple[TableState, list[Action]]:
    rnd = _need(state, "allow a passenger", Phase.BETTING)
    if _box_rules(state) is None or state.config.seating is not Seating.BOXES:
        raise IllegalCommand("can't allow a passenger: this game has no passengers")
    owner = _owner_of(rnd, event.hand)
    if owner is None:
        raise IllegalCommand(f"can't allow a passenger on {event.hand}: the box has no owner yet")
    if event.hand in rnd.dark:
        raise IllegalCommand(
            f"can't allow a passenger on {event.hand}: a dark box needs no permission"
        )
    rnd = _evolve(rnd, permissions=(*rnd.permissions, (event.hand, event.passenger)))
    data = {"hand": event.hand, "owner": owner, "passenger": event.passenger}
    return _evolve(state, round=rnd), [Action("passenger_allowed", data)]


def _disconnected(
    state: TableState, event: SeatDisconnected, now: float
) -> tuple[TableState, list[Action]]:
    """Before no more bets a disconnected seat does not play: its bets come back.

    After no more bets its bets stand and play on: the decision timers decide for it.
    """
    if event.seat not in state.away:
        state = _evolve(state, away=tuple(sorted((*state.away, event.seat))))
    rnd = state.round
    if state.phase is not Phase.BETTING or rnd is None:
        return state, [Action("seat_disconnected", {"seat": event.seat, "bets": "stand"})]
    mine = [s for s in rnd.stakes if s.seat == event.seat]
    refund = exact(sum((s.debited for s in mine), 0))
    rnd = _evolve(rnd, stakes=tuple(s for s in rnd.stakes if s.seat != event.seat),
                  ready=rnd.ready - {event.seat})  # fmt: skip
    state = _debit(_evolve(state, round=rnd), event.seat, -refund)
    data = {"seat": event.seat, "bets": "returned", "amount": format_amount(refund)}
    return _close_when_ready(state, "system", now, [Action("seat_disconnected", data)])


def _returned(state: TableState, event: SeatReturned) -> tuple[TableState, list[Action]]:
    """A disconnected seat is back: it bets and decides as before (journaled for the pit)."""
    if event.seat not in state.away:
        away = ", ".join(state.away) or "none"
        raise IllegalCommand(
            f"can't mark {event.seat} as back: expected a seat that was disconnected "
            f"(disconnected now: {away})"
        )
    state = _evolve(state, away=tuple(s for s in state.away if s != event.seat))
    rnd = state.round
    data = {"seat": event.seat, "round_id": rnd.round_id if rnd else None}
    return state, [Action("seat_returned", data)]


# =========================================================================== who may do what

#: roles allowed to send each command; "seat" may act for its own seat only
ROLES: dict[type[Event], frozenset[str]] = {
    OpenTable: frozenset({"pit"}),
    CloseTable: frozenset({"pit"}),
    ChangeDeck: frozenset({"pit", "dealer"}),  # the dealer only where the game requires it
    VoidRound: frozenset({"pit"}),
    ResolveUndecided: frozenset({"pit"}),
    CorrectCard: frozenset({"pit"}),
    StartRound: frozenset({"dealer", "pit"}),
    NoMoreBets: frozenset({"dealer", "pit"}),
    RevealDone: frozenset({"dealer"}),
    ConfirmPayment: frozenset({"dealer"}),
    Halt: frozenset({"dealer", "pit", "shoe", "camera", "system"}),
    Resume: frozenset({"dealer", "pit"}),
    RestoreSequence: frozenset({"dealer", "pit"}),
    Redeal: frozenset({"dealer", "pit"}),
    DealerExposedEarly: frozenset({"dealer", "pit", "camera"}),
    PlaceBet: frozenset({"seat", "dealer"}),
    AllowPassenger: frozenset({"dealer"}),
    UndoBet: frozenset({"seat", "dealer"}),
    ClearBets: frozenset({"seat", "dealer"}),
    Rebet: frozenset({"seat", "dealer"}),
    Double: frozenset({"seat", "dealer"}),
    Decide: frozenset({"seat", "dealer"}),
    CardDrawn: frozenset({"shoe"}),
    SeatDeal: frozenset({"seat"}),
    SeatDisconnected: frozenset({"system"}),
    SeatReturned: frozenset({"system"}),
    Tick: frozenset({"timer"}),
    Fault: frozenset({"system"}),
}

_NOBODY: frozenset[str] = frozenset()

_NAMES = {
    "pit": "the pit manager",
    "dealer": "the dealer",
    "seat": "a player seat",
    "shoe": "the shoe",
    "camera": "the camera",
    "timer": "the clock",
    "system": "the system",
}


def role_of(actor: str) -> str:
    """The role of an actor id: ``pit:ann`` → ``pit``, ``seat:3`` → ``seat``, ``dealer``."""
    return actor.split(":", 1)[0]


def who(actor: str) -> str:
    """An actor in words, for a person: ``the shoe``, ``the pit manager (ann)``, ``seat:3``.

    >>> who("shoe"), who("pit:ann"), who("dealer"), who("seat:3")
    ('the shoe', 'the pit manager (ann)', 'the dealer', 'seat:3')
    """
    role, _, name = actor.partition(":")
    if role == "seat" or role not in _NAMES:
        return actor
    return f"{_NAMES[role]} ({name})" if name and name != role else _NAMES[role]


def _authorize(event: Event) -> None:
    seat = getattr(event, "seat", None)
    allowed = ROLES.get(type(event), _NOBODY)
    role = role_of(event.actor)
    if role not in allowed:
        who = " or ".join(sorted(_NAMES.get(r, r) for r in allowed))
        raise IllegalCommand(f"{event.actor} may not send {event.kind}: only {who}")
    if role == "seat" and seat is not None and seat != event.actor:
        raise IllegalCommand(f"{event.actor} may not act for {seat}")


# =========================================================================== timers


def _timers(state: TableState, now: float) -> tuple[TableState, list[Action]]:
    """Fire what the clock has made due: the end of betting, the decision timeout."""
    rnd = state.round
    if rnd is None:
        return state, []
    if (
        state.phase is Phase.BETTING
        and rnd.betting_deadline is not None
        and now >= rnd.betting_deadline
    ):
        return _no_more_bets(state, now, "timer")
    if (
        state.phase is Phase.DECIDING
        and rnd.decision_deadline is not None
        and now >= rnd.decision_deadline
    ):
        actions: list[Action] = []
        due = rnd.due
        assert due is not None and due.point is not None
        point = due.point
        seen: set[tuple[str, str]] = set()
        order = {hand: i for i, hand in enumerate(state.config.hands)}
        # box by box in table order: a gambler's first box is decided before his second
        for stake in sorted(rnd.stakes, key=lambda s: order.get(s.hand, len(order))):
            if state.phase is not Phase.DECIDING or not _owes(state.config.game, stake, point):
                continue
            key = (stake.hand, stake.seat if state.config.seating is Seating.SHARED else "")
            if key in seen:
                continue
            seen.add(key)
            seat = (
                stake.seat if state.config.seating is Seating.SHARED else _owner(state, stake.hand)
            )
            auto = Decide(actor="timer", hand=stake.hand, seat=seat, option=point.on_timeout)
            try:
                state, more = _decide(state, auto, now, automatic=True)
            except TableError as error:  # never raise out of handle(): say it, halt dealing
                reason = f"the decision timer could not decide {stake.hand}: {error}"
                state, more = _halt(state, reason, "system")  # the clock's own failure
                return state, actions + more
            actions += more
        return state, actions
    return state, []


def _owner(state: TableState, hand: str) -> str:
    assert state.round is not None
    return next(s.seat for s in state.round.stakes if s.hand == hand)


# =========================================================================== the entry points

Handler = Callable[[TableState, Event, float], tuple[TableState, list[Action]]]


def _open(state: TableState, event: Event, now: float) -> tuple[TableState, list[Action]]:
    _need_phase(state, "open the table", Phase.CLOSED)
    state = _evolve(state, phase=Phase.IDLE)
    return state, [_phase_action(state), Action("shoe_gate", {"locked": True})]


def _close(state: TableState, event: Event, now: float) -> tuple[TableState, list[Action]]:
    _need_phase(state, "close the table", Phase.IDLE)
    state = _evolve(state, phase=Phase.CLOSED)
    return state, [_phase_action(state)]


def _fault(state: TableState, event: Fault) -> tuple[TableState, list[Action]]:
    """The input before this one failed and changed nothing: refuse it to its sender, tell
    the pit, and halt when it was a card (the felt holds a card the table does not)."""
    what = f"the table could not apply a {event.failed} from {event.of}: {event.error}"
    actions = [
        Action("refused", {"command": event.failed, "actor": event.of,
                           "reason": f"{what}; nothing changed"}),
        Action("alert", {"level": "error", "audience": "pit", "message": f"fault: {what}"}),
    ]  # fmt: skip
    if event.halts and state.round is not None:
        failed = "a card" if event.failed == "card_drawn" else f"a {event.failed.replace('_', ' ')}"
        reason = (
            f"the controller could not apply {failed} from {who(event.of)}: it is on the felt "
            "but not in the round; check the layout against the round's cards (the error is "
            "on the pit's alerts)"
        )
        state, more = _halt(state, reason, "system")
        actions += more
    return state, actions


def _halt_command(state: TableState, event: Halt, now: float) -> tuple[TableState, list[Action]]:
    if state.round is None or state.phase is Phase.HALTED:
        raise _refuse("halt", state, "no round is in play" if state.round is None else "")
    return _halt(state, event.reason.strip() or "no reason given", event.actor)


def _untimed(handler: Callable[[TableState, Any], tuple[TableState, list[Action]]]) -> _Handler:
    """A handler of a command that does not depend on the time."""
    return lambda state, event, now: handler(state, event)


#: each command's handler, by the command's class (a subclass is no command of its own)
_HANDLERS: dict[type[Event], _Handler] = {
    CardDrawn: _card,
    Decide: _decide,
    PlaceBet: _final(_bet),
    StartRound: _start,
    NoMoreBets: lambda state, event, now: _no_more_bets(state, now, event.actor),
    RevealDone: _reveal,
    OpenTable: _open,
    CloseTable: _close,
    AllowPassenger: _untimed(_allow),
    UndoBet: _final(lambda state, event, now: _taken_back(state, event, now, 1, "undo a bet")),
    ClearBets: _final(lambda state, event, now: _taken_back(state, event, now, None, "clear bets")),
    ConfirmPayment: _untimed(_payment),
    Halt: _halt_command,
    Fault: _untimed(_fault),
    Resume: _resume,
    VoidRound: _untimed(_void),
    RestoreSequence: _restore,
    Redeal: _redeal,
    DealerExposedEarly: _untimed(_exposed),
    ResolveUndecided: _rule,
    CorrectCard: _correct,
    ChangeDeck: _change_deck,
    Rebet: _final(_rebet_and_deal),
    Double: _final(_double),
    SeatDeal: _seat_deal,
    SeatDisconnected: _disconnected,
    SeatReturned: _untimed(_returned),
    Tick: lambda state, event, now: (state, []),
}


def _taken_back(
    state: TableState, event: UndoBet | ClearBets, now: float, how_many: int | None, what: str
) -> tuple[TableState, list[Action]]:
    """Undo or Clear; when it leaves only seats that pressed Deal, betting closes."""
    state, actions = _take_back(state, event.hand, event.seat, how_many, what)
    return _close_when_ready(state, event.actor, now, actions)


def _dispatch(state: TableState, event: Event, now: float) -> tuple[TableState, list[Action]]:
    handler = _HANDLERS.get(event.__class__)
    if handler is None:
        raise IllegalCommand(f"unknown command {event.kind!r}")
    return handler(state, event, now)


def handle(state: TableState, event: Event, now: float) -> tuple[TableState, list[Action]]:
    """Apply ``event`` at time ``now``: the new state and what the outside world must do.

    The clock's due work runs first (a closed betting window, a decision timeout). A refused
    command returns the state as it was after that, with one ``refused`` action naming the
    command and the reason.
    """
    state, actions = _timers(state, now)
    try:
        _authorize(event)
        state, more = _dispatch(state, event, now)
    except TableError as error:  # IllegalCommand, and the games' IllegalBet / IllegalDecision
        return state, [*actions, Action("refused", {"command": event.kind, "actor": event.actor,
                                                    "reason": str(error)})]  # fmt: skip
    return state, actions + more if actions else more


def can(state: TableState, event: Event, now: float) -> bool:
    """Whether ``handle`` would accept ``event`` now (for a console to enable a button)."""
    _, actions = handle(state, event, now)
    return not any(a.kind == "refused" for a in actions)


def fold(state: TableState, events: Iterable[tuple[Event, float]]) -> TableState:
    """The state after applying every ``(event, now)`` in order: a replay."""
    for event, now in events:
        state, _ = handle(state, event, now)
    return state


def transition_table() -> list[tuple[str, str, str]]:
    """(phase, command, where it leads) for the operator's guide."""
    return [
        ("closed", "open_table", "idle"),
        ("idle", "start_round", "betting"),
        ("idle", "close_table", "closed"),
        ("betting", "place_bet / undo_bet / clear_bets", "betting"),
        ("betting", "no_more_bets (or the betting timer)", "dealing, or idle if nobody bet"),
        ("betting", "deal (every seat with a bet pressed Deal)", "dealing"),
        ("dealing", "card_drawn", "dealing, deciding, reveal or settling, as the script says"),
        (
            "deciding",
            "decide (or the decision timer)",
            "deciding until every stake decided, then on",
        ),
        ("reveal", "reveal_done", "dealing, deciding or settling"),
        ("settling", "confirm_payment", "idle once every winning stake is paid"),
        ("any round phase", "halt, or a card when none is due", "halted"),
        ("halted", "resume", "the phase it halted in"),
        (
            "any round phase",
            "void_round (after a confirmed payment: with confirm_paid)",
            "idle, every bet not already paid returned",
        ),
    ]
