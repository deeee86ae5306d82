"""``tablectl send`` and ``tablectl watch``: a console on the command line.

``send`` is one command from the dealer, the pit manager or a seat, as their consoles send
it: published on the role's command topic with a fresh id, answered on the role's reply
topic, and sent again with the same id when no reply comes (a table applies an id once: a
retry gets the first answer); it prints the reply and exits 0 when the table took the
command, 1 when it refused it (the reason says why), 2 when the broker could not be reached
or no reply came.
``watch`` prints what a role (or a display) receives: its state as one line whenever the
phase or the next step changes, every event, every alert.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import queue
import sys
import time
import uuid
from dataclasses import replace
from typing import Any

from controller.errors import ConfigError, TableError
from controller.topics import SEAT_ID, AudienceTopics, Topics
from drivers.mqtt.client import BrokerAddress, MqttLink, parse_broker_url
from simulators.display.terminal import round_line, settlement_words
from tablectl.workers import int_from, number_from, shown, table_id

__all__ = ["parse_fields", "register"]

ROLES = ("dealer", "pit", "display")
PASSWORD_ENV = "TABLECTL_MQTT_PASSWORD"
#: the longest wait for a reply, seconds (an hour)
MAX_TIMEOUT = 3600
#: the most times a command is sent again
MAX_RETRIES = 100
#: the longest --seconds of a watch (a week); without it a watch runs until Ctrl-C
MAX_WATCH = 604_800


def register(subparsers: Any) -> None:
    """Add the ``send`` and ``watch`` commands."""
    send = subparsers.add_parser(
        "send",
        help="send one dealer, pit or seat command to a running table and print the reply",
        description=(
            "Send one command from the dealer, the pit manager or a seat, as their consoles "
            "send it: published on the role's command topic with a fresh id, answered on the "
            "role's reply topic, and sent again with the same id when no reply comes (the "
            "table applies an id once). Prints the reply; exits 0 when the table took the "
            "command, 1 when it refused it (the reason says why), 2 when the broker could not "
            "be reached or no reply came."
        ),
    )
    _common(send)
    send.add_argument(
        "what", metavar="COMMAND", help="the command: resume, void_round, open_table, ..."
    )
    send.add_argument(
        "fields", nargs="*", metavar="NAME=VALUE", help="its fields (JSON values or text)"
    )
    send.add_argument("--by", help="the pit manager's name (default: the login's user name)")
    send.add_argument(
        "--timeout",
        type=number_from(0, MAX_TIMEOUT, above=True),
        default=5.0,
        metavar="SECONDS",
        help=f"seconds to wait for the reply, above 0 and at most {MAX_TIMEOUT} (default 5)",
    )
    send.add_argument(
        "--retries",
        type=int_from(0, MAX_RETRIES),
        default=2,
        metavar="N",
        help=(
            "times to send it again, with the same id, when no reply comes, "
            f"0 to {MAX_RETRIES} (default 2)"
        ),
    )
    send.add_argument(
        "--id",
        type=_command_id,
        help=(
            "the command's id (default: a fresh one); a command sent again with its id is "
            "answered as before and never applied twice"
        ),
    )
    send.add_argument("--json", action="store_true", help="print the reply as JSON")
    send.set_defaults(run=run_send)
    watch = subparsers.add_parser(
        "watch",
        help="print what a role or a display receives from a running table",
        description=(
            "Print what a role (or a display) receives from a running table: its state as one "
            "line whenever the phase or the next step changes, every event, every alert."
        ),
    )
    _common(watch)
    watch.add_argument(
        "--seconds",
        type=number_from(0, MAX_WATCH),
        help=f"stop after this long, 0 to {MAX_WATCH} (default: Ctrl-C)",
    )
    watch.add_argument("--json", action="store_true", help="one JSON object per message")
    watch.set_defaults(run=run_watch)


def _command_id(text: str) -> str:
    if not 0 < len(text) <= 64 or not text.isprintable():
        raise argparse.ArgumentTypeError(
            f"expected an id of 1 to 64 printable characters; got {len(text)} characters"
        )
    return text


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--broker", required=True, help="mqtt://[user[:password]@]host[:port]")
    parser.add_argument("--table", required=True, type=table_id, help="the table id")
    parser.add_argument(
        "--as",
        dest="role",
        required=True,
        metavar="ROLE",
        help="dealer, pit, display or seat:N (the login defaults to the role's user)",
    )


def parse_fields(words: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` words as command fields; a value that is JSON is taken as JSON.

    >>> parse_fields(["hand=box 3", "amount=25", "dark=true", "note=layout checked"])
    {'hand': 'box 3', 'amount': 25, 'dark': True, 'note': 'layout checked'}
    >>> parse_fields(["resume"])
    Traceback (most recent call last):
    controller.errors.ConfigError: field 'resume': expected NAME=VALUE
    """
    fields: dict[str, Any] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or not name:
            raise ConfigError(f"field {word!r}: expected NAME=VALUE")
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        fields[name] = parsed if isinstance(parsed, bool | int | float | list | dict) else value
    return fields


