import json

import pytest

from controller.cards import Card
from controller.errors import ProtocolError
from drivers.shoe.deckmap import demo_deck_map, load_deck_map, parse_deck_map
from drivers.shoe.events import (
    CardRead,
    CorruptMessage,
    DuplicateDropped,
    Rebooted,
    SequenceGap,
    UnknownTag,
    must_halt,
)
from drivers.shoe.jsonl import JsonlCodec, format_jsonl
from tests.drivers.shoe_support import ARRIVALS, feed_all, kinds

C = Card.parse
DECK = parse_deck_map("deck test\n04A1 AS\n04A2 KD\n04A3 10h\n04A4 2c\n")


def line(kind: str, seq: int, device: str = "r1", **extra: object) -> bytes:
    return format_jsonl({"type": kind, "seq": seq, "device_id": device, **extra})


STREAM = b"".join(
    [
        b"# reader starting\n",
        line("boot", 1, fw_version="1.4.2"),
        line("card", 2, uid="04A1"),
        line("card", 3, uid="04:a2"),
        b"# antenna 2 ok\r\n",
        line("error", 4, error="read_failed", detail="no tag"),
        line("error", 5, error="antenna", detail="antenna 2 open"),
        line("card", 6, uid="04A3"),
    ]
)


@pytest.mark.parametrize("arrival", ARRIVALS)
def test_boot_cards_errors_and_debug_lines(arrival: str) -> None:
    codec = JsonlCodec(DECK)
    events = feed_all(codec, STREAM, arrival, now=10.0)
    assert kinds(events) == [
        "debug",
        "hello",
        "card",
        "card",
        "debug",
        "read_failed",
        "alarm",
        "card",
    ]
    cards = [e for e in events if isinstance(e, CardRead)]
    assert [(c.card, c.record, c.device) for c in cards] == [
        (C("AS"), 2, "r1"),
        (C("KD"), 3, "r1"),
        (C("TH"), 6, "r1"),
    ]
    assert events[1].to_dict()["firmware"] == "1.4.2"


GARBLED = [
    ("not json", b"{type: card}\n", ["corrupt"]),
    ("no seq", b'{"type":"card","device_id":"r1","uid":"04A2"}\n', ["corrupt"]),
    ("bad type", b'{"type":"cart","seq":3,"device_id":"r1"}\n', ["corrupt"]),
    ("not an object", b"[1, 2]\n", ["noise"]),
    ("non-ascii byte", b'{"type":"card","seq":3,"device_id":"r1","uid":"04\xa2"}\n', ["corrupt"]),
    ("noise line", b"\x07\x13zz\n", ["noise"]),
    ("blank line", b"\r\n\n", []),
]


@pytest.mark.parametrize(("name", "garbage", "expected"), GARBLED, ids=[g[0] for g in GARBLED])
@pytest.mark.parametrize("arrival", ARRIVALS)
def test_garbled_lines_are_reported_never_a_card(
    name: str, garbage: bytes, expected: list[str], arrival: str
) -> None:
    codec = JsonlCodec(DECK)
    codec.feed(line("boot", 1) + line("card", 2, uid="04A1"))
    events = feed_all(codec, garbage + line("card", 3, uid="04A2"), arrival)
    assert kinds(events) == [*expected, "card"]
    assert all(must_halt(e) for e in events if e.kind.value == "corrupt")


def test_noise_before_an_object_is_skipped_and_the_object_read() -> None:
    codec = JsonlCodec(DECK)
    events = codec.feed(b"\x13$%" + line("card", 1, uid="04A4"))
    assert kinds(events) == ["noise", "card"]


def test_repeated_lines_are_dropped_and_gaps_named() -> None:
    codec = JsonlCodec(DECK)
    events = codec.feed(
        line("boot", 1) + line("card", 2, uid="04A1") + line("card", 2, uid="04A1")
        + line("card", 5, uid="04A2")
    )  # fmt: skip
    assert kinds(events) == ["hello", "card", "duplicate_dropped", "sequence_gap", "card"]
    gap = events[3]
    assert isinstance(gap, SequenceGap) and gap.missing == (3, 4) and gap.device == "r1"


def test_a_boot_message_mid_shoe_is_a_reboot() -> None:
    codec = JsonlCodec(DECK)
    codec.feed(line("boot", 1) + line("card", 2, uid="04A1"))
    events = codec.feed(line("boot", 1, fw_version="1.5") + line("card", 2, uid="04A2"))
    assert kinds(events) == ["rebooted", "hello", "card"]
    assert isinstance(events[0], Rebooted) and events[0].last_record == 2


def test_the_same_boot_line_twice_is_two_boots() -> None:
    codec = JsonlCodec(DECK)
    events = codec.feed(line("boot", 1, fw_version="1") + line("boot", 1, fw_version="1"))
    assert kinds(events) == ["hello", "rebooted", "hello"]


