"""What goes into the table (events) and what comes out (actions), and their JSON forms.

Every input is an :class:`Event`: a console or seat command, a card from the shoe, a tick of
the clock. The table answers each with a list of :class:`Action` records. Both are frozen
dataclasses; events round-trip through JSON exactly, because the journal stores them and a
replay must rebuild the same table.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from controller.cards import Card
from controller.errors import TableError
from controller.games.rules import Spot

__all__ = [
    "EVENT_TYPES",
    "Action",
    "AllowPassenger",
    "CardDrawn",
    "ChangeDeck",
    "ClearBets",
    "CloseTable",
    "ConfirmPayment",
    "CorrectCard",
    "DealerExposedEarly",
    "Decide",
    "Double",
    "Event",
    "Fault",
    "Halt",
    "MalformedEvent",
    "NoMoreBets",
    "OpenTable",
    "PlaceBet",
    "Rebet",
    "Redeal",
    "ResolveUndecided",
    "RestoreSequence",
    "Resume",
    "RevealDone",
    "SeatDeal",
    "SeatDisconnected",
    "SeatReturned",
    "StartRound",
    "Tick",
    "UndoBet",
    "VoidRound",
    "event_from_json",
    "event_to_json",
    "parse_amount",
    "shown",
]


class MalformedEvent(TableError):
    """An event record that does not describe a known event with valid fields."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """An input to the table: who sent it (``dealer``, ``pit:<name>``, ``seat:<id>``, ``shoe``…)."""

    kind: ClassVar[str] = "event"
    actor: str


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenTable(Event):
    """Open the table for play (it starts closed)."""

    kind: ClassVar[str] = "open_table"


@dataclass(frozen=True, slots=True, kw_only=True)
class CloseTable(Event):
    """Close the table between rounds."""

    kind: ClassVar[str] = "close_table"


@dataclass(frozen=True, slots=True, kw_only=True)
class StartRound(Event):
    """Open betting for a new round."""

    kind: ClassVar[str] = "start_round"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaceBet(Event):
    """Add ``amount`` to ``seat``'s bet on ``spot`` of the player hand ``hand`` (``box 3``)."""

    kind: ClassVar[str] = "place_bet"
    hand: str
    seat: str
    spot: Spot
    amount: Fraction
    dark: bool = False  # seed 001: the box's owner plays it dark (unseen until the showdown)


@dataclass(frozen=True, slots=True, kw_only=True)
class AllowPassenger(Event):
    """Seed 001: the owner of an open box lets ``passenger`` bet on it (entered by the dealer)."""

    kind: ClassVar[str] = "allow_passenger"
    hand: str
    passenger: str


@dataclass(frozen=True, slots=True, kw_only=True)
class UndoBet(Event):
    """Take back ``seat``'s last bet on ``hand``."""

    kind: ClassVar[str] = "undo_bet"
    hand: str
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ClearBets(Event):
    """Take back all of ``seat``'s bets on ``hand``."""

    kind: ClassVar[str] = "clear_bets"
    hand: str
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class NoMoreBets(Event):
    """Close betting; the deal begins."""

    kind: ClassVar[str] = "no_more_bets"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(Event):
    """The shoe read a card; ``read`` is the shoe's own sequence number when it has one, and
    ``boot`` its boot counter when it has one (a restarted controller goes on from them)."""

    kind: ClassVar[str] = "card_drawn"
    card: Card
    read: int | None = None
    boot: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Decide(Event):
    """A player's choice at the current decision point, for ``seat``'s stake on ``hand``."""

    kind: ClassVar[str] = "decide"
    hand: str
    seat: str
    option: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RevealDone(Event):
    """The dealer has turned the cards the script reveals now."""

    kind: ClassVar[str] = "reveal_done"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfirmPayment(Event):
    """The dealer confirms what was paid to ``seat``'s stake on ``hand`` (physical tables)."""

    kind: ClassVar[str] = "confirm_payment"
    hand: str
    seat: str
    paid: Fraction


