"""No payload on a command topic gets past the reader as anything but an event or a refusal.

Any seat may write its own command topic, so whatever bytes arrive there, :func:`parse_command`
either returns an event or raises :class:`CommandRejected` with a reason: never another
exception, which would reach the table's thread.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.events import PlaceBet
from controller.inbound import (
    MAX_COMMAND_BYTES,
    MAX_NESTING,
    MAX_NUMBER_CHARS,
    CommandRejected,
    parse_command,
)
from controller.topics import Sender

SEAT = Sender("seat", "3")
SENDERS = [SEAT, Sender("dealer", ""), Sender("pit", "")]


def bet(**fields: object) -> bytes:
    doc = {"v": 1, "id": "c1", "command": "place_bet", "hand": "player", "spot": "ante"}
    return json.dumps({**doc, **fields}).encode()


def raw_bet(amount: str) -> bytes:
    head = b'{"v": 1, "id": "c1", "command": "place_bet", "hand": "player", "spot": "ante", '
    return head + b'"amount": ' + amount.encode() + b"}"


#: (what it is, payload, a phrase the refusal must hold)
HOSTILE = [
    ("a 5,000-digit amount", raw_bet("9" * 5000), f"at most {MAX_COMMAND_BYTES} bytes"),
    ("a 100-digit amount", raw_bet("9" * 100), f"at most {MAX_NUMBER_CHARS} characters"),
    ("100,000 open brackets", b"[" * 100_000, f"at most {MAX_COMMAND_BYTES} bytes"),
    ("4,000 open brackets", b"[" * 4000, f"at most {MAX_NESTING} deep"),
    ("nested objects", bet(extra={"a": {"b": {"c": 1}}}), f"at most {MAX_NESTING} deep"),
    ("an exponent", raw_bet("1e308"), "plain decimal number"),
    ("an overflowing exponent", raw_bet("1e999"), "plain decimal number"),
    ("NaN", raw_bet("NaN"), "expected a number, got NaN"),
    ("Infinity", raw_bet("-Infinity"), "expected a number, got -Infinity"),
    ("a megabyte", bet(note="x" * 1_000_000), f"at most {MAX_COMMAND_BYTES} bytes"),
    ("not JSON", b"place a bet please", "expected a JSON object"),
    ("not UTF-8", b'{"id": "\xff\xfe"}', "expected a JSON object"),
    ("an array", b"[1, 2]", "expected a JSON object"),
    ("a bare string", b'"place_bet"', "expected a JSON object"),
    ("null", b"null", "expected a JSON object"),
    ("an empty payload", b"", "expected a JSON object"),
    ("a truncated object", bet()[:-5], "expected a JSON object"),
    ("an unknown command", bet(command="steal_chips"), "the seat may send (place_bet, undo_bet"),
    ("a card from a seat", bet(command="card_drawn"), "; got 'card_drawn'"),
    ("no command", b'{"v": 1, "id": "c1"}', "command: expected a command's name"),
    ("no id", b'{"v": 1, "command": "decide"}', "id: expected a correlation id of 1 to 64"),
    ("an exponent in text", bet(amount="1e999999999"), "an amount such as 25 or 12.5; got"),
    ("a negative amount", bet(amount=-5), "an amount such as 25 or 12.5; got"),
    ("words for an amount", bet(amount="a lot"), "an amount such as 25 or 12.5; got"),
    ("a boolean amount", bet(amount=True), "an amount such as 25 or 12.5; got"),
    ("a list for an amount", bet(amount=[1]), "amount"),
    ("an object for an amount", bet(amount={"a": 1}), "amount"),
    ("a list for a hand", bet(amount=5, hand=["x"]), "hand"),
    ("a number for an id", bet(id=5, amount=5), "id: expected a correlation id"),
    ("a lone surrogate", raw_bet('5, "by": "\\ud800"'), "lone surrogate"),
    ("a lone surrogate as a key", raw_bet('5, "\\udc00": 1'), "lone surrogate"),
    ("another seat", bet(amount=5, seat="seat:4"), "may not act for seat:4"),
    ("the actor field", bet(amount=5, actor="pit"), "'actor' and 'kind'"),
    ("a wrong version", bet(v=2, amount=5), "v: expected 1 (the command format's version); got 2"),
    ("a pit command from a seat", bet(command="void_round"), "only the pit manager may send"),
]


@pytest.mark.parametrize(("what", "payload", "phrase"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_every_hostile_kind_is_refused_with_its_reason(
    what: str, payload: bytes, phrase: str
) -> None:
    with pytest.raises(CommandRejected) as refused:
        parse_command(SEAT, payload)
    assert phrase in str(refused.value), what


def test_a_plain_bet_still_reads() -> None:
    command_id, event = parse_command(SEAT, bet(amount="12.5"))
    assert command_id == "c1"
    assert isinstance(event, PlaceBet)
    assert event.amount == Fraction(25, 2)


def _refused_or_read(sender: Sender, payload: bytes) -> None:
    try:
        parse_command(sender, payload)
    except CommandRejected as refusal:
        assert str(refusal)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SENDERS), st.binary(max_size=600))
def test_any_bytes_are_read_or_refused(sender: Sender, payload: bytes) -> None:
    _refused_or_read(sender, payload)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    ["id", "command", "hand", "spot", "amount", "option", "seat", "by", "actor", "v", "dark"]
)
COMMANDS = st.sampled_from(
    ["place_bet", "decide", "undo_bet", "rebet", "double", "void_round", "resume", "open_table"]
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SENDERS),
    COMMANDS,
    st.dictionaries(FIELDS | st.text(max_size=8), JSON, max_size=6),
)
def test_any_json_command_is_read_or_refused(
    sender: Sender, command: str, fields: dict[str, object]
) -> None:
    doc = {"v": 1, "id": "c1", "command": command, **fields}
    _refused_or_read(sender, json.dumps(doc).encode())
