"""The pit's dispute replay from a real journal: the round list, the steps of a round with
the layout after each, and the round exported as a scenario file that replays to the same
result, for every game and the irregularities."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.scenario import play_scenario
from tablectl.web.replay import layout, round_scenario, round_steps, rounds
from tests.support.journals import journal_from_scenarios, scenario_text

#: scenario files whose journals are exported round by round: every game, its timers, its
#: irregularities (a redeal, a restored sequence, a correction, a camera's halt, a short
#: payment, a disconnected seat, the dealer opening early), the studio buttons
JOURNALS = [
    "payout-bonus-poker-fold-bonus-paid.scn",
    "payout-texas-poker-fold.scn",
    "irregularity-broken-sequence-redeal.scn",
    "irregularity-broken-sequence-restored.scn",
    "irregularity-dealer-opened-early.scn",
    "camera-wrong-card.scn",
    "payout-ultimate-auto-fold.scn",
    "buttons-ultimate-repeat-undo.scn",
    "buttons-casino-holdem-rebet-double-undo.scn",
    "buttons-bonus-poker-rebet-double.scn",
    "payout-casino-holdem-no-qualify-flush.scn",
    "studio-seat-disconnected.scn",
    "irregularity-misread-card-corrected.scn",
    "irregularity-wrong-payment.scn",
    "payout-triple-action-folded-full-house.scn",
]


def _results(actions: list[Any]) -> tuple[dict[tuple[str, str], Any], list[Any]]:
    """Each stake's last settlement (its lines and net) and the outcomes, from actions."""
    settled: dict[tuple[str, str], Any] = {}
    outcomes: list[Any] = []
    for kind, data in actions:
        if kind == "settled":
            settled[(data["hand"], data["seat"])] = (data["lines"], data["net"], data.get("folded"))
        elif kind == "round_ended":  # its money and refunds too
            outcomes.append({k: v for k, v in data.items() if k not in ("round_id", "kind")})
    return settled, outcomes


@pytest.mark.parametrize("name", JOURNALS)
def test_every_round_exported_as_a_scenario_replays_to_the_same_result(
    name: str, tmp_path: Path
) -> None:
    path = journal_from_scenarios(tmp_path / "t.sqlite", scenario_text(name))
    listed = rounds(path)
    assert listed, "no rounds"
    for info in listed:
        rid = info["round_id"]
        text = round_scenario(path, rid)
        _, run = play_scenario(text, f"{name} {rid}")  # its own expectations hold too
        steps = round_steps(path, rid)["steps"]
        in_journal = [(a["kind"], a) for s in steps for a in _raw(path, rid, s["row"])]
        wanted = _results(in_journal)
        # (a voided round before it, placing the bets its buttons repeat, is not the round's)
        got = _results([(a.kind, a.data) for a in run.actions if a.data.get("by") != "pit:replay"])
        if info["outcome"] == "abandoned":  # a redealt game ends in the new one
            assert not wanted[1], rid
            continue
        assert got == wanted, f"{name} {rid}:\n{text}"
        # a round still in play: the same bets and decisions on the layout
        assert layout(run.state)["stakes"] == steps[-1]["layout"]["stakes"], text
        assert wanted[0] or info["outcome"] != "complete", rid


def _raw(path: Path, rid: str, row: int) -> list[dict[str, Any]]:
    """The actions of one journal row, as the table produced them (the replay's JSON)."""
    return _RAW.setdefault((path, rid), _replay_json(path, rid)).get(row, [])


_RAW: dict[tuple[Path, str], dict[int, list[dict[str, Any]]]] = {}


def _replay_json(path: Path, rid: str) -> dict[int, list[dict[str, Any]]]:
    import contextlib
    import io
    import json

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["replay", "--journal", str(path), "--round", rid, "--json"]) == 0
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    return {r["row"]: [{**a, "kind": a["kind"]} for a in r["actions"]] for r in rows}


def test_a_rounds_steps_show_every_card_with_its_source_and_the_layout_after_it(
    tmp_path: Path,
) -> None:
    path = journal_from_scenarios(
        tmp_path / "t.sqlite", scenario_text("irregularity-misread-card-corrected.scn")
    )
    (info,) = rounds(path)
    steps = round_steps(path, info["round_id"])["steps"]
    cards = [a for s in steps for a in s["actions"] if a["kind"] in ("card", "card_corrected")]
    assert {a["source"] for a in cards} == {"shoe", "pit manager"}
    corrected = next(a for a in cards if a["kind"] == "card_corrected")
    assert "corrected from" in corrected["text"] and "by pit:" in corrected["text"]
    last = steps[-1]["layout"]
    assert last["phase"] == "idle" and steps[0]["layout"]["phase"] == "betting"
    dealt = next(s for s in steps if any(a["kind"] == "card" for a in s["actions"]))
    assert any(dealt["layout"]["positions"].values()), dealt["layout"]
    assert dealt["layout"]["stakes"][0]["bets"]


def test_a_timers_automatic_decisions_are_steps_of_the_replay(tmp_path: Path) -> None:
    path = journal_from_scenarios(
        tmp_path / "t.sqlite", scenario_text("payout-ultimate-auto-fold.scn")
    )
    (info,) = rounds(path)
    steps = round_steps(path, info["round_id"])["steps"]
    automatic = [a for s in steps for a in s["actions"] if a.get("automatic")]
    assert [a["option"] for a in automatic] == ["check", "check", "fold"]
    assert all("the decision timer ran out" in a["text"] for a in automatic)
    assert all(s["actor"] == "timer" for s in steps if s["event"]["kind"] == "tick")


def test_replay_prints_the_round_as_a_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = journal_from_scenarios(
        tmp_path / "t.sqlite", scenario_text("payout-casino-holdem-no-qualify-flush.scn")
    )
    (info,) = rounds(path)
    assert main(["replay", "--journal", str(path), "--round", info["round_id"], "--scenario"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"# round {info['round_id']}") and "\nexpect net player seat:1" in text
    play_scenario(text)
    with pytest.raises(KeyError):
        round_scenario(path, "S1-no-such-round")
