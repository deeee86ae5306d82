import os
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from controller.cards import STANDARD_52, STRIPPED_28, Card
from controller.errors import InvalidSpec
from drivers.shoe import make_codec
from drivers.shoe.events import (
    CardRead,
    CorruptMessage,
    Hello,
    ReadFailed,
    Rebooted,
    SequenceGap,
    ShoeEvent,
    must_halt,
)
from drivers.shoe.framed import FramedHostCodec, MessageType
from drivers.shoe.transport import SerialTransport, TransportStatus
from simulators.shoe import Fate, Fault, FaultSpec, ShoeSimulator, load_stack
from tests.drivers.shoe_support import wait_for


def deal(
    dialect: str,
    faults: str = "",
    *,
    seed: int = 11,
    decks: int = 1,
    timeout: float = 30,
    expect: int | None = None,
    **kw: object,
) -> tuple[ShoeSimulator, list[ShoeEvent], TransportStatus]:
    """Run the simulator against the real transport until every card is dealt."""
    events: list[ShoeEvent] = []
    sim = ShoeSimulator(
        dialect, faults=faults, seed=seed, decks=decks, retransmit=0.01, settle=0.15, outage=0.1,
        **kw,  # type: ignore[arg-type]
    )  # fmt: skip
    sim.start()
    transport = SerialTransport(
        sim.device, make_codec(dialect, sim.deck_map), events.append, backoff=(0.01, 0.05)
    )
    try:
        transport.start()
        assert sim.wait(timeout), "the simulator did not finish dealing"
        assert sim.error is None
        expected = len(sim.expected_cards()) if expect is None else expect
        wait_for(lambda: sum(isinstance(e, CardRead) for e in list(events)) >= expected)
        time.sleep(0.05)  # room for anything extra to show up
        status = transport.status()
    finally:
        transport.stop()
        sim.stop()
    return sim, events, status


def cards_of(events: list[ShoeEvent]) -> list[Card]:
    return [e.card for e in events if isinstance(e, CardRead)]


def count(events: list[ShoeEvent]) -> Counter[str]:
    return Counter(e.kind.value for e in events)


def gap_missing(events: list[ShoeEvent]) -> set[int]:
    return {n for e in events if isinstance(e, SequenceGap) for n in e.missing}


RECOVERED = {"noise", "split", "badcrc", "drop", "dup"}  # the framed protocol hides these

CASES = [(d, f.value) for d in ("framed", "jsonl", "uspc") for f in Fault]
CASES = [(d, f) for d, f in CASES if not (d == "uspc" and f in ("reboot", "gap"))]


@pytest.mark.parametrize(("dialect", "fault"), CASES, ids=[f"{d}-{f}" for d, f in CASES])
def test_each_fault_end_to_end_over_a_real_pty(dialect: str, fault: str) -> None:
    sim, events, status = deal(dialect, f"{fault}@5+20")
    by_kind = count(events)
    # exactly the cards drawn come out, in order, once
    assert cards_of(events) == sim.expected_cards()
    fates = Counter(d.fate for d in sim.log)
    assert len(sim.log) == 52
    if dialect == "framed" and fault in RECOVERED:
        assert fates == {Fate.READ: 52}
        assert not [e for e in events if must_halt(e)]
    if fault == "badcrc":
        assert by_kind["corrupt"] >= 2
        if dialect != "framed":
            assert fates[Fate.CORRUPTED] == 2
            assert all(must_halt(e) for e in events if isinstance(e, CorruptMessage))
    if fault == "dup":
        if dialect == "uspc":  # no sequence number: the card comes twice, for the round
            assert by_kind["card"] == 54 and by_kind["duplicate_card"] == 0
        else:
            assert by_kind["duplicate_dropped"] >= 2
    if fault == "noise":
        assert by_kind["noise"] >= 2
        assert not [e for e in events if must_halt(e)]
    if fault == "split":
        assert not [e for e in events if must_halt(e)]
    if fault in ("gap", "drop", "badcrc") and dialect != "uspc":
        # every card lost on the way is named by number
        lost = {d.record for d in sim.log if d.fate in (Fate.LOST, Fate.DROPPED, Fate.CORRUPTED)}
        assert lost <= gap_missing(events)
        if fault == "gap":
            assert len(lost) == 2
    if fault == "drop" and dialect == "uspc":
        # the one loss nothing on this wire can reveal; the framed protocol exists for it
        assert fates[Fate.DROPPED] == 2 and not gap_missing(events)
    if fault == "unreadable":
        failed = [e for e in events if isinstance(e, ReadFailed)]
        assert len(failed) == fates[Fate.UNREADABLE] == 2
        if dialect != "uspc":
            assert [e.record for e in failed] == [
                d.record for d in sim.log if d.fate is Fate.UNREADABLE
            ]
    if fault == "reboot":
        assert by_kind["rebooted"] == 2 == sim.reboots
    if fault == "disconnect":
        assert sim.disconnects == 2
        assert by_kind["disconnected"] >= 2 and status.reconnects >= 2


