"""Real journals written from scenario files: a scenario played through the state machine,
every input (the shoe's cards included) journaled by the table's own runner, at its time."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.table import TableState, handle
from controller.topics import Topics
from controller.views import PUBLIC, Projector
from tablectl.runtime import TableRunner, header_record
from tablectl.scenario import T0, Scenario, play_scenario, run_scenario, scenario_game

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def scenario_text(name: str) -> str:
    """A shipped scenario file's text."""
    return (SCENARIOS / name).read_text("utf-8")


def header_of(scenario: Scenario) -> dict[str, Any]:
    """Row 0 of a journal for the table ``scenario`` sets up (the shipped game file)."""
    options = scenario.options
    return header_record(
        scenario.table_id, scenario.game, scenario.seating, scenario.hands,
        betting_seconds=float(options.get("betting_seconds", 0)) or None,
        decision_seconds=float(options.get("decision_seconds", 0)) or None,
        confirm_payments=bool(options.get("confirm_payments", False)),
        balances=scenario.balances or None,
    )  # fmt: skip


def journal_from_scenarios(path: Path, *texts: str) -> Path:
    """A journal at ``path`` holding the inputs of the scenarios ``texts`` played one after
    another on one table (they must set up the same table), each at its own time."""
    runner: TableRunner | None = None
    offset = 0.0
    for n, text in enumerate(texts):
        scenario, run = play_scenario(text, f"scenario {n + 1}")
        if runner is None:
            runner = TableRunner.create(path, header_of(scenario), T0 - 60)
        last = offset
        for event, at in run.log:
            if n and event.kind == "open_table":
                continue  # the table is open already
            last = at - T0 + offset
            runner.submit(event, T0 + last)
        offset = last + 60
    assert runner is not None
    runner.close()
    return path


def public_states(text: str) -> list[dict[str, Any]]:
    """The public state after every input of a scenario, as the controller publishes it."""
    scenario, run = play_scenario(text)
    bare = replace(scenario, shoe=(), steps=())  # the table as set up, before any input
    state: TableState = run_scenario(bare, scenario_game(scenario)).state
    states: list[dict[str, Any]] = []
    projector = Projector(Topics(scenario.table_id), yellow_seconds=5.0)
    for event, at in run.log:
        after, actions = handle(state, event, at)
        out = projector.step(state, after, actions, at)
        states += [json.loads(o.payload) for o in out if o.audience == PUBLIC and o.retain]
        state = after
    return states
