import copy
import pickle

import pytest

from controller.cards import (
    DECKS,
    STANDARD_52,
    STRIPPED_28,
    Card,
    Deck,
    Rank,
    Suit,
    format_cards,
    parse_cards,
)
from controller.errors import InvalidCard, InvalidHand, TableError, UnknownName


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("AS", "AS"),
        ("as", "AS"),
        ("Td", "TD"),
        ("10h", "TH"),
        ("10H", "TH"),
        ("A♠", "AS"),
        ("k♥", "KH"),
        ("10♦", "TD"),
        ("2c", "2C"),
        ("  qs ", "QS"),
        ("J♧", "JC"),
    ],
)
def test_parse_accepts_every_documented_form(code: str, expected: str) -> None:
    assert Card.parse(code).code == expected


@pytest.mark.parametrize(
    "code", ["", "A", "1S", "AX", "11S", "ASD", "S A", "0S", "AS KS", "♠A", "ZZ"]
)
def test_bad_code_names_the_code_and_the_accepted_forms(code: str) -> None:
    with pytest.raises(InvalidCard) as caught:
        Card.parse(code)
    message = str(caught.value)
    assert repr(code) in message
    assert "T or 10" in message and "C, D, H, S" in message
    assert isinstance(caught.value, TableError) and isinstance(caught.value, ValueError)


def test_codes_round_trip_for_all_52_cards() -> None:
    assert len({c.code for c in STANDARD_52.cards}) == 52
    for card in STANDARD_52.cards:
        assert Card.parse(card.code) is card
        assert Card.parse(card.pretty) is card
        assert Card.parse(card.code.lower()) is card
        assert Card(int(card)) is card
        assert Card.of(card.rank, card.suit) is card


def test_compact_encoding_is_rank_times_four_plus_suit() -> None:
    assert int(Card.parse("2C")) == 0
    assert int(Card.parse("2S")) == 3
    assert int(Card.parse("3C")) == 4
    assert int(Card.parse("AS")) == 51
    card = Card.parse("QH")
    assert card.rank is Rank.QUEEN and card.suit is Suit.HEARTS
    assert int(card) == int(Rank.QUEEN) * 4 + int(Suit.HEARTS)


def test_cards_are_immutable_hashable_and_interned() -> None:
    card = Card.parse("7D")
    assert {card: 1}[Card.parse("7d")] == 1
    assert copy.copy(card) is card and copy.deepcopy(card) is card
    assert pickle.loads(pickle.dumps(card)) is card
    with pytest.raises(AttributeError):
        card.foo = 1  # type: ignore[attr-defined]
    assert repr(card) == "Card('7D')" and str(card) == "7D"


@pytest.mark.parametrize("index", [-1, 52, 100, "AS", None, 3.0])
def test_card_number_outside_the_deck_is_refused(index: object) -> None:
    with pytest.raises(InvalidCard, match="0 \\(2C\\) to 51 \\(AS\\)"):
        Card(index)  # type: ignore[arg-type]


def test_parse_cards_reads_lists_and_refuses_repeats() -> None:
    assert format_cards(parse_cards("AS, KD 10h")) == "AS KD TH"
    assert parse_cards(["2c", "3c"]) == (Card.parse("2C"), Card.parse("3C"))
    with pytest.raises(InvalidHand, match="KD appears twice"):
        parse_cards("KD AS kd")
    assert len(parse_cards("KD kd", allow_repeats=True)) == 2


def test_decks() -> None:
    assert len(STANDARD_52) == 52 and len(set(STANDARD_52.cards)) == 52
    assert len(STRIPPED_28) == 28
    assert {c.rank for c in STRIPPED_28.cards} == {
        Rank.EIGHT,
        Rank.NINE,
        Rank.TEN,
        Rank.JACK,
        Rank.QUEEN,
        Rank.KING,
        Rank.ACE,
    }
    assert Card.parse("7S") not in STRIPPED_28 and Card.parse("8S") in STRIPPED_28
    assert Deck.named("stripped28") is STRIPPED_28 and set(DECKS) == {"standard", "stripped28"}
    with pytest.raises(InvalidHand, match="7S is not in the 28-card deck"):
        STRIPPED_28.check(parse_cards("AS 7S"))
    with pytest.raises(UnknownName, match="standard, stripped28"):
        Deck.named("pinochle")


def test_shuffle_is_reproducible_from_the_seed() -> None:
    import random

    a = STANDARD_52.shuffled(random.Random(5))
    b = STANDARD_52.shuffled(random.Random(5))
    assert a == b and sorted(a) == list(STANDARD_52.cards) and a != list(STANDARD_52.cards)


def test_rank_parse_and_plurals() -> None:
    assert Rank.parse("sixes") is Rank.SIX and Rank.parse("10") is Rank.TEN
    assert Rank.parse("ace") is Rank.ACE
    with pytest.raises(UnknownName, match="bad rank 'x'"):
        Rank.parse("x")


def test_every_card_is_true_even_the_one_numbered_zero() -> None:
    assert all(STANDARD_52.cards) and bool(Card.parse("2C")) and int(Card.parse("2C")) == 0
