"""Poker hand evaluation: best five of 5 to 7 cards, rankings, qualification, batch math.

A hand's *strength* is one integer: higher is better, equal is a tie. It packs the
category's level in the ranking and the ranks that break ties (see the encoding note
in ``_handeval.c``); :func:`strength` (``strength(cards, ranking=0)``, the compiled fast
path for live play: a card is its integer code) computes it, and
:func:`reference_strength` computes the same number by an independent, plainly
written pure-Python method that the tests hold the kernel to.

>>> from controller.cards import format_cards
>>> v = evaluate(parse_cards("AS KS 4D 4C 9H 2S 4H"))
>>> v.category, v.name, format_cards(v.best_five)
(<Category.THREE_OF_A_KIND: 'three_of_a_kind'>, 'three of a kind, fours', '4H 4D 4C AS KS')
>>> evaluate(parse_cards("5C 4D 3H 2S AC")).name
'straight, five high'
>>> evaluate(parse_cards("AC 8D 9H TS JC"), Ranking.TRIPLE_ACTION).name
'high card, ace'
>>> Qualifier.parse("pair of fours or better").holds(evaluate(parse_cards("4S 4D 2C 7H 9S")))
True
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import lru_cache
from math import comb

import numpy as np
import numpy.typing as npt

from controller import _handeval
from controller._handeval import strength as strength
from controller.cards import STANDARD_52, Card, Deck, Rank, parse_cards
from controller.errors import InvalidHand, UnknownName
from controller.work import JobMap, Progress

__all__ = [
    "Category",
    "HandValue",
    "Qualifier",
    "Ranking",
    "best_strength_of_five",
    "category_of",
    "count_categories",
    "evaluate",
    "reference_strength",
    "strength",
    "strength_batch",
    "winners",
]

CATEGORY_SHIFT = 26
_CARD_BY_NUMBER = STANDARD_52.cards  # card number -> the interned Card
_MASK13 = (1 << 13) - 1


class Category(StrEnum):
    """Hand categories; the value is the name used in JSON, config and paytables."""

    HIGH_CARD = "high_card"
    PAIR = "pair"
    TWO_PAIR = "two_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"
    ROYAL_FLUSH = "royal_flush"

    @property
    def kind(self) -> int:
        """The category's index in the kernel (its place in the standard ranking, 0 = high card)."""
        return _KINDS.index(self)

    @property
    def title(self) -> str:  # type: ignore[override]
        """Human name: ``three of a kind``."""
        return self.value.replace("_", " ")


_KINDS: tuple[Category, ...] = tuple(Category)


class Ranking(IntEnum):
    """The order of categories, and whether the ace may play low in a straight."""

    STANDARD = 0
    TRIPLE_ACTION = 1

    @property
    def categories(self) -> tuple[Category, ...]:
        """Categories from best to worst in this ranking."""
        return _ORDER[self]

    @property
    def ace_low_straight(self) -> bool:
        """Whether A-2-3-4-5 is a straight (standard: yes; Triple Action: ace high only)."""
        return self is Ranking.STANDARD

    @property
    def label(self) -> str:
        """The name used on the command line and in config: ``standard``, ``triple-action``."""
        return self.name.lower().replace("_", "-")

    def level(self, category: Category) -> int:
        """The category's level in this ranking: 0 is the worst category."""
        return len(_ORDER[self]) - 1 - _ORDER[self].index(category)

    @classmethod
    def named(cls, name: str) -> Ranking:
        """The ranking called ``name`` (``standard`` or ``triple-action``)."""
        for ranking in cls:
            if ranking.label == name.strip().lower().replace("_", "-"):
                return ranking
        raise UnknownName(
            f"unknown ranking {name!r}: expected one of {', '.join(r.label for r in cls)}"
        )


_ORDER: dict[Ranking, tuple[Category, ...]] = {
    Ranking.STANDARD: tuple(reversed(_KINDS)),
    Ranking.TRIPLE_ACTION: (
        Category.ROYAL_FLUSH,
        Category.STRAIGHT_FLUSH,
        Category.FLUSH,
        Category.FOUR_OF_A_KIND,
        Category.FULL_HOUSE,
        Category.STRAIGHT,
        Category.THREE_OF_A_KIND,
        Category.TWO_PAIR,
        Category.PAIR,
        Category.HIGH_CARD,
    ),
}
_CATEGORY_AT_LEVEL: dict[Ranking, tuple[Category, ...]] = {
    r: tuple(reversed(order)) for r, order in _ORDER.items()
}


