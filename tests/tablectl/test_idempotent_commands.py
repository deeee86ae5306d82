"""Commands are idempotent by id: a command sent again with the same id gets its first answer
and is not applied again, before and after a restart; the same id with another command is
refused. The journal file, the service and the replay are the real ones."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import table as table_module
from controller.events import Event, OpenTable, PlaceBet, Resume, StartRound, event_to_json
from controller.games.rules import Spot
from controller.journal import ID_FIELD, record_text, split_id
from controller.table import Phase
from tablectl.answers import FAILED, Answer, Answers
from tablectl.runtime import TableRunner, replay
from tablectl.service import Inbound, TableService
from tests.controller.round_script import T0, header
from tests.support.publisher import Collected

SEAT1 = "tablectl/S1/seat/1"


def bet(command_id: str, amount: str = "10", **extra: Any) -> bytes:
    doc = {"v": 1, "id": command_id, "command": "place_bet", "hand": "player", "spot": "ante"}
    return json.dumps({**doc, "amount": amount, **extra}).encode()


def replies(published: Collected, topic: str) -> list[dict[str, Any]]:
    return [json.loads(p) for t, p in published.messages if t == f"{topic}/reply"]


def stakes(service: TableService) -> list[tuple[str, str, str]]:
    rnd = service.state.round
    assert rnd is not None
    return [(s.seat, spot.value, str(amount)) for s in rnd.stakes for spot, amount in s.bets]


def rows_with_id(runner: TableRunner, command_id: str) -> int:
    return sum(e.record.get(ID_FIELD) == command_id for e in runner.journal.entries())


def command(service: TableService, topic: str, payload: bytes) -> None:
    service.put(Inbound("command", topic=f"{topic}/cmd", payload=payload))
    service.sync()


@pytest.fixture
def betting(tmp_path: Path) -> Iterator[tuple[TableService, Collected, Path]]:
    """A started table in its betting phase, its messages, and its journal's path."""
    path = tmp_path / "t.journal"
    runner = TableRunner.create(path, header(), T0)
    published = Collected()
    service = TableService(runner, published, clock=lambda: T0 + 2)
    service.start()
    service.submit(OpenTable(actor="pit:ann"))
    service.submit(StartRound(actor="dealer"))
    yield service, published, path
    service.stop()
    runner.close()


def test_a_bet_sent_again_with_its_id_gets_the_first_answer_and_is_not_placed_again(
    betting: tuple[TableService, Collected, Path],
) -> None:
    service, published, _ = betting
    command(service, SEAT1, bet("b-1"))
    before = (stakes(service), len(service.runner.journal))
    command(service, SEAT1, bet("b-1"))
    command(service, SEAT1, bet("b-1"))
    assert (stakes(service), len(service.runner.journal)) == before
    assert stakes(service) == [("seat:1", "ante", "10")]
    first, *again = replies(published, SEAT1)
    assert first["ok"] and not first["repeated"]
    assert [(r["id"], r["ok"], r["repeated"], r["command"]) for r in again] == [
        ("b-1", True, True, "place_bet")
    ] * 2
    assert rows_with_id(service.runner, "b-1") == 1


def test_the_same_id_with_another_command_is_refused_and_changes_nothing(
    betting: tuple[TableService, Collected, Path],
) -> None:
    service, published, _ = betting
    command(service, SEAT1, bet("b-1"))
    before = (stakes(service), len(service.runner.journal))
    command(service, SEAT1, bet("b-1", amount="20"))
    assert (stakes(service), len(service.runner.journal)) == before
    reply = replies(published, SEAT1)[-1]
    assert not reply["ok"] and not reply["repeated"]
    assert "expected a new id for a new command" in reply["reason"]
    assert "'b-1' was already used for place_bet (applied)" in reply["reason"]


def test_an_id_is_its_senders_own(betting: tuple[TableService, Collected, Path]) -> None:
    service, _, _ = betting
    command(service, SEAT1, bet("same"))
    command(service, "tablectl/S1/seat/2", bet("same", amount="5"))
    assert sorted(stakes(service)) == [("seat:1", "ante", "10"), ("seat:2", "ante", "5")]


def test_a_refused_command_stays_refused_when_sent_again_later(
    betting: tuple[TableService, Collected, Path],
) -> None:
    """A retry must not turn a refusal into a bet: a bet refused once (here: over the
    balance) sent again with its id is the same refusal, answered, not judged again."""
    service, published, _ = betting
    command(service, SEAT1, bet("big", amount="5000"))
    first = replies(published, SEAT1)[-1]
    assert not first["ok"]
    command(service, SEAT1, bet("big", amount="5000"))
    again = replies(published, SEAT1)[-1]
    assert (again["ok"], again["reason"], again["repeated"]) == (False, first["reason"], True)
    assert rows_with_id(service.runner, "big") == 1


