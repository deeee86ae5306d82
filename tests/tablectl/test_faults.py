"""An input whose handling raises never stops the table: it is journaled as a fault, refused
to its sender, alerted to the pit, and the table goes on (a card halts it: the felt holds a
card the table does not). A restart replays the same failure and the same fault to the same
table. Only a journal that cannot be written stops the table.

The failure is made by replacing one of the state machine's handlers with one that raises,
as a bug in it would; everything else (journal file, service, replay) is the real thing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller import table as table_module
from controller.events import CardDrawn, Decide, Event, Fault, PlaceBet, StartRound, event_to_json
from controller.table import Phase
from tablectl.runtime import TableRunner, rebuild, replay
from tablectl.service import Inbound, TableService
from tests.controller.round_script import T0, header, rounds
from tests.support.publisher import Collected


def explode(state: Any, event: Event, now: float) -> Any:
    raise RuntimeError(f"a bug while handling {event.kind}")


@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Make the handler of one event class raise (for as long as the test runs)."""

    def breaking(cls: type[Event]) -> None:
        monkeypatch.setitem(table_module._HANDLERS, cls, explode)

    yield breaking


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[TableService, Collected]]:
    """A table service on a new journal, started, with the messages it publishes."""
    runner = TableRunner.create(tmp_path / "t.journal", header(), T0)
    published = Collected()
    service = TableService(runner, published)
    service.start()
    yield service, published
    service.stop()
    runner.close()


def journal_kinds(runner: TableRunner) -> list[str]:
    return [str(entry.record.get("kind")) for entry in runner.journal.entries()]


def a_table_in_play(path: Path, applied: int = 2) -> tuple[TableRunner, list[tuple[Event, float]]]:
    """A new journal at ``path`` whose table applied the first ``applied`` inputs of a round
    (opened, and a round started), and the whole round's inputs."""
    runner = TableRunner.create(path, header(), T0)
    events = rounds(1)
    for event, at in events[:applied]:
        runner.submit(event, at)
    return runner, events


def test_a_failing_command_is_refused_journaled_as_a_fault_and_the_table_goes_on(
    tmp_path: Path, broken: Any
) -> None:
    runner, events = a_table_in_play(tmp_path / "t.journal")
    broken(PlaceBet)
    bet, at = events[2]
    actions = runner.submit(bet, at)
    refused = [a.data for a in actions if a.kind == "refused"]
    assert refused and refused[0]["command"] == "place_bet" and refused[0]["actor"] == "seat:1"
    assert "RuntimeError: a bug while handling place_bet" in refused[0]["reason"]
    alerts = [a.data for a in actions if a.kind == "alert"]
    assert alerts[0]["audience"] == "pit" and alerts[0]["message"].startswith("fault: ")
    assert runner.state.phase is Phase.BETTING  # nothing of the bet, and no halt
    assert not runner.state.round.stakes  # type: ignore[union-attr]
    assert journal_kinds(runner)[-2:] == ["place_bet", "fault"]
    # the table goes on: the same bet once the handler works again is applied
    table_module._HANDLERS[PlaceBet] = table_module._bet
    runner.submit(bet, at + 1)
    assert runner.state.round.stakes  # type: ignore[union-attr]
    runner.close()


def test_a_failing_card_halts_the_table_and_a_restart_rebuilds_the_same_table(
    tmp_path: Path, broken: Any
) -> None:
    path = tmp_path / "t.journal"
    runner = TableRunner.create(path, header(), T0)
    events = rounds(1)
    first_card = next(i for i, (e, _) in enumerate(events) if isinstance(e, CardDrawn))
    for event, at in events[:first_card]:
        runner.submit(event, at)
    broken(CardDrawn)
    card, at = events[first_card]
    runner.submit(card, at)
    assert runner.state.phase is Phase.HALTED
    assert "could not apply a card from the shoe" in runner.state.round.halt_reason  # type: ignore[union-attr]
    assert runner.state.round.halted_by == "system"  # type: ignore[union-attr]
    live = runner.state
    runner.close()
    # the handler is still broken: the replay meets the same failure, then its fault row
    again = TableRunner.recover(path)
    assert again.state == live
    steps = list(replay(again.journal))
    assert steps[-2].event.kind == "card_drawn" and steps[-2].actions == []
    assert isinstance(steps[-1].event, Fault) and steps[-1].state == live
    again.close()


