"""Playing cards: ranks, suits, cards as compact integers, parsing, and deck definitions.

A card *is* its compact integer ``rank * 4 + suit`` (0 = 2C … 51 = AS): :class:`Card`
subclasses :class:`int`, so a card can be stored, hashed, sent to the evaluator kernel
or packed into a numpy array without conversion, and there is exactly one instance of
each of the 52 cards.

>>> Card.parse("AS"), Card.parse("as"), Card.parse("Td"), Card.parse("10h"), Card.parse("A♠")
(Card('AS'), Card('AS'), Card('TD'), Card('TH'), Card('AS'))
>>> int(Card.parse("2C")), int(Card.parse("AS"))
(0, 51)
>>> all(Card.parse(str(c)) is c for c in STANDARD_52.cards)
True
>>> Card.parse("1S")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
controller.errors.InvalidCard: bad card code '1S': expected a rank (2-9, T or 10, J, Q, K, A) ...
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar

from controller.errors import InvalidCard, InvalidHand, UnknownName

__all__ = [
    "DECKS",
    "STANDARD_52",
    "STRIPPED_28",
    "Card",
    "Deck",
    "Rank",
    "Suit",
    "format_cards",
    "parse_cards",
]


class Rank(IntEnum):
    """Card ranks, deuce lowest; the value is the rank's index in the compact encoding."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def char(self) -> str:
        """The one-character code: ``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return _RANK_CHARS[self.value]

    @property
    def plural(self) -> str:
        """The rank's English plural, as in "pair of fours".

        >>> Rank.FOUR.plural, Rank.SIX.plural, Rank.ACE.plural
        ('fours', 'sixes', 'aces')
        """
        return _RANK_PLURALS[self.value]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse a rank code (``A``, ``k``, ``T``, ``10``, ``9`` …) or a plural (``fours``).

        >>> Rank.parse("10"), Rank.parse("t"), Rank.parse("nines")
        (<Rank.TEN: 8>, <Rank.TEN: 8>, <Rank.NINE: 7>)
        """
        key = text.strip().upper()
        if key == "10":
            return cls.TEN
        if len(key) == 1 and key in _RANK_CHARS:
            return cls(_RANK_CHARS.index(key))
        lowered = text.strip().lower()
        if lowered in _RANK_PLURALS:
            return cls(_RANK_PLURALS.index(lowered))
        if lowered.upper() in cls.__members__:
            return cls[lowered.upper()]
        raise UnknownName(
            f"bad rank {text!r}: expected one of 2-9, T or 10, J, Q, K, A "
            "(or a plural such as 'fours')"
        )


class Suit(IntEnum):
    """Card suits; they never rank against each other, the order is only the encoding."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        """The one-letter code: ``C``, ``D``, ``H``, ``S``."""
        return "CDHS"[self.value]

    @property
    def symbol(self) -> str:
        """The suit symbol for displays: ♣ ♦ ♥ ♠."""
        return "♣♦♥♠"[self.value]


_RANK_CHARS = "23456789TJQKA"
_RANKS = tuple(Rank)
_SUITS = tuple(Suit)
_RANK_PLURALS = (
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights",
    "nines", "tens", "jacks", "queens", "kings", "aces",
)  # fmt: skip
_SUIT_BY_CHAR = {
    "C": Suit.CLUBS, "D": Suit.DIAMONDS, "H": Suit.HEARTS, "S": Suit.SPADES,
    "♣": Suit.CLUBS, "♦": Suit.DIAMONDS, "♥": Suit.HEARTS, "♠": Suit.SPADES,
    "♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES,
}  # fmt: skip
_ACCEPTED_FORMS = (
    "expected a rank (2-9, T or 10, J, Q, K, A) followed by a suit "
    "(C, D, H, S or ♣ ♦ ♥ ♠), for example 'AS', 'td', '10h' or 'A♠'"
)


class Card(int):
    """One playing card, equal to its compact code ``rank * 4 + suit`` (0 … 51).

    Cards are interned: ``Card(51) is Card.parse("AS")``. Use :meth:`parse` for text and
    :meth:`of` for a rank and a suit.
    """

    __slots__ = ()
    _instances: ClassVar[tuple[Card, ...]]

    def __new__(cls, index: int) -> Card:
        """Return the card whose compact code is ``index`` (0 … 51)."""
        try:
            if 0 <= index < 52:
                return cls._instances[index]
        except AttributeError:  # only while the 52 instances are being created
            return super().__new__(cls, index)
        except TypeError:
            pass
        raise InvalidCard(f"bad card number {index!r}: expected an integer from 0 (2C) to 51 (AS)")

    @classmethod
    def of(cls, rank: Rank, suit: Suit) -> Card:
        """The card of ``rank`` and ``suit``."""
        return cls._instances[int(rank) * 4 + int(suit)]

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse a card code: rank then suit, any case, ``T`` or ``10``, letters or symbols."""
        text = code.strip() if isinstance(code, str) else code
        if isinstance(text, str) and 2 <= len(text) <= 3:
            rank_text, suit_text = text[:-1].upper(), text[-1].upper()
            suit = _SUIT_BY_CHAR.get(suit_text)
            if rank_text == "10":
                rank_index = Rank.TEN.value
            elif len(rank_text) == 1 and rank_text in _RANK_CHARS:
                rank_index = _RANK_CHARS.index(rank_text)
            else:
                rank_index = -1
            if suit is not None and rank_index >= 0:
                return cls._instances[rank_index * 4 + suit.value]
        raise InvalidCard(f"bad card code {code!r}: {_ACCEPTED_FORMS}")

    @property
    def rank(self) -> Rank:
        """The card's rank."""
        return _RANKS[int(self) >> 2]

    @property
    def suit(self) -> Suit:
        """The card's suit."""
        return _SUITS[int(self) & 3]

    @property
    def code(self) -> str:
        """The canonical two-character code, rank then suit: ``AS``, ``TD``, ``2C``."""
        return _CODES[int(self)]

    @property
    def pretty(self) -> str:
        """The code with a suit symbol, for displays: ``A♠``, ``10♦``."""
        rank = "10" if self.rank is Rank.TEN else self.rank.char
        return rank + self.suit.symbol

    def __str__(self) -> str:
        return _CODES[int(self)]

    def __repr__(self) -> str:
        return f"Card({_CODES[int(self)]!r})"

    def __bool__(self) -> bool:
        """Every card is a card: 2C is number 0 but never false (``if card:`` must not skip it)."""
        return True

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_CODES = tuple(r + s for r in _RANK_CHARS for s in "CDHS")
Card._instances = tuple(int.__new__(Card, i) for i in range(52))