def test_after_a_restart_the_journal_knows_which_ids_it_applied(
    betting: tuple[TableService, Collected, Path],
) -> None:
    """The controller died after journaling and applying the bet, before its reply left: the
    console sends it again to the restarted table, which answers it without placing it."""
    service, _, path = betting
    command(service, SEAT1, bet("b-1"))
    command(service, SEAT1, bet("huge", amount="5000"))  # refused: remembered as refused
    service.stop()
    service.runner.close()
    runner = TableRunner.recover(path)
    published = Collected()
    again = TableService(runner, published, clock=lambda: T0 + 3)
    again.start()  # it halts the round it finds in play: the pit manager resumes it
    again.submit(Resume(actor="pit:ann", note="layout checked"))
    try:
        assert len(runner.answers) == 2
        command(again, SEAT1, bet("b-1"))
        command(again, SEAT1, bet("huge", amount="5000"))
        command(again, SEAT1, bet("b-2", amount="5"))
        got = [(r["id"], r["ok"], r["repeated"]) for r in replies(published, SEAT1)]
        assert got == [("b-1", True, True), ("huge", False, True), ("b-2", True, False)]
        assert rows_with_id(runner, "b-1") == 1
        assert sorted(stakes(again)) == [("seat:1", "ante", "10"), ("seat:1", "ante", "5")]
    finally:
        again.stop()
        runner.close()


def test_a_replay_shows_each_commands_id(betting: tuple[TableService, Collected, Path]) -> None:
    service, _, _ = betting
    command(service, SEAT1, bet("b-1"))
    steps = list(replay(service.runner.journal))
    assert [(s.event.kind, s.command_id) for s in steps][-1] == ("place_bet", "b-1")
    assert all(s.command_id is None for s in steps[:-1])


def explode(state: Any, event: Event, now: float) -> Any:
    raise RuntimeError(f"a bug while handling {event.kind}")


@pytest.mark.parametrize("fault_row", [True, False], ids=["fault-journaled", "stopped-before"])
def test_a_command_whose_handling_failed_is_answered_as_failed_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault_row: bool
) -> None:
    """A command that raised was not applied; sent again after a restart (whether or not its
    fault row was written before the controller stopped), it is answered as failed, not
    applied then."""
    path = tmp_path / "t.journal"
    runner = TableRunner.create(path, header(), T0)
    runner.submit(OpenTable(actor="pit:ann"), T0)
    runner.submit(StartRound(actor="dealer"), T0 + 1)
    placed = PlaceBet(
        actor="seat:1", seat="seat:1", hand="player", spot=Spot.ANTE, amount=Fraction(10)
    )
    with monkeypatch.context() as patch:
        patch.setitem(table_module._HANDLERS, PlaceBet, explode)
        if fault_row:
            runner.submit(placed, T0 + 2, "b-1")
            live = runner.answers.get("seat:1", "b-1")
            assert live is not None and (live.ok, live.reason) == (False, FAILED)
        else:  # journaled, and the controller stopped before it could handle it
            runner.journal.append({**event_to_json(placed), ID_FIELD: "b-1"}, T0 + 2)
        runner.close()
        recovered = TableRunner.recover(path)
    try:
        answer = recovered.answers.get("seat:1", "b-1")
        assert answer is not None and (answer.ok, answer.reason) == (False, FAILED)
        assert recovered.state.phase is Phase.BETTING and not recovered.state.round.stakes  # type: ignore[union-attr]
    finally:
        recovered.close()


def test_the_latest_answers_are_kept_and_the_oldest_forgotten() -> None:
    answers = Answers(kept=3)
    for n in range(5):
        answers.keep("dealer", f"c{n}", Answer("start_round", True, "", ""))
    assert len(answers) == 3
    assert answers.get("dealer", "c1") is None and answers.get("dealer", "c4") is not None


records = st.dictionaries(
    st.text(st.characters(codec="utf-8"), max_size=12).filter(lambda k: k != ID_FIELD),
    st.none() | st.booleans() | st.integers() | st.text(st.characters(codec="utf-8")),
    max_size=6,
)


@settings(max_examples=400, deadline=None)
@given(records, st.text(st.characters(codec="utf-8"), min_size=1, max_size=64))
def test_the_id_is_split_off_any_record_as_written(record: dict[str, Any], cid: str) -> None:
    """Any flat record, any id (quotes, braces, backslashes, other scripts): the row's text
    without the id is the record's own text, and the id is the id."""
    assert split_id(record_text({**record, ID_FIELD: cid})) == (record_text(record), cid)
    assert split_id(record_text(record)) == (record_text(record), None)
