"""A redeal in the pit manager's history: the abandoned game and the new one, linked."""

from __future__ import annotations

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
