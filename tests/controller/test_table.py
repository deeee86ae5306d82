"""The dealer-console state machine: whole rounds, deal order, halts, refusals, timers, replay."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import pytest

from config.schema import load_game
from controller.cards import Card, parse_cards
from controller.events import (
    Action,
    CardDrawn,
    ChangeDeck,
    ClearBets,
    ConfirmPayment,
    Decide,
    Event,
    Halt,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    Resume,
    RevealDone,
    StartRound,
    Tick,
    UndoBet,
    VoidRound,
)
from controller.games import Seating
from controller.games.rules import Spot
from controller.table import Phase, TableConfig, TableState, can, fold, handle, new_table

T0 = 1_790_000_000.0


@dataclass
class Console:
    """Drives a table the way its devices would, keeping every event for replay checks."""

    state: TableState
    now: float = T0
    log: list[tuple[Event, float]] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    # a new deck for each round where the game deals each game from a new deck (seed 003)
    fresh_decks: bool = True

    def send(self, event: Event, after: float = 1.0) -> list[Action]:
        self.now += after
        self.log.append((event, self.now))
        self.state, out = handle(self.state, event, self.now)
        self.actions += out
        if self.fresh_decks and isinstance(event, StartRound) and self.state.deck_due:
            self.send(ChangeDeck(actor="pit:ann", deck_id=f"D-{self.state.rounds_started}"))
        return out

    def cards(self, codes: str) -> None:
        for card in parse_cards(codes):
            out = self.send(CardDrawn(actor="shoe", card=card))
            assert not any(a.kind in ("refused", "halted") for a in out), out

    def bet(self, hand: str, seat: str, spot: str, amount: int) -> list[Action]:
        actor = seat if seat.startswith("seat:") else "dealer"  # the dealer enters box bets
        return self.send(
            PlaceBet(actor=actor, hand=hand, seat=seat, spot=Spot(spot), amount=Fraction(amount))
        )

    def kinds(self, kind: str) -> list[dict[str, object]]:
        return [a.data for a in self.actions if a.kind == kind]


def studio(game: str = "ultimate-texas-holdem", **kw: object) -> Console:
    config = TableConfig(
        "S1", load_game(game), Seating.SHARED, ("player",),
        balances={"seat:1": Fraction(1000), "seat:2": Fraction(1000)}, **kw,  # type: ignore[arg-type]
    )  # fmt: skip
    console = Console(new_table(config))
    console.send(OpenTable(actor="pit:ann"))
    return console


def boxes(game: str = "triple-action-holdem", n: int = 3, **kw: object) -> Console:
    hands = tuple(f"box {i}" for i in range(1, n + 1))
    config = TableConfig("P1", load_game(game), Seating.BOXES, hands, **kw)  # type: ignore[arg-type]
    console = Console(new_table(config))
    console.send(OpenTable(actor="pit:ann"))
    return console


def test_a_studio_round_of_ultimate_with_two_seats() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    assert c.state.phase is Phase.BETTING and c.state.round is not None
    assert c.state.round.round_id == "S1-20260921T141322Z-000001"
    c.bet("player", "seat:1", "ante", 10)
    c.bet("player", "seat:2", "ante", 5)
    c.bet("player", "seat:2", "best_five", 5)
    assert c.state.balance("seat:2") == 985  # the ante brings an equal Ante Plus, paid in now
    c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING and c.state.next_due == "card to player (face up)"
    assert c.kinds("shoe_gate")[-1] == {"locked": False}
    c.cards("AH QC 2H JD")  # player, dealer, player, dealer
    assert c.state.phase is Phase.DECIDING
    c.send(Decide(actor="seat:1", hand="player", seat="seat:1", option="check"))
    c.send(Decide(actor="seat:2", hand="player", seat="seat:2", option="call_4x"))
    assert c.state.phase is Phase.DEALING  # seat 2 is done; the flop is due
    c.cards("5H 9H KH")
    assert c.state.phase is Phase.DECIDING  # only seat 1 owes the flop decision
    c.send(Decide(actor="seat:1", hand="player", seat="seat:1", option="check"))
    c.cards("3C 7D")
    c.send(Decide(actor="seat:1", hand="player", seat="seat:1", option="call_1x"))
    assert c.state.phase is Phase.REVEAL
    c.send(RevealDone(actor="dealer"))
    assert c.state.phase is Phase.IDLE and c.state.round is None
    settled = {d["seat"]: d for d in c.kinds("settled")}
    # flush against a dealer who does not qualify: ante pushed, call 1:1, Ante Plus 3:2;
    # seat 1 called 1x on 10: 10 + 15; seat 2 called 4x on 5: 20 + 7.5, and Best Five 7:1 on 5
    assert settled["seat:1"]["net"] == "25" and settled["seat:2"]["net"] == "62.5"
    assert c.state.balance("seat:1") == 1000 + 25 and c.state.balance("seat:2") == Fraction(2125, 2)
    assert c.kinds("round_ended")[-1]["outcome"] == "complete"


def test_money_is_exact_an_int_when_whole_a_fraction_when_not() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.bet("player", "seat:2", "ante", 5)
    assert c.state.round is not None
    stakes = {s.seat: s for s in c.state.round.stakes}
    assert stakes["seat:2"].bets == ((Spot.ANTE, 5),) and type(stakes["seat:2"].bets[0][1]) is int
    assert stakes["seat:2"].debited == 10 and type(stakes["seat:2"].debited) is int
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AH QC 2H JD")
    c.send(Decide(actor="seat:1", hand="player", seat="seat:1", option="call_3x"))
    c.send(Decide(actor="seat:2", hand="player", seat="seat:2", option="call_4x"))
    c.cards("5H 9H KH 3C 7D")
    c.send(RevealDone(actor="dealer"))  # a flush: the Ante Plus pays 3:2
    balances = dict(c.state.balances)
    assert balances == {"seat:1": 1000 + 45, "seat:2": Fraction(2055, 2)}
    assert type(balances["seat:1"]) is int and type(balances["seat:2"]) is Fraction
    plus = [ln for d in c.kinds("settled") for ln in d["lines"] if ln["spot"] == "ante_plus"]  # type: ignore[attr-defined]
    assert [(ln["stake"], ln["odds"], ln["paid"]) for ln in plus] == [
        ("10", "3:2", "15"),
        ("5", "3:2", "7.5"),
    ]


def test_state_records_stay_frozen_and_replaceable() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    state = c.state
    assert state.round is not None
    stake = state.round.stakes[0]
    for record, name in ((state, "phase"), (state.round, "cursor"), (stake, "debited")):
        with pytest.raises(AttributeError):
            setattr(record, name, None)
    again = replace(stake, decisions=("check",))
    assert again.decisions == ("check",) and again.bets == stake.bets and stake.decisions == ()
    assert replace(state, deck_id="D2").deck_id == "D2" and state.deck_id == ""
    assert state == replace(state) and hash(stake) == hash(replace(stake))


def test_deal_order_round_the_boxes_then_the_dealer_twice_then_the_board() -> None:
    c = boxes()
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    c.bet("box 3", "bob", "ante", 10)  # box 2 is empty and gets no cards
    c.send(NoMoreBets(actor="dealer"))
    order = []
    for card in parse_cards("AS KS QS JS TS 9S 8S AD KD"):
        assert c.state.round is not None and c.state.round.due is not None
        order.append(c.state.round.due.position)
        c.send(CardDrawn(actor="shoe", card=card))
    assert order == [
        "box 1",
        "box 3",
        "dealer",
        "box 1",
        "box 3",
        "dealer",
        "board",
        "board",
        "board",
    ]
    assert c.kinds("reveal")[-1] == {"what": "dealer_first", "cards": ["QS"]}
    assert c.state.phase is Phase.DECIDING


def test_a_card_when_none_is_due_halts_and_resume_continues() -> None:
    c = boxes()
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    before = c.state
    c.send(CardDrawn(actor="shoe", card=Card.parse("AS")))  # during betting
    assert c.state.phase is Phase.HALTED
    assert "card AS arrived while no card was due (betting" in c.kinds("halted")[-1]["reason"]
    assert c.state.round is not None and c.state.round.stray == (Card.parse("AS"),)
    for code in ("KS", "QS", "JS"):  # a shoe that keeps dealing: one short sentence each
        c.send(CardDrawn(actor="shoe", card=Card.parse(code)))
    assert c.state.round.halt_reason.endswith(
        "; card KS arrived while the table was halted; card QS arrived while the table was "
        "halted; card JS arrived while the table was halted"
    )
    assert len(c.state.round.halt_reason) < 300  # the reason never quotes itself
    assert [str(x) for x in c.state.round.stray] == ["AS", "KS", "QS", "JS"]
    refused = c.bet("box 2", "bob", "ante", 10)
    assert (
        refused[-1].kind == "refused"
        and "can't place a bet while the table is halted" in refused[-1].data["reason"]
    )
    c.send(Resume(actor="pit:ann", note="card returned to the discard"))
    assert c.state.phase is Phase.BETTING and c.state.round.stakes == before.round.stakes  # type: ignore[union-attr]


def test_a_card_dealt_twice_halts() -> None:
    c = boxes()
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AS")
    c.send(CardDrawn(actor="shoe", card=Card.parse("AS")))
    assert c.state.phase is Phase.HALTED and "already dealt" in c.kinds("halted")[-1]["reason"]


def test_refused_commands_change_nothing_and_say_what_and_why() -> None:
    c = boxes()
    cases = [
        (
            Decide(actor="dealer", hand="box 1", seat="ann", option="bet"),
            "can't take a decision while the table is idle",
        ),
        (NoMoreBets(actor="dealer"), "can't close betting while the table is idle"),
        (RevealDone(actor="dealer"), "can't reveal while the table is idle"),
    ]  # fmt: skip
    for event, message in cases:
        before = c.state
        out = c.send(event)
        assert out == [out[0]] and out[0].kind == "refused" and message in out[0].data["reason"]
        assert c.state == before
        assert not can(c.state, event, c.now)
    c.send(StartRound(actor="dealer"))
    for bet, message in [
        (("box 9", "ann", "ante", 10), "expected a hand of this table (box 1, box 2, box 3)"),
        (("box 1", "ann", "bonus", 5), "without an ante"),
        (("box 1", "ann", "bet", 5), "can't bet on bet before the deal"),
        (("box 1", "ann", "ante", 501), "expected at most the table maximum 500"),
    ]:
        before = c.state
        out = c.bet(*bet)
        assert out[-1].kind == "refused" and message in out[-1].data["reason"] and c.state == before
    c.bet("box 1", "ann", "ante", 10)
    out = c.bet("box 1", "bob", "ante", 10)
    assert "the box belongs to ann" in out[-1].data["reason"]


def test_undo_and_clear_return_money_last_bet_first() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.bet("player", "seat:1", "best_five", 4)
    c.bet("player", "seat:1", "ante", 5)
    c.send(UndoBet(actor="seat:1", hand="player", seat="seat:1"))
    assert c.state.round is not None and c.state.round.stake("player", "seat:1").totals() == {  # type: ignore[union-attr]
        Spot.ANTE: 10, Spot.BEST_FIVE: 4,
    }  # fmt: skip
    out = c.send(UndoBet(actor="seat:1", hand="player", seat="seat:1"))
    assert out[-1].kind == "bets_taken_back"
    c.send(ClearBets(actor="seat:1", hand="player", seat="seat:1"))
    assert c.state.balance("seat:1") == 1000 and c.state.round.stakes == ()  # type: ignore[union-attr]
    out = c.send(UndoBet(actor="seat:1", hand="player", seat="seat:1"))
    assert out[-1].kind == "refused" and "no bet to take back" in out[-1].data["reason"]


def test_no_credit_a_bet_above_the_balance_is_refused() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    out = c.bet("player", "seat:1", "ante", 1001)  # seed 002: cut to fill the spot to 1000
    reason = out[-1].data["reason"]
    assert "the balance is 1000 (no credit) (asked 1001, cut to fill the spot" in reason
    # an Ultimate ante brings an equal Ante Plus: 501 would cost 1002 of the 1000
    out = c.bet("player", "seat:1", "ante", 501)
    assert (
        "(with the bets it brings, 1002): the balance is 1000 (no credit)" in out[-1].data["reason"]
    )
    c.bet("player", "seat:1", "ante", 499)
    out = c.bet("player", "seat:1", "best_five", 3)
    assert "the balance is 2 (no credit)" in out[-1].data["reason"]
    c.send(NoMoreBets(actor="dealer"))
    assert c.state.balance("seat:1") == 2  # the Ante Plus was covered, never credit


def test_timers_close_betting_and_decide_for_the_idle() -> None:
    c = studio(betting_seconds=15.0, decision_seconds=10.0)
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    out = c.send(Tick(actor="timer"), after=20)
    assert (
        c.state.phase is Phase.DEALING
        and out[0].kind == "no_more_bets"
        and out[0].data["by"] == "timer"
    )
    late = c.bet("player", "seat:2", "ante", 10)
    assert late[-1].kind == "refused"  # a bet after no more bets is void
    c.cards("AH QC 2H JD")
    c.send(Tick(actor="timer"), after=11)  # auto check
    c.cards("5H 9H KH")
    c.send(Tick(actor="timer"), after=11)  # auto check
    c.cards("3C 7D")
    c.send(Tick(actor="timer"), after=11)  # auto fold at the river
    decisions = [(d["option"], d["automatic"]) for d in c.kinds("decision")]
    assert decisions == [("check", True), ("check", True), ("fold", True)]
    c.send(RevealDone(actor="dealer"))
    assert c.kinds("settled")[-1]["net"] == "-20"  # ante and Ante Plus lost


def test_void_returns_every_bet_the_round_took() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.bet("player", "seat:1", "best_five", 5)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AH QC")
    c.send(Halt(actor="dealer", reason="shoe jammed"))
    c.send(VoidRound(actor="pit:ann", reason="shoe could not be cleared"))
    ended = c.kinds("round_ended")[-1]
    assert ended["outcome"] == "void" and ended["refunds"] == [
        {"hand": "player", "seat": "seat:1", "status": "returned", "returned": "25"}
    ]
    assert c.state.phase is Phase.IDLE and c.state.balance("seat:1") == 1000


def test_physical_table_waits_for_payments_and_flags_short_and_over() -> None:
    c = boxes(confirm_payments=True)
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    c.bet("box 2", "bob", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    # box 1 KS KD, box 2 8C 9D, dealer 9S 8H; board 9C TH JD: dealer pair of nines qualifies
    c.cards("KS 8C 9S KD 9D 8H 9C TH JD")
    c.send(Decide(actor="dealer", hand="box 1", seat="ann", option="bet"))
    c.send(Decide(actor="dealer", hand="box 2", seat="bob", option="fold"))
    c.send(RevealDone(actor="dealer"))
    assert c.state.phase is Phase.SETTLING
    out = c.send(ConfirmPayment(actor="dealer", hand="box 1", seat="ann", paid=Fraction(30)))
    assert "short payment on box 1 (ann): paid 30, owed 40: pay 10 more" in out[0].data["message"]
    assert c.state.phase is Phase.SETTLING
    out = c.send(ConfirmPayment(actor="dealer", hand="box 1", seat="ann", paid=Fraction(45)))
    assert out[0].data["audience"] == "pit" and "5 too much" in out[0].data["message"]
    assert c.state.phase is Phase.IDLE  # box 2 folded: nothing to pay there


def test_replaying_the_events_rebuilds_the_identical_state_and_actions() -> None:
    c = studio(decision_seconds=10.0)
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AH QC 2H JD")
    c.send(Decide(actor="seat:1", hand="player", seat="seat:1", option="check"))
    c.cards("5H 9H KH")
    c.send(Tick(actor="timer"), after=30)  # the flop decision times out: auto check
    c.cards("3C")
    replayed = fold(new_table(c.state.config), c.log)
    assert replayed == c.state
    again = Console(new_table(c.state.config))
    for event, now in c.log:
        again.now = now - 1.0
        again.send(event)
    assert again.actions == c.actions


@pytest.mark.parametrize("game", ["texas-holdem-bonus", "texas-poker", "casino-holdem"])
def test_whole_rounds_of_the_other_games(game: str) -> None:
    c = boxes(game, n=2) if game == "texas-poker" else studio(game)
    hand, seat = ("box 1", "ann") if game == "texas-poker" else ("player", "seat:1")
    c.send(StartRound(actor="dealer"))
    ante = 100 if game == "texas-poker" else 10
    c.bet(hand, seat, "ante", ante)
    c.send(NoMoreBets(actor="dealer"))
    guard = 0
    deck = iter(parse_cards("AS KD 2C 3D 7H 9S 4C 5H JD"))
    while c.state.phase is not Phase.IDLE and guard < 30:
        guard += 1
        if c.state.phase is Phase.DEALING:
            c.send(CardDrawn(actor="shoe", card=next(deck)))
        elif c.state.phase is Phase.DECIDING:
            point = c.state.round.due.point  # type: ignore[union-attr]
            option = point.options[0].name  # type: ignore[union-attr]
            actor = seat if seat.startswith("seat:") else "dealer"
            c.send(Decide(actor=actor, hand=hand, seat=seat, option=option))
        elif c.state.phase is Phase.REVEAL:
            c.send(RevealDone(actor="dealer"))
        else:
            raise AssertionError(c.state.phase)
    assert c.state.phase is Phase.IDLE and len(c.kinds("settled")) == 1
