"""Hostile input to the card-shoe drivers: the codecs fed directly, and the transport over
real pseudo-terminals. Every damaged message is a refusal in words, never a card; nothing
grows without bound; the read thread never dies of what the wire sends."""

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import Card
from drivers.shoe.deckmap import parse_deck_map
from drivers.shoe.events import (
    CardRead,
    Connected,
    CorruptMessage,
    Disconnected,
    SequenceGap,
    ShoeEvent,
    must_halt,
)
from drivers.shoe.framed import (
    FramedHostCodec,
    FrameSplitter,
    MessageType,
    card_payload,
    deck_payload,
    encode_frame,
    hello_payload,
)
from drivers.shoe.jsonl import JsonlCodec, format_jsonl
from drivers.shoe.transport import SerialTransport
from drivers.shoe.uspc import UspcCodec, format_uspc_card
from tests.drivers.shoe_support import kinds, make_pty, wait_for

C = Card.parse
DECK = parse_deck_map("deck t\n04A1 AS\n04A2 KD\n04A3 TH\n")
MAX_GAP = 32767


def line(kind: str, seq: int, **extra: object) -> bytes:
    return format_jsonl({"type": kind, "seq": seq, "device_id": "r1", **extra})


def cards(events: list[ShoeEvent]) -> list[CardRead]:
    return [e for e in events if isinstance(e, CardRead)]


# -- JSON lines -------------------------------------------------------------------------------


def test_jsonl_a_line_nested_deeper_than_the_parser_goes_is_refused_in_words() -> None:
    codec = JsonlCodec(DECK)
    nested = b'{"a":' + b"[" * 1015 + b"]" * 1015 + b"}\n"
    events = codec.feed(line("boot", 1) + nested + line("card", 2, uid="04A1"))
    assert kinds(events) == ["hello", "corrupt", "card"]
    assert "not one JSON object" in events[1].message  # type: ignore[attr-defined]


@pytest.mark.parametrize("seq", [2**40, 10**15, 5_000_000])
def test_jsonl_a_seq_jumping_absurdly_far_is_refused_not_listed(seq: int) -> None:
    """A digit damaged on a wire without checksum must not name billions of lost messages
    (the list is built in memory, journaled and published): it is refused in words, and the
    reader's count goes on from where it was."""
    codec = JsonlCodec(DECK)
    codec.feed(line("boot", 1) + line("card", 2, uid="04A1"))
    started = time.monotonic()
    events = codec.feed(line("card", seq, uid="04A2"))
    assert time.monotonic() - started < 0.5
    assert kinds(events) == ["corrupt"] and must_halt(events[0])
    message = events[0].message  # type: ignore[attr-defined]
    assert f"seq {seq} after seq 2" in message and f"expected at most {MAX_GAP}" in message
    assert cards(codec.feed(line("card", 3, uid="04A2")))[0].card == C("KD")


def test_jsonl_a_boot_or_a_restart_far_along_is_refused_not_listed() -> None:
    """A boot message, or a seq gone back without one, names the new boot's earlier messages
    as lost: never billions of them."""
    codec = JsonlCodec(DECK)
    events = codec.feed(line("boot", 2**45))
    assert kinds(events) == ["corrupt"] and "seq 35184372088832:" in events[0].message  # type: ignore[attr-defined]
    assert kinds(codec.feed(line("card", 2**41, uid="04A1"))) == ["card"]  # first seen: no gap
    events = codec.feed(line("card", 2**40, uid="04A2"))
    assert kinds(events) == ["corrupt"] and f"after seq {2**41}" in events[0].message  # type: ignore[attr-defined]
    assert kinds(codec.feed(line("card", 2**41 + 1, uid="04A2"))) == ["card"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.integers(min_value=1, max_value=3_000_000), min_size=1, max_size=8))
def test_jsonl_every_gap_named_is_bounded(seqs: list[int]) -> None:
    codec = JsonlCodec(DECK)
    events = codec.feed(line("boot", 1))
    for seq in seqs:
        events += codec.feed(line("card", seq, uid="04A3"))
    for event in events:
        if isinstance(event, SequenceGap):
            assert 0 < len(event.missing) <= MAX_GAP