def category_of(value: int, ranking: Ranking = Ranking.STANDARD) -> Category:
    """The category a strength belongs to.

    >>> category_of(strength(parse_cards("2C 2D 5H 7S 9C")))
    <Category.PAIR: 'pair'>
    """
    return _CATEGORY_AT_LEVEL[ranking][value >> CATEGORY_SHIFT]


_RANK_NAMES = tuple(rank.name.lower() for rank in Rank)  # by rank index: "two" … "ace"
_RANK_PLURALS = tuple(rank.plural for rank in Rank)  # "twos" … "aces"


# Every settlement names both hands (in its reasons and its JSON), and the names repeat: kept
# for the 65,536 strengths last named. Kept for the targets: on ``python benchmarks/table.py``
# (2 runs), without it handle() p99 was 88-89 us instead of 79-81 us, and the 10,000 rounds
# replayed from a journal file took 4.90-4.93 s instead of 4.8-4.9 s, against its 5 s. The
# benchmark prints both figures, with and without it (``describe.__wrapped__``).
@lru_cache(maxsize=65536)
def describe(value: int, ranking: Ranking = Ranking.STANDARD) -> str:
    """A dealer's name for a strength: ``full house, kings over fives``.

    >>> describe(strength(parse_cards("KS KD KH 5C 5D")))
    'full house, kings over fives'
    """
    category = category_of(value, ranking)
    primary = value >> 13 & _MASK13
    top = primary.bit_length() - 1  # the highest rank of the primary mask
    if category is Category.ROYAL_FLUSH:
        return "royal flush"
    if category is Category.STRAIGHT_FLUSH or category is Category.STRAIGHT:
        return f"{category.title}, {_RANK_NAMES[top]} high"
    if category is Category.FLUSH or category is Category.HIGH_CARD:
        return f"{category.title}, {_RANK_NAMES[top]}"
    if category is Category.FOUR_OF_A_KIND or category is Category.THREE_OF_A_KIND:
        return f"{category.title}, {_RANK_PLURALS[top]}"
    if category is Category.FULL_HOUSE:
        pair = (value & _MASK13).bit_length() - 1
        return f"full house, {_RANK_PLURALS[top]} over {_RANK_PLURALS[pair]}"
    if category is Category.TWO_PAIR:
        second = (primary ^ 1 << top).bit_length() - 1
        return f"two pair, {_RANK_PLURALS[top]} and {_RANK_PLURALS[second]}"
    if category is Category.PAIR:
        return f"pair of {_RANK_PLURALS[top]}"
    raise AssertionError(category)  # pragma: no cover - every category is matched above


@dataclass(frozen=True, slots=True)
class HandValue:
    """The evaluation of one hand: its strength, category, name and the five cards used."""

    cards: tuple[Card, ...]
    ranking: Ranking
    strength: int
    category: Category
    best_five: tuple[Card, ...]

    @property
    def name(self) -> str:
        """The hand's spoken name, as a dealer announces it."""
        return describe(self.strength, self.ranking)

    def beats(self, other: HandValue) -> bool:
        """Whether this hand is strictly better than ``other`` (same ranking expected)."""
        return self.strength > other.strength

    def to_json(self) -> dict[str, object]:
        """The JSON form used by ``tablectl hands``."""
        return {
            "cards": [c.code for c in self.cards],
            "category": str(self.category),
            "name": describe(self.strength, self.ranking),
            "best_five": [c.code for c in self.best_five],
            "strength": self.strength,
        }


def evaluate(cards: Sequence[Card], ranking: Ranking = Ranking.STANDARD) -> HandValue:
    """Evaluate 5 to 7 cards: strength, category and the best five (unused cards never count)."""
    # the best five: the first five-card subset, high cards first, that reaches the value,
    # laid out as a dealer lays them (groups first, then ranks high to low; a wheel's ace
    # last); the kernel validates the cards before anything else looks at them
    ordered = sorted(cards, reverse=True)
    value, picked = _handeval.best_five(ordered, ranking)
    hand = tuple(map(_CARD_BY_NUMBER.__getitem__, cards))
    five = tuple([_CARD_BY_NUMBER[ordered[i]] for i in picked])
    return HandValue(
        hand, ranking, value, _CATEGORY_AT_LEVEL[ranking][value >> CATEGORY_SHIFT], five
    )


def winners(values: Sequence[HandValue]) -> list[int]:
    """Indices of the best hands (several on a tie).

    >>> hands = ("AS AD 2C 3D 7H", "AH AC 2D 3S 7C", "KS KD 2H 3C 7D")
    >>> winners([evaluate(parse_cards(h)) for h in hands])
    [0, 1]
    """
    if not values:
        return []
    best = max(v.strength for v in values)
    return [i for i, v in enumerate(values) if v.strength == best]


