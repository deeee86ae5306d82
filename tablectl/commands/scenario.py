"""``tablectl scenario run``: play a scenario file through the real state machine."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from config.files import read_text
from controller.errors import TableError
from tablectl.scenario import ScenarioFailed, parse_scenario, run_scenario, scenario_game


def register(subparsers: Any) -> None:
    """Add the ``scenario`` command group."""
    parser = subparsers.add_parser("scenario", help="run scenario files (docs/scenarios.md)")
    sub = parser.add_subparsers(dest="scenario_command", metavar="WHAT", required=True)
    run = sub.add_parser(
        "run",
        help="play a scenario and check its expectations",
        description="Exit 0 when every expectation holds; 1 naming the first that does not.",
    )
    run.add_argument("files", nargs="+", type=Path, metavar="FILE")
    run.add_argument("--json", action="store_true", help="print every settlement as JSON")
    run.set_defaults(run=run_files)


#: the largest scenario file read (the project's longest takes 6 kB)
MAX_SCENARIO_BYTES = 1024 * 1024


def run_files(args: argparse.Namespace) -> int:
    """Run each file; stop at the first failure."""
    for path in args.files:
        text = read_text(path, str(path), limit=MAX_SCENARIO_BYTES, error=TableError)
        scenario = parse_scenario(text, str(path))
        try:
            run = run_scenario(scenario, scenario_game(scenario, str(path)), str(path))
        except ScenarioFailed as error:
            print(f"FAIL {error}")
            return 1
        checks = sum(1 for step in scenario.steps if step.expect)
        if args.json:
            for action in run.actions:
                if action.kind in ("settled", "round_ended"):
                    print(json.dumps({"file": str(path), "kind": action.kind, **action.data}))
        else:
            print(f"ok   {path}: {len(run.log)} events, {checks} expectations held")
    return 0
