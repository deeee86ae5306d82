"""Topics, command parsing and the exported payload schemas."""

from pathlib import Path

import pytest

from controller.events import Decide, PlaceBet
from controller.inbound import CommandRejected, parse_command
from controller.topics import Sender, Topics
from tablectl.commands.topics import schemas

DOCS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def test_the_exported_schemas_are_current() -> None:
    for name, text in schemas().items():
        path = DOCS / name
        assert path.exists(), f"{path} missing: run tablectl topics --schemas docs/schemas"
        assert path.read_text() == text, (
            f"{name} is stale: run tablectl topics --schemas docs/schemas"
        )


def test_command_topics_name_their_sender() -> None:
    t = Topics("T9")
    assert t.sender_of(t.dealer.cmd) == Sender("dealer")
    assert t.sender_of(t.pit.cmd) == Sender("pit")
    assert t.sender_of(t.seat("4").cmd) == Sender("seat", "4")
    assert t.sender_of("tablectl/T8/seat/4/cmd") is None  # another table
    assert t.sender_of(t.seat("4").state) is None
    assert t.presence_of(t.seat("4").presence) == "4"


def test_a_seat_command_speaks_for_its_own_seat() -> None:
    command_id, event = parse_command(
        Sender("seat", "2"),
        b'{"v":1,"id":"a","command":"place_bet","hand":"player","spot":"ante","amount":"10"}',
    )
    assert (
        command_id == "a"
        and isinstance(event, PlaceBet)
        and event.seat == "seat:2"
        and event.actor == "seat:2"
    )
    _, decide = parse_command(
        Sender("seat", "2"), b'{"v":1,"id":"b","command":"decide","hand":"player","option":"x"}'
    )
    assert isinstance(decide, Decide) and decide.seat == "seat:2"


@pytest.mark.parametrize(
    ("sender", "payload", "reason"),
    [
        (Sender("seat", "2"), b"[1, 2]", "expected a JSON object, got list"),
        (
            Sender("seat", "2"),
            b'{"v": 2, "id": "a", "command": "decide"}',
            "v: expected 1 (the command format's version); got 2",
        ),
        (
            Sender("seat", "2"),
            b'{"v": 1, "command": "decide"}',
            "id: expected a correlation id of 1 to 64 characters; got nothing",
        ),
        (
            Sender("seat", "2"),
            b'{"v":1,"id":"a","command":"place_bet","hand":"player",'
            b'"seat":"seat:3","spot":"ante","amount":"1"}',
            "may not act for",
        ),
        (
            Sender("seat", "2"),
            b'{"v":1,"id":"a","command":"open_table"}',
            "which only the pit manager may send",
        ),
        (
            Sender("dealer"),
            b'{"v":1,"id":"a","command":"card_drawn","card":"AS"}',
            "may send (start_round, place_bet",
        ),
        (Sender("dealer"), b'{"v":1,"id":"a","command":"fly"}', "got 'fly'"),
        (
            Sender("dealer"),
            b'{"v":1,"id":"a","command":"start_round","actor":"pit:x"}',
            "come from the topic",
        ),
        (
            Sender("pit"),
            b'{"v":1,"id":"a","command":"correct_card","position":"box 1"}',
            "lacks the field",
        ),
    ],
)
def test_bad_commands_are_rejected_with_the_reason(
    sender: Sender, payload: bytes, reason: str
) -> None:
    with pytest.raises(CommandRejected) as caught:
        parse_command(sender, payload)
    assert reason in str(caught.value)