@dataclass(frozen=True, slots=True, kw_only=True)
class Halt(Event):
    """Stop dealing: something needs the dealer or the pit manager."""

    kind: ClassVar[str] = "halt"
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(Event):
    """Continue a halted round where it stopped."""

    kind: ClassVar[str] = "resume"
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class VoidRound(Event):
    """Cancel the round: every initial bet is returned, nothing is paid.

    Once the dealer has confirmed a payment, the pit manager voids only with
    ``confirm_paid``: his word that the void stands although those stakes were paid. Their
    record says "already paid", and nothing more is returned for them.
    """

    kind: ClassVar[str] = "void_round"
    reason: str
    confirm_paid: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RestoreSequence(Event):
    """The dealer puts the dealt cards back in the right order: ``cards`` is ``position:code ...``

    in deal order (for example ``box 1:AS box 2:KD dealer:7C``); cards that arrived out of
    turn may be placed, none may be invented. Play then continues from there.
    """

    kind: ClassVar[str] = "restore_sequence"
    cards: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Redeal(Event):
    """All cards are collected and dealt again; bets stay where they are (no ante is paid)."""

    kind: ClassVar[str] = "redeal"
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerExposedEarly(Event):
    """The dealer opened his cards before every hand had decided."""

    kind: ClassVar[str] = "dealer_exposed_early"


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolveUndecided(Event):
    """The pit manager's ruling for hands still undecided when the dealer exposed early:

    ``return`` (their bets come back: the default) or ``fold``.
    """

    kind: ClassVar[str] = "resolve_undecided"
    ruling: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CorrectCard(Event):
    """The pit manager corrects a misread card at ``position`` (its ``index``-th card)."""

    kind: ClassVar[str] = "correct_card"
    position: str
    index: int
    card: Card
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeDeck(Event):
    """A new deck in the shoe: the pit manager's, between rounds; at a game whose deck is
    changed for each game (seed 003), the dealer's or the pit manager's, between rounds or
    while the bets are taken."""

    kind: ClassVar[str] = "change_deck"
    deck_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Rebet(Event):
    """Repeat ``seat``'s bets on ``hand`` from its last round."""

    kind: ClassVar[str] = "rebet"
    hand: str
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Double(Event):
    """Double ``seat``'s bets on ``hand``, within the limits and the balance."""

    kind: ClassVar[str] = "double"
    hand: str
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatDeal(Event):
    """A seat's Deal button: "deal me in, I am ready" (games whose buttons have a Deal).

    Betting closes as soon as every seat with a bet on the layout has pressed it; a seat's
    bets are final once it has."""

    kind: ClassVar[str] = "deal"
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatReturned(Event):
    """A remote seat that had lost its connection is back (sent by the system that sees it)."""

    kind: ClassVar[str] = "seat_returned"
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatDisconnected(Event):
    """A remote seat lost its connection (sent by the system that sees it go)."""

    kind: ClassVar[str] = "seat_disconnected"
    seat: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Tick(Event):
    """Time passes (timers fire on it); it carries nothing but the time it is handled at."""

    kind: ClassVar[str] = "tick"


@dataclass(frozen=True, slots=True, kw_only=True)
class Fault(Event):
    """The table could not apply the input journaled just before this one.

    ``failed`` is that input's kind and ``of`` its actor; ``error`` says what went wrong.
    Nothing of the failed input was applied. A card (``halts``) stops dealing, since the
    felt and the table now differ; anything else is refused to its sender and alerted to
    the pit, and the table goes on. A replay meets the same failure and this row after it.
    """

    kind: ClassVar[str] = "fault"
    failed: str
    of: str
    error: str
    halts: bool = False


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        OpenTable, CloseTable, StartRound, PlaceBet, AllowPassenger, UndoBet, ClearBets,
        NoMoreBets, CardDrawn,
        Decide, RevealDone, ConfirmPayment, Halt, Resume, VoidRound, RestoreSequence, Redeal,
        DealerExposedEarly, ResolveUndecided, CorrectCard, ChangeDeck, Rebet, Double, SeatDeal,
        SeatDisconnected, SeatReturned, Tick, Fault,
    )
}  # fmt: skip


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Action:
    """An output of the table: ``kind`` names it and ``data`` carries plain JSON values.

    Kinds: ``refused`` (a command that changed nothing, and why), ``phase`` (the table's
    phase and what it waits for), ``card`` (a card assigned to a position), ``decision``,
    ``settled`` (one stake's settlement), ``round_ended``, ``halted``, ``resumed``,
    ``shoe_gate`` (lock or unlock the shoe), ``alert`` (for the dealer and the pit).
    """

    kind: str
    data: dict[str, Any]


