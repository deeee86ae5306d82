"""Per-deck tables that map RFID tag uids to cards, read from a small text file.

The file lists one tag per line, ``UID CARD`` (whitespace or a comma between), with an
optional ``deck NAME`` line and ``#`` comments. Each uid and each card appears once.

>>> deck = parse_deck_map("deck red-01\\n04:A1:B2 AS\\n04a1b3, 10h  # the ten\\n")
>>> deck.deck_id, deck.card_for("04A1B2"), deck.card_for("04-a1-b3"), len(deck)
('red-01', Card('AS'), Card('TH'), 2)
>>> parse_deck_map("04A1 AS\\n04A2 as")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
controller.errors.ProtocolError: deck map line 2: card AS is already tag 04A1 (line 1): ...
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from config.files import read_text
from controller.cards import STANDARD_52, Card
from controller.errors import InvalidCard, ProtocolError

__all__ = ["DeckMap", "demo_deck_map", "load_deck_map", "normalise_uid", "parse_deck_map"]


def normalise_uid(uid: str) -> str:
    """A uid in canonical form: upper-case hex without separators."""
    return "".join(ch for ch in uid.upper() if ch not in ": -")


@dataclass(frozen=True, slots=True)
class DeckMap:
    """The tags of one physical deck: uid to card, and back."""

    deck_id: str
    cards: dict[str, Card]

    def __len__(self) -> int:
        return len(self.cards)

    def card_for(self, uid: str) -> Card | None:
        """The card of tag ``uid``, or ``None`` when this deck has no such tag."""
        return self.cards.get(normalise_uid(uid))

    def uid_for(self, card: Card) -> str:
        """The uid of ``card``'s tag."""
        for uid, held in self.cards.items():
            if held is card:
                return uid
        raise ProtocolError(f"deck {self.deck_id!r} has no tag for card {card}")

    def to_text(self) -> str:
        """The deck map in its file format."""
        lines = [f"deck {self.deck_id}"] + [f"{uid} {card}" for uid, card in self.cards.items()]
        return "\n".join(lines) + "\n"


def parse_deck_map(text: str, source: str = "deck map") -> DeckMap:
    """Parse a deck map file's text; errors name the line and what was expected."""
    deck_id = ""
    cards: dict[str, Card] = {}
    lines_of: dict[Card, tuple[str, int]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.replace(",", " ").split()
        if words[0].lower() == "deck" and len(words) == 2:
            deck_id = words[1]
            continue
        if len(words) != 2:
            raise ProtocolError(f"{source} line {number}: expected 'UID CARD', got {raw.strip()!r}")
        uid = normalise_uid(words[0])
        if not uid or any(ch not in "0123456789ABCDEF" for ch in uid):
            raise ProtocolError(f"{source} line {number}: tag uid {words[0]!r} is not hexadecimal")
        try:
            card = Card.parse(words[1])
        except InvalidCard as error:
            raise ProtocolError(f"{source} line {number}: {error}") from None
        if uid in cards:
            raise ProtocolError(f"{source} line {number}: tag {uid} is listed twice")
        if card in lines_of:
            other, at = lines_of[card]
            raise ProtocolError(
                f"{source} line {number}: card {card} is already tag {other} (line {at}): "
                "each card has one tag"
            )
        cards[uid] = card
        lines_of[card] = (uid, number)
    if not cards:
        raise ProtocolError(f"{source}: no 'UID CARD' lines")
    return DeckMap(deck_id or "deck", cards)


def load_deck_map(path: str | Path) -> DeckMap:
    """Read a deck map file."""
    text = read_text(Path(path), f"deck map {str(path)!r}", error=ProtocolError)
    return parse_deck_map(text, source=str(path))


def demo_deck_map(deck_id: str = "demo", cards: Iterable[Card] = STANDARD_52.cards) -> DeckMap:
    """A reproducible deck map for simulators and tests: 7-byte uids derived from the deck id.

    >>> demo_deck_map().uid_for(Card.parse("AS"))
    '04C482137470F5'
    """
    table = {}
    for card in cards:
        digest = hashlib.sha256(f"{deck_id}:{card}".encode()).hexdigest().upper()
        table["04" + digest[:12]] = card
    return DeckMap(deck_id, table)
