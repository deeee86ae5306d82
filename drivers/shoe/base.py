"""What every shoe codec shares: the codec protocol, its counters and the per-deck inventory.

A codec is pure: bytes and the current time in, events out, and the bytes it wants sent
back (acknowledgements) waiting in :meth:`ShoeCodec.take_output`. It never touches a port.

>>> from controller.cards import Card
>>> inventory = DeckInventory(deck_size=3)
>>> inventory.add(Card.parse("AS")), inventory.add(Card.parse("KD"))
(None, None)
>>> inventory.add(Card.parse("AS"))
DuplicateCard(card=Card('AS'), first_position=1, position=3)
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
    """Running counts of one codec: messages decoded, damaged, repeated, and bytes skipped."""

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

    def new_deck(self, deck_id: str = "") -> None:
        """Start a fresh per-deck inventory (a new deck or a reshuffle)."""
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
    """The cards read from the current deck: a card seen twice is a :class:`DuplicateCard`.

    A deck is complete once ``deck_size`` cards (read or failed) have passed; the next card
    starts a new deck. :meth:`reset` starts one explicitly.
    """

    deck_size: int = 52
    deck_id: str = ""
    _positions: dict[Card, int] = field(default_factory=dict)
    _passed: int = 0

    @property
    def passed(self) -> int:
        """Cards that passed the reader in this deck, failed reads included."""
        return self._passed

    @property
    def complete(self) -> bool:
        """Whether the whole deck has passed (the next card starts a new deck)."""
        return self._passed >= self.deck_size

    def reset(self, deck_id: str = "") -> None:
        """Start a new deck."""
        self.deck_id = deck_id
        self._positions.clear()
        self._passed = 0

    def _roll(self) -> None:
        if self._passed >= self.deck_size:
            self.reset()

    def add(self, card: Card) -> DuplicateCard | None:
        """Record ``card``; return the duplicate event when this deck already held it."""
        self._roll()
        self._passed += 1
        first = self._positions.get(card)
        if first is not None:
            return DuplicateCard(card, first_position=first, position=self._passed)
        self._positions[card] = self._passed
        return None

    def add_failure(self) -> None:
        """Record a card that passed unread."""
        self._roll()
        self._passed += 1
