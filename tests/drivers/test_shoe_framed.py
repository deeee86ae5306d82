import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cards import Card
from drivers.shoe.events import (
    CardRead,
    CorruptMessage,
    DuplicateCard,
    DuplicateDropped,
    ReadFailed,
    Rebooted,
    SequenceGap,
    must_halt,
)
from drivers.shoe.framed import (
    ErrorCode,
    FramedHostCodec,
    FrameSplitter,
    MessageType,
    ack_payload,
    card_payload,
    crc16_ccitt,
    deck_payload,
    encode_frame,
    error_payload,
    heartbeat_payload,
    hello_payload,
    record_payload,
)
from tests.drivers.shoe_support import ARRIVALS, feed_all, kinds, pieces

C = Card.parse


def hello(record: int = 1, boot: int = 1) -> bytes:
    return encode_frame(record, MessageType.HELLO, hello_payload(record, boot, "M1", "SN9", "2.1"))


def card(record: int, code: str, quality: int = 90) -> bytes:
    return encode_frame(record, MessageType.CARD, card_payload(record, C(code), quality))


def session() -> bytes:
    return b"".join(
        [
            hello(1),
            encode_frame(2, MessageType.DECK_LOADED, deck_payload(2, "red-7")),
            card(3, "AS"),
            card(4, "TD", 55),
            encode_frame(5, MessageType.ERROR, error_payload(5, ErrorCode.UNREADABLE, "smudge")),
            encode_frame(6, MessageType.HEARTBEAT, heartbeat_payload(1234, 0)),
            encode_frame(7, MessageType.ERROR, error_payload(6, ErrorCode.JAM, "gate")),
            card(7, "2C"),
            encode_frame(9, MessageType.EMPTY, record_payload(8)),
        ]
    )


def test_crc_is_ccitt_false() -> None:
    assert crc16_ccitt(b"123456789") == 0x29B1
    assert crc16_ccitt(b"") == 0xFFFF