@pytest.mark.parametrize("seed", [2, 6])
@pytest.mark.parametrize("dialect", ["jsonl", "uspc"])
def test_line_dialects_with_every_fault_mixed(dialect: str, seed: int) -> None:
    sim, events, _ = deal(dialect, "all=0.05", seed=seed)
    assert cards_of(events) == sim.expected_cards()
    if dialect == "jsonl":
        # each loss is named by a gap, unless nothing of its boot arrived after it: then
        # only a reboot (which halts on its own) or the missing card itself can tell
        named = gap_missing(events)
        arrived = (Fate.READ, Fate.UNREADABLE)
        for d in sim.log:
            if d.fate in arrived or d.record in named:
                continue
            later = [e for e in sim.log if e.boot == d.boot and e.index > d.index]
            assert all(e.fate not in arrived for e in later), d
        assert sum(isinstance(e, Rebooted) for e in events) >= 1 if sim.reboots else True


SOAK_FAULTS = (
    "noise=0.02,split=0.05,badcrc=0.005,drop=0.005,dup=0.01,unreadable=0.003,gap=0.0005,"
    "disconnect@2500+7500,reboot@4000+9000"
)


def check_soak(sim: ShoeSimulator, events: list[ShoeEvent]) -> None:
    delivered = cards_of(events)
    assert delivered == sim.expected_cards()  # nothing lost, nothing repeated, nothing invented
    fates = Counter(d.fate for d in sim.log)
    assert fates[Fate.READ] + fates[Fate.UNREADABLE] + fates[Fate.LOST] == sim.total_cards
    by_kind = count(events)
    assert by_kind["read_failed"] == fates[Fate.UNREADABLE]
    assert {d.record for d in sim.log if d.fate is Fate.LOST} == gap_missing(events)
    assert by_kind["rebooted"] == sim.reboots == 2 and sim.disconnects == 2
    assert by_kind["duplicate_card"] == 0
    assert not [e for e in events if isinstance(e, CorruptMessage) and must_halt(e)]


def test_soak_ten_thousand_cards_with_every_fault_mixed() -> None:
    sim, events, status = deal("framed", SOAK_FAULTS, seed=2026, decks=193, timeout=60)
    assert sim.total_cards >= 10_000
    check_soak(sim, events)
    assert status.reconnects >= 2


@pytest.mark.full
def test_soak_fifty_thousand_cards_with_every_fault_mixed() -> None:
    sim, events, _ = deal("framed", SOAK_FAULTS, seed=7, decks=962, timeout=400)
    assert sim.total_cards >= 50_000
    check_soak(sim, events)


