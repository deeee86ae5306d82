"""``tablectl run``: the running table, from its configuration file, until SIGTERM."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from config.tables import BrokerSettings, load_table
from controller.errors import ConfigError
from drivers.mqtt.client import BrokerAddress, parse_broker_url
from tablectl.running import RunningTable

__all__ = ["register", "resolve_broker"]


def register(subparsers: Any) -> None:
    """Add the ``run`` command."""
    parser = subparsers.add_parser(
        "run",
        help="run a table: shoe, state machine, journal and MQTT",
        description=(
            "Run one table from its configuration file (config/tables/*.toml): recover it "
            "from its journal, read its shoe, publish to its broker and take commands from "
            "the dealer console, the pit manager and the seats until SIGTERM or Ctrl-C."
        ),
    )
    parser.add_argument("--config", required=True, type=Path, help="the table's TOML file")
    parser.add_argument(
        "--broker", help="mqtt://[user[:password]@]host[:port], overriding the config's broker"
    )
    parser.add_argument("--journal", type=Path, help="journal file, overriding the config's")
    parser.set_defaults(run=run)


def resolve_broker(settings: Any, override: str | None, stack: list[Any]) -> BrokerAddress:
    """The broker to use: ``override``, the configured one, or an embedded one (started and
    pushed on ``stack`` to be stopped later)."""
    if override:
        return parse_broker_url(override)
    if isinstance(settings, BrokerSettings):
        address = parse_broker_url(settings.url)
        password = settings.password()
        if password is not None:
            address = BrokerAddress(
                address.host, address.port, address.username, password, address.websockets
            )
        return address
    from drivers.mqtt.embedded import EmbeddedBroker

    broker = EmbeddedBroker()
    broker.start()
    stack.append(broker)
    return BrokerAddress("127.0.0.1", broker.port)


def run(args: argparse.Namespace) -> int:
    """Run until a signal; print one JSON status line when started and when stopped."""
    config = load_table(args.config)
    if args.journal is not None:
        config = config.model_copy(
            update={"table": config.table.model_copy(update={"journal": str(args.journal)})}
        )
    stack: list[Any] = []
    address = resolve_broker(config.broker, args.broker, stack)
    try:
        table = RunningTable(config, args.config.resolve().parent, address)
    except ConfigError:
        for item in stack:
            item.stop()
        raise
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    table.start()
    state = table.service.state
    print(
        json.dumps(
            {
                "table": config.table.id,
                "game": config.table.game.value,
                "broker": address.url(),
                "journal": str(table.journal_path),
                "phase": state.phase.value,
                "rounds_started": state.rounds_started,
            }
        ),
        flush=True,
    )
    while not stop.wait(0.5):
        if table.service.error is not None:
            print(f"tablectl run: the table stopped: {table.service.error}", file=sys.stderr)
            table.stop()
            return 1
    table.stop()
    for item in stack:
        item.stop()
    state = table.service.state
    print(
        json.dumps(
            {
                "table": config.table.id,
                "stopped": True,
                "phase": state.phase.value,
                "rounds_started": state.rounds_started,
            }
        ),
        flush=True,
    )
    return 0
