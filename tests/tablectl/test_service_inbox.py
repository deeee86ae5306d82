"""The table's inbox: one input at a time, in order; a card offered to an idle table is
handled at once in the offering thread; a failure there stops the table as it would in
the table's own thread."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from controller.events import Action, CloseTable, Event, OpenTable, StartRound
from controller.games import Seating
from controller.table import Phase
from drivers.storage.sqlite_journal import JournalError
from tablectl.runtime import TableRunner, header_record
from tablectl.service import Inbound, TableService
from tests.controller.round_script import T0, header, rounds
from tests.support.publisher import Collected


def new_runner(tmp_path: Path) -> TableRunner:
    """A new journal of a two-box Ultimate Texas Hold'em table."""
    header = header_record("T1", "ultimate-texas-holdem", Seating.BOXES, ("box1", "box2"))
    return TableRunner.create(tmp_path / "t1.journal", header, 1_790_000_000.0)


@pytest.fixture
def service(tmp_path: Path) -> Any:
    runner = new_runner(tmp_path)
    table = TableService(runner, Collected())
    table.start()
    yield table
    table.stop()
    runner.close()


def handled_by(service: TableService) -> list[tuple[str, str]]:
    """Record (event kind, thread name) for every input the table applies."""
    seen: list[tuple[str, str]] = []

    def listener(event: Event, actions: list[Action]) -> None:
        seen.append((event.kind, threading.current_thread().name))

    service.listeners.append(listener)
    return seen


def hold(service: TableService, kind: str) -> tuple[threading.Event, threading.Event]:
    """Hold the table inside the input of ``kind``: (set once inside, set to let it go on)."""
    entered, release = threading.Event(), threading.Event()

    def slow(event: Event, actions: list[Action]) -> None:
        if event.kind == kind:
            entered.set()
            release.wait(5)

    service.listeners.insert(0, slow)
    return entered, release


def test_an_input_offered_to_an_idle_table_is_handled_before_offer_returns(
    service: TableService,
) -> None:
    seen = handled_by(service)
    assert service.offer(Inbound("event", item=OpenTable(actor="pit:ana"))) is True
    # applied, journaled and published already, in this thread, with no hand-over
    assert service.state.phase is Phase.IDLE
    assert seen == [("open_table", threading.current_thread().name)]
    assert [e.record["kind"] for e in service.runner.journal.entries()][-1] == "open_table"
    assert service.inline == 1


def test_an_input_offered_while_the_table_is_busy_waits_its_turn(service: TableService) -> None:
    seen = handled_by(service)
    entered, release = hold(service, "open_table")
    service.put(Inbound("event", item=OpenTable(actor="pit:ana")))
    assert entered.wait(5)
    # the table's thread is inside the first input: the offer is queued behind it
    assert service.offer(Inbound("event", item=StartRound(actor="dealer"))) is False
    service.put(Inbound("event", item=CloseTable(actor="pit:ana")))
    release.set()
    service.sync()
    assert [kind for kind, _ in seen] == ["open_table", "start_round", "close_table"]
    assert {thread for _, thread in seen} == {"table T1"}
    assert service.inline == 0


def test_an_offer_behind_queued_inputs_is_queued_too(service: TableService) -> None:
    """Something already waiting in the inbox goes first: the offer never jumps the queue,
    even when no input is being handled at that moment."""
    seen = handled_by(service)
    service.submit(OpenTable(actor="pit:ana"))
    with service._turn:  # an input queued that the idle table's thread has not taken yet
        service._inbox.append(Inbound("event", item=StartRound(actor="dealer")))
    assert service.offer(Inbound("event", item=CloseTable(actor="pit:ana"))) is False
    service.sync()
    assert [kind for kind, _ in seen] == ["open_table", "start_round", "close_table"]
    assert service.inline == 0


def test_a_failure_while_handling_inline_stops_the_table_with_its_reason(
    service: TableService,
) -> None:
    service.submit(OpenTable(actor="pit:ana"))
    rows = len(service.runner.journal)
    service.runner.journal._db.close()  # the disk went away under the journal
    with pytest.raises(JournalError, match="cannot write row"):
        service.offer(Inbound("event", item=StartRound(actor="dealer")))
    assert isinstance(service.error, JournalError)
    assert service.state.phase is Phase.IDLE  # not applied: it was never journaled
    assert len(service.runner.journal) == rows
    thread = service._thread
    assert thread is not None
    thread.join(5)
    assert not thread.is_alive()  # the table stopped, as `tablectl run` reports
    # later inputs are queued for a table that no longer runs, never handled inline
    assert service.offer(Inbound("event", item=CloseTable(actor="pit:ana"))) is False


def test_the_table_thread_still_keeps_the_round_deadlines(tmp_path: Path) -> None:
    """While it waits for inputs, the table's thread wakes for a deadline (betting ends)."""
    header = header_record(
        "T2", "ultimate-texas-holdem", Seating.BOXES, ("box1",), betting_seconds=0.3
    )
    runner = TableRunner.create(tmp_path / "t2.journal", header, 1_790_000_000.0)
    service = TableService(runner, Collected())
    service.start()
    try:
        seen = handled_by(service)
        ended = threading.Event()
        service.listeners.append(lambda event, actions: event.kind == "tick" and ended.set())
        service.offer(Inbound("event", item=OpenTable(actor="pit:ana")))
        service.offer(Inbound("event", item=StartRound(actor="dealer")))
        assert service.state.phase is Phase.BETTING
        assert ended.wait(5), "the betting deadline never came"
        assert ("tick", "table T2") in seen
    finally:
        service.stop()
        runner.close()