def test_tcp_link_and_identify() -> None:
    events: list[ShoeEvent] = []
    codec = FramedHostCodec()
    sim = ShoeSimulator("framed", link="tcp:0", seed=4, retransmit=0.01, settle=0.02)
    sim.start()
    assert sim.device.startswith("socket://127.0.0.1:")
    transport = SerialTransport(sim.device, codec, events.append)
    try:
        transport.start()
        assert sim.wait(10)
        assert wait_for(lambda: sum(isinstance(e, CardRead) for e in events) == 52)
        transport.send(codec.command(MessageType.IDENTIFY))
        assert wait_for(lambda: sum(isinstance(e, Hello) for e in events) == 2)
    finally:
        transport.stop()
        sim.stop()
    assert cards_of(events) == sim.expected_cards()
    hello = [e for e in events if isinstance(e, Hello)][-1]
    assert (hello.device, hello.boot) == ("SIM-0001", 1)


def test_lock_stops_the_shoe_and_unlock_releases_it() -> None:
    events: list[ShoeEvent] = []
    codec = FramedHostCodec()
    sim = ShoeSimulator("framed", seed=4, rate=40.0, settle=0.02)
    sim.start()
    transport = SerialTransport(sim.device, codec, events.append)
    try:
        transport.start()
        assert wait_for(lambda: len(cards_of(events)) >= 3)
        transport.send(codec.command(MessageType.LOCK))
        assert wait_for(lambda: sim.locked)
        time.sleep(0.1)
        held = len(cards_of(events))
        time.sleep(0.3)
        assert len(cards_of(events)) == held  # nothing passes a locked gate
        transport.send(codec.command(MessageType.UNLOCK))
        assert wait_for(lambda: len(cards_of(events)) >= held + 3)
    finally:
        transport.stop()
        sim.stop()
    assert cards_of(events) == sim.expected_cards()[: len(cards_of(events))]


def test_unlock_with_a_count_lets_exactly_that_many_cards_through() -> None:
    events: list[ShoeEvent] = []
    codec = FramedHostCodec()
    sim = ShoeSimulator("framed", seed=5, rate=200.0, settle=0.02, locked=True)
    sim.start()
    transport = SerialTransport(sim.device, codec, events.append)
    try:
        transport.start()
        time.sleep(0.2)
        assert cards_of(events) == []  # it came up locked
        for granted in (1, 1, 3):
            before = len(cards_of(events))
            transport.send(codec.command(MessageType.UNLOCK, count=granted))
            assert wait_for(lambda b=before, g=granted: len(cards_of(events)) >= b + g)
            time.sleep(0.2)  # a fast shoe: 200 cards a second, and not one more goes out
            assert len(cards_of(events)) == before + granted and sim.locked
    finally:
        transport.stop()
        sim.stop()
    with pytest.raises(ValueError, match="a card count goes with UNLOCK only, 1 to 255"):
        codec.command(MessageType.LOCK, count=1)
    with pytest.raises(ValueError, match="1 to 255; got UNLOCK 0"):
        codec.command(MessageType.UNLOCK, count=0)


def test_seeded_decks_are_reproducible_and_stacks_are_dealt_in_order(tmp_path: Path) -> None:
    a = ShoeSimulator("uspc", seed=9, decks=2)
    b = ShoeSimulator("uspc", seed=9, decks=2)
    assert a.decks == b.decks and a.decks[0] == STANDARD_52.shuffled(random.Random(9))
    stack = tmp_path / "stack.txt"
    stack.write_text("# a stacked round\nAS KS, QS\n10s  # the ten\nAS\n")
    cards = load_stack(stack)
    assert [c.code for c in cards] == ["AS", "KS", "QS", "TS", "AS"]
    _, events, _ = deal("uspc", cards=cards, expect=5)
    # the repeated ace is the table's to judge (the ASCII shoe says nothing of decks)
    assert cards_of(events) == cards
    with pytest.raises(
        InvalidSpec, match=r"stack file .*missing\.txt.: expected a file, found nothing"
    ):
        load_stack(tmp_path / "missing.txt")
    # a photograph or a huge file is refused in words (a 50 MB file took 973 MB, a binary
    # one raised UnicodeDecodeError)
    binary = tmp_path / "binary"
    binary.write_bytes(bytes(range(128, 256)))
    with pytest.raises(InvalidSpec, match="expected UTF-8 text, found byte 0x80 at offset 0"):
        load_stack(binary)
    huge = tmp_path / "huge"
    huge.write_bytes(b"AS " * 400_000)
    with pytest.raises(InvalidSpec, match="expected a file of at most 1,048,576 bytes"):
        load_stack(huge)


