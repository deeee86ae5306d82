"""``tablectl topics``: the MQTT topic tree of a table, and the JSON Schemas of its payloads."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from config.files import folder, write_text
from controller.inbound import commands_of
from controller.messages import MESSAGE_MODELS
from controller.topics import Topics
from tablectl.workers import seat_id, table_id

__all__ = ["register", "schemas"]


def register(subparsers: Any) -> None:
    """Add the ``topics`` command."""
    parser = subparsers.add_parser(
        "topics",
        help="the MQTT topics of a table, or export the payloads' JSON Schemas",
        description="Print a table's topics, or write every payload's JSON Schema to a folder.",
    )
    parser.add_argument("--table", default="T1", type=table_id, help="table id (default: T1)")
    parser.add_argument(
        "--seat", default="1", type=seat_id, help="a seat id for the example (default: 1)"
    )
    parser.add_argument(
        "--schemas",
        type=Path,
        metavar="DIR",
        help="write <name>.schema.json for every payload to DIR",
    )
    parser.set_defaults(run=run)


def _schema(name: str, model: Any) -> dict[str, Any]:
    schema: dict[str, Any] = model.model_json_schema()
    if name == "command":  # the commands each console may send, from the table's own roles
        by_role = {role: commands_of(role) for role in ("seat", "dealer", "pit")}
        schema["properties"]["command"]["description"] = (
            "the command, by who sends it: "
            + "; ".join(f"{role}: {', '.join(kinds)}" for role, kinds in by_role.items())
        )
        schema["properties"]["command"]["enum"] = sorted({k for ks in by_role.values() for k in ks})
    return schema


def schemas() -> dict[str, str]:
    """Every payload's JSON Schema as text, by file name."""
    return {
        f"{name}.schema.json": json.dumps(_schema(name, model), indent=2, sort_keys=True) + "\n"
        for name, model in MESSAGE_MODELS.items()
    }


def run(args: argparse.Namespace) -> int:
    """Print the topics, or write the schemas."""
    if args.schemas is not None:
        folder(args.schemas, "--schemas")
        for name, text in schemas().items():
            write_text(args.schemas / name, text, "--schemas")
            print(args.schemas / name)
        return 0
    t = Topics(args.table)
    seat = t.seat(args.seat)
    rows = [
        (t.status, "controller", "retained online/offline (the will)"),
        (t.state, "controller", "retained public state (public-state)"),
        (t.events, "controller", "public events (event)"),
        (t.rebirth, "anyone", "ask for every state again"),
        (seat.state, "controller", "retained seat state (seat-state)"),
        (seat.events, "controller", "the seat's events (event)"),
        (seat.reply, "controller", "answers to the seat's commands (reply)"),
        (seat.cmd, f"seat-{args.seat}", "the seat's commands (command)"),
        (seat.presence, f"seat-{args.seat}", "retained online/offline (the seat's will)"),
        (t.dealer.state, "controller", "retained dealer console state (dealer-state)"),
        (t.dealer.events, "controller", "the dealer's events (event)"),
        (t.dealer.reply, "controller", "answers to the dealer (reply)"),
        (t.dealer.cmd, "dealer", "the dealer's commands (command)"),
        (t.pit.state, "controller", "retained pit state, hidden cards included (pit-state)"),
        (t.pit.events, "controller", "every action (event)"),
        (t.pit.alerts, "controller", "halts, irregularities, hardware faults (event)"),
        (t.pit.reply, "controller", "answers to the pit (reply)"),
        (t.journal, "controller", "retained journal head at the last checkpoint, sealed (JSON)"),
        (t.pit.cmd, "pit", "the pit manager's commands (command)"),
    ]
    width = max(len(r[0]) for r in rows)
    for topic, writer, what in rows:
        print(f"{topic:<{width}}  {writer:<11} {what}")
    return 0
