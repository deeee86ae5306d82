"""The terminal display and the one-line log: every round's end told, timers that tick,
folded hands marked; the consoles on the command line speak in words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from simulators.display.terminal import light_of, render, round_line, summary_line
from tablectl.cli import main
from tablectl.commands.console import _line
from tests.support.journals import journal_from_scenarios, public_states, scenario_text


def _drawn(state: dict, now: float) -> str:
    console = Console(width=140, record=True, color_system="truecolor")
    console.print(render(state, now=now))
    return console.export_text(styles=True)


def test_a_studio_round_ends_on_one_line_with_the_dealers_cards_the_result_and_the_payouts() -> (
    None
):
    # Casino Hold'em: reveal, settlement and the end of the round are one step
    states = public_states(scenario_text("payout-casino-holdem-no-qualify-flush.scn"))
    ended = [s for s in states if s.get("last_round")]
    assert ended, "no state told of the round's end"
    line = round_line(ended[-1])
    assert line is not None
    last = ended[-1]["last_round"]
    dealer = " ".join(last["dealer"]["cards"])
    assert "??" not in line and f"dealer {dealer}" in line, line
    assert f"({last['dealer']['name']})" in line
    (hand,) = last["hands"]
    assert hand["result"] == "win" and ": win" in line
    assert "[ante win 2:1, call push]" in line, line
    # a state before any round ended tells of none
    assert round_line(states[0]) is None


def test_a_box_table_round_ends_on_one_line_even_when_no_box_won() -> None:
    states = public_states(scenario_text("payout-texas-poker-dealer-wins.scn"))
    line = round_line([s for s in states if s.get("last_round")][-1])
    assert line is not None and ": lose" in line and "ante lose" in line, line


def test_the_round_line_names_the_bet_spots_in_words() -> None:
    states = public_states(scenario_text("payout-ultimate-ante-plus-paytable.scn"))
    line = round_line([s for s in states if s.get("last_round")][-1])
    assert line is not None and line.endswith("[ante win 1:1, call win 1:1, ante plus push]")
    assert "_" not in line.partition("complete:")[2], line


def test_a_hand_every_seat_folded_is_marked_folded_in_the_log_and_on_the_panel() -> None:
    states = public_states(scenario_text("payout-ultimate-fold.scn"))
    folding = [s for s in states if s["folded"]]
    assert folding and folding[0]["folded"] == ["player"]
    assert summary_line(folding[0]).endswith("folded: player")
    assert "folded" in _drawn(folding[0], folding[0]["at"])
    line = round_line([s for s in states if s.get("last_round")][-1])
    assert line is not None and "player ?? ?? folded" in line, line
    # its side bet was paid on its cards, which would tell their category: not public
    assert "best" not in line and line.endswith("player ?? ?? folded")
    # before the fold nothing is marked
    assert not states[2]["folded"] and "folded" not in summary_line(states[2])


def test_the_decision_timer_counts_down_and_changes_colour() -> None:
    states = public_states(scenario_text("payout-ultimate-auto-fold.scn"))
    timed = next(s for s in states if s["timers"])
    (timer,) = timed["timers"]
    deadline = timer["deadline"]
    assert timer["yellow_seconds"] == 5.0
    assert light_of(timer, deadline - 8) == (8, "green")
    assert light_of(timer, deadline - 2) == (2, "yellow")
    assert light_of(timer, deadline + 1) == (0, "red")
    early, late = _drawn(timed, deadline - 8), _drawn(timed, deadline - 2)
    assert "decision 8.0s" in early and "decision 2.0s" in late
    assert early != late.replace("2.0s", "8.0s")  # the colour changed too


def test_watch_prints_a_settlement_in_words() -> None:
    states = public_states(scenario_text("payout-casino-holdem-no-qualify-flush.scn"))
    assert states
    data = {
        "hand": "player", "seat": "seat:1", "folded": False, "staked": "30", "returned": "70",
        "net": "40", "notes": [],
        "lines": [
            {"spot": "ante", "stake": "10", "result": "win", "odds": "2:1", "paid": "20",
             "returned": "30", "paytable_line": "flush", "reason": "flush"},
            {"spot": "call", "stake": "20", "result": "push", "odds": None, "paid": "0",
             "returned": "20", "paytable_line": None, "reason": "the dealer does not qualify"},
        ],
    }  # fmt: skip
    line = _line("tablectl/S1/seat/1/events", {"type": "event", "event": "settled", "data": data})
    assert "{" not in line and "[" not in line and "'" not in line, line
    assert "seat:1 on player: ante win 2:1 paid 20 (flush)" in line
    assert "call push returned 20 (the dealer does not qualify)" in line
    assert "net 40" in line


def test_the_dispute_view_shows_the_timers_automatic_fold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = journal_from_scenarios(
        tmp_path / "t.sqlite", scenario_text("payout-ultimate-auto-fold.scn")
    )
    assert main(["history", "--journal", str(path), "--json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["replay", "--journal", str(path), "--round", row["round_id"]]) == 0
    text = capsys.readouterr().out
    automatic = [ln for ln in text.splitlines() if "automatic decision" in ln]
    assert [ln.rsplit(": ", 1)[1] for ln in automatic] == [
        "check for seat:1 on player",
        "check for seat:1 on player",
        "fold for seat:1 on player",
    ], text
    assert "settled: seat:1 on player (folded): ante lose" in text