@pytest.mark.parametrize("chunk", [4096, 700, 1])
def test_jsonl_the_rest_of_an_overlong_line_never_becomes_a_message(chunk: int) -> None:
    """A line past the length limit is refused; what follows of it, up to its newline, is
    skipped, never read as a line of its own (here its tail holds a whole card object)."""
    codec = JsonlCodec(DECK)
    codec.feed(line("boot", 1))
    stream = (
        b'{"type":"card","seq":2,"device_id":"r1","uid":"04A1","pad":"'
        + b"x" * 3000
        + b'","echo":{"type":"card","seq":2,"device_id":"r1","uid":"04A2"}\n'
        + line("card", 2, uid="04A3")
    )
    events: list[ShoeEvent] = []
    for at in range(0, len(stream), chunk):
        events += codec.feed(stream[at : at + chunk])
        assert len(codec._buffer) <= 2048 + chunk
    assert [c.card for c in cards(events)] == [C("TH")]
    assert kinds(events)[0] == "corrupt" and "at most 2048" in events[0].message  # type: ignore[attr-defined]


def test_jsonl_an_endless_line_stays_bounded_and_the_next_line_is_read() -> None:
    codec = JsonlCodec(DECK)
    for _ in range(50):
        codec.feed(b'{"type":"card",' + b"9" * 1000)
        assert len(codec._buffer) <= 2048 + 1015
    assert kinds(codec.feed(b"\n" + line("card", 1, uid="04A1"))) == ["card"]


# -- USPC ASCII -------------------------------------------------------------------------------


BURN = b" [Manual Burn Cards]<Card:H3> "


@pytest.mark.parametrize(
    "damaged",
    [
        b" [Manual B\x85rn Cards]<Card:H3> ",  # a byte that is not ASCII in the tag
        b" [Manual Bu-n Cards]<Card:H3> ",  # a printable byte changed
        b" [Manual Burn Cards<Card:H3> ",  # its ']' lost
        b" xManual Burn Cards]<Card:H3> ",  # its '[' changed
        b" Manual Burn Cards]<Card:H3> ",  # its '[' lost
        b" [Shuffle]<Card:H3> ",  # no mode a card is read in
    ],
)
def test_uspc_a_burn_card_with_a_damaged_mode_tag_is_never_a_card(damaged: bytes) -> None:
    """The table deals a game card and sets a burn card aside: a burn card whose tag was
    damaged, read as a game card, would be dealt to a box."""
    events = UspcCodec().feed(damaged + b" [Game]<Card:2C> ")
    assert [(c.card, c.burn) for c in cards(events)] == [(C("2C"), False)]
    refused = [e for e in events if isinstance(e, CorruptMessage)]
    assert refused and all(must_halt(e) for e in refused)
    assert any("expected [Game], [Manual Burn Cards]" in e.message for e in refused)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(at=st.integers(min_value=0, max_value=len(BURN) - 1), value=st.integers(0, 255))
def test_uspc_no_single_damaged_byte_turns_a_burn_card_into_a_dealt_card(
    at: int, value: int
) -> None:
    damaged = bytearray(BURN)
    damaged[at] = value
    for event in cards(UspcCodec().feed(bytes(damaged))):
        assert event.burn, (bytes(damaged), event)


def test_uspc_a_burn_token_split_after_long_idle_noise_keeps_its_mode() -> None:
    """More than 512 bytes of noise without a token, then a burn token cut in two reads: the
    tail kept while waiting for '>' must keep the token's mode tag."""
    codec = UspcCodec()
    events = codec.feed(b"~" * 500 + b" [Manual Burn Cards]<Ca")
    events += codec.feed(b"rd:H3> ")
    assert kinds(events) == ["noise", "card"]
    assert [(c.card, c.burn) for c in cards(events)] == [(C("3H"), True)]


def test_uspc_endless_garbage_with_delimiters_stays_bounded() -> None:
    codec = UspcCodec()
    for i in range(200):
        codec.feed(b"[Game]<Card:" + bytes([65 + i % 26]) * 300)
        assert len(codec._buffer) <= 512 + 312
    assert cards(codec.feed(b"> " + format_uspc_card(C("AS")).encode()))[-1].card == C("AS")