def test_a_stripped_deck_is_dealt_over_the_wire() -> None:
    """Triple Action Hold'em's table loads 28-card decks: the shoe deals nothing else."""
    sim, events, _ = deal("framed", seed=4, decks=2, deck=STRIPPED_28)
    assert sorted(sim.decks[0]) == sorted(STRIPPED_28.cards)
    assert Counter(cards_of(events)) == Counter({card: 2 for card in STRIPPED_28.cards})


@pytest.mark.parametrize(
    ("spec", "dialect", "message"),
    [
        ("jam", "framed", "unknown fault 'jam'"),
        ("drop=2", "framed", "probability from 0 to 1"),
        ("drop@0", "framed", "card numbers from 1"),
        ("reboot", "uspc", "cannot happen on a uspc shoe"),
        ("all@3", "jsonl", "'all' takes '=P'"),
    ],
)
def test_fault_spec_errors_say_what_was_expected(spec: str, dialect: str, message: str) -> None:
    with pytest.raises(InvalidSpec, match=message):
        FaultSpec.parse(spec, dialect)


def test_fault_spec_all_skips_what_a_dialect_cannot_do() -> None:
    assert Fault.REBOOT not in FaultSpec.parse("all=0.1", "uspc").probability
    assert FaultSpec.parse("all=0.1", "framed").probability[Fault.REBOOT] == 0.1
    assert not FaultSpec.parse("")


def test_the_shoes_device_link_never_replaces_what_lies_at_its_path(tmp_path: Path) -> None:
    """A file given as the device's path was replaced by the link, and removed at the end;
    a folder raised IsADirectoryError and left a stray link beside it."""
    from controller.errors import DeviceError
    from simulators.shoe.links import PtyLink

    precious = tmp_path / "notes.txt"
    precious.write_text("kept", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    for path, kind in (
        (precious, "a file that is no terminal's link"),
        (tmp_path / "folder", "a folder"),
    ):
        link = PtyLink(str(path))
        with pytest.raises(DeviceError, match=f"expected a new name .*; got {kind}, left as it is"):
            link.open()
        link.close()
    assert precious.read_text(encoding="utf-8") == "kept" and (tmp_path / "folder").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "notes.txt"]
    # a new name, and the link a simulator left there before, are taken
    link = PtyLink(str(tmp_path / "ttyShoe"))
    link.open()
    again = PtyLink(str(tmp_path / "ttyShoe"))
    again.open()  # the first one's link, replaced
    assert os.readlink(tmp_path / "ttyShoe") == again.tty_name
    assert link._master is not None
    os.close(link._master)  # the first simulator gone: its link is the second's now
    again.close()
    assert not os.path.lexists(tmp_path / "ttyShoe")


def test_a_deck_map_missing_a_card_the_shoe_deals_is_refused_at_the_start() -> None:
    """Accepted, the jsonl shoe's thread failed with a traceback at the first such card."""
    from drivers.shoe.deckmap import parse_deck_map
    from simulators.shoe.shoe import ShoeSimulator

    only_the_ace = parse_deck_map("04AAAAAAAAAAAA AS\n")
    with pytest.raises(InvalidSpec, match=r"expected a tag for every card .*none for 51 of them"):
        ShoeSimulator("jsonl", seed=1, deck_map=only_the_ace)
    # a stack of the cards it tags is dealt; other dialects send no tags
    ShoeSimulator("jsonl", cards=[Card.parse("AS")], deck_map=only_the_ace)
    ShoeSimulator("framed", seed=1, deck_map=only_the_ace)
