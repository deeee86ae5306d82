"""The halts that enter the table from outside it: the shoe's faults, a lost shoe, a restart.

Each says why in words, counts cards in the round's terms (the card due, not the shoe's own
record numbers) and names its actor: the shoe for the shoe's, the system for a restart.
Driven through the real service, journal and state machine; what a device writes is random.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import STANDARD_52, Card
from controller.events import CardDrawn, ChangeDeck, NoMoreBets, OpenTable, PlaceBet, StartRound
from controller.games import Seating
from controller.games.rules import Spot
from controller.table import Phase, TableState, fold, new_table
from drivers.shoe import events as shoe_events
from drivers.shoe.events import (
    Alarm,
    CorruptMessage,
    Disconnected,
    DuplicateCard,
    ReadFailed,
    Rebooted,
    SequenceGap,
    ShoeEvent,
    UnknownTag,
    must_halt,
)
from tablectl.runtime import TableRunner, config_from_header, header_record
from tablectl.service import Inbound, TableService
from tablectl.shoe_reasons import said, shoe_reason
from tests.controller.test_halt_reasons import NOT_WORDS, assert_words
from tests.support.publisher import Collected

T0 = 1_790_000_000.0
HEADER = header_record("H1", "casino-holdem", Seating.BOXES, ("box 1", "box 2", "box 3"))


def opening(cards: str) -> list[Any]:
    """Open, two boxes bet, betting closed, ``cards`` dealt (box 1, box 2, dealer, ...)."""
    events: list[Any] = [
        OpenTable(actor="pit:ann"),
        StartRound(actor="dealer"),
        ChangeDeck(actor="dealer", deck_id="D-1"),  # a new deck for each game (seed 003)
    ]
    for box, seat in (("box 1", "ann"), ("box 2", "bob")):
        events.append(PlaceBet(actor="dealer", hand=box, seat=seat, spot=Spot.ANTE,
                               amount=Fraction(10)))  # fmt: skip
    events.append(NoMoreBets(actor="dealer"))
    events += [CardDrawn(actor="shoe", card=Card.parse(c)) for c in cards.split()]
    return events


def dealing(cards: str = "AH QC 2H") -> TableState:
    config = config_from_header(HEADER, "test")
    return fold(new_table(config), [(e, T0 + i) for i, e in enumerate(opening(cards))])


#: what a device writes: any text, but one whose words (``said``: what a reason keeps of it)
#: read like a leak of the program's own (a device that writes "None" or "object at 0x1")
#: is quoted as written, which no check of the reason can tell from a leak
TEXT = st.text(max_size=80).filter(lambda text: NOT_WORDS.search(said(text)) is None)
HALTING: dict[type[ShoeEvent], st.SearchStrategy[ShoeEvent]] = {
    ReadFailed: st.builds(ReadFailed, TEXT, st.none() | st.integers(0, 10**6), st.none() | TEXT),
    Alarm: st.builds(Alarm, TEXT, TEXT, st.none() | st.integers(0, 10**6)),
    Rebooted: st.builds(Rebooted, TEXT, TEXT),
    SequenceGap: st.integers(1, 10**6).flatmap(
        lambda n: st.builds(SequenceGap, TEXT, st.just(n), st.integers(n + 1, n + 50))
    ),
    DuplicateCard: st.builds(
        DuplicateCard, st.sampled_from(STANDARD_52.cards), st.integers(1, 52), st.integers(1, 52)
    ),
    UnknownTag: st.builds(UnknownTag, TEXT),
    CorruptMessage: st.builds(CorruptMessage, TEXT, TEXT, st.just(False)),
    Disconnected: st.builds(Disconnected, TEXT, TEXT),
}


def test_every_kind_of_shoe_event_that_halts_has_its_words() -> None:
    kinds = [v for v in vars(shoe_events).values() if isinstance(v, type)]
    halting = {k for k in kinds if issubclass(k, ShoeEvent) and (k.halts or k is CorruptMessage)}
    assert halting == set(HALTING)


@settings(max_examples=300, deadline=None)
@given(st.one_of(*HALTING.values()), st.sampled_from(["AH", "AH QC 2H", "AH QC 2H JD 5H"]))
def test_a_shoe_fault_is_told_in_words_with_the_card_due(event: ShoeEvent, cards: str) -> None:
    assert must_halt(event)
    state = dealing(cards)
    reason = shoe_reason(event, state)
    assert_words(reason)
    n = len(cards.split())
    due = {1: "box 2's first card", 3: "box 1's second card", 5: "dealer's second card"}[n]
    assert reason.endswith(f"; card {n + 1} of the round ({due}) was due")
    assert "{" not in reason and '"' not in reason


def test_a_fault_the_shoe_gave_no_words_for_is_told_without_empty_brackets() -> None:
    state = dealing("AH")
    due = "; card 2 of the round (box 2's first card) was due"
    assert shoe_reason(ReadFailed(""), state) == (
        "a card passed the shoe's reader unread: find it on the layout" + due
    )
    assert shoe_reason(CorruptMessage("", "{}", False), state) == (
        "the shoe sent a damaged message that cannot be sent again: a card may have been lost" + due
    )
    # a field a driver left empty (None) is nothing said, never the word
    assert said(None) == "" and shoe_reason(ReadFailed(None), state).startswith(  # type: ignore[arg-type]
        "a card passed the shoe's reader unread: find"
    )
    # what a device writes is quoted as its words: a device that writes "None" says so
    assert "unread (None): find" in shoe_reason(ReadFailed("None"), state)


def test_a_fault_when_no_card_is_due_says_what_the_table_waited_for() -> None:
    state = dealing("AH QC 2H JD 5H QS 9C TD 3S")  # the flop is out: its decisions are due
    assert state.phase is Phase.DECIDING
    reason = shoe_reason(Alarm("E3", "Card Not Read"), state)
    assert reason == (
        "the shoe raised alarm E3 (Card Not Read); no card was due (deciding: waiting for "
        "decisions at flop)"
    )


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    runner = TableRunner.create(tmp_path / "h.journal", HEADER, T0)
    table = TableService(runner, Collected(), halts_on_shoe_loss=True)
    table.start()
    for event in opening("AH QC 2H"):
        table.submit(event)
    yield table
    table.stop()
    runner.close()


def halt_of(service: TableService) -> tuple[str, str]:
    service.sync()
    rnd = service.state.round
    assert service.state.phase is Phase.HALTED and rnd is not None
    halts = [e.record for e in service.runner.journal.entries() if e.record["kind"] == "halt"]
    assert halts[-1]["actor"] == rnd.halted_by  # journaled as the actor that caused it
    assert_words(rnd.halt_reason)
    return rnd.halted_by, rnd.halt_reason


def test_a_shoe_alarm_halts_as_the_shoe_in_the_rounds_terms(service: TableService) -> None:
    service.put(Inbound("shoe", item=Alarm("E3", "Card Not Read", record=41)))
    by, reason = halt_of(service)
    assert by == "shoe"
    assert reason == (
        "the shoe raised alarm E3 (Card Not Read); card 4 of the round (box 1's second card) "
        "was due"
    )
    state = service.projector.dealer_state(service.state, T0)
    assert state.halted_by == "shoe" and state.next.startswith("halted by the shoe: ")


def test_a_sequence_gap_counts_the_shoes_messages_not_the_rounds_cards(
    service: TableService,
) -> None:
    service.put(Inbound("shoe", item=SequenceGap("reader-1", expected=17, received=20)))
    by, reason = halt_of(service)
    assert by == "shoe"
    assert reason.startswith(
        "the shoe's 3 messages never arrived (numbered 17 to 19 by the shoe): a card may have "
        "been read and lost; card 4 of the round"
    )


def test_a_lost_shoe_halts_as_the_shoe(service: TableService) -> None:
    service.put(Inbound("shoe", item=Disconnected("/dev/ttyUSB0", "cable pulled")))
    assert halt_of(service)[0] == "shoe"


def test_a_restart_mid_round_halts_as_the_system(tmp_path: Path) -> None:
    runner = TableRunner.create(tmp_path / "r.journal", HEADER, T0)
    for i, event in enumerate(opening("AH")):
        runner.submit(event, T0 + i)
    table = TableService(runner, Collected())
    table.start()
    try:
        by, reason = halt_of(table)
        assert by == "system" and reason.startswith("the controller restarted mid-round")
    finally:
        table.stop()
        runner.close()
