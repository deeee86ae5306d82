"""A seat's betting buttons are the table's own answer: each is enabled in the seat's state
exactly when the table would accept the command now, for every game, at every step of a round.

Each step is checked against the table itself: every betting command of every seat on every
hand of the table is handed to the state machine, and the seat's ``can`` and ``can_hands``
must name exactly those it accepted (a hand the seat has no bets on included: it must be
refused there). The steps go through two rounds, so that Rebet and Double have a last round.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from controller.events import (
    ClearBets,
    Decide,
    Double,
    Event,
    NoMoreBets,
    Rebet,
    SeatDeal,
    StartRound,
    UndoBet,
    VoidRound,
)
from controller.table import Phase, handle
from controller.topics import Topics
from controller.views import Projector
from tests.controller.test_table import Console, boxes, studio

SEATS = ("seat:1", "seat:2")
HAND_COMMANDS: dict[str, Callable[[str, str], Event]] = {
    "rebet": lambda hand, seat: Rebet(actor=seat, hand=hand, seat=seat),
    "double": lambda hand, seat: Double(actor=seat, hand=hand, seat=seat),
    "undo_bet": lambda hand, seat: UndoBet(actor=seat, hand=hand, seat=seat),
    "clear_bets": lambda hand, seat: ClearBets(actor=seat, hand=hand, seat=seat),
}


def accepted(c: Console, event: Event) -> bool:
    _, actions = handle(c.state, event, c.now)
    return not any(a.kind == "refused" for a in actions)


def check(c: Console) -> dict[str, list[str]]:
    """Every seat's buttons against the table's answers; the seats' ``can`` lists."""
    projector = Projector(Topics(c.state.config.table_id))
    out = {}
    for seat in SEATS:
        view = projector.seat_state(c.state, seat, c.now)
        by_hand = {
            hand: [name for name, make in HAND_COMMANDS.items() if accepted(c, make(hand, seat))]
            for hand in c.state.config.hands
        }
        assert view.can_hands == {h: names for h, names in by_hand.items() if names}, seat
        deal = ["deal"] if accepted(c, SeatDeal(actor=seat, seat=seat)) else []
        names = [n for n in HAND_COMMANDS if any(n in got for got in by_hand.values())]
        assert view.can == deal + names, seat
        out[seat] = view.can
    return out


def steps(c: Console, hand: str) -> list[dict[str, list[str]]]:
    """Two rounds of bets and buttons, checked at every step; each step's ``can`` lists."""
    seen = [check(c)]

    def do(event: Event) -> None:
        c.send(event)
        seen.append(check(c))

    do(StartRound(actor="dealer"))
    c.bet(hand, "seat:1", "ante", 10)
    seen.append(check(c))
    do(Double(actor="seat:1", hand=hand, seat="seat:1"))
    do(UndoBet(actor="seat:1", hand=hand, seat="seat:1"))
    c.bet(hand, "seat:1", "ante", 10)
    do(VoidRound(actor="pit:ann", reason="demo"))  # the bets stand as last round's
    do(StartRound(actor="dealer"))
    do(Rebet(actor="seat:1", hand=hand, seat="seat:1"))
    if c.state.phase is Phase.BETTING:
        do(Double(actor="seat:1", hand=hand, seat="seat:1"))
        c.bet(hand, "seat:2", "ante", 10)
        seen.append(check(c))
        do(ClearBets(actor="seat:2", hand=hand, seat="seat:2"))
        c.bet(hand, "seat:2", "ante", 10)
        do(SeatDeal(actor="seat:2", seat="seat:2"))
        do(NoMoreBets(actor="dealer"))
    assert c.state.phase is not Phase.BETTING
    seen.append(check(c))
    return seen


@pytest.mark.parametrize(
    "game", ["texas-holdem-bonus", "ultimate-texas-holdem", "casino-holdem", "triple-action-holdem"]
)
def test_a_studio_seats_buttons_are_enabled_exactly_when_the_table_accepts_them(
    game: str,
) -> None:
    seen = steps(studio(game), "player")
    assert seen[0] == {"seat:1": [], "seat:2": []}  # no round: no betting button
    assert seen[-1] == {"seat:1": [], "seat:2": []}  # betting closed
    assert any("rebet" in s["seat:1"] for s in seen)  # every button was enabled at some step
    assert any("double" in s["seat:1"] for s in seen)
    assert any("clear_bets" in s["seat:1"] for s in seen)


def test_a_box_tables_seat_buttons_follow_the_table_on_every_box() -> None:
    seen = steps(boxes("texas-poker"), "box 2")
    assert all(s == {"seat:1": [], "seat:2": []} for s in (seen[0], seen[-1]))


def test_seed_000_deal_after_the_ante_and_seed_002_double_once() -> None:
    c = studio("texas-holdem-bonus")
    c.send(StartRound(actor="dealer"))
    assert check(c)["seat:1"] == []  # nothing to deal, repeat or clear yet
    c.bet("player", "seat:1", "ante", 10)
    # Double Bet doubles the last round's ante: none yet
    assert check(c)["seat:1"] == ["deal", "undo_bet", "clear_bets"]
    c = studio("ultimate-texas-holdem")
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    assert "double" in check(c)["seat:1"]
    c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
    c.send(UndoBet(actor="seat:1", hand="player", seat="seat:1"))
    assert "double" not in check(c)["seat:1"]  # one Double a round, an Undo gives no second


def test_the_buttons_are_asked_during_betting_only() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AH QC 2H JD")
    assert c.state.phase is Phase.DECIDING
    view = Projector(Topics("S1")).seat_state(c.state, "seat:1", c.now)
    assert view.can == [] and view.can_hands == {}
    assert view.stakes[0].options  # its decisions are offered as options, not as buttons
    c.send(Decide(actor="seat:1", hand="player", seat="seat:1", option="check"))
