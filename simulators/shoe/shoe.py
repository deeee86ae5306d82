"""The virtual card shoe: deals a seeded or stacked order in a real wire dialect, with faults.

It runs in its own thread on a :mod:`~simulators.shoe.links` link, speaks the framed
protocol (records, acknowledgements, retransmission, HELLO with a boot counter), the USPC
ASCII tokens or the JSON-lines reader messages, and keeps a ground-truth log of what
happened to every card drawn, so tests can check that the host got exactly the right ones.
It starts dealing once a host has opened the device (and given it ``settle`` seconds to set
its port up, which discards earlier input); the line dialects, which have no
acknowledgement, also pause while no host is attached, as a dealer would.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from config.files import read_text
from controller.cards import STANDARD_52, Card, Deck, parse_cards
from controller.errors import InvalidSpec
from drivers.shoe.base import Dialect
from drivers.shoe.deckmap import DeckMap, demo_deck_map
from drivers.shoe.framed import (
    ErrorCode,
    Frame,
    FrameSplitter,
    MessageType,
    card_payload,
    deck_payload,
    encode_frame,
    error_payload,
    heartbeat_payload,
    hello_payload,
    record_payload,
)
from drivers.shoe.jsonl import format_jsonl
from drivers.shoe.uspc import format_uspc_card
from simulators.shoe.faults import Fault, FaultSpec
from simulators.shoe.links import Link, make_link

__all__ = ["Draw", "Fate", "ShoeSimulator", "load_stack"]


class Fate(StrEnum):
    """What became of a card drawn, as the host should see it."""

    READ = "read"
    """Delivered as a card (possibly after retransmissions)."""
    UNREADABLE = "unreadable"
    """Passed unread: the host gets a read failure."""
    LOST = "lost"
    """The shoe lost its record (``gap``): the host gets a sequence gap naming it."""
    DROPPED = "dropped"
    """Its message was lost on a line without retransmission."""
    CORRUPTED = "corrupted"
    """Its message was damaged on a line without checksum or retransmission."""


@dataclass(slots=True)
class Draw:
    """One card drawn: position, card, fate, whether its message went twice, record, boot,
    and (framed) whether the host acknowledged it: the shoe forgets it only then."""

    index: int
    card: Card
    fate: Fate
    repeated: bool = False
    record: int | None = None
    boot: int = 1
    acked: bool = False


def load_stack(path: str | Path) -> list[Card]:
    """A stacked order from a file of card codes (whitespace, commas, ``#`` comments)."""
    text = read_text(Path(path), f"stack file {str(path)!r}", error=InvalidSpec)
    codes = " ".join(line.split("#", 1)[0] for line in text.splitlines())
    cards = parse_cards(codes, allow_repeats=True)
    if not cards:
        raise InvalidSpec(f"stack file {str(path)!r} holds no cards")
    return list(cards)


@dataclass(slots=True)
class _Outstanding:
    record: int
    kind: MessageType
    payload: bytes
    deadline: float
    draw: Draw | None = None
    sends: int = 0


class ShoeSimulator:
    """A virtual shoe on a pseudo-terminal or TCP port; start it, read ``device``, stop it."""

    def __init__(
        self,
        dialect: Dialect | str = Dialect.FRAMED,
        *,
        link: str | Link = "pty",
        cards: Sequence[Card] | None = None,
        seed: int | None = 0,
        decks: int = 1,
        deck: Deck = STANDARD_52,
        rate: float = 0.0,
        faults: FaultSpec | str = "",
        deck_map: DeckMap | None = None,
        retransmit: float = 0.025,
        outage: float = 0.2,
        heartbeat: float = 1.0,
        settle: float = 0.1,
        serial_number: str = "SIM-0001",
        model: str = "tablectl-sim",
        firmware: str = "1.0.0",
        device_id: str = "reader-1",
        locked: bool = False,
        endless: bool = False,
        on_ack: Callable[[Draw], None] | None = None,
    ) -> None:
        self.dialect = Dialect(dialect)
        self.link: Link = make_link(link) if isinstance(link, str) else link
        self.rng = random.Random(seed)
        self.fault_rng = random.Random(None if seed is None else seed + 1)
        self.faults = (
            faults if isinstance(faults, FaultSpec) else FaultSpec.parse(faults, self.dialect)
        )
        self.deck_map = deck_map or demo_deck_map()
        self.deck = deck
        if cards is not None:
            self.decks: list[list[Card]] = [list(cards)]
        else:
            self.decks = [deck.shuffled(self.rng) for _ in range(decks)]
        if self.dialect is Dialect.JSONL:  # each card is sent as its tag's uid
            held = set(self.deck_map.cards.values())
            untagged = sorted({c.code for d in self.decks for c in d if c not in held})
            if untagged:  # the shoe's thread failed at the first such card, a traceback
                shown = ", ".join(untagged[:8]) + (", …" if len(untagged) > 8 else "")
                raise InvalidSpec(
                    f"deck map {self.deck_map.deck_id!r}: expected a tag for every card the "
                    f"shoe deals; got none for {len(untagged)} of them ({shown})"
                )
        self.rate = rate
        self.retransmit = retransmit
        self.outage = outage
        self.heartbeat = heartbeat
        self.settle = settle
        self.serial_number = serial_number
        self.model = model
        self.firmware = firmware
        self.device_id = device_id
        self.log: list[Draw] = []
        """Every card drawn, in order, with its fate."""
        self.done = threading.Event()
        """Set once every card is drawn and (framed) acknowledged, or on failure."""
        self.error: BaseException | None = None
        self.locked = locked
        self.credit: int | None = None  # cards the gate lets through before it shuts itself
        """Whether the gate is shut (a real shoe powers up locked until the host says)."""
        self._spent = False  # whether the last card drawn spent a card of that credit
        self.endless = endless
        """Shuffle a fresh deck whenever one runs out (a studio's shuffler), forever."""
        self.on_ack = on_ack
        """Told of each card the host acknowledges, as the acknowledgement arrives (framed)."""
        self._swap = threading.Event()
        self.boot = 1
        self.reboots = 0
        self.disconnects = 0
        self.acks_received = 0
        self.resends = 0  # records sent again, unacknowledged in time (framed)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._record = 0
        self._tx_seq = 0
        self._splitter = FrameSplitter()
        self._outstanding: list[_Outstanding] = []
        self._started = time.monotonic()
        self._next_card_at = 0.0

    # -- control ----------------------------------------------------------------------------

    @property
    def device(self) -> str:
        """What the host opens (the symlink or ``socket://`` URL)."""
        return self.link.device

    @property
    def total_cards(self) -> int:
        """How many cards this run deals."""
        return sum(len(d) for d in self.decks)

    def start(self) -> str:
        """Create the device, start dealing in a thread; return the device."""
        self.link.open()
        self._thread = threading.Thread(target=self._main, name="shoe simulator", daemon=True)
        self._thread.start()
        return self.device

    def stop(self, timeout: float = 3.0) -> None:
        """Stop the thread and remove the device."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self.link.close()

    def wait(self, timeout: float) -> bool:
        """Wait until every card is dealt; whether that happened in time."""
        return self.done.wait(timeout)

    def __enter__(self) -> ShoeSimulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def new_deck(self) -> None:
        """Set the rest of the current deck aside and load a freshly shuffled one (between
        rounds, as a studio's shuffler does); needs ``endless``."""
        self._swap.set()

    def _deck_stream(self) -> Iterator[list[Card]]:
        yield from self.decks
        while self.endless and not self._stop.is_set():
            fresh = self.deck.shuffled(self.rng)
            self.decks.append(fresh)
            yield fresh

    def expected_cards(self) -> list[Card]:
        """The cards the host must deliver, in order: those whose fate is ``read``. A USPC
        token sent twice is two reads to the host (nothing on that wire numbers a read, and
        the table's round judges the second), so such a card comes twice."""
        twice = self.dialect is Dialect.USPC
        return [
            d.card for d in self.log if d.fate is Fate.READ
            for _ in range(2 if twice and d.repeated else 1)
        ]  # fmt: skip

    # -- the thread -------------------------------------------------------------------------

    def _main(self) -> None:
        try:
            self._run()
        except BaseException as error:
            self.error = error
            self.done.set()
            raise

    def _sleep(self, seconds: float) -> None:
        self._stop.wait(seconds)

    def _wait_attached(self) -> None:
        """Wait for a host, then give it time to set its port up (which flushes input)."""
        while not self._stop.is_set() and not self.link.attached():
            self._sleep(0.005)
        self._sleep(self.settle)

    def _run(self) -> None:
        self._wait_attached()
        if self.dialect is Dialect.FRAMED:
            self._queue_record(MessageType.HELLO, self._hello())
        elif self.dialect is Dialect.JSONL:
            self._transmit(b"# reader " + self.device_id.encode() + b" ready\n", None)
            self._jsonl({"type": "boot", "fw_version": self.firmware})
        index = 0
        last_beat = time.monotonic()
        for deck_number, deck in enumerate(self._deck_stream(), start=1):
            if self.dialect is Dialect.FRAMED:
                self._serve_until_idle()
                self._queue_record(
                    MessageType.DECK_LOADED, deck_payload(0, f"deck-{deck_number}")[2:]
                )
            for card in deck:
                while not self._stop.is_set() and not self._swap.is_set():
                    now = time.monotonic()
                    if self.dialect is Dialect.FRAMED and now - last_beat >= self.heartbeat:
                        last_beat = now
                        self._heartbeat(now)
                    if self._outstanding or self.locked:
                        self._serve(0.002)
                        continue
                    if now < self._next_card_at:
                        self._serve(min(0.01, self._next_card_at - now))
                        continue
                    if self.dialect is not Dialect.FRAMED and not self.link.attached():
                        self._wait_attached()
                        continue
                    self._serve(0.0)
                    if not self.locked:
                        break
                if self._stop.is_set():
                    return
                if self._swap.is_set():  # the dealer changed decks: the rest is set aside
                    self._swap.clear()
                    break
                index += 1
                self._spend_credit()
                self._draw(index, card)
                if self.rate > 0:
                    self._next_card_at = time.monotonic() + self.rng.uniform(0.7, 1.3) / self.rate
        if self.dialect is Dialect.FRAMED:
            self._serve_until_idle()
            self._queue_record(MessageType.EMPTY, b"")
            self._serve_until_idle()
        self.done.set()
        while not self._stop.is_set():  # idle: answer the host, keep the heartbeat
            self._serve(0.01)
            now = time.monotonic()
            if self.dialect is Dialect.FRAMED and now - last_beat >= self.heartbeat:
                last_beat = now
                self._heartbeat(now)

    def _heartbeat(self, now: float) -> None:
        uptime = int((now - self._started) * 1000)
        payload = heartbeat_payload(uptime, len(self._outstanding))
        self._send(encode_frame(self._next_tx(), MessageType.HEARTBEAT, payload))

    def _serve_until_idle(self) -> None:
        while self._outstanding and not self._stop.is_set():
            self._serve(0.002)

    # -- cards and faults -------------------------------------------------------------------

    def _hit(self, fault: Fault, index: int | None) -> bool:
        if index is not None and index in self.faults.at.get(fault, ()):
            return True
        p = self.faults.probability.get(fault, 0.0)
        return p > 0 and self.fault_rng.random() < p

    def gate(self, locked: bool, credit: int | None = None) -> None:
        """Shut the gate, or open it: for ``credit`` cards (then it shuts itself) or, with
        None, until it is shut (UNLOCK without a count)."""
        self.locked = locked
        self.credit = None if locked else credit

    def _spend_credit(self) -> None:
        self._spent = self.credit is not None
        if self.credit is not None:
            self.credit -= 1
            if self.credit <= 0:
                self.gate(True)

    def _refund_credit(self) -> None:
        """The card drawn was burned, not the one the gate let out: one more is still due."""
        if self._spent:
            self.gate(False, (self.credit or 0) + 1)

    def _draw(self, index: int, card: Card) -> None:
        if self._hit(Fault.DISCONNECT, index):
            self._disconnect()
        if self._hit(Fault.REBOOT, index):
            self._reboot()
        draw = Draw(index, card, Fate.READ, boot=self.boot)
        self.log.append(draw)
        if self._hit(Fault.GAP, index):
            draw.fate = Fate.LOST
            if self.dialect is Dialect.FRAMED:
                self._record = self._record % 65535 + 1
            else:
                self._jsonl_seq += 1
            draw.record = self._record if self.dialect is Dialect.FRAMED else self._jsonl_seq
            return
        unreadable = self._hit(Fault.UNREADABLE, index)
        if unreadable:
            draw.fate = Fate.UNREADABLE
        if self.dialect is Dialect.FRAMED:
            if unreadable:
                self._queue_record(
                    MessageType.ERROR,
                    error_payload(0, ErrorCode.UNREADABLE, "card not read")[2:],
                    draw,
                )
            else:
                quality = self.rng.randint(80, 100)
                self._queue_record(MessageType.CARD, card_payload(0, card, quality)[2:], draw)
        elif self.dialect is Dialect.USPC:
            if unreadable:
                self._line(b" [Game]<Game> ", draw, index)
                self._line(b" [GameAlarm]<Alarm:E3 Card Not Read> ", None, None)
            else:
                ten = "10" if self.rng.random() < 0.5 else "T"
                burn = self.rng.random() < 0.05
                self._line(format_uspc_card(card, burn=burn, ten=ten).encode(), draw, index)
                if burn:  # the dealer burned it and draws the card due next, as a dealer does
                    self._refund_credit()
        elif unreadable:
            self._jsonl({"type": "error", "error": "read_failed", "detail": "no tag"}, draw, index)
        else:
            self._jsonl({"type": "card", "uid": self.deck_map.uid_for(card)}, draw, index)

    def _disconnect(self) -> None:
        self.disconnects += 1
        self.link.drain(1.0)  # the cable is pulled between cards, after the host read the last
        self.link.vanish()
        self._sleep(self.outage)
        self._splitter.reset()
        self.link.open()
        self._wait_attached()
        if self.dialect is Dialect.USPC:  # the shoe warns that its line was interrupted
            self._transmit(b"<W0x01>", None)

    def _reboot(self) -> None:
        self.reboots += 1
        self.boot += 1
        self._outstanding.clear()
        self._sleep(0.01)
        if self.dialect is Dialect.FRAMED:
            self._record = 0
            self._queue_record(MessageType.HELLO, self._hello())
            self._serve_until_idle()
        else:
            self._jsonl_seq = 0
            self._jsonl({"type": "boot", "fw_version": self.firmware})

    # -- line dialects ----------------------------------------------------------------------

    _jsonl_seq: int = 0

    def _jsonl(
        self, message: dict[str, object], draw: Draw | None = None, index: int | None = None
    ) -> None:
        self._jsonl_seq += 1
        body = {"type": message["type"], "seq": self._jsonl_seq, "device_id": self.device_id}
        body.update({k: v for k, v in message.items() if k != "type"})
        if draw is not None:
            draw.record = self._jsonl_seq
        self._line(format_jsonl(body), draw, index)

    def _line(self, data: bytes, draw: Draw | None, index: int | None) -> None:
        outcome = self._transmit(data, index)
        if draw is None:
            return
        if outcome == "dropped":
            draw.fate = Fate.DROPPED
        elif outcome == "corrupted":
            draw.fate = Fate.CORRUPTED
        elif outcome == "repeated":
            draw.repeated = True

    # -- framed protocol --------------------------------------------------------------------

    def _hello(self) -> bytes:
        return hello_payload(0, self.boot, self.model, self.serial_number, self.firmware)[2:]

    def _next_tx(self) -> int:
        self._tx_seq = (self._tx_seq + 1) & 0xFF
        return self._tx_seq

    def _queue_record(self, kind: MessageType, body: bytes, draw: Draw | None = None) -> None:
        """Number a record (its body without the record number) and send it."""
        self._record = self._record % 65535 + 1
        payload = record_payload(self._record, body)
        if draw is not None:
            draw.record = self._record
        item = _Outstanding(self._record, kind, payload, 0.0, draw)
        self._outstanding.append(item)
        self._send_record(item, draw.index if draw is not None else None)

    def _send_record(self, item: _Outstanding, index: int | None) -> None:
        item.sends += 1
        self.resends += item.sends > 1
        frame = encode_frame(self._next_tx(), item.kind, item.payload)
        self._transmit(frame, index if item.sends == 1 else None)
        item.deadline = time.monotonic() + self.retransmit

    def _send(self, frame: bytes) -> None:
        self._transmit(frame, None)

    def _serve(self, timeout: float) -> None:
        """Read the host's frames, handle them, and resend what is overdue."""
        data = self.link.read(timeout)
        if data and self.dialect is Dialect.FRAMED:
            for item in self._splitter.feed(data):
                if isinstance(item, Frame):
                    self._command(item)
        if self._outstanding:
            head = self._outstanding[0]
            if time.monotonic() >= head.deadline:
                if self.link.attached():
                    self._send_record(head, None)
                else:
                    head.deadline = time.monotonic() + self.retransmit

    def _command(self, frame: Frame) -> None:
        if frame.type == MessageType.ACK and len(frame.payload) == 2:
            if self._hit(Fault.DROP, None):  # the acknowledgement lost on its way
                return
            record = int.from_bytes(frame.payload, "big")
            self.acks_received += 1
            if self._outstanding and self._outstanding[0].record == record:
                done = self._outstanding.pop(0)
                if done.draw is not None:
                    done.draw.acked = True
                    if self.on_ack is not None:
                        self.on_ack(done.draw)
        elif frame.type == MessageType.LOCK:
            self.gate(True)
        elif frame.type == MessageType.UNLOCK:
            self.gate(False, frame.payload[0] if frame.payload and frame.payload[0] else None)
        elif frame.type == MessageType.IDENTIFY:
            payload = hello_payload(0, self.boot, self.model, self.serial_number, self.firmware)
            self._send(encode_frame(self._next_tx(), MessageType.HELLO, payload))

    # -- the faulty wire --------------------------------------------------------------------

    def _noise(self) -> bytes:
        size = self.fault_rng.randint(1, 12)
        if self.dialect is Dialect.FRAMED:
            return bytes(self.fault_rng.randrange(256) for _ in range(size))
        alphabet = b"!\"$%&'()*+-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|~\x07\x7f\xff\xfe"  # noqa: E501
        return bytes(self.fault_rng.choice(alphabet) for _ in range(size))

    def _corrupt(self, data: bytes) -> bytes:
        damaged = bytearray(data)
        if self.dialect is Dialect.FRAMED:
            at = self.fault_rng.randrange(2, len(damaged))
            damaged[at] ^= 1 << self.fault_rng.randrange(8)
        else:
            opener = b"<" if self.dialect is Dialect.USPC else b"{"
            closer = b">" if self.dialect is Dialect.USPC else b"}"
            start, end = damaged.find(opener) + 1, damaged.rfind(closer)
            at = self.fault_rng.randrange(start, end)
            damaged[at] = 0x80 | self.fault_rng.randrange(0x7F)
        return bytes(damaged)

    def _transmit(self, data: bytes, index: int | None) -> str:
        """Send one message through the fault injector; say what happened to it."""
        if self._hit(Fault.NOISE, index):
            self.link.write(self._noise())
        if self._hit(Fault.DROP, index):
            return "dropped"
        outcome = "sent"
        if self._hit(Fault.BADCRC, index):
            data = self._corrupt(data)
            outcome = "corrupted"
        copies = 1
        if self._hit(Fault.DUP, index):
            copies = 2
            outcome = "repeated" if outcome == "sent" else outcome
        for _ in range(copies):
            if self._hit(Fault.SPLIT, index) and len(data) > 1:
                cuts = sorted(self.fault_rng.sample(range(1, len(data)), min(3, len(data) - 1)))
                pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
                for piece in pieces:
                    self.link.write(piece)
                    time.sleep(self.fault_rng.uniform(0, 0.0005))
            else:
                self.link.write(data)
        return outcome
