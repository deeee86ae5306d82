import json

from controller.cards import Card
from drivers.shoe import events as ev
from drivers.shoe.events import EventKind, ShoeEvent, must_halt

SAMPLES: list[ShoeEvent] = [
    ev.CardRead(Card.parse("AS"), record=1, quality=99),
    ev.ReadFailed("card not read"),
    ev.Alarm("E3", "Card Not Read"),
    ev.ShoeWarning("0x01"),
    ev.Hello("SN1", "M", "1.0", 3),
    ev.Rebooted("SN1", "boot counter changed", 3, 4, 17),
    ev.ShoeEmpty(9),
    ev.DeckLoaded("red-1", 2),
    ev.Heartbeat(1000, 0),
    ev.SequenceGap("SN1", expected=4, received=7),
    ev.DuplicateCard(Card.parse("2C"), 1, 5, "red-1"),
    ev.DuplicateDropped("SN1", 4),
    ev.UnknownTag("04AB"),
    ev.CorruptMessage("bad CRC", "a5 5a", recoverable=True),
    ev.Noise(3),
    ev.DebugLine("hi"),
    ev.Connected("/dev/ttyUSB0"),
    ev.Disconnected("/dev/ttyUSB0", "unplugged"),
]

HALTING = {
    "read_failed",
    "alarm",
    "rebooted",
    "sequence_gap",
    "duplicate_card",
    "unknown_tag",
    "disconnected",
}


def test_one_event_class_per_kind_each_with_a_json_form() -> None:
    assert sorted(e.kind.value for e in SAMPLES) == sorted(k.value for k in EventKind)
    for event in SAMPLES:
        doc = json.loads(json.dumps(event.to_dict()))
        assert doc["event"] == event.kind.value
    assert SAMPLES[0].to_dict()["card"] == "AS"
    assert SAMPLES[9].to_dict()["missing"] == [4, 5, 6]


def test_what_halts_the_table() -> None:
    assert {e.kind.value for e in SAMPLES if must_halt(e)} == HALTING
    assert must_halt(ev.CorruptMessage("damaged token"))
    assert not must_halt(ev.CorruptMessage("bad CRC", recoverable=True))


def test_every_halting_event_says_why_in_words_never_in_json() -> None:
    """The table's halt reason is the event's ``message``: one line a pit manager can act on."""
    for event in SAMPLES:
        if not must_halt(event):
            continue
        message = event.message  # type: ignore[attr-defined]
        assert isinstance(message, str) and message and "{" not in message, event
    assert ev.DuplicateCard(Card.parse("QC"), 2, 23, "red-4").message == (
        "QC came out of deck red-4 twice, with no new deck loaded between: "
        "as its card 2, and again as its card 23"
    )
    assert ev.ReadFailed("no tag", record=7, device="r1").message == (
        "a card passed the reader unread: no tag (r1, message 7)"
    )
    damaged = ev.CorruptMessage("damaged token", "x" * 200)
    assert must_halt(damaged) and len(damaged.message) < 150