# --------------------------------------------------------------------------------------
# The independent reference: classify every five-card subset by its rank-count signature.
# Slow and obvious on purpose; the tests hold the compiled kernel to it.
# --------------------------------------------------------------------------------------


def best_strength_of_five(five: Sequence[Card], ranking: Ranking = Ranking.STANDARD) -> int:
    """The strength of exactly five cards, computed from sorted rank counts."""
    ranks = [int(Card(int(c)).rank) for c in five]
    suits = {int(Card(int(c)).suit) for c in five}
    if len(ranks) != 5 or len(set(map(int, five))) != 5:
        raise InvalidHand(f"best_strength_of_five needs five different cards; got {list(five)}")
    by_count = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    distinct = sorted(set(ranks), reverse=True)
    flush = len(suits) == 1
    straight_high: int | None = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_high = distinct[0]
        elif ranking.ace_low_straight and distinct == [12, 3, 2, 1, 0]:
            straight_high = 3

    def bits(rs: Iterable[int]) -> int:
        return sum(1 << r for r in rs)

    shape = [count for _, count in by_count]
    primary, secondary = 0, 0
    if straight_high is not None and flush:
        category = Category.ROYAL_FLUSH if straight_high == 12 else Category.STRAIGHT_FLUSH
        primary = 1 << straight_high
    elif shape == [4, 1]:
        category = Category.FOUR_OF_A_KIND
        primary, secondary = 1 << by_count[0][0], 1 << by_count[1][0]
    elif shape == [3, 2]:
        category = Category.FULL_HOUSE
        primary, secondary = 1 << by_count[0][0], 1 << by_count[1][0]
    elif flush:
        category, primary = Category.FLUSH, bits(distinct)
    elif straight_high is not None:
        category, primary = Category.STRAIGHT, 1 << straight_high
    elif shape == [3, 1, 1]:
        category = Category.THREE_OF_A_KIND
        primary, secondary = 1 << by_count[0][0], bits(r for r, _ in by_count[1:])
    elif shape == [2, 2, 1]:
        category = Category.TWO_PAIR
        primary, secondary = bits(r for r, _ in by_count[:2]), 1 << by_count[2][0]
    elif shape == [2, 1, 1, 1]:
        category = Category.PAIR
        primary, secondary = 1 << by_count[0][0], bits(r for r, _ in by_count[1:])
    else:
        category, primary = Category.HIGH_CARD, bits(distinct)
    return ranking.level(category) << CATEGORY_SHIFT | primary << 13 | secondary


def reference_strength(cards: Sequence[Card], ranking: Ranking = Ranking.STANDARD) -> int:
    """The best strength over every five-card subset: the slow, obvious definition."""
    if not 5 <= len(cards) <= 7:
        raise InvalidHand(f"a poker hand has 5 to 7 cards; got {len(cards)}")
    return max(best_strength_of_five(s, ranking) for s in itertools.combinations(cards, 5))


# --------------------------------------------------------------------------------------
# Qualification
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Qualifier:
    """A minimum hand, such as the dealer's "pair of fours or better".

    >>> q = Qualifier.parse("pair of nines or better")
    >>> q.describe(), q.holds(evaluate(parse_cards("8S 8D AC KH QS"), Ranking.TRIPLE_ACTION))
    ('pair of nines or better', False)
    >>> Qualifier.parse("pair or better").holds(evaluate(parse_cards("2S 2D 5C 7H 9S")))
    True
    """

    category: Category
    rank: Rank | None = None

    @classmethod
    def parse(cls, text: str) -> Qualifier:
        """Parse ``pair or better``, ``pair of fours or better``, ``two pair or better`` …"""
        return _parse_qualifier(text)

    @classmethod
    def _parse(cls, text: str) -> Qualifier:
        words = text.strip().lower().removesuffix("or better").strip()
        words = words.removesuffix(",").strip()
        rank: Rank | None = None
        if " of " in words:
            head, _, tail = words.partition(" of ")
            words = head.strip()
            rank = Rank.parse(tail)
        name = words.replace(" ", "_").replace("-", "_")
        try:
            category = Category(name)
        except ValueError:
            raise UnknownName(
                f"bad qualifier {text!r}: expected '<category> [of <rank plural>] or better', "
                "for example 'pair of fours or better' or 'pair or better'"
            ) from None
        if rank is not None and category not in (
            Category.PAIR,
            Category.THREE_OF_A_KIND,
            Category.FOUR_OF_A_KIND,
        ):
            raise UnknownName(f"bad qualifier {text!r}: only pairs, trips and quads take a rank")
        return cls(category, rank)

    def threshold(self, ranking: Ranking = Ranking.STANDARD) -> int:
        """The lowest qualifying strength: a hand qualifies when its strength is at least this."""
        return _threshold(self.category, self.rank, ranking)

    def holds(self, value: HandValue) -> bool:
        """Whether ``value`` meets the minimum."""
        return value.strength >= self.threshold(value.ranking)

    def describe(self) -> str:
        """The rule as written in the game documents."""
        return _describe_qualifier(self.category, self.rank)