def _audience(topics: Topics, role: str) -> tuple[AudienceTopics | None, str]:
    """The role's topics (None for a display) and its broker user name."""
    if role in ("dealer", "pit"):
        return (topics.dealer if role == "dealer" else topics.pit), role
    if role == "display":
        return None, "display"
    if role.startswith("seat:") and SEAT_ID.fullmatch(role[5:]):
        return topics.seat(role[5:]), f"seat-{role[5:]}"
    raise ConfigError(f"--as {shown(role)}: expected dealer, pit, display or seat:N")


def _address(url: str, user: str) -> BrokerAddress:
    address = parse_broker_url(url)
    if address.username is None:
        address = replace(address, username=user)
    if address.password is None:
        address = replace(address, password=os.environ.get(PASSWORD_ENV))
    return address


def _connect(link: MqttLink, address: BrokerAddress, timeout: float) -> None:
    """Connect and subscribe, or fail: at once when the broker refuses the login."""
    link.start()
    if link.wait_connected(timeout) and link.wait_subscribed(timeout):
        return
    link.stop()
    if link.refused is not None:
        unset = "" if address.password is not None else f" (${PASSWORD_ENV} is not set)"
        raise TableError(
            f"could not log in to {address.url()}: {link.last_error}; expected the broker to "
            f"accept user {address.username} with the password in --broker or in "
            f"${PASSWORD_ENV}{unset}"
        )
    why = link.last_error or "no answer"
    raise TableError(f"could not log in to {address.url()} within {timeout:g} s: {why}")


def run_send(args: argparse.Namespace) -> int:
    """Publish the command, wait for its reply, print it."""
    topics = Topics(args.table)
    audience, user = _audience(topics, args.role)
    if audience is None:
        raise ConfigError("--as display: a display reads, it sends no command")
    address = _address(args.broker, user)
    fields = parse_fields(args.fields)
    if args.role == "pit" and "by" not in fields:
        fields["by"] = args.by or getpass.getuser()
    command_id = args.id or f"cli-{uuid.uuid4().hex[:12]}"
    command = {"v": 1, "id": command_id, "command": args.what, **fields}
    replies: queue.Queue[dict[str, Any]] = queue.Queue()

    def on_message(topic: str, payload: bytes) -> None:
        try:
            doc = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return
        if isinstance(doc, dict) and doc.get("id") == command_id:
            replies.put(doc)

    link = MqttLink(
        address, f"tablectl-send-{command_id}", subscriptions=[audience.reply],
        on_message=on_message,
    )  # fmt: skip
    _connect(link, address, args.timeout)
    payload = json.dumps(command).encode()
    tries = 1 + max(0, args.retries)
    try:
        for _ in range(tries):  # the same id each time: the table applies it once at most
            if not link.publish(audience.cmd, payload):
                raise TableError(f"the broker at {address.url()} went away before the command left")
            try:
                reply = replies.get(timeout=args.timeout)
                break
            except queue.Empty:
                continue
        else:
            raise TableError(
                f"no reply to {args.what} {command_id} from table {args.table} within "
                f"{args.timeout:g} s, {tries} times: is it running, and may this login send "
                f"on {audience.cmd}? Sending it again with --id {command_id} is safe: the "
                "table applies a command once, however often it comes"
            )
    finally:
        link.stop()
    again = " (answered before; not applied again)" if reply.get("repeated") else ""
    if args.json:
        print(json.dumps(reply))
    elif reply.get("ok"):
        print(f"{args.what}: done{again}")
    else:
        print(f"{args.what}: refused{again}: {reply.get('reason', '')}")
    return 0 if reply.get("ok") else 1