# --------------------------------------------------------------------------- JSON


def _encode(value: object) -> object:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Fraction):
        return (
            f"{value.numerator}/{value.denominator}"
            if value.denominator != 1
            else str(value.numerator)
        )
    if isinstance(value, Spot):
        return value.value
    return value


def event_to_json(event: Event) -> dict[str, object]:
    """The event as a JSON object: ``{"kind": ..., field: value, ...}``."""
    doc: dict[str, object] = {"kind": event.kind}
    for f in dataclasses.fields(event):
        doc[f.name] = _encode(getattr(event, f.name))
    return doc


def shown(raw: object) -> str:
    """What arrived, for a message: text in quotes (cut at 40 characters), JSON's words for
    true, false and null, a number as written, and the kind of anything else.

    >>> shown("a lot"), shown(True), shown(None), shown(-5), shown([1]), shown({"n": 1})
    ("'a lot'", 'true', 'null', '-5', 'a list', 'an object')
    """
    if isinstance(raw, str):
        text = raw if raw.isprintable() else repr(raw)[1:-1]  # control characters escaped
        return f"'{text[:40]}…'" if len(text) > 40 else f"'{text}'"
    if raw is None:
        return "null"
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int):
        return str(raw) if abs(raw) < 10**15 else f"a number of {len(str(abs(raw)))} digits"
    if isinstance(raw, float):
        return repr(raw) if math.isfinite(raw) else "a number that is not finite"
    if isinstance(raw, list | tuple):
        return "a list"
    if isinstance(raw, dict):
        return "an object"
    return f"a {type(raw).__name__}"


def _text(raw: object) -> str:
    if not isinstance(raw, str):
        raise ValueError(f"expected text; got {shown(raw)}")
    return raw


def _flag(raw: object) -> bool:
    if not isinstance(raw, bool):
        raise ValueError(f"expected true or false; got {shown(raw)}")
    return raw


#: an amount as written: whole units, a plain decimal or a fraction, no sign or exponent
_AMOUNT = re.compile(r"\d{1,15}(?:\.\d{1,6}|/[1-9]\d{0,14})?")


def parse_amount(raw: object) -> Fraction:
    """An amount of money: ``10``, ``12.5``, ``"12.5"`` or ``"25/2"`` (as the journal keeps it).

    >>> parse_amount("25/2"), parse_amount(10), parse_amount(0.5)
    (Fraction(25, 2), Fraction(10, 1), Fraction(1, 2))
    >>> parse_amount("a lot")
    Traceback (most recent call last):
    ...
    ValueError: expected an amount such as 25 or 12.5; got 'a lot'
    """
    if isinstance(raw, str):
        text = raw.strip()
    elif isinstance(raw, int) and not isinstance(raw, bool):
        text = str(raw) if raw < 10**15 else "?"
    elif isinstance(raw, float):
        text = repr(raw) if math.isfinite(raw) else "?"
    else:
        text = "?"
    if _AMOUNT.fullmatch(text) is None:
        raise ValueError(f"expected an amount such as 25 or 12.5; got {shown(raw)}")
    return Fraction(text)


#: a whole number as written: digits, with a minus sign at most
_WHOLE = re.compile(r"-?\d{1,15}")


