"""What every shoe codec shares: the codec protocol, its counters and the per-deck inventory.

A codec is pure: bytes and the current time in, events out, and the bytes it wants sent
back (acknowledgements) waiting in :meth:`ShoeCodec.take_output`. It never touches a port.

A codec reports a card twice only where its wire proves it: the framed shoe announces each
deck it loads (DECK_LOADED), so its codec keeps a :class:`DeckInventory` of that deck. The
ASCII and RFID shoes announce no deck and no round; a card repeated across their reshuffles
is the table's to judge (``controller.table``: a card already dealt in the round halts it).

>>> from controller.cards import Card
>>> inventory = DeckInventory()
>>> inventory.reset("red-4")
>>> inventory.add(Card.parse("AS")), inventory.add_failure(), inventory.add(Card.parse("KD"))
(None, None, None)
>>> inventory.add(Card.parse("AS"))
DuplicateCard(card=Card('AS'), first_position=1, position=4, deck='red-4')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from controller.cards import Card
from drivers.shoe.events import DuplicateCard, ShoeEvent

__all__ = ["CardSource", "CodecStats", "DeckInventory", "Dialect", "ShoeCodec"]


class Dialect(StrEnum):
    """The wire dialects a shoe may speak."""

    FRAMED = "framed"
    USPC = "uspc"
    JSONL = "jsonl"


@dataclass(slots=True)
class CodecStats:
    """Running counts of one codec: messages decoded, damaged, repeated, and bytes skipped.

    ``duplicates`` counts every message dropped as a repeat of one already taken (a framed
    record resent, an RFID line sent twice): the only messages a codec drops. The running
    table publishes these counts in the shoe's hardware status (``stats``).
    """

    bytes_in: int = 0
    messages: int = 0
    cards: int = 0
    corrupt: int = 0
    noise_bytes: int = 0
    duplicates: int = 0
    gaps: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counts as a plain dict."""
        return {
            "bytes_in": self.bytes_in,
            "messages": self.messages,
            "cards": self.cards,
            "corrupt": self.corrupt,
            "noise_bytes": self.noise_bytes,
            "duplicates": self.duplicates,
            "gaps": self.gaps,
        }


class ShoeCodec(Protocol):
    """A pure decoder of one shoe dialect (and encoder of its replies)."""

    stats: CodecStats

    def feed(self, data: bytes, now: float = 0.0) -> list[ShoeEvent]:
        """Decode ``data`` (any split, any garbage) received at ``now`` (monotonic seconds)."""
        ...

    def take_output(self) -> bytes:
        """Bytes the host owes the shoe (acknowledgements); empty when none."""
        ...

    def reset_link(self) -> None:
        """Forget a partial message: the link was closed and reopened."""
        ...


class CardSource(Protocol):
    """The port through which the table reads a shoe (the serial transport is one adapter)."""

    def start(self) -> None:
        """Begin delivering events to the consumer given at construction."""
        ...

    def stop(self, timeout: float = 2.0) -> None:
        """Stop delivering and release the device."""
        ...

    def send(self, data: bytes) -> bool:
        """Write a command to the shoe; whether it went out."""
        ...


@dataclass(slots=True)
class DeckInventory:
    """The cards read from the deck the shoe last said it loaded: a card seen twice is a
    :class:`DuplicateCard`. Only :meth:`reset` (the shoe's DECK_LOADED) starts a new deck:
    no count of cards does, since a table that reshuffles without telling the shoe would
    otherwise see its next deck's cards as repeats.
    """

    deck_id: str = ""
    _positions: dict[Card, int] = field(default_factory=dict)
    _passed: int = 0

    @property
    def passed(self) -> int:
        """Cards that passed the reader in this deck, failed reads included."""
        return self._passed

    def reset(self, deck_id: str = "") -> None:
        """Start a new deck."""
        self.deck_id = deck_id
        self._positions.clear()
        self._passed = 0

    def add(self, card: Card) -> DuplicateCard | None:
        """Record ``card``; return the duplicate event when this deck already held it."""
        self._passed += 1
        first = self._positions.get(card)
        if first is not None:
            return DuplicateCard(card, first, self._passed, self.deck_id)
        self._positions[card] = self._passed
        return None

    def add_failure(self) -> None:
        """Record a card that passed unread."""
        self._passed += 1