class Flushing(Collected):
    """A publisher that notes when it is asked to send what it has."""

    def flush(self, timeout: float) -> bool:
        self.messages.append(("(flushed)", b""))
        return True


def test_a_cards_public_event_is_flushed_before_anything_else_is_sent(tmp_path: Path) -> None:
    runner = TableRunner.create(tmp_path / "s1.journal", header(), T0)
    publisher = Flushing()
    service = TableService(runner, publisher)
    service.start()
    try:
        script = rounds(1)
        first_card = next(n for n, (event, _) in enumerate(script) if event.kind == "card_drawn")
        for event, _ in script[:first_card]:
            service.offer(Inbound("event", item=event))
        publisher.messages.clear()
        service.offer(Inbound("event", item=script[first_card][0]))
        topics = [topic for topic, _ in publisher.messages]
        assert topics[0] == service.topics.events  # the card's public event first
        assert b'"event":"card"' in publisher.messages[0][1]
        assert topics[1] == "(flushed)"  # sent on before the rest is built
        assert topics.count("(flushed)") == 1 and len(topics) > 3
    finally:
        service.stop()
        runner.close()


def test_stop_waits_for_an_input_handled_inline_and_refuses_new_ones(
    service: TableService,
) -> None:
    """Whoever stops the table may close its journal right after: nothing still writes."""
    entered, release = hold(service, "open_table")
    shoe = threading.Thread(
        target=service.offer, args=(Inbound("event", item=OpenTable(actor="pit:ana")),)
    )
    shoe.start()
    assert entered.wait(5)
    stopped = threading.Event()
    stopper = threading.Thread(target=lambda: (service.stop(), stopped.set()))
    stopper.start()
    assert not stopped.wait(0.3)  # still inside the inline input
    release.set()
    assert stopped.wait(5)
    shoe.join(5)
    assert service.offer(Inbound("event", item=StartRound(actor="dealer"))) is False
    assert service.state.phase is Phase.IDLE


def test_a_seats_presence_journals_its_disconnection_and_its_return(
    service: TableService,
) -> None:
    presence = f"{service.topics.base}/seat/3/presence"
    service.on_message(presence, b"online")  # a first connection is no return
    service.on_message(presence, b"offline")
    service.sync()
    assert service.state.away == ("seat:3",)
    service.on_message(presence, b"online")
    service.sync()
    assert service.state.away == ()
    kinds = [e.record["kind"] for e in service.runner.journal.entries()]
    assert [k for k in kinds if k.startswith("seat_")] == ["seat_disconnected", "seat_returned"]


class Clock:
    """A table's clock the test moves on."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def staff_states(published: Collected) -> list[dict[str, Any]]:
    """The dealer's and the pit's states published so far, in order."""
    return [
        json.loads(payload)
        for topic, payload in published.messages
        if topic.endswith(("dealer/state", "pit/state"))
    ]


@pytest.fixture
def counting(tmp_path: Path, request: Any) -> Any:
    """A started table on a clock the test moves on (:class:`Clock`), whose camera counts
    the frames in ``frames``, its hardware looked at again every ``request.param`` seconds
    (None: never): (the table, what it published, the clock, the frames)."""
    runner = new_runner(tmp_path)
    published, clock = Collected(), Clock(1_790_000_000.0)
    table = TableService(runner, published, clock=clock, hardware_every=request.param)
    frames = {"frames": 3}
    table.live["camera"] = lambda: dict(frames)
    table.start()
    yield table, published, clock, frames
    table.stop()
    runner.close()


def wake(table: TableService) -> None:
    """Have the table's thread look at its deadlines again (its wait is timed by the real
    clock, its deadlines by the table's): an input handled, it looks before waiting."""
    table.sync()


@pytest.mark.parametrize("counting", [0.05], indirect=True)
def test_the_hardware_figures_are_sent_again_between_inputs_only_where_they_changed(
    counting: Any,
) -> None:
    # the camera's frames counted as they come, with no input to make a state between rounds
    table, published, clock, frames = counting
    table.submit(OpenTable(actor="pit:ana"))
    before = len(staff_states(published))
    assert staff_states(published)[-1]["hardware"]["camera"]["frames"] == 3
    frames["frames"] = 40
    wake(table)
    time.sleep(0.3)  # the table's clock has not moved: the refresh is not due yet
    assert len(staff_states(published)) == before
    clock.now += 0.05
    wake(table)
    deadline = time.monotonic() + 5
    while len(staff_states(published)) < before + 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    again = staff_states(published)[before:]
    # the dealer's state, once, with the figures as they now are (the pit's console shows
    # no hardware panel and draws its page again on each state: not sent for these alone)
    assert [s["audience"] for s in again] == ["dealer"]
    assert again[0]["hardware"]["camera"]["frames"] == 40
    assert again[0]["phase"] == "idle"  # the table's own state, unchanged
    # unchanged figures are not sent again
    clock.now += 0.05
    wake(table)
    time.sleep(0.3)
    table.sync()
    assert len(staff_states(published)) == before + 1


@pytest.mark.parametrize("counting", [None], indirect=True)
def test_without_a_hardware_refresh_no_state_is_sent_between_inputs(counting: Any) -> None:
    table, published, clock, frames = counting
    table.submit(OpenTable(actor="pit:ana"))
    before = len(staff_states(published))
    frames["frames"] = 40
    clock.now += 60
    wake(table)
    time.sleep(0.2)
    table.sync()
    assert len(staff_states(published)) == before