def _crc_bit_by_bit(data: bytes) -> int:
    """CRC-16/CCITT-FALSE as its definition states it, one bit at a time."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


@given(st.binary(max_size=80))
def test_crc_matches_its_definition_on_any_bytes(data: bytes) -> None:
    assert crc16_ccitt(data) == _crc_bit_by_bit(data)
    assert crc16_ccitt(memoryview(data)) == _crc_bit_by_bit(data)


@pytest.mark.parametrize("arrival", ARRIVALS)
def test_a_session_decodes_the_same_however_it_arrives(arrival: str) -> None:
    codec = FramedHostCodec()
    events = feed_all(codec, session(), arrival)
    assert kinds(events) == [
        "hello",
        "deck_loaded",
        "card",
        "card",
        "read_failed",
        "heartbeat",
        "alarm",
        "card",
        "empty",
    ]
    cards = [e for e in events if isinstance(e, CardRead)]
    assert [(c.card, c.record, c.quality, c.device) for c in cards] == [
        (C("AS"), 3, 90, "SN9"),
        (C("TD"), 4, 55, "SN9"),
        (C("2C"), 7, 90, "SN9"),
    ]
    failed = next(e for e in events if isinstance(e, ReadFailed))
    assert failed.reason == "smudge" and failed.record == 5 and must_halt(failed)
    assert codec.boot == 1 and codec.device == "SN9"
    # every record is acknowledged, heartbeats are not
    acks = FrameSplitter().feed(codec.take_output())
    assert [int.from_bytes(f.payload, "big") for f in acks] == [1, 2, 3, 4, 5, 6, 7, 8]  # type: ignore[union-attr]


@pytest.mark.parametrize("arrival", ARRIVALS)
def test_resent_records_are_dropped_by_number_and_acknowledged_again(arrival: str) -> None:
    codec = FramedHostCodec()
    data = hello(1) + card(2, "AS") + card(2, "AS") + card(3, "KD") + card(2, "AS")
    events = feed_all(codec, data, arrival)
    assert kinds(events) == ["hello", "card", "duplicate_dropped", "card", "duplicate_dropped"]
    assert isinstance(events[2], DuplicateDropped) and events[2].record == 2
    assert len(FrameSplitter().feed(codec.take_output())) == 5


def test_a_jump_in_records_names_the_missing_ones() -> None:
    codec = FramedHostCodec()
    events = codec.feed(hello(1) + card(2, "AS") + card(5, "KD"))
    gap = next(e for e in events if isinstance(e, SequenceGap))
    assert gap.missing == (3, 4) and gap.expected == 3 and gap.received == 5
    assert must_halt(gap) and "3-4 never arrived" in gap.message
    assert kinds(events) == ["hello", "card", "sequence_gap", "card"]


def test_record_numbers_wrap_without_a_gap() -> None:
    codec = FramedHostCodec()
    codec.feed(hello(1))
    codec.last_record = 65534
    events = codec.feed(card(65535, "AS") + card(1, "KD"))
    assert kinds(events) == ["card", "card"]


def test_a_new_boot_counter_is_a_reboot() -> None:
    codec = FramedHostCodec()
    codec.feed(hello(1, boot=4) + card(2, "AS") + card(3, "KD"))
    events = codec.feed(hello(1, boot=5) + card(2, "QH"))
    assert kinds(events) == ["rebooted", "hello", "card"]
    reboot = events[0]
    assert isinstance(reboot, Rebooted) and (reboot.previous_boot, reboot.boot) == (4, 5)
    assert reboot.last_record == 3 and must_halt(reboot)


def test_a_record_repeated_with_other_content_is_refused() -> None:
    codec = FramedHostCodec()
    events = codec.feed(hello(1) + card(2, "AS") + card(2, "KD"))
    assert kinds(events) == ["hello", "card", "corrupt"]
    assert must_halt(events[-1])


def test_the_same_card_twice_in_a_deck_halts_and_a_new_deck_clears_it() -> None:
    codec = FramedHostCodec()
    events = codec.feed(hello(1) + card(2, "AS") + card(3, "AS"))
    duplicate = events[-1]
    assert isinstance(duplicate, DuplicateCard) and duplicate.card == C("AS")
    assert (duplicate.first_position, duplicate.position) == (1, 2) and must_halt(duplicate)
    events = codec.feed(
        encode_frame(4, MessageType.DECK_LOADED, deck_payload(4, "blue")) + card(5, "AS")
    )
    assert kinds(events) == ["deck_loaded", "card"]
    events = codec.feed(card(6, "KD") + card(7, "AS"))
    assert kinds(events) == ["card", "duplicate_card"]
    assert "AS came out of deck blue twice" in events[-1].message  # type: ignore[attr-defined]
    assert "as its card 1, and again as its card 3" in events[-1].message  # type: ignore[attr-defined]


def test_only_the_shoes_deck_loaded_starts_a_deck_never_a_count_of_cards() -> None:
    """A deck is what the shoe says it loaded: 60 cards of one deck still hold each card once
    (no window of 52 that rolls over and forgets), and each DECK_LOADED starts afresh."""
    codec = FramedHostCodec()
    order = [Card(i) for i in range(52)]
    stream = hello(1) + encode_frame(2, MessageType.DECK_LOADED, deck_payload(2, "d1"))
    stream += b"".join(card(3 + i, c.code) for i, c in enumerate(order))
    stream += card(55, order[0].code)  # the 53rd card of one deck: provably a repeat
    events = codec.feed(stream)
    assert kinds(events)[-1] == "duplicate_card" and kinds(events).count("card") == 52
    for n in range(5):  # deck after deck, the same order: never a repeat
        record = 56 + n * 53
        stream = encode_frame(record & 0xFF, MessageType.DECK_LOADED,
                              deck_payload(record, f"d{n + 2}"))  # fmt: skip
        stream += b"".join(card(record + 1 + i, c.code) for i, c in enumerate(order))
        assert kinds(codec.feed(stream)) == ["deck_loaded"] + ["card"] * 52


def test_every_single_bit_error_is_caught_and_the_resent_frame_is_taken_once() -> None:
    good = card(2, "7H")
    tail = b"".join(
        encode_frame(9, MessageType.HEARTBEAT, heartbeat_payload(1, 0)) for _ in range(8)
    )
    for at in range(len(good)):
        for bit in range(8):
            damaged = bytearray(good)
            damaged[at] ^= 1 << bit
            codec = FramedHostCodec()
            codec.feed(hello(1))
            events = codec.feed(bytes(damaged) + good + tail)
            cards = [e.card for e in events if isinstance(e, CardRead)]
            assert cards == [C("7H")], (at, bit, events)
            assert not any(must_halt(e) for e in events), (at, bit, events)


GARBLED = [
    ("noise only", b"\x00\xff\x13garbage", []),
    ("a lone sync", b"\xa5\x5a", []),
    ("length too big", b"\xa5\x5a\xff\x01\x02", []),
    ("truncated frame then a good one", card(2, "AS")[:6], ["card"]),
    ("bad crc", card(2, "AS")[:-1] + b"\x00", ["card"]),
    ("unknown type", encode_frame(3, 0x33, b"\x00\x02"), ["card"]),
    ("short hello", encode_frame(3, MessageType.HELLO, b"\x00"), ["card"]),
]


@pytest.mark.parametrize(("name", "garbage", "expected"), GARBLED, ids=[g[0] for g in GARBLED])
@pytest.mark.parametrize("arrival", ARRIVALS)
def test_garbled_input_never_becomes_a_card(
    name: str, garbage: bytes, expected: list[str], arrival: str
) -> None:
    codec = FramedHostCodec()
    codec.feed(hello(1))
    events = feed_all(codec, garbage + card(2, "AS") + card(3, "KD"), arrival)
    cards = [e.card for e in events if isinstance(e, CardRead)]
    assert cards == [C("AS"), C("KD")]
    bad = [e for e in events if isinstance(e, CorruptMessage)]
    if name in ("unknown type", "short hello"):
        assert bad and all(must_halt(e) for e in bad)


def test_a_card_number_out_of_range_is_refused() -> None:
    codec = FramedHostCodec()
    events = codec.feed(
        hello(1) + encode_frame(2, MessageType.CARD, record_payload(2, b"\x3c\x50"))
    )
    assert kinds(events) == ["hello", "corrupt"] and must_halt(events[-1])
    assert "card number 60" in events[-1].reason  # type: ignore[attr-defined]


def test_random_noise_between_frames_loses_and_invents_nothing() -> None:
    rng = random.Random(5)
    deck = [Card(i) for i in range(52)]
    rng.shuffle(deck)
    stream = bytearray(hello(1))
    for record, c in enumerate(deck, start=2):
        stream += bytes(rng.randrange(256) for _ in range(rng.randrange(0, 30)))
        stream += encode_frame(record, MessageType.CARD, card_payload(record, c, 99))
    codec = FramedHostCodec()
    events = []
    for piece in pieces(bytes(stream), "halves"):
        events.extend(codec.feed(piece))
    assert [e.card for e in events if isinstance(e, CardRead)] == deck
    assert not any(must_halt(e) for e in events)


def test_host_commands_are_frames_the_shoe_can_read() -> None:
    codec = FramedHostCodec()
    frames = FrameSplitter().feed(
        codec.command(MessageType.LOCK) + codec.command(MessageType.IDENTIFY)
    )
    assert [f.type for f in frames] == [MessageType.LOCK, MessageType.IDENTIFY]  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="not a host command"):
        codec.command(MessageType.ACK)
    assert encode_frame(1, MessageType.ACK, ack_payload(3))[5:7] == b"\x00\x03"


def test_a_host_resumed_from_its_journal_drops_what_the_shoe_resends() -> None:
    first = FramedHostCodec()
    taken = [
        e
        for e in first.feed(hello(1, boot=5) + card(2, "AS") + card(3, "KD"))
        if isinstance(e, CardRead)
    ]
    assert [(e.card, e.record, e.boot) for e in taken] == [(C("AS"), 2, 5), (C("KD"), 3, 5)]
    # the host died after journaling KD (boot 5, record 3) but before acknowledging it
    host = FramedHostCodec()
    host.resume(5, 3)
    events = host.feed(
        hello(1, boot=5)
        + card(3, "KD")
        + encode_frame(4, MessageType.EMPTY, record_payload(5))
        + card(6, "QH")
    )
    assert [e for e in events if isinstance(e, CardRead)] == [
        CardRead(C("QH"), record=6, quality=90, device="SN9", boot=5)
    ]  # KD is not taken twice; record 4 (acknowledged, no card) leaves no gap
    assert sum(isinstance(e, DuplicateDropped) for e in events) == 2  # its HELLO and KD
    assert not [e for e in events if must_halt(e)]
    acked = [
        int.from_bytes(f.payload, "big")
        for f in FrameSplitter().feed(host.take_output())
        if getattr(f, "type", None) == MessageType.ACK
    ]
    assert acked == [1, 3, 5, 6]  # the resend is acknowledged too: the shoe forgets it


def test_a_shoe_that_rebooted_while_the_host_was_away_starts_afresh() -> None:
    host = FramedHostCodec()
    host.resume(5, 40)
    events = host.feed(hello(1, boot=6) + card(2, "AS"))
    assert any(isinstance(e, Rebooted) for e in events)
    assert [e.card for e in events if isinstance(e, CardRead)] == [C("AS")]  # not a "duplicate"
