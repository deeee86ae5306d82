"""Seed 001, one test per payout sentence, plus its limits and the table maximum payout."""

import re
from fractions import Fraction

import pytest

from config.schema import load_game
from controller.games.rules import IllegalBet, Spot
from tests.controller.games.conftest import Settle, lines


def test_no_game_with_a_straight_pays_the_ante_1_to_1_and_returns_the_bet(tp: Settle) -> None:
    s = tp("9S 8D", "2C 3D", "7C 6H 5D KS JC", {"ante": 100}, ["bet"])
    assert s.dealer_qualifies is False
    assert lines(s) == {"ante": ("win", "100"), "bet": ("push", "0")}


def test_no_game_with_a_flush_pays_the_ante_by_the_table(tp: Settle) -> None:
    s = tp("AH 2H", "QC JD", "5H 9H KH 3C 7D", {"ante": 100}, ["bet"])
    assert lines(s) == {"ante": ("win", "200"), "bet": ("push", "0")}
    assert s.line(Spot.ANTE).paytable_line == "flush"


def test_no_game_with_no_combination_still_pays_the_ante_1_to_1(tp: Settle) -> None:
    s = tp("AS 2D", "QD JC", "KC 9H 7D 5C 3S", {"ante": 100}, ["bet"])
    assert s.player_hand.name == "high card, ace"
    assert lines(s) == {"ante": ("win", "100"), "bet": ("push", "0")}


def test_game_and_a_better_full_house_pays_the_ante_3_to_1_and_the_bet_even(tp: Settle) -> None:
    s = tp("9S 9D", "5C 5D", "9H KS KD 2C 7H", {"ante": 100}, ["bet"])
    assert s.dealer_qualifies is True
    assert lines(s) == {"ante": ("win", "300"), "bet": ("win", "200")}


def test_pair_of_fours_is_exactly_game(tp: Settle) -> None:
    s = tp("9S 9D", "4C AS", "9H KS 4D 2C 7H", {"ante": 100}, ["bet"])
    assert s.dealer_hand.name == "pair of fours" and s.dealer_qualifies is True
    assert lines(s) == {"ante": ("win", "100"), "bet": ("win", "200")}
    s = tp("9S 9D", "3C AS", "9H KS 3D 2C 7H", {"ante": 100}, ["bet"])
    assert s.dealer_hand.name == "pair of threes" and s.dealer_qualifies is False


def test_same_combination_neither_wins_nor_loses(tp: Settle) -> None:
    s = tp("2C 3D", "4C 5D", "AS AD KC QH JS", {"ante": 100}, ["bet"])
    assert lines(s) == {"ante": ("push", "0"), "bet": ("push", "0")}


def test_dealer_better_takes_ante_and_bet(tp: Settle) -> None:
    s = tp("2C 3D", "AH AC", "AS KD 7C 8H 9S", {"ante": 100}, ["bet"])
    assert lines(s) == {"ante": ("lose", "0"), "bet": ("lose", "0")}


def test_fold_loses_the_ante_and_the_bonus_plays_apart(tp: Settle) -> None:
    s = tp("AS AD", "KC KD", "2C 7D 9H JS 3C", {"ante": 100, "bonus": 50}, ["fold"])
    assert lines(s) == {"bonus": ("win", "350"), "ante": ("lose", "0")}


def test_bonus_counts_the_first_five_cards_only(tp: Settle) -> None:
    # aces made on the turn do not count for the bonus
    s = tp("AS 5D", "KC KD", "2C 7D 9H AD 3C", {"ante": 100, "bonus": 50}, ["bet"])
    assert s.line(Spot.BONUS).result.value == "lose"
    # kings are below the bonus; anything above a pair of aces is paid the same 7:1
    s = tp("KS KH", "2D 3D", "2C 7D 9H JS 4C", {"ante": 100, "bonus": 50}, ["bet"])
    assert s.line(Spot.BONUS).result.value == "lose"
    s = tp("7S 7H", "2D 3D", "7C 2C 2H JS 4C", {"ante": 100, "bonus": 50}, ["bet"])
    assert lines(s)["bonus"] == ("win", "350")


def test_table_maximum_payout_caps_the_main_game_not_the_bonus(tp: Settle) -> None:
    s = tp("AS KS", "4C 4D", "QS JS TS 2C 3D", {"ante": 100000, "bonus": 30000}, ["bet"])
    assert s.player_hand.name == "royal flush"
    paid = {ln.spot: ln.paid for ln in s.lines}
    assert paid[Spot.BONUS] == 210000  # 7:1, outside the cap
    assert paid[Spot.ANTE] + paid[Spot.BET] == 1_000_000  # 100:1 + 1:1 = 10,200,000 capped
    assert any("capped at the table maximum payout 1000000" in n for n in s.notes)


@pytest.mark.parametrize(
    ("bets", "message"),
    [
        ({"ante": 100, "bonus": 75}, "bonus bet: expected a whole number of chips of 50 (t"),
        ({"ante": 100, "bonus": 150}, "bonus bet: expected at most the ante bet (100); got 150"),
        ({"ante": 50000, "bonus": 30050}, "expected at most the table maximum 30000 (minimum 50)"),
        ({"ante": 100, "bonus": 0}, "bonus bet: expected at least the table minimum 50"),
        ({"ante": 50}, "ante bet: expected at least the table minimum 100"),
    ],
)
def test_bonus_limits(bets: dict[str, int], message: str) -> None:
    game = load_game("texas-poker")
    with pytest.raises(IllegalBet, match=re.escape(message)):
        game.verify_initial_bets({Spot(k): Fraction(v) for k, v in bets.items()})
    assert game.can_place_initial_bets({Spot.ANTE: Fraction(100), Spot.BONUS: Fraction(100)})
