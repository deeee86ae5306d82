"""Seed 000, one test per payout sentence."""

from fractions import Fraction

import pytest

from controller.cards import parse_cards
from controller.games.rules import IllegalBet, IllegalDecision, Spot
from controller.games.texas_holdem_bonus import bonus_line
from tests.controller.games.conftest import Settle, lines


def test_fold_loses_the_ante_and_any_bonus_win_is_paid(thb: Settle) -> None:
    s = thb("AS AD", "KC KD", "2C 7D 9H JS 3C", {"ante": 10, "bonus": 5}, ["fold"])
    assert lines(s) == {"bonus": ("win", "150"), "ante": ("lose", "0")}
    assert s.folded and s.returned == 155 and s.staked == 15


def test_win_with_a_straight_or_better_pays_the_ante_and_every_bet_even(thb: Settle) -> None:
    s = thb("9S 8D", "AS AD", "7C 6H 5D KS 2C", {"ante": 10}, ["bet", "bet", "bet"])
    assert lines(s) == {
        "ante": ("win", "10"),
        "flop": ("win", "20"),
        "turn": ("win", "10"),
        "river": ("win", "10"),
    }
    assert s.staked == 50 and s.returned == 100


def test_win_below_a_straight_returns_the_ante_and_pays_the_bets(thb: Settle) -> None:
    s = thb("AS KS", "QC QD", "AD 7C 4H 9D 2S", {"ante": 10}, ["bet", "check", "check"])
    assert lines(s) == {"ante": ("push", "0"), "flop": ("win", "20")}
    assert s.returned == 50 and "below straight or better" in s.line(Spot.ANTE).reason


def test_equal_hands_push_every_bet_and_five_board_cards_can_be_the_hand(thb: Settle) -> None:
    s = thb("2C 3D", "4C 5D", "AS KS QD JC 9H", {"ante": 10}, ["bet", "bet", "check"])
    assert lines(s) == {"ante": ("push", "0"), "flop": ("push", "0"), "turn": ("push", "0")}
    assert s.returned == s.staked == 40


def test_dealer_best_loses_every_bet_and_the_bonus_still_pays(thb: Settle) -> None:
    s = thb("AH KH", "2C 2D", "3S 7D 9C JC 5H", {"ante": 10, "bonus": 2}, ["bet", "check", "check"])
    assert lines(s) == {"bonus": ("win", "50"), "ante": ("lose", "0"), "flop": ("lose", "0")}


@pytest.mark.parametrize(
    ("hole", "line"),
    [
        ("AS AD", "aces"), ("AH KH", "ace_king_suited"), ("AC QC", "ace_queen_or_jack_suited"),
        ("JD AD", "ace_queen_or_jack_suited"), ("AS KD", "ace_king"),
        ("KS KD", "kings_queens_or_jacks"), ("JS JH", "kings_queens_or_jacks"),
        ("AS QD", "ace_queen_or_jack"), ("TS TD", "pair_2_to_10"), ("2S 2D", "pair_2_to_10"),
        ("AS TD", None), ("KS QS", None), ("9S 8S", None),
    ],
)  # fmt: skip
def test_bonus_lines(hole: str, line: str | None) -> None:
    assert bonus_line(parse_cards(hole)) == line


def test_bets_need_an_ante_and_raises_follow_the_decisions(thb: Settle) -> None:
    from config.schema import load_game

    game = load_game("texas-holdem-bonus")
    with pytest.raises(IllegalBet, match="needs an ante"):
        game.verify_initial_bets({Spot.BONUS: Fraction(5)})
    with pytest.raises(IllegalBet, match="no bet on flop before the deal"):
        game.verify_initial_bets({Spot.ANTE: Fraction(5), Spot.FLOP: Fraction(10)})
    with pytest.raises(IllegalDecision, match="'check' is not a choice at the preflop decision"):
        thb("AS AD", "KC KD", "2C 7D 9H JS 3C", {"ante": 10}, ["check"])
    with pytest.raises(IllegalDecision, match="not decided at 'turn'"):
        thb("AS AD", "KC KD", "2C 7D 9H JS 3C", {"ante": 10}, ["bet"])
    with pytest.raises(IllegalDecision, match="come after the hand folded"):
        thb("AS AD", "KC KD", "2C 7D 9H JS 3C", {"ante": 10}, ["fold", "bet"])