def _whole(raw: object) -> int:
    """A whole number: ``2``, ``"2"`` or ``2.0``; anything else is refused saying so.

    >>> _whole("2"), _whole(3), _whole(4.0)
    (2, 3, 4)
    """
    if isinstance(raw, int) and not isinstance(raw, bool) and abs(raw) < 10**15:
        return raw
    if isinstance(raw, float) and raw.is_integer() and abs(raw) < 10**15:
        return int(raw)
    if isinstance(raw, str) and _WHOLE.fullmatch(raw.strip()):
        return int(raw)
    raise ValueError(f"expected a whole number such as 1 or 2; got {shown(raw)}")


def _spot(raw: Any) -> Spot:
    try:
        return Spot(raw)
    except ValueError:
        spots = ", ".join(s.value for s in Spot)
        raise ValueError(f"expected a bet spot ({spots}); got {shown(raw)}") from None


def _card(raw: object) -> Card:
    if not isinstance(raw, str):
        raise ValueError(f"expected a card code such as 'AS' or '10h'; got {shown(raw)}")
    return Card.parse(raw)


_READERS: dict[str, Callable[[Any], object]] = {
    "card": _card,
    "amount": parse_amount,
    "paid": parse_amount,
    "spot": _spot,
    "read": lambda raw: None if raw is None else _whole(raw),
    "boot": lambda raw: None if raw is None else _whole(raw),
    "index": _whole,
    "dark": _flag,
    "halts": _flag,
    "confirm_paid": _flag,
}

# per event type: its fields (name, how to read it, whether it may be left out), and every key
_SHAPES: dict[
    type[Event], tuple[tuple[tuple[str, Callable[[Any], object], bool], ...], frozenset[str]]
] = {
    cls: (
        tuple(
            (f.name, _READERS.get(f.name, _text), f.default is not dataclasses.MISSING)
            for f in dataclasses.fields(cls)
        ),
        frozenset(f.name for f in dataclasses.fields(cls)) | {"kind"},
    )
    for cls in EVENT_TYPES.values()
}


def _listed(names: Iterable[str]) -> str:
    """``a, b and c``."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def event_from_json(doc: dict[str, Any]) -> Event:
    """Rebuild an event; :class:`MalformedEvent` says which field is wrong, what it expected
    and what arrived.

    >>> try:
    ...     event_from_json({"kind": "place_bet", "actor": "seat:1", "hand": "player",
    ...                      "seat": "seat:1", "spot": "ante", "amount": 10, "colour": "red"})
    ... except MalformedEvent as refusal:
    ...     print(refusal)
    place_bet has an unknown field 'colour': expected only hand, seat, spot, amount and dark
    """
    kind = doc.get("kind")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedEvent(
            f"unknown event kind {shown(kind)}: expected one of {', '.join(EVENT_TYPES)}"
        )
    fields, known = _SHAPES[cls]
    values: dict[str, object] = {}
    for name, read, optional in fields:
        if name not in doc:
            if optional:
                continue
            raise MalformedEvent(f"{kind} lacks the field '{name}': expected {_fields_of(cls)}")
        try:
            values[name] = read(doc[name])
        except (ValueError, TableError) as error:
            raise MalformedEvent(f"{kind} {name}: {error}") from None
    if not doc.keys() <= known:
        extra = sorted(set(doc) - known)
        which = "an unknown field" if len(extra) == 1 else "unknown fields"
        raise MalformedEvent(
            f"{kind} has {which} {_listed(shown(name) for name in extra)}: "
            + (f"expected only {_listed(_accepted(cls))}" if _accepted(cls) else "expected none")
        )
    return cls(**values)  # type: ignore[arg-type]


def _accepted(cls: type[Event]) -> list[str]:
    """The fields a sender writes for an event of ``cls`` (the actor comes from the topic)."""
    return [f.name for f in dataclasses.fields(cls) if f.name != "actor"]


def _fields_of(cls: type[Event]) -> str:
    """The fields of ``cls`` in words: ``hand, seat, spot and amount (dark may be added)``."""
    required = [
        f.name
        for f in dataclasses.fields(cls)
        if f.name != "actor" and f.default is dataclasses.MISSING
    ]
    optional = [n for n in _accepted(cls) if n not in required]
    text = _listed(required) if required else "no other field"
    if optional:
        text += f" ({_listed(optional)} may be added)"
    return text