def test_a_sequence_that_restarts_without_a_boot_message_halts() -> None:
    codec = JsonlCodec(DECK)
    codec.feed(line("boot", 1) + line("card", 2, uid="04A1") + line("card", 3, uid="04A2"))
    events = codec.feed(line("card", 2, uid="04A3"))
    assert kinds(events) == ["rebooted", "sequence_gap", "card"]
    assert events[1].missing == (1,)  # type: ignore[attr-defined]


def test_devices_count_their_own_sequences() -> None:
    codec = JsonlCodec(DECK)
    events = codec.feed(
        line("card", 1, "a", uid="04A1") + line("card", 1, "b", uid="04A2")
        + line("card", 2, "a", uid="04A3")
    )  # fmt: skip
    assert kinds(events) == ["card", "card", "card"]


def test_a_tag_read_again_under_a_new_seq_is_a_card_however_soon() -> None:
    """The reader numbers each read; a tag read again under a new ``seq`` (a reshuffled card
    dealt again, a card slid back over the antenna) is a new read, never dropped here: the
    table judges it, knowing the round in play."""
    codec = JsonlCodec(DECK)
    assert kinds(codec.feed(line("card", 1, uid="04A1"), now=5.0)) == ["card"]
    for seq, now in ((2, 5.001), (3, 5.2), (4, 8.0)):
        events = codec.feed(line("card", seq, uid="04A1"), now=now)
        assert [(e.card, e.record) for e in events] == [(C("AS"), seq)]  # type: ignore[attr-defined]
    assert codec.stats.cards == 4 and codec.stats.duplicates == 0


@pytest.mark.parametrize("arrival", ARRIVALS)
def test_only_a_line_repeated_with_its_seq_is_dropped_and_each_drop_is_counted(
    arrival: str,
) -> None:
    """Provably the same read: the same device, ``seq`` and content, straight after itself
    (whatever the spacing or key order of the copy). Every drop is an event and a count."""
    codec = JsonlCodec(DECK)
    again = b'{"uid": "04A1", "device_id": "r1", "seq": 2, "type": "card"}\n'
    stream = line("boot", 1) + line("card", 2, uid="04A1") + again + line("card", 2, uid="04A1")
    stream += line("card", 3, uid="04A1") + line("card", 2, "r2", uid="04A1")
    events = feed_all(codec, stream, arrival)
    assert kinds(events) == ["hello", "card", "duplicate_dropped", "duplicate_dropped", "card",
                             "card"]  # fmt: skip
    dropped = [e for e in events if isinstance(e, DuplicateDropped)]
    assert [(d.device, d.record) for d in dropped] == [("r1", 2), ("r1", 2)]
    assert not any(must_halt(e) for e in events)
    assert codec.stats.duplicates == 2 and codec.stats.cards == 3


def test_the_same_seq_with_another_tag_is_a_contradiction_that_halts() -> None:
    codec = JsonlCodec(DECK)
    codec.feed(line("boot", 1) + line("card", 2, uid="04A1"))
    events = codec.feed(line("card", 2, uid="04A2"))
    assert kinds(events) == ["corrupt"]
    corrupt = events[0]
    assert isinstance(corrupt, CorruptMessage) and must_halt(corrupt)
    assert "r1 sent seq 2 twice with other content: first card 04A1, then card 04A2" in (
        corrupt.message
    )
    assert codec.stats.duplicates == 0 and codec.stats.corrupt == 1
    assert kinds(codec.feed(line("card", 3, uid="04A2"))) == ["card"]


def test_an_unknown_tag_halts() -> None:
    events = JsonlCodec(DECK).feed(line("card", 1, uid="DEADBEEF"))
    assert isinstance(events[0], UnknownTag) and events[0].uid == "DEADBEEF"
    assert must_halt(events[0])


def test_endless_line_is_bounded() -> None:
    codec = JsonlCodec(DECK)
    events = codec.feed(b"{" + b"x" * 5000)
    assert kinds(events) == ["corrupt"]
    assert kinds(codec.feed(b"\n" + line("card", 1, uid="04A1")))[-1] == "card"


def test_deck_map_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    demo = demo_deck_map("house-3")
    path = tmp_path / "deck.txt"
    path.write_text(demo.to_text())
    loaded = load_deck_map(path)
    assert loaded == demo and len(loaded) == 52 and loaded.deck_id == "house-3"
    assert JsonlCodec(loaded).feed(line("card", 1, uid=demo.uid_for(C("9S"))))[0].card == C("9S")  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("04A1 AS\n04A1 KD", "tag 04A1 is listed twice"),
        ("04A1 AS KD", "expected 'UID CARD'"),
        ("ZZ AS", "not hexadecimal"),
        ("04A1 1S", "bad card code"),
        ("# nothing", "no 'UID CARD' lines"),
    ],
)
def test_deck_map_errors_say_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        parse_deck_map(text)
    with pytest.raises(
        ProtocolError, match=r"deck map .*deck\.txt.: expected a file, found nothing"
    ):
        load_deck_map("/nonexistent/deck.txt")


def test_json_round_trip_of_every_event_kind() -> None:
    codec = JsonlCodec(DECK)
    for event in codec.feed(STREAM):
        assert json.loads(json.dumps(event.to_dict()))["event"] == event.kind.value
