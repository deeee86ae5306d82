"""What a card shoe tells the host, as frozen records: one type per kind of event.

Every codec of every dialect produces these events and nothing else, so the table, the
monitor and the tests read one vocabulary. Each event class names its ``kind`` (a
:class:`EventKind`) and whether it must halt dealing (``halts``): anything the host cannot
explain halts, and nothing is ever guessed. Every event that halts says why in one line of
words (``message``): that line, not the JSON form, is the table's halt reason.

>>> from controller.cards import Card
>>> CardRead(Card.parse("AS"), record=3, quality=97, boot=2).to_dict()["boot"]
2
>>> CardRead(Card.parse("AS"), record=3, quality=97).to_dict()["quality"]
97
>>> SequenceGap("shoe", expected=4, received=6).missing
(4, 5)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar

from controller.cards import Card

__all__ = [
    "Alarm",
    "CardRead",
    "Connected",
    "CorruptMessage",
    "DebugLine",
    "DeckLoaded",
    "Disconnected",
    "DuplicateCard",
    "DuplicateDropped",
    "EventKind",
    "Heartbeat",
    "Hello",
    "Noise",
    "ReadFailed",
    "Rebooted",
    "SequenceGap",
    "ShoeEmpty",
    "ShoeEvent",
    "ShoeWarning",
    "UnknownTag",
    "must_halt",
]


class EventKind(StrEnum):
    """The kinds of shoe event; the value is the ``event`` field of the JSON form."""

    CARD = "card"
    READ_FAILED = "read_failed"
    ALARM = "alarm"
    WARNING = "warning"
    HELLO = "hello"
    REBOOTED = "rebooted"
    EMPTY = "empty"
    DECK_LOADED = "deck_loaded"
    HEARTBEAT = "heartbeat"
    SEQUENCE_GAP = "sequence_gap"
    DUPLICATE_CARD = "duplicate_card"
    DUPLICATE_DROPPED = "duplicate_dropped"
    UNKNOWN_TAG = "unknown_tag"
    CORRUPT = "corrupt"
    NOISE = "noise"
    DEBUG = "debug"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"


@dataclass(frozen=True, slots=True)
class ShoeEvent:
    """Base of every shoe event: its kind, whether it halts the table, and a JSON form."""

    kind: ClassVar[EventKind]
    halts: ClassVar[bool] = False

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-ready dict whose first key is ``event``."""
        out: dict[str, Any] = {"event": self.kind.value}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Card):
                value = value.code
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class CardRead(ShoeEvent):
    """A card read by the shoe; ``record`` is the shoe's sequence number when it has one, and
    ``boot`` the shoe's boot counter (framed): together they name the read for good."""

    kind: ClassVar[EventKind] = EventKind.CARD
    card: Card
    record: int | None = None
    quality: int | None = None
    burn: bool = False
    device: str | None = None
    boot: int | None = None


@dataclass(frozen=True, slots=True)
class ReadFailed(ShoeEvent):
    """A card passed the reader but could not be identified: the table must halt."""

    kind: ClassVar[EventKind] = EventKind.READ_FAILED
    halts: ClassVar[bool] = True
    reason: str
    record: int | None = None
    device: str | None = None

    @property
    def message(self) -> str:
        """One line for the dealer and the pit."""
        return f"a card passed the reader unread: {self.reason}{_where(self.device, self.record)}"


@dataclass(frozen=True, slots=True)
class Alarm(ShoeEvent):
    """A fault the shoe reports (jam, double feed, card not read …): the table must halt."""

    kind: ClassVar[EventKind] = EventKind.ALARM
    halts: ClassVar[bool] = True
    code: str
    text: str
    record: int | None = None

    @property
    def message(self) -> str:
        """One line for the dealer and the pit."""
        text = f": {self.text}" if self.text else ""
        return f"the shoe raised alarm {self.code}{text}{_where(None, self.record)}"


@dataclass(frozen=True, slots=True)
class ShoeWarning(ShoeEvent):
    """A warning the shoe reports; informative, dealing may go on."""

    kind: ClassVar[EventKind] = EventKind.WARNING
    code: str


@dataclass(frozen=True, slots=True)
class Hello(ShoeEvent):
    """The shoe introduced itself (after boot, or on request)."""

    kind: ClassVar[EventKind] = EventKind.HELLO
    device: str
    model: str = ""
    firmware: str = ""
    boot: int | None = None


@dataclass(frozen=True, slots=True)
class Rebooted(ShoeEvent):
    """The shoe restarted mid-shoe: reads it had not delivered may be lost, so the table halts."""

    kind: ClassVar[EventKind] = EventKind.REBOOTED
    halts: ClassVar[bool] = True
    device: str
    reason: str
    previous_boot: int | None = None
    boot: int | None = None
    last_record: int | None = None

    @property
    def message(self) -> str:
        """One line for the dealer and the pit."""
        last = "" if self.last_record is None else f" after message {self.last_record}"
        return (
            f"{self.device} restarted{last} ({self.reason}): "
            "cards it read and had not sent yet may be lost"
        )


@dataclass(frozen=True, slots=True)
class ShoeEmpty(ShoeEvent):
    """The shoe has no card left to deal."""

    kind: ClassVar[EventKind] = EventKind.EMPTY
    record: int | None = None


@dataclass(frozen=True, slots=True)
class DeckLoaded(ShoeEvent):
    """A new deck was loaded: the per-deck inventory starts afresh."""

    kind: ClassVar[EventKind] = EventKind.DECK_LOADED
    deck_id: str
    record: int | None = None


