"""Seed 002, one test per payout sentence, and the decision rules."""

import pytest

from controller.games.rules import IllegalDecision
from tests.controller.games.conftest import Settle, lines

FLUSH_BOARD = "5H 9H KH 3C 7D"


def test_flush_against_a_dealer_who_does_not_qualify(uth: Settle) -> None:
    s = uth("AH 2H", "QC JD", FLUSH_BOARD, {"ante": 10}, ["check", "check", "call_1x"])
    assert s.dealer_qualifies is False
    assert lines(s) == {"ante": ("push", "0"), "ante_plus": ("win", "15"), "call": ("win", "10")}


def test_player_better_and_dealer_qualifies(uth: Settle) -> None:
    s = uth("9S 8D", "KD 3H", "7C 6H 5D KS 2C", {"ante": 10}, ["call_4x"])
    assert lines(s) == {"ante": ("win", "10"), "ante_plus": ("win", "10"), "call": ("win", "40")}


def test_ante_plus_pushes_on_three_of_a_kind_or_less(uth: Settle) -> None:
    s = uth("9S 9D", "4C AS", "9H KS 4D 2C 7H", {"ante": 10}, ["call_3x"])
    assert lines(s) == {"ante": ("win", "10"), "ante_plus": ("push", "0"), "call": ("win", "30")}


def test_dealer_better_takes_every_main_bet_and_the_side_bet_of_a_loser(uth: Settle) -> None:
    s = uth("2C 3D", "AH AC", "AS KD 7C 8H 9S", {"ante": 10, "best_five": 5}, ["check", "call_2x"])
    assert lines(s) == {
        "best_five": ("lose", "0"), "ante": ("lose", "0"), "call": ("lose", "0"),
        "ante_plus": ("lose", "0"),
    }  # fmt: skip


def test_dealer_not_qualifying_but_higher_returns_the_ante_only(uth: Settle) -> None:
    s = uth("2C 3D", "QC JD", "AS KD 9C 7H 4S", {"ante": 10}, ["check", "check", "call_1x"])
    assert s.dealer_qualifies is False
    assert lines(s) == {"ante": ("push", "0"), "call": ("lose", "0"), "ante_plus": ("lose", "0")}


def test_tie_returns_ante_call_and_ante_plus(uth: Settle) -> None:
    s = uth("2C 3D", "4C 5D", "AS KS QD JC 9H", {"ante": 10}, ["check", "check", "call_1x"])
    assert lines(s) == {"ante": ("push", "0"), "call": ("push", "0"), "ante_plus": ("push", "0")}


def test_fold_loses_ante_and_ante_plus_and_best_five_is_still_paid(uth: Settle) -> None:
    s = uth(
        "9S 9D", "AC AH", "9H KS 4D 2C 7H", {"ante": 10, "best_five": 5}, ["check", "check", "fold"]
    )
    assert lines(s) == {
        "best_five": ("win", "15"),
        "ante": ("lose", "0"),
        "ante_plus": ("lose", "0"),
    }


def test_best_five_pays_the_whole_table(uth: Settle) -> None:
    s = uth("AH 2H", "QC JD", FLUSH_BOARD, {"ante": 10, "best_five": 5}, ["call_4x"])
    assert lines(s)["best_five"] == ("win", "35")


def test_decisions_follow_the_script() -> None:
    from fractions import Fraction

    from config.schema import load_game
    from controller.games.rules import Spot

    game = load_game("ultimate-texas-holdem")
    ante = {Spot.ANTE: Fraction(10)}
    walk = game.walk(ante, ["call_4x"])
    assert walk.pending is None and walk.bets[Spot.CALL] == 40 and walk.bets[Spot.ANTE_PLUS] == 10
    assert game.walk(ante, ["check"]).pending.name == "flop"  # type: ignore[union-attr]
    assert game.walk(ante, ["check", "call_2x"]).bets[Spot.CALL] == 20
    with pytest.raises(IllegalDecision, match="'call_4x' is not a choice at the flop decision"):
        game.walk(ante, ["check", "call_4x"])
    with pytest.raises(IllegalDecision, match="has no decision left"):
        game.walk(ante, ["call_3x", "call_2x"])


def test_what_a_player_sees_at_each_decision() -> None:
    from config.schema import load_game

    assert load_game("ultimate-texas-holdem").script.views() == (
        ("preflop", 0, False), ("flop", 3, False), ("river", 5, False),
    )  # fmt: skip
    # Triple Action: the board lies face down; the dealer's first card is shown
    assert load_game("triple-action-holdem").script.views() == (("up card", 0, True),)
