"""A seat's Deal (seed 000), the deck changed for each game (seed 003), a seat's return."""

from __future__ import annotations

from controller.events import (
    ChangeDeck,
    ClearBets,
    NoMoreBets,
    Rebet,
    SeatDeal,
    SeatDisconnected,
    SeatReturned,
    StartRound,
    Tick,
    VoidRound,
)
from controller.table import Phase
from controller.topics import Topics
from controller.views import Projector
from tests.controller.test_table import studio


def refused(actions: list) -> str:  # type: ignore[type-arg]
    return next((str(a.data["reason"]) for a in actions if a.kind == "refused"), "")


def test_betting_closes_once_every_seat_with_a_bet_pressed_deal() -> None:
    c = studio("texas-holdem-bonus")
    c.send(StartRound(actor="dealer"))
    assert "expected an ante on the layout first" in refused(
        c.send(SeatDeal(actor="seat:1", seat="seat:1"))
    )
    c.bet("player", "seat:1", "ante", 10)
    c.bet("player", "seat:2", "ante", 10)
    c.send(SeatDeal(actor="seat:1", seat="seat:1"))
    assert c.state.phase is Phase.BETTING  # seat:2 has a bet and has not pressed Deal
    assert "its bets are final" in refused(c.bet("player", "seat:1", "ante", 10))
    assert "pressed Deal already" in refused(c.send(SeatDeal(actor="seat:1", seat="seat:1")))
    c.send(SeatDeal(actor="seat:2", seat="seat:2"))
    assert c.state.phase is Phase.DEALING


def test_a_clear_or_a_disconnection_leaves_only_ready_seats_and_the_deal_begins() -> None:
    for leave in (
        ClearBets(actor="seat:2", hand="player", seat="seat:2"),
        SeatDisconnected(actor="system", seat="seat:2"),
    ):
        c = studio("texas-holdem-bonus")
        c.send(StartRound(actor="dealer"))
        c.bet("player", "seat:1", "ante", 10)
        c.bet("player", "seat:2", "ante", 10)
        c.send(SeatDeal(actor="seat:1", seat="seat:1"))
        assert c.state.phase is Phase.BETTING
        c.send(leave)
        assert c.state.phase is Phase.DEALING, leave


def test_seed_000_rebet_is_the_seats_deal() -> None:
    c = studio("texas-holdem-bonus")
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.send(VoidRound(actor="pit:ann", reason="demo"))
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:2", "ante", 10)
    c.send(Rebet(actor="seat:1", hand="player", seat="seat:1"))
    assert c.state.round is not None and c.state.round.ready == {"seat:1"}
    projector = Projector(Topics("S1"))
    # seat 2 may deal, undo or clear its ante (no bets last round: nothing to repeat); seat 1's
    # Rebet dealt it in: its bets are final
    assert projector.seat_state(c.state, "seat:2", 0).can == ["deal", "undo_bet", "clear_bets"]
    assert projector.seat_state(c.state, "seat:1", 0).can == []


def test_games_without_a_deal_button_refuse_it_and_old_rules_too() -> None:
    for game, rules in (("ultimate-texas-holdem", 6), ("texas-holdem-bonus", 5)):
        c = studio(game, rules=rules)
        c.send(StartRound(actor="dealer"))
        c.bet("player", "seat:1", "ante", 10)
        assert "no Deal button" in refused(c.send(SeatDeal(actor="seat:1", seat="seat:1")))


def _unchanged_alert(out: list) -> str:  # type: ignore[type-arg]
    found = [a.data["message"] for a in out if a.kind == "alert" and "deck change" in str(a.data)]
    return found[0] if found else ""


def test_seed_003_the_deck_change_is_asked_for_and_a_round_without_it_is_flagged() -> None:
    c = studio("casino-holdem")
    c.fresh_decks = False  # the deck is changed by hand here
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    assert "change the deck" in c.state.next_due
    c.send(ChangeDeck(actor="dealer", deck_id="D-1"))
    assert "change the deck" not in c.state.next_due
    out = c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING and not _unchanged_alert(out)


def test_seed_003_a_deck_changed_between_rounds_serves_one_game_only() -> None:
    c = studio("casino-holdem")
    c.fresh_decks = False  # the deck is changed by hand here
    c.send(ChangeDeck(actor="dealer", deck_id="D-1"))
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    assert not _unchanged_alert(c.send(NoMoreBets(actor="dealer")))
    assert c.state.phase is Phase.DEALING
    c.send(VoidRound(actor="pit:ann", reason="demo"))
    assert "change the deck" in c.state.next_due
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    alert = _unchanged_alert(c.send(NoMoreBets(actor="dealer")))
    assert "dealt without the deck change" in alert and "may void" in alert
    assert c.state.phase is Phase.DEALING  # flagged, never a stop: the players are dealt


def test_seed_003_a_forgotten_deck_never_holds_the_betting_timer() -> None:
    c = studio("casino-holdem", betting_seconds=10.0)
    c.fresh_decks = False  # the deck is changed by hand here
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    out = c.send(Tick(actor="timer"), after=20)
    assert c.state.phase is Phase.DEALING
    assert "dealt without the deck change" in _unchanged_alert(out)


def test_other_games_keep_the_pit_managers_deck_change_between_rounds() -> None:
    c = studio("ultimate-texas-holdem")
    assert "only the pit manager" in refused(c.send(ChangeDeck(actor="dealer", deck_id="D")))
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING


def test_a_seats_return_is_recorded_and_shown_to_the_pit() -> None:
    c = studio("casino-holdem")
    assert "expected a seat that was disconnected" in refused(
        c.send(SeatReturned(actor="system", seat="seat:1"))
    )
    c.send(SeatDisconnected(actor="system", seat="seat:1"))
    projector = Projector(Topics("S1"))
    assert projector.pit_state(c.state, 0).seats_away == ["seat:1"]
    out = c.send(SeatReturned(actor="system", seat="seat:1"))
    assert [a.kind for a in out] == ["seat_returned"]
    assert projector.pit_state(c.state, 0).seats_away == []