def parse_cards(text: str | Iterable[str], *, allow_repeats: bool = False) -> tuple[Card, ...]:
    """Parse cards given as one space/comma separated string or as an iterable of codes.

    >>> parse_cards("AS kd 10h")
    (Card('AS'), Card('KD'), Card('TH'))
    >>> parse_cards("AS as")
    Traceback (most recent call last):
    ...
    controller.errors.InvalidHand: card AS appears twice in 'AS as': a deck holds each card once
    """
    codes = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = tuple(Card.parse(code) for code in codes)
    if not allow_repeats:
        seen: set[Card] = set()
        for card in cards:
            if card in seen:
                shown = text if isinstance(text, str) else " ".join(codes)
                raise InvalidHand(
                    f"card {card} appears twice in {shown!r}: a deck holds each card once"
                )
            seen.add(card)
    return cards


def format_cards(cards: Iterable[Card], *, pretty: bool = False) -> str:
    """Cards as one space-separated string.

    >>> format_cards(parse_cards("AS TD"), pretty=True)
    'A♠ 10♦'
    """
    return " ".join(c.pretty if pretty else c.code for c in cards)


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck definition: its name and the cards it holds, in canonical order."""

    name: str
    description: str
    cards: tuple[Card, ...]
    _members: frozenset[Card] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_members", frozenset(self.cards))

    def __contains__(self, card: object) -> bool:
        return card in self._members

    def __len__(self) -> int:
        return len(self.cards)

    def shuffled(self, rng: random.Random) -> list[Card]:
        """A shuffled copy of the deck, drawn with ``rng`` (seed it for reproducible rounds)."""
        order = list(self.cards)
        rng.shuffle(order)
        return order

    def check(self, cards: Sequence[Card]) -> None:
        """Raise :class:`InvalidHand` naming the first card that this deck does not hold."""
        members = self._members
        for card in cards:
            if card not in members:
                raise InvalidHand(f"card {card} is not in the {self.description}")

    @classmethod
    def named(cls, name: str) -> Deck:
        """The deck called ``name`` (``standard`` or ``stripped28``)."""
        try:
            return DECKS[name]
        except KeyError:
            raise UnknownName(
                f"unknown deck {name!r}: expected one of {', '.join(sorted(DECKS))}"
            ) from None


STANDARD_52 = Deck("standard", "standard 52-card deck", Card._instances)
STRIPPED_28 = Deck(
    "stripped28",
    "28-card deck (eights to aces)",
    tuple(c for c in Card._instances if c.rank >= Rank.EIGHT),
)
DECKS: dict[str, Deck] = {d.name: d for d in (STANDARD_52, STRIPPED_28)}
