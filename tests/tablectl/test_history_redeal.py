"""A redeal in the pit manager's history: the abandoned game and the new one, linked."""

from __future__ import annotations

import contextlib
import json
from fractions import Fraction
from pathlib import Path

import pytest

from controller.cards import parse_cards
from controller.events import (
    CardDrawn,
    DealerExposedEarly,
    Event,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    Redeal,
    SeatDisconnected,
    SeatReturned,
    StartRound,
)
from controller.games import Seating
from controller.games.rules import Spot
from tablectl.cli import main
from tablectl.runtime import TableRunner, header_record
from tests.controller.round_script import T0


def _journal(path: Path) -> Path:
    header = header_record("P1", "texas-poker", Seating.BOXES, ("box 1", "box 2"))
    runner = TableRunner.create(path, header, T0 - 60)
    events: list[Event] = [
        OpenTable(actor="pit:ann"),
        StartRound(actor="dealer"),
        PlaceBet(actor="dealer", hand="box 1", seat="ann", spot=Spot.ANTE, amount=Fraction(100)),
        NoMoreBets(actor="dealer"),
        *[CardDrawn(actor="shoe", card=c) for c in parse_cards("AS KS")],
        DealerExposedEarly(actor="camera"),
        Redeal(actor="dealer", reason="the dealer's first card was opened"),
        *[CardDrawn(actor="shoe", card=c) for c in parse_cards("QS JS")],
    ]
    for n, event in enumerate(events):
        runner.submit(event, T0 + n)
    runner.close()
    return path


def test_history_shows_the_abandoned_game_and_the_new_one_linked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _journal(tmp_path / "t.sqlite")
    assert main(["history", "--journal", str(path), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["outcome"] for r in rows] == ["abandoned", "in play"]
    old, new = rows
    assert old["continued_as"] == new["round_id"] and new["redeal_of"] == old["round_id"]
    assert old["round_id"].endswith("-000001") and new["round_id"].endswith("-000002")
    assert main(["history", "--journal", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"continued as {new['round_id']}" in text and f"redeal of {old['round_id']}" in text
    # the new game's replay starts with the redeal that opened it
    assert main(["replay", "--journal", str(path), "--round", new["round_id"], "--json"]) == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert steps[0]["event"]["kind"] == "redeal"
    assert steps[-1]["after"]["abandoned"] == [old["round_id"]]


def test_the_watch_line_and_the_display_name_the_game_a_redeal_replaced() -> None:
    from rich.console import Console

    from simulators.display.terminal import render
    from tablectl.commands.console import _line

    state = {"type": "state", "phase": "dealing", "round_id": "P1-B-000002",
             "abandoned": ["P1-A-000001"], "next": "card to box 1", "cards": []}  # fmt: skip
    line = _line("tablectl/P1/state", state)
    assert "P1-B-000002 (redeal of P1-A-000001)" in line
    assert "redeal of" not in _line("tablectl/P1/state", {**state, "abandoned": []})
    console = Console(width=120, record=True)
    console.print(render(state))
    assert "round P1-B-000002 (redeal of P1-A-000001)" in console.export_text()


def test_history_names_a_seat_that_dropped_and_came_back_during_a_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = header_record("P1", "texas-poker", Seating.BOXES, ("box 1", "box 2"))
    path = tmp_path / "t.sqlite"
    runner = TableRunner.create(path, header, T0 - 60)
    events: list[Event] = [
        OpenTable(actor="pit:ann"),
        StartRound(actor="dealer"),
        SeatDisconnected(actor="system", seat="seat:3"),
        SeatReturned(actor="system", seat="seat:3"),
    ]
    for n, event in enumerate(events):
        runner.submit(event, T0 + n)
    runner.close()
    assert main(["history", "--journal", str(path), "--json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [note.split()[:2] for note in row["seats"]] == [["seat:3", "away"], ["seat:3", "back"]]


@pytest.mark.parametrize(
    "command",
    [
        ["history", "--journal", "J"],
        ["replay", "--journal", "J", "--round", "r1"],
        ["journal", "verify", "--journal", "J"],
    ],
)
def test_a_file_that_is_no_journal_is_refused_and_left_as_it_is(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Given an empty file or another program's SQLite database, the readers wrote the
    journal's tables into it, switched it to write-ahead logging, and ``journal verify``
    said "0 rows, chain intact"."""
    import sqlite3

    empty = tmp_path / "empty.journal"
    empty.write_bytes(b"")
    other = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE precious (x)")
        db.execute("INSERT INTO precious VALUES (1)")
        db.commit()
    before = other.read_bytes()
    expected = {
        empty: "expected a table's journal; got an empty file, left as it is",
        other: "expected a table's journal; got an SQLite database of other tables (precious)",
        tmp_path: "expected a journal file; got a folder",
    }
    for path, words in expected.items():
        assert main([str(path) if a == "J" else a for a in command]) == 2
        assert f"{path}: {words}" in capsys.readouterr().err
    assert empty.read_bytes() == b"" and other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.journal", "other.db"]