@dataclass(frozen=True, slots=True)
class Heartbeat(ShoeEvent):
    """The shoe is alive; ``pending`` records are waiting for acknowledgement."""

    kind: ClassVar[EventKind] = EventKind.HEARTBEAT
    uptime_ms: int
    pending: int


@dataclass(frozen=True, slots=True)
class SequenceGap(ShoeEvent):
    """Sequence numbers that never arrived: something was read and lost, so the table halts."""

    kind: ClassVar[EventKind] = EventKind.SEQUENCE_GAP
    halts: ClassVar[bool] = True
    device: str
    expected: int
    received: int
    missing: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.missing:
            object.__setattr__(self, "missing", tuple(range(self.expected, self.received)))

    @property
    def message(self) -> str:
        """One line naming what is missing."""
        first, last = self.missing[0], self.missing[-1]
        which = f"{first}" if first == last else f"{first}-{last}"
        return (
            f"{self.device}: sequence {which} never arrived "
            f"(expected {self.expected}, got {self.received})"
        )


@dataclass(frozen=True, slots=True)
class DuplicateCard(ShoeEvent):
    """The same card came out of one loaded deck twice (framed: no DECK_LOADED between the
    two reads): the table must halt. Positions count the deck's cards from its DECK_LOADED,
    unread ones included; ``deck`` is the id the shoe gave it."""

    kind: ClassVar[EventKind] = EventKind.DUPLICATE_CARD
    halts: ClassVar[bool] = True
    card: Card
    first_position: int
    position: int
    deck: str = ""

    @property
    def message(self) -> str:
        """One line for the dealer and the pit, in the deck's terms.

        >>> print(DuplicateCard(Card.parse("QC"), 2, 23, "red-4").message)
        QC came out of deck red-4 twice, with no new deck loaded between: as its card 2, and again as its card 23
        """  # noqa: E501
        deck = f"deck {self.deck}" if self.deck else "the deck in the shoe"
        return (
            f"{self.card} came out of {deck} twice, with no new deck loaded between: "
            f"as its card {self.first_position}, and again as its card {self.position}"
        )


@dataclass(frozen=True, slots=True)
class DuplicateDropped(ShoeEvent):
    """A message received again, provably the same one (the same device, the same sequence
    number, the same content): dropped, and counted in the codec's ``duplicates``."""

    kind: ClassVar[EventKind] = EventKind.DUPLICATE_DROPPED
    device: str
    record: int


@dataclass(frozen=True, slots=True)
class UnknownTag(ShoeEvent):
    """An RFID tag that the deck's table does not list: the table must halt."""

    kind: ClassVar[EventKind] = EventKind.UNKNOWN_TAG
    halts: ClassVar[bool] = True
    uid: str
    record: int | None = None
    device: str | None = None

    @property
    def message(self) -> str:
        """One line for the dealer and the pit."""
        where = _where(self.device, self.record)
        return f"tag {self.uid} is not in the deck's tag table{where}: a card of another deck?"


@dataclass(frozen=True, slots=True)
class CorruptMessage(ShoeEvent):
    """A damaged message. ``recoverable`` when the protocol will resend it (framed CRC errors)."""

    kind: ClassVar[EventKind] = EventKind.CORRUPT
    reason: str
    raw: str = ""
    recoverable: bool = False

    @property
    def message(self) -> str:
        """One line for the dealer and the pit (what arrived, cut short)."""
        raw = self.raw if len(self.raw) <= 80 else f"{self.raw[:77]}..."
        shown = f": {raw}" if raw else ""
        return f"a damaged message, not taken ({self.reason}){shown}"

    @property
    def halts_table(self) -> bool:
        """Whether this corruption must halt the table (it cannot be recovered by resending)."""
        return not self.recoverable


@dataclass(frozen=True, slots=True)
class Noise(ShoeEvent):
    """Bytes that belonged to no message (line noise between messages), skipped."""

    kind: ClassVar[EventKind] = EventKind.NOISE
    nbytes: int


@dataclass(frozen=True, slots=True)
class DebugLine(ShoeEvent):
    """A debug line a reader printed (``#`` lines of the JSON-lines dialect)."""

    kind: ClassVar[EventKind] = EventKind.DEBUG
    text: str


@dataclass(frozen=True, slots=True)
class Connected(ShoeEvent):
    """The transport opened the device."""

    kind: ClassVar[EventKind] = EventKind.CONNECTED
    port: str


@dataclass(frozen=True, slots=True)
class Disconnected(ShoeEvent):
    """The device went away: the table must halt until it is back and checked."""

    kind: ClassVar[EventKind] = EventKind.DISCONNECTED
    halts: ClassVar[bool] = True
    port: str
    reason: str

    @property
    def message(self) -> str:
        """One line for the dealer and the pit."""
        return f"the shoe on {self.port} went away ({self.reason})"


def _where(device: str | None, record: int | None) -> str:
    """`` (reader-1, message 12)``: which device and which of its messages, when known."""
    parts = [p for p in (device, None if record is None else f"message {record}") if p]
    return f" ({', '.join(parts)})" if parts else ""


def must_halt(event: ShoeEvent) -> bool:
    """Whether ``event`` must halt dealing (a corrupt message only when it is not resent)."""
    if isinstance(event, CorruptMessage):
        return event.halts_table
    return event.halts
