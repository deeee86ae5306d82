"""Commands as they arrive from the consoles and the seats: bytes from a topic, checked, as events.

Any seat may write its command topic, so every payload passes one bounded reader before
anything else looks at it: at most :data:`MAX_COMMAND_BYTES` bytes, objects and arrays
nested at most :data:`MAX_NESTING` deep, numbers of at most :data:`MAX_NUMBER_CHARS`
characters written plainly (no exponent, no NaN or Infinity). A command is refused
(:class:`CommandRejected`, changing nothing, with what was expected and what arrived) when
it breaks a bound, is not a JSON object, fails its schema
(:class:`~controller.messages.Command`), claims a field the topic decides (the actor,
another seat) or comes from a role that may not send it. Nothing a payload holds raises
anything else.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from pydantic import ValidationError

from controller.errors import TableError
from controller.events import EVENT_TYPES, Event, MalformedEvent, event_from_json
from controller.messages import Command
from controller.table import ROLES
from controller.topics import Sender

__all__ = ["CommandRejected", "parse_command"]

#: the largest command accepted, in bytes (the longest real command is under 300)
MAX_COMMAND_BYTES = 4096

#: the deepest nesting of objects and arrays accepted (a command is one flat object)
MAX_NESTING = 3

#: the most characters a JSON number may have (the amounts of a table have a dozen at most)
MAX_NUMBER_CHARS = 24

#: seat commands whose ``seat`` field is filled in from the topic
_SEAT_FIELD = frozenset(
    {"place_bet", "undo_bet", "clear_bets", "rebet", "double", "decide", "deal"}
)


class CommandRejected(TableError):
    """A command that is malformed or that its sender may not send; nothing changes."""

    def __init__(self, command_id: str, command: str, reason: str) -> None:
        super().__init__(reason)
        self.command_id = command_id
        self.command = command


class _Unreadable(ValueError):
    """A payload that breaks one of the reader's bounds (the message says which)."""


