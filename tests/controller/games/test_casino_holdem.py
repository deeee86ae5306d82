"""Seed 003, one test per payout sentence."""

from tests.controller.games.conftest import Settle, lines


def test_dealer_not_qualifying_pays_the_ante_by_the_table_and_returns_the_call(ch: Settle) -> None:
    s = ch("AH 2H", "QC JD", "5H 9H KH 3C 7D", {"ante": 10}, ["call"])
    assert s.dealer_qualifies is False
    assert lines(s) == {"ante": ("win", "20"), "call": ("push", "0")}


def test_dealer_not_qualifying_pays_even_a_high_card_1_to_1(ch: Settle) -> None:
    s = ch("AS 2D", "QD JC", "KC 9H 7D 5C 3S", {"ante": 10}, ["call"])
    assert lines(s) == {"ante": ("win", "10"), "call": ("push", "0")}


def test_qualifying_dealer_lower_than_the_player(ch: Settle) -> None:
    s = ch("KC 9D", "4C AS", "KH 9S 4D 2C 7H", {"ante": 10}, ["call"])
    assert s.dealer_hand.name == "pair of fours"
    assert lines(s) == {"ante": ("win", "10"), "call": ("win", "20")}
    s = ch("9S 9D", "4C AS", "9H KS KD 4D 7H", {"ante": 10}, ["call"])
    assert lines(s) == {"ante": ("win", "30"), "call": ("win", "20")}  # full house 3:1


def test_qualifying_dealer_higher_takes_ante_and_call(ch: Settle) -> None:
    s = ch("2C 3D", "AH AC", "AS KD 7C 8H 9S", {"ante": 10}, ["call"])
    assert lines(s) == {"ante": ("lose", "0"), "call": ("lose", "0")}


def test_identical_hands_push(ch: Settle) -> None:
    s = ch("2C 3D", "4C 5D", "AS AD KC QH JS", {"ante": 10}, ["call"])
    assert lines(s) == {"ante": ("push", "0"), "call": ("push", "0")}


def test_fold_loses_the_ante_and_the_bonus_is_not_influenced(ch: Settle) -> None:
    s = ch("AS AD", "KC KD", "2C 7D 9H JS 3C", {"ante": 10, "bonus": 5}, ["fold"])
    assert lines(s) == {"bonus": ("win", "35"), "ante": ("lose", "0")}


def test_bonus_needs_aces_or_better_in_the_first_dealing_round(ch: Settle) -> None:
    s = ch("AS 5D", "KC KD", "2C 7D 9H AD 3C", {"ante": 10, "bonus": 5}, ["call"])
    assert lines(s)["bonus"] == ("lose", "0")
    s = ch("KS 5D", "2D 3D", "KC 7D 9H AD 3C", {"ante": 10, "bonus": 5}, ["call"])
    assert lines(s)["bonus"] == ("lose", "0")  # a pair of kings is below two aces
    s = ch("KS KD", "2D 3D", "KC KH 9H AD 3C", {"ante": 10, "bonus": 5}, ["call"])
    assert lines(s)["bonus"] == ("win", "200")  # four of a kind 40:1