# -- framed -----------------------------------------------------------------------------------


def framed_session() -> tuple[bytes, list[Card]]:
    order = [C("AS"), C("KD"), C("2C"), C("TH"), C("9S")]
    stream = encode_frame(1, MessageType.HELLO, hello_payload(1, 3, "M", "SN1", "1"))
    stream += encode_frame(2, MessageType.DECK_LOADED, deck_payload(2, "d"))
    for record, card in enumerate(order, start=3):
        stream += encode_frame(record, MessageType.CARD, card_payload(record, card, 90))
    return stream, order


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    edits=st.lists(
        st.tuples(
            st.sampled_from(["flip", "drop", "insert", "truncate"]),
            st.integers(min_value=0, max_value=200),
            st.integers(min_value=0, max_value=255),
        ),
        max_size=6,
    ),
    cut=st.integers(min_value=1, max_value=60),
)
def test_framed_damage_never_invents_a_card(edits: list[tuple[str, int, int]], cut: int) -> None:
    stream, order = framed_session()
    data = bytearray(stream)
    for op, at, value in edits:
        at %= len(data) + 1
        if op == "flip" and at < len(data):
            data[at] ^= value or 1
        elif op == "drop" and at < len(data):
            del data[at]
        elif op == "insert":
            data.insert(at, value)
        elif op == "truncate":
            del data[at : at + value % 12]
    codec = FramedHostCodec()
    events: list[ShoeEvent] = []
    for at in range(0, len(data), cut):
        events += codec.feed(bytes(data[at : at + cut]))
    got = [c.card for c in cards(events)]
    assert all(card in order for card in got) and len(set(got)) == len(got)
    acked = [
        f for f in FrameSplitter().feed(codec.take_output()) if not isinstance(f, CorruptMessage)
    ]
    assert all(getattr(f, "type", None) == MessageType.ACK for f in acked)


# -- the transport over real pseudo-terminals -------------------------------------------------


class FailingCodec:
    """A real codec that raises after decoding while ``fail`` is set (a decoder bug)."""

    def __init__(self, inner: FramedHostCodec | UspcCodec) -> None:
        self.inner = inner
        self.stats = inner.stats
        self.fail = False

    def feed(self, data: bytes, now: float = 0.0) -> list[ShoeEvent]:
        events = self.inner.feed(data, now)
        if self.fail or b"!" in data:
            raise RuntimeError("decoder bug")
        return events

    def take_output(self) -> bytes:
        return self.inner.take_output()

    def reset_link(self) -> None:
        self.inner.reset_link()


def read_master(master: int, wait: float) -> bytes:
    os.set_blocking(master, False)
    deadline = time.monotonic() + wait
    got = b""
    while time.monotonic() < deadline:
        try:
            got += os.read(master, 4096)
        except BlockingIOError:
            time.sleep(0.01)
    return got


def test_a_decoder_that_raises_is_a_fault_in_words_and_the_reader_goes_on(
    tmp_path: Path,
) -> None:
    link = tmp_path / "tty"
    master = make_pty(link)
    events: list[ShoeEvent] = []
    transport = SerialTransport(str(link), FailingCodec(UspcCodec()), events.append)
    with transport:
        assert wait_for(lambda: any(isinstance(e, Connected) for e in events))
        os.write(master, b" [Game]<Card:2C> ")
        assert wait_for(lambda: len(cards(events)) == 1)
        os.write(master, b" !! ")
        assert wait_for(lambda: any(isinstance(e, CorruptMessage) for e in events), 2.0)
        os.write(master, b" [Game]<Card:3C> ")
        assert wait_for(lambda: len(cards(events)) == 2, 2.0)
        status = transport.status()
    os.close(master)
    refusal = next(e for e in events if isinstance(e, CorruptMessage))
    assert must_halt(refusal) and "decoder failed" in refusal.message
    assert "RuntimeError: decoder bug" in refusal.message
    assert status.running and status.connected and "decoder failed" in status.last_error