def test_a_release_that_applies_a_failed_input_still_rebuilds_what_the_table_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.journal"
    runner, events = a_table_in_play(path)
    monkeypatch.setitem(table_module._HANDLERS, PlaceBet, explode)
    runner.submit(*events[2])
    live = runner.state
    runner.close()
    monkeypatch.setitem(table_module._HANDLERS, PlaceBet, table_module._bet)  # "fixed"
    seen: list[tuple[Any, Any]] = []
    again = TableRunner.recover(
        path, observe=lambda before, after, actions: seen.append((before, after))
    )
    assert again.state == live  # the bet the live table refused is not applied now either
    assert seen[-1][1] == live
    again.close()


def test_a_replay_that_fails_where_the_table_did_not_stops_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.journal"
    runner, _ = a_table_in_play(path, applied=4)
    runner.close()
    monkeypatch.setitem(table_module._HANDLERS, PlaceBet, explode)
    with pytest.raises(Exception, match=r"cannot be applied .* not its fault"):
        TableRunner.recover(path)


def test_a_table_stopped_between_a_failed_input_and_its_fault_records_the_fault_on_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.journal"
    runner, events = a_table_in_play(path)
    runner.journal.append(event_to_json(events[2][0]), events[2][1])  # journaled, then the crash
    runner.close()
    monkeypatch.setitem(table_module._HANDLERS, PlaceBet, explode)
    again = TableRunner.recover(path)
    assert journal_kinds(again)[-2:] == ["place_bet", "fault"]
    assert again.state.phase is Phase.BETTING
    assert rebuild(again.journal) == again.state
    again.close()


def test_the_service_tells_the_sender_and_the_pit_and_handles_the_next_input(
    running: tuple[TableService, Collected], broken: Any
) -> None:
    service, published = running
    for event, _ in rounds(1)[:2]:
        service.submit(event)
    broken(Decide)
    service.put(Inbound("command", topic="tablectl/S1/seat/1/cmd", payload=json.dumps(
        {"v": 1, "id": "c9", "command": "decide", "hand": "player", "option": "check"}
    ).encode()))  # fmt: skip
    service.sync()
    replies = [json.loads(t) for t in published.texts("reply")]
    assert replies and replies[-1]["ok"] is False and "RuntimeError" in replies[-1]["reason"]
    assert any("fault: the table could not apply a decide" in t for t in published.texts("alert"))
    # the next input is handled as usual
    assert service.submit(StartRound(actor="dealer"))  # refused (a round is in play), answered
    assert service.error is None and service._thread is not None
    assert service._thread.is_alive()


def test_a_failure_outside_the_state_machine_is_alerted_and_the_table_goes_on(
    running: tuple[TableService, Collected], monkeypatch: pytest.MonkeyPatch
) -> None:
    service, published = running

    def broken_states(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a view could not be built")

    monkeypatch.setattr(service.projector, "states", broken_states)
    service.put(Inbound("rebirth"))
    service.sync()
    assert service.faults == 1
    assert any("a rebirth input failed (ValueError" in t for t in published.texts("alert"))
    # a command whose handling fails there is still answered
    service.put(Inbound("command", topic="tablectl/S1/pit/cmd", payload=json.dumps(
        {"v": 1, "id": "p1", "command": "open_table", "by": "ann"}
    ).encode()))  # fmt: skip
    service.sync()
    reply = json.loads(published.texts("pit/reply")[-1])
    assert reply["id"] == "p1" and reply["ok"] is True  # applied: only its views failed
    assert "applied; the table failed afterwards (ValueError: a view" in reply["reason"]
    assert service.faults == 2 and service.state.phase is Phase.IDLE
    monkeypatch.undo()
    service.submit(rounds(1)[1][0])  # a round starts: the table goes on
    assert service.state.phase is Phase.BETTING
