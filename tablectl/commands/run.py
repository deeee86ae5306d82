"""``tablectl run``: the running table, from its configuration file, until SIGTERM.

The broker's address is the table file's ``[broker]`` or ``--broker``; a URL without a user
or a password takes them from the table file (``url``'s user, ``password_env``'s variable),
so a password never has to be typed on a command line. A login the broker refuses ends the
run at once (exit status 2) with the broker's reason: retrying would change nothing.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from config.tables import BrokerSettings, load_table
from controller.errors import ConfigError, TableError
from drivers.mqtt.client import BrokerAddress, MqttLink, parse_broker_url
from drivers.storage.sqlite_journal import JournalError
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
        "--broker",
        help="mqtt://[user[:password]@]host[:port], overriding the config's broker (the user "
        "and the password the URL leaves out come from the config: url, password_env)",
    )
    parser.add_argument("--journal", type=Path, help="journal file, overriding the config's")
    parser.set_defaults(run=run)


#: how long ``run`` waits for the broker's first answer before it reports itself running
FIRST_ANSWER_SECONDS = 3.0


def resolve_broker(settings: Any, override: str | None, stack: list[Any]) -> BrokerAddress:
    """The broker to use: ``override``, the configured one, or an embedded one (started and
    pushed on ``stack`` to be stopped later).

    The user and the password ``override`` leaves out come from the configured broker: its
    URL's user, and the variable its ``password_env`` names (which must then be set).
    """
    if not isinstance(settings, BrokerSettings):
        if override:
            return parse_broker_url(override)
        from drivers.mqtt.embedded import EmbeddedBroker

        broker = EmbeddedBroker()
        broker.start()
        stack.append(broker)
        return BrokerAddress("127.0.0.1", broker.port)
    configured = parse_broker_url(settings.url)
    address = parse_broker_url(override) if override else configured
    if address.username is None:
        address = replace(address, username=configured.username)
    if address.password is None and settings.password_env:
        password = settings.password()
        if password is None:
            raise ConfigError(
                f"[broker] password_env = {settings.password_env!r}: expected that "
                "environment variable to hold the controller's broker password, but it is "
                f"not set: set it (e.g. {settings.password_env}=... tablectl run ...) or put "
                "the password in --broker"
            )
        address = replace(address, password=password)
    return address


def _password_source(settings: Any, override: str | None) -> str:
    """Where the password of the login came from, in words."""
    if override and parse_broker_url(override).password is not None:
        return "the password in --broker"
    if isinstance(settings, BrokerSettings) and settings.password_env:
        return f"the password in ${settings.password_env} (the table file's password_env)"
    if isinstance(settings, BrokerSettings) and parse_broker_url(settings.url).password:
        return "the password in the table file's url"
    return "no password"


def _refused(link: Any, address: BrokerAddress, source: str) -> TableError:
    """The error that ends a run whose login the broker refused, in words to act on."""
    user = address.username or "no user name"
    return TableError(
        f"the broker at {address.url()} refused the controller's login: {link.refused}; "
        f"expected it to accept {user} with {source}: check that user's password in the "
        "broker's password file, then start the table again"
    )


def stopped_words(error: BaseException) -> str:
    """Why the table stopped, and, where its journal could not be written (a disk full or
    failing), what was kept and what to do: at 3 a.m. the words are all there is."""
    if isinstance(error, JournalError):
        return (
            f"the table stopped: {error}. Nothing after the journal's last row was applied, "
            "answered or acknowledged: free space on the journal's disk (or replace the "
            "disk), then start the table again: it is rebuilt from its journal (tablectl "
            "history shows where its round stood)"
        )
    return f"the table stopped: {error}"


class BrokerWords:
    """What the operator reads on the standard error as the broker comes and goes: a table
    whose broker does not answer runs on (it deals, journals and settles), but no console,
    display or seat hears it, and its status line's ``"connected": false`` alone said
    nothing of why nor of what the table does meanwhile. Each change is told once, in
    words: unreachable at the start (with the system's reason: refused, no route, a name
    that does not resolve), reached, lost."""

    def __init__(self, links: Sequence[MqttLink], address: BrokerAddress) -> None:
        self.links = links  # the table's connections (its main one first): all up, or not
        self.url = address.url()
        self.told: bool | None = None  # the connection as last told (None: not yet)

    def change(self) -> str | None:
        """The words for the connections' change since the last call; None where there is
        none to tell."""
        down = [link for link in self.links if not link.connected]
        up = not down
        if up == self.told:
            return None
        first, self.told = self.told is None, up
        if up:
            return None if first else f"the broker at {self.url} answers: the table is heard again"
        link = down[0]
        low, high = link.backoff
        if first:
            what = f"cannot reach the broker at {self.url} ({link.down_reason or 'no answer'})"
        else:
            what = f"lost the broker at {self.url} ({link.down_reason or 'its connection closed'})"
        return (
            f"{what}: the table runs on and journals every event, but no console, display or "
            f"seat hears it until the broker answers; tried again every {low} to {high} s"
        )


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
    link = table.link
    link.on_refused = lambda reason: stop.set()  # in the link's thread: wake the loop below
    source = _password_source(config.broker, args.broker)

    def end_refused() -> TableError:
        table.stop()
        for item in stack:
            item.stop()
        return _refused(link, address, source)

    table.start()
    link.wait_connected(FIRST_ANSWER_SECONDS)  # a refusal answers at once
    if link.refused is not None:
        raise end_refused()
    if link.connected:  # the broker answers: the staff's connection is a moment behind
        table.staff_link.wait_connected(FIRST_ANSWER_SECONDS)
    state = table.service.state
    print(
        json.dumps(
            {
                "table": config.table.id,
                "game": config.table.game.value,
                "broker": address.url(),
                "connected": link.connected and table.staff_link.connected,
                "journal": str(table.journal_path),
                "phase": state.phase.value,
                "rounds_started": state.rounds_started,
            }
        ),
        flush=True,
    )
    broker = BrokerWords([link, table.staff_link], address)
    while True:
        if (words := broker.change()) is not None:
            print(f"tablectl run: {words}", file=sys.stderr, flush=True)
        if stop.wait(0.5):
            break
        if table.service.error is not None:
            print(f"tablectl run: {stopped_words(table.service.error)}", file=sys.stderr)
            table.stop()
            return 1
    if link.refused is not None:  # a broker restarted with other passwords, say
        raise end_refused()
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