def test_a_read_the_decoder_failed_on_is_not_acknowledged(tmp_path: Path) -> None:
    link = tmp_path / "tty"
    master = make_pty(link)
    events: list[ShoeEvent] = []
    codec = FailingCodec(FramedHostCodec())
    transport = SerialTransport(str(link), codec, events.append)
    hello = encode_frame(1, MessageType.HELLO, hello_payload(1, 3, "M", "SN1", "1"))
    with transport:
        assert wait_for(lambda: any(isinstance(e, Connected) for e in events))
        codec.fail = True
        os.write(master, hello + encode_frame(2, MessageType.CARD, card_payload(2, C("AS"), 90)))
        assert wait_for(lambda: any(isinstance(e, CorruptMessage) for e in events), 2.0)
        assert read_master(master, 0.2) == b""  # nothing that read brought is acknowledged
        codec.fail = False
        os.write(master, encode_frame(3, MessageType.CARD, card_payload(3, C("KD"), 90)))
        assert wait_for(lambda: len(cards(events)) == 1, 2.0)
        acks = FrameSplitter().feed(read_master(master, 0.3))
    os.close(master)
    assert [getattr(f, "payload", None) for f in acks] == [b"\x00\x03"]
    assert cards(events)[0].card == C("KD")


def test_a_damaged_jsonl_seq_over_a_pty_does_not_end_the_reader(tmp_path: Path) -> None:
    link = tmp_path / "tty"
    master = make_pty(link)
    events: list[ShoeEvent] = []
    transport = SerialTransport(str(link), JsonlCodec(DECK), events.append)
    with transport:
        assert wait_for(lambda: any(isinstance(e, Connected) for e in events))
        os.write(master, line("boot", 1) + line("card", 2**40, uid="04A1"))
        assert wait_for(lambda: any(isinstance(e, CorruptMessage) for e in events), 2.0)
        os.write(master, line("card", 2, uid="04A2"))
        assert wait_for(lambda: len(cards(events)) == 1, 2.0)
        assert transport.status().running
    os.close(master)
    assert [c.card for c in cards(events)] == [C("KD")]


def test_a_device_gone_mid_token_leaves_no_half_to_join_the_next(tmp_path: Path) -> None:
    link = tmp_path / "tty"
    master = make_pty(link)
    events: list[ShoeEvent] = []
    transport = SerialTransport(str(link), UspcCodec(), events.append, backoff=(0.01, 0.05))
    with transport:
        assert wait_for(lambda: any(isinstance(e, Connected) for e in events))
        os.write(master, b" [Manual Burn Cards]<Card:H")
        time.sleep(0.1)
        os.unlink(link)
        os.close(master)  # the cable pulled mid-token
        assert wait_for(lambda: any(isinstance(e, Disconnected) for e in events))
        master = make_pty(link)
        assert wait_for(lambda: sum(isinstance(e, Connected) for e in events) == 2)
        os.write(master, b"3> " + b" [Game]<Card:4S> ")
        assert wait_for(lambda: len(cards(events)) == 1, 2.0)
        time.sleep(0.05)
    os.close(master)
    assert [(c.card, c.burn) for c in cards(events)] == [(C("4S"), False)]
    assert any(isinstance(e, CorruptMessage) for e in events)  # the stray tail, refused


def test_jsonl_readers_on_one_line_are_bounded() -> None:
    """One entry was kept for every ``device_id`` ever seen: a stream of made-up ids grew
    the decoder without bound. The 17th reader on a line is a damaged id, refused."""
    codec = JsonlCodec()
    events = codec.feed(b"".join(line("boot", 1, device_id=f"r{i}") for i in range(16)))
    assert "corrupt" not in kinds(events)
    events = codec.feed(b"".join(line("boot", 1, device_id=f"x{i}") for i in range(1000)))
    assert kinds(events) == ["corrupt"] * 1000
    assert "expected at most 16 (a damaged id)" in events[0].reason  # type: ignore[attr-defined]
    assert len(codec._devices) == 16
    events = codec.feed(line("card", 2, device_id="r3", uid="04A1"))
    assert "corrupt" not in kinds(events)  # the known readers read on
