"""Seed 004, one test per payout sentence."""

from fractions import Fraction

from config.schema import load_game
from controller.cards import parse_cards
from controller.games.rules import RoundCards, Spot
from tests.controller.games.conftest import Settle, lines


def test_folded_full_house_loses_the_ante_gets_no_ante_bonus_but_the_bonus_pays(ta: Settle) -> None:
    s = ta("8S 8D", "AS QC", "8H KS KD", {"ante": 10, "bonus": 5}, ["fold"])
    assert s.player_hand.name == "full house, eights over kings"
    assert lines(s) == {"bonus": ("win", "45"), "ante": ("lose", "0")}


def test_dealer_below_a_pair_of_nines_pays_the_ante_and_returns_the_bet(ta: Settle) -> None:
    s = ta("AS KD", "8S QC", "8C 9H JD", {"ante": 10}, ["bet"])
    assert s.dealer_hand.name == "pair of eights" and s.dealer_qualifies is False
    assert lines(s) == {"ante": ("win", "10"), "bet": ("push", "0")}


def test_qualifying_dealer_lower_pays_ante_and_bet(ta: Settle) -> None:
    s = ta("KS KD", "9S 8C", "9C TH JD", {"ante": 10}, ["bet"])
    assert s.dealer_hand.name == "pair of nines" and s.dealer_qualifies is True
    assert lines(s) == {"ante": ("win", "10"), "bet": ("win", "10")}


def test_dealer_higher_takes_ante_and_bet_but_the_ante_bonus_still_pays(ta: Settle) -> None:
    s = ta("9S 9D", "KC KH", "9H KS KD", {"ante": 10}, ["bet"])
    assert s.dealer_hand.name == "four of a kind, kings"
    assert lines(s) == {"ante": ("lose", "0"), "bet": ("lose", "0"), "ante_bonus": ("win", "20")}
    assert s.returned == 20 and s.staked == 20


def test_tie_pushes(ta: Settle) -> None:
    s = ta("8C 9D", "8D 9C", "AS AD KC", {"ante": 10}, ["bet"])
    assert lines(s) == {"ante": ("push", "0"), "bet": ("push", "0")}


def test_flush_wins_ante_bet_ante_bonus_and_bonus(ta: Settle) -> None:
    s = ta("AS JS", "TC TD", "QS KS 9S", {"ante": 10, "bonus": 2}, ["bet"])
    assert lines(s) == {
        "bonus": ("win", "50"), "ante": ("win", "10"), "bet": ("win", "10"),
        "ante_bonus": ("win", "60"),
    }  # fmt: skip


def test_paytable_b_pays_a_full_house_8_to_1() -> None:
    game = load_game("triple-action-holdem", variants={"bonus": "B"})
    cards = RoundCards(parse_cards("8S 8D"), parse_cards("AS QC"), parse_cards("8H KS KD"))
    s = game.settle(cards, {Spot.ANTE: Fraction(10), Spot.BONUS: Fraction(5)}, ["bet"])
    assert s.line(Spot.BONUS).paid == 40 and s.line(Spot.BONUS).paytable_line == "full_house"