def _integer(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _Unreadable(
            f"expected numbers of at most {MAX_NUMBER_CHARS} characters, got one of {len(text)}"
        )
    return int(text)


def _decimal(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS or "e" in text or "E" in text:
        raise _Unreadable(
            f"expected a plain decimal number of at most {MAX_NUMBER_CHARS} characters "
            f"(such as 12.5), got {text[:MAX_NUMBER_CHARS]!r}"
            + ("…" if len(text) > MAX_NUMBER_CHARS else "")
        )
    return float(text)


def _constant(text: str) -> NoReturn:
    raise _Unreadable(f"expected a number, got {text}")


def _checked_depth(value: object) -> int:
    """How deep objects and arrays nest in ``value`` (a scalar is 0), walked without recursion
    and stopping as soon as :data:`MAX_NESTING` is passed; text that is not Unicode (a lone
    surrogate, which JSON can write as ``\\ud800``) is refused on the way."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if deepest > MAX_NESTING:
                break
            children = [*item, *item.values()] if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
        elif isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise _Unreadable(
                    f"expected text in Unicode, got a lone surrogate in {item[:40]!r}"
                ) from None
    return deepest


def read_json(payload: bytes) -> object:
    """One JSON document from ``payload`` within the bounds above; raises ``ValueError`` with
    what was expected and what arrived.

    >>> read_json(b'{"amount": 12.5, "hand": "box1"}')
    {'amount': 12.5, 'hand': 'box1'}
    >>> try:
    ...     read_json(b'[[[[1]]]]')
    ... except ValueError as error:
    ...     print(error)
    expected objects and arrays nested at most 3 deep, got deeper ones
    """
    if len(payload) > MAX_COMMAND_BYTES:
        raise _Unreadable(
            f"expected a command of at most {MAX_COMMAND_BYTES} bytes, got {len(payload)} bytes"
        )
    try:
        value = json.loads(
            payload, parse_int=_integer, parse_float=_decimal, parse_constant=_constant
        )
    except _Unreadable:
        raise
    except RecursionError:  # deeper than the parser itself goes
        raise _Unreadable(
            f"expected objects and arrays nested at most {MAX_NESTING} deep, got deeper ones"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _Unreadable(f"expected a JSON object, got {payload[:60]!r}: {error}") from None
    if _checked_depth(value) > MAX_NESTING:
        raise _Unreadable(
            f"expected objects and arrays nested at most {MAX_NESTING} deep, got deeper ones"
        )
    return value


#: what each field of a command's envelope must be, for a refusal that says so
_ENVELOPE = {
    "v": "1 (the command format's version)",
    "id": "a correlation id of 1 to 64 characters",
    "command": "a command's name of 1 to 40 characters (such as place_bet)",
    "by": "the pit manager's name, of at most 40 characters",
}


def _envelope_error(loc: tuple[int | str, ...], raw: dict[str, Any]) -> str:
    """One envelope field's refusal: what it must be, and what arrived."""
    field = str(loc[0]) if loc else ""
    if field not in raw:
        got = "nothing"
    else:
        got = repr(raw[field])
        got = got if len(got) <= 70 else got[:69] + "…"
    return f"{field or '(message)'}: expected {_ENVELOPE.get(field, 'a valid value')}; got {got}"


#: the roles that send commands over MQTT, in words
_WHO = {"seat": "seat", "dealer": "dealer", "pit": "pit manager"}
_SENDERS = frozenset(_WHO)


def commands_of(role: str) -> list[str]:
    """The commands ``role`` may send, in the order the table documents them.

    >>> commands_of("seat")[:3]
    ['place_bet', 'undo_bet', 'clear_bets']
    """
    return [kind for kind, cls in EVENT_TYPES.items() if role in ROLES.get(cls, frozenset())]


def parse_command(sender: Sender, payload: bytes) -> tuple[str, Event]:
    """A command payload from ``sender`` → (correlation id, event); raises CommandRejected.

    >>> cid, event = parse_command(Sender("seat", "3"),
    ...     b'{"v": 1, "id": "c1", "command": "decide", "hand": "player", "option": "check"}')
    >>> cid, event.actor, event.seat
    ('c1', 'seat:3', 'seat:3')
    """
    try:
        raw = read_json(payload)
    except ValueError as error:
        raise CommandRejected("", "", str(error)) from None
    if not isinstance(raw, dict):
        raise CommandRejected("", "", f"expected a JSON object, got {type(raw).__name__}")
    command_id = str(raw.get("id", ""))[:64]
    name = str(raw.get("command", ""))[:40]
    try:
        command = Command.model_validate(raw)
    except ValidationError as error:
        reasons = "; ".join(_envelope_error(e["loc"], raw) for e in error.errors())
        raise CommandRejected(command_id, name, reasons) from None
    if sender.role == "seat":
        actor = f"seat:{sender.seat}"
    elif sender.role == "pit":
        actor = f"pit:{command.by or 'pit'}"
    else:
        actor = sender.role
    doc: dict[str, Any] = dict(command.model_extra or {})
    if "actor" in doc or "kind" in doc:
        raise CommandRejected(
            command.id,
            command.command,
            "the fields 'actor' and 'kind' come from the topic and 'command'",
        )
    if sender.role == "seat":
        claimed = doc.get("seat", actor)
        if claimed not in (actor, sender.seat):
            raise CommandRejected(command.id, command.command, f"{actor} may not act for {claimed}")
        if "seat" in doc or command.command in _SEAT_FIELD:
            doc["seat"] = actor
    kind = EVENT_TYPES.get(command.command)
    allowed = ROLES.get(kind, frozenset()) & _SENDERS if kind is not None else frozenset()
    if sender.role not in allowed:
        mine = ", ".join(commands_of(sender.role))
        expected = f"expected a command the {_WHO[sender.role]} may send ({mine})"
        if not allowed:  # no console sends it (a card, a timer's tick) or no such command
            raise CommandRejected(
                command.id, command.command, f"{expected}; got {command.command!r}"
            )
        only = " and the ".join(_WHO[role] for role in sorted(allowed))
        raise CommandRejected(
            command.id,
            command.command,
            f"{expected}; got {command.command}, which only the {only} may send",
        )
    try:
        event = event_from_json({"kind": command.command, "actor": actor, **doc})
    except MalformedEvent as error:
        raise CommandRejected(command.id, command.command, str(error)) from None
    except (TypeError, ValueError, ArithmeticError) as error:  # a reader's own complaint
        raise CommandRejected(
            command.id, command.command, f"{command.command}: a field could not be read: {error}"
        ) from None
    return command.id, event
