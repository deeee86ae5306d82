"""Random valid and invalid commands against the table, with its invariants checked after each.

- no card is in two places;
- money is conserved: balances, plus what is on the layout, plus the house's result of the
  rounds settled, always equal what the seats started with;
- a refused command changes nothing;
- replaying the commands from scratch rebuilds the identical state.
"""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from config.schema import load_game
from controller.cards import STANDARD_52, Card
from controller.events import (
    CardDrawn,
    ClearBets,
    Decide,
    Double,
    Event,
    Halt,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    Rebet,
    Redeal,
    Resume,
    RevealDone,
    SeatDisconnected,
    StartRound,
    Tick,
    UndoBet,
    VoidRound,
)
from controller.games import Seating
from controller.games.rules import Spot
from controller.table import Phase, TableConfig, TableState, fold, handle, new_table

SEATS = ("seat:1", "seat:2", "seat:3")
START = Fraction(500)
CONFIG = TableConfig(
    "H1", load_game("ultimate-texas-holdem"), Seating.SHARED, ("player",),
    decision_seconds=20.0, balances=dict.fromkeys(SEATS, START),
)  # fmt: skip
OPTIONS = ("check", "call_4x", "call_3x", "call_2x", "call_1x", "fold", "bet", "nonsense")
ACTORS = ("dealer", "pit:ann", "seat:1", "seat:2", "shoe", "system")


class TableMachine(RuleBasedStateMachine):
    """Drives one studio table with random commands from every kind of sender."""

    def __init__(self) -> None:
        super().__init__()
        self.state: TableState = new_table(CONFIG)
        self.now = 1_790_000_000.0
        self.log: list[tuple[Event, float]] = []
        self.house = Fraction(0)  # the house's result of the rounds settled so far
        self.send(OpenTable(actor="pit:ann"))

    def send(self, event: Event, after: float = 1.0) -> None:
        self.now += after
        before = self.state
        self.log.append((event, self.now))
        self.state, actions = handle(self.state, event, self.now)
        refused = [a for a in actions if a.kind == "refused"]
        if refused and len(actions) == 1:
            assert self.state == before, "a refused command changed the table"
        for action in actions:
            if action.kind == "settled":
                self.house += Fraction(action.data["staked"]) - Fraction(action.data["returned"])

    @rule()
    def start(self) -> None:
        self.send(StartRound(actor="dealer"))

    @rule(seat=st.sampled_from(SEATS), spot=st.sampled_from([Spot.ANTE, Spot.BEST_FIVE, Spot.CALL]),
          amount=st.integers(-5, 700), actor=st.sampled_from(ACTORS))  # fmt: skip
    def bet(self, seat: str, spot: Spot, amount: int, actor: str) -> None:
        self.send(
            PlaceBet(actor=actor, hand="player", seat=seat, spot=spot, amount=Fraction(amount))
        )

    @rule(seat=st.sampled_from(SEATS), kind=st.sampled_from([UndoBet, ClearBets, Rebet, Double]))
    def take_back_or_repeat(self, seat: str, kind: type[UndoBet]) -> None:
        self.send(kind(actor=seat, hand="player", seat=seat))

    @rule(actor=st.sampled_from(ACTORS))
    def no_more_bets(self, actor: str) -> None:
        self.send(NoMoreBets(actor=actor))

    @rule(card=st.sampled_from(STANDARD_52.cards))
    def card(self, card: Card) -> None:
        self.send(CardDrawn(actor="shoe", card=card))

    @rule()
    def next_card(self) -> None:  # the card the shoe would most likely give: one not yet used
        rnd = self.state.round
        used = {c for _, c, _ in rnd.cards} | set(rnd.stray) if rnd else set()
        card = next(c for c in STANDARD_52.cards if c not in used)
        self.send(CardDrawn(actor="shoe", card=card))

    @rule(seat=st.sampled_from(SEATS), option=st.sampled_from(OPTIONS))
    def decide(self, seat: str, option: str) -> None:
        self.send(Decide(actor=seat, hand="player", seat=seat, option=option))

    @rule(rnd=st.randoms(use_true_random=False))
    def play_on(self, rnd: random.Random) -> None:
        """Carry the round forward with valid moves until it ends (or 40 moves)."""
        game = CONFIG.game
        for _ in range(40):
            state = self.state
            if state.phase is Phase.IDLE:
                return
            if state.phase is Phase.BETTING:
                assert state.round is not None
                if not state.round.stakes:
                    seat = rnd.choice(SEATS)
                    self.send(PlaceBet(actor=seat, hand="player", seat=seat, spot=Spot.ANTE,
                                       amount=Fraction(rnd.randint(1, 20))))  # fmt: skip
                self.send(NoMoreBets(actor="dealer"))
            elif state.phase is Phase.DEALING:
                self.next_card()
            elif state.phase is Phase.DECIDING:
                assert state.round is not None and state.round.due is not None
                point = state.round.due.point
                assert point is not None
                stake = next(
                    s for s in state.round.stakes
                    if (w := game.walk(s.totals(), s.decisions)).pending is not None
                    and w.pending.name == point.name
                )  # fmt: skip
                option = rnd.choice(point.options).name
                self.send(Decide(actor=stake.seat, hand="player", seat=stake.seat, option=option))
            elif state.phase is Phase.REVEAL:
                self.send(RevealDone(actor="dealer"))
            elif state.phase is Phase.HALTED:
                self.send(Resume(actor="pit:ann"))
            else:
                return

    @rule()
    def reveal(self) -> None:
        self.send(RevealDone(actor="dealer"))

    @rule(wait=st.floats(0, 40))
    def tick(self, wait: float) -> None:
        self.send(Tick(actor="timer"), after=wait)

    @rule(which=st.sampled_from(["halt", "resume", "void", "redeal", "disconnect"]))
    def trouble(self, which: str) -> None:
        event: Event = {
            "halt": Halt(actor="dealer", reason="check"),
            "resume": Resume(actor="pit:ann"),
            "void": VoidRound(actor="pit:ann", reason="test"),
            "redeal": Redeal(actor="dealer", reason="test"),
            "disconnect": SeatDisconnected(actor="system", seat="seat:2"),
        }[which]
        self.send(event)

    @invariant()
    def no_card_in_two_places(self) -> None:
        rnd = self.state.round
        if rnd is not None:
            cards = [c for _, c, _ in rnd.cards]
            assert len(cards) == len(set(cards))
            assert not set(cards) & set(rnd.stray)

    @invariant()
    def money_is_conserved(self) -> None:
        balances = sum((b for _, b in self.state.balances), Fraction(0))
        on_layout = (
            sum((s.debited for s in self.state.round.stakes), Fraction(0))
            if self.state.round
            else 0
        )
        assert balances + on_layout + self.house == START * len(SEATS)
        assert all(b >= 0 for _, b in self.state.balances), "a seat went into credit"

    @invariant()
    def replay_rebuilds_the_state(self) -> None:
        assert fold(new_table(CONFIG), self.log) == self.state


TestTable = TableMachine.TestCase
TestTable.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