def _describe_qualifier(category: Category, rank: Rank | None) -> str:
    if rank is None:
        return f"{category.title} or better"
    return f"{category.title} of {rank.plural} or better"


def _parse_qualifier(text: str) -> Qualifier:
    return Qualifier._parse(text)


def _threshold(category: Category, rank: Rank | None, ranking: Ranking) -> int:
    primary = 1 << int(rank) if rank is not None else 0
    return ranking.level(category) << CATEGORY_SHIFT | primary << 13


# --------------------------------------------------------------------------------------
# Batch evaluation and exhaustive counts, for game math
# --------------------------------------------------------------------------------------


def strength_batch(
    hands: npt.ArrayLike, ranking: Ranking = Ranking.STANDARD
) -> npt.NDArray[np.uint32]:
    """Strengths of many hands at once: ``hands`` is an (N, 5..7) array of card numbers."""
    array = np.ascontiguousarray(hands, dtype=np.uint8)
    if array.ndim != 2:
        raise InvalidHand(
            f"hands must be a 2-D array (N hands x 5..7 cards); got shape {array.shape}"
        )
    out = np.empty(array.shape[0], dtype=np.uint32)
    _handeval.strength_batch(array, out, int(ranking))
    return out


def _count_slice(job: tuple[bytes, int, int, int]) -> list[int]:
    """Count the hands whose first card is at one deck position (one job of
    :func:`count_categories`; the kernel releases the GIL)."""
    cards, n_cards, ranking, first = job
    return list(_handeval.count_categories(cards, n_cards, ranking, first))


def count_categories(
    n_cards: int,
    deck: Deck = STANDARD_52,
    ranking: Ranking = Ranking.STANDARD,
    *,
    map_jobs: JobMap = map,
    progress: Progress | None = None,
) -> dict[Category, int]:
    """Count every ``n_cards``-card hand from ``deck`` by category, exhaustively.

    The work is split by the hand's first card into jobs run by ``map_jobs`` (a thread
    pool's ``map`` runs them on every processor: the kernel releases the GIL).
    ``progress(done, total)`` is called as hands are counted.

    >>> counts = count_categories(5, parse_deck("stripped28"), Ranking.TRIPLE_ACTION)
    >>> counts[Category.FLUSH], counts[Category.STRAIGHT], sum(counts.values())
    (72, 3060, 98280)
    """
    if not 5 <= n_cards <= 7:
        raise InvalidHand(f"a poker hand has 5 to 7 cards; got {n_cards}")
    cards = bytes(int(c) for c in deck.cards)
    n = len(cards)
    total = comb(n, n_cards)
    # hands whose first card sits at deck position i: C(n - 1 - i, n_cards - 1); the
    # largest slices first, so that the processors finish together
    slices = list(range(n - n_cards + 1))
    jobs = [(cards, n_cards, int(ranking), i) for i in slices]
    totals = [0] * len(_KINDS)
    done = 0
    for first, counts in zip(slices, map_jobs(_count_slice, jobs), strict=True):
        for kind, count in enumerate(counts):
            totals[kind] += count
        done += comb(n - 1 - first, n_cards - 1)
        if progress is not None:
            progress(done, total)
    return {category: totals[category.kind] for category in ranking.categories}


def parse_deck(name: str) -> Deck:
    """The deck called ``name``; see :data:`controller.cards.DECKS`."""
    return Deck.named(name)


def parse_hand(text: str) -> tuple[Card, ...]:
    """Parse one hand of 5 to 7 cards from text, checking its size.

    >>> parse_hand("AS KD QH JC TS")[0]
    Card('AS')
    """
    cards = parse_cards(text)
    if not 5 <= len(cards) <= 7:
        raise InvalidHand(f"a poker hand has 5 to 7 cards; {text!r} has {len(cards)}")
    return cards