def _line(topic: str, doc: dict[str, Any]) -> str:
    """One message in words."""
    stream = topic.split("/", 2)[2]
    if doc.get("type") == "state":
        rnd = doc.get("round_id") or "-"
        if doc.get("abandoned"):  # a redeal's new game, and the game it replaced
            rnd += f" (redeal of {doc['abandoned'][-1]})"
        nxt = doc.get("next") or ""
        reason = doc.get("halt_reason") or ""
        return f"{stream}: {doc.get('phase')} {rnd} {nxt} {reason}".rstrip()
    if doc.get("type") == "reply":
        verdict = "ok" if doc.get("ok") else f"refused: {doc.get('reason')}"
        return f"{stream}: reply to {doc.get('command')} {doc.get('id')}: {verdict}"
    data = doc.get("data", {})
    if doc.get("event") == "settled" and isinstance(data, dict):
        return f"{stream}: settled {settlement_words(data)}"
    details = (
        " ".join(f"{k}={_said(v)}" for k, v in data.items()) if isinstance(data, dict) else data
    )
    return f"{stream}: {doc.get('event', '?')} {details}".rstrip()


def _said(value: Any) -> str:
    """A field's value in words: a list or a record without Python's brackets and quotes."""
    if isinstance(value, dict):
        return "(" + ", ".join(f"{k} {_said(v)}" for k, v in value.items()) + ")"
    if isinstance(value, list):
        return ", ".join(_said(v) for v in value) or "none"
    return str(value)


def run_watch(args: argparse.Namespace) -> int:
    """Print what the role receives until Ctrl-C or ``--seconds``."""
    topics = Topics(args.table)
    audience, user = _audience(topics, args.role)
    address = _address(args.broker, user)
    if audience is None:
        subscriptions = [topics.status, topics.state, topics.events]
    else:
        subscriptions = [audience.state, audience.events, audience.reply]
        if args.role == "pit":
            subscriptions.append(topics.pit.alerts)
    messages: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
    link = MqttLink(
        address, f"tablectl-watch-{uuid.uuid4().hex[:8]}", subscriptions=subscriptions,
        on_message=lambda topic, payload: messages.put((topic, payload, False)),
        on_retained=lambda topic, payload: messages.put((topic, payload, True)),
    )  # fmt: skip
    _connect(link, address, 5.0)
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    last_state: dict[str, str] = {}
    last_round: dict[str, str] = {}  # the last round ended each state topic told of
    try:
        while deadline is None or time.monotonic() < deadline:
            left = 0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))
            try:
                topic, payload, retained = messages.get(timeout=left)
            except queue.Empty:
                continue
            try:
                doc = json.loads(payload)
            except (UnicodeDecodeError, json.JSONDecodeError):
                doc = {"type": "status", "status": payload.decode(errors="replace")}
            if args.json:
                record = {"topic": topic, "message": doc, "retained": retained}
                print(json.dumps(record), flush=True)
                continue
            if not isinstance(doc, dict) or doc.get("type") == "status":
                # a kept "online" may outlive the controller (a broker restarted from its
                # persistence file keeps it): only a live one says the controller is there
                kept = retained and payload.strip() == b"online"
                kept_note = " (kept by the broker; not yet confirmed live)" if kept else ""
                print(f"status: {payload.decode(errors='replace')}{kept_note}", flush=True)
                continue
            line = _line(topic, doc)
            if doc.get("type") == "state":  # a state repeats on every input: print changes
                last = doc.get("last_round") or {}
                if last.get("round_id") and last_round.get(topic) != last["round_id"]:
                    if topic in last_round:  # a round ended while watching: how it ended
                        print(round_line(doc), flush=True)
                    last_round[topic] = last["round_id"]
                last_round.setdefault(topic, "")
                if last_state.get(topic) == line:
                    continue
                last_state[topic] = line
            print(line, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        link.stop()
    sys.stdout.flush()
    return 0
