"""Framed shoe protocol v1 (``docs/shoe-protocol.md``): frames, CRC, and the host-side codec.

A frame is ``A5 5A | LEN | SEQ | TYPE | PAYLOAD (LEN bytes) | CRC-16/CCITT (big-endian)``,
the CRC taken over ``LEN SEQ TYPE PAYLOAD``. Records (HELLO, CARD, ERROR, EMPTY,
DECK_LOADED) carry a 16-bit record number, are acknowledged by the host and resent by the
shoe until they are; the host drops repeats by record number, reports a jump as a
:class:`~drivers.shoe.events.SequenceGap` and recognises a reboot by the boot counter.

>>> hex(crc16_ccitt(b"123456789"))
'0x29b1'
>>> frame = encode_frame(7, MessageType.CARD, card_payload(1, Card.parse("AS"), 99))
>>> frame.hex(" ")
'a5 5a 04 07 02 00 01 33 63 87 f9'
>>> splitter = FrameSplitter()
>>> splitter.feed(b"junk" + frame[:5]), splitter.feed(frame[5:])
([Noise(nbytes=4)], [Frame(seq=7, type=2, payload=b'\\x00\\x013c')])
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field
from enum import IntEnum

from controller.cards import Card
from drivers.shoe.base import CodecStats, DeckInventory
from drivers.shoe.events import (
    Alarm,
    CardRead,
    CorruptMessage,
    DeckLoaded,
    DuplicateDropped,
    Heartbeat,
    Hello,
    Noise,
    ReadFailed,
    Rebooted,
    SequenceGap,
    ShoeEmpty,
    ShoeEvent,
)

__all__ = [
    "MAX_PAYLOAD",
    "SYNC",
    "ErrorCode",
    "Frame",
    "FrameSplitter",
    "FramedHostCodec",
    "MessageType",
    "ack_payload",
    "card_payload",
    "crc16_ccitt",
    "deck_payload",
    "encode_frame",
    "error_payload",
    "heartbeat_payload",
    "hello_payload",
    "record_payload",
]

SYNC = b"\xa5\x5a"
"""The two sync bytes that open every frame."""
MAX_PAYLOAD = 64
"""The largest payload a frame may carry; a longer LEN marks a false sync."""
RECORD_MODULUS = 65535
"""Record numbers run 1 … 65535 and wrap to 1; 0 means "not a record"."""


def crc16_ccitt(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, not reflected, no final XOR.

    The standard library's ``binascii.crc_hqx`` is this very CRC (the XMODEM form, whose
    initial value is the argument).
    """
    return binascii.crc_hqx(data, crc)


class MessageType(IntEnum):
    """Frame types: shoe to host below 0x80, host to shoe from 0x80."""

    HELLO = 0x01
    CARD = 0x02
    ERROR = 0x03
    EMPTY = 0x04
    DECK_LOADED = 0x05
    HEARTBEAT = 0x06
    ACK = 0x81
    LOCK = 0x82
    UNLOCK = 0x83
    IDENTIFY = 0x84


RECORD_TYPES = frozenset(
    {
        MessageType.HELLO,
        MessageType.CARD,
        MessageType.ERROR,
        MessageType.EMPTY,
        MessageType.DECK_LOADED,
    }
)
"""Shoe-to-host types that carry a record number and are acknowledged."""


class ErrorCode(IntEnum):
    """Codes of the ERROR record."""

    UNREADABLE = 1
    JAM = 2
    DOUBLE_FEED = 3
    GATE_FORCED = 4
    SENSOR = 5
    OTHER = 255

    @property
    def label(self) -> str:
        """The code's name as used in events: ``unreadable``, ``double_feed`` …"""
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame that passed its CRC: the sender's frame number, its type and payload."""

    seq: int
    type: int
    payload: bytes


def encode_frame(seq: int, kind: int, payload: bytes = b"") -> bytes:
    """The bytes of one frame."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes: at most {MAX_PAYLOAD} fit a frame")
    body = bytes((len(payload), seq & 0xFF, kind)) + payload
    return SYNC + body + crc16_ccitt(body).to_bytes(2, "big")


def _text(value: str, limit: int = 24) -> bytes:
    raw = value.encode("ascii", "replace")[:limit]
    return bytes((len(raw),)) + raw


def record_payload(record: int, rest: bytes = b"") -> bytes:
    """A record number followed by ``rest``."""
    return struct.pack(">H", record) + rest


def hello_payload(record: int, boot: int, model: str, serial: str, firmware: str) -> bytes:
    """HELLO: record, boot counter (u32), then model, serial number and firmware as u8+ASCII."""
    return record_payload(
        record, struct.pack(">I", boot) + _text(model) + _text(serial) + _text(firmware)
    )


def card_payload(record: int, card: Card, quality: int) -> bytes:
    """CARD: record, card number (0 = 2C … 51 = AS), read quality 0-100."""
    return record_payload(record, bytes((int(card), max(0, min(100, quality)))))


def error_payload(record: int, code: ErrorCode, detail: str = "") -> bytes:
    """ERROR: record, error code, ASCII detail."""
    return record_payload(record, bytes((int(code),)) + detail.encode("ascii", "replace")[:40])


def deck_payload(record: int, deck_id: str) -> bytes:
    """DECK_LOADED: record, ASCII deck id."""
    return record_payload(record, deck_id.encode("ascii", "replace")[:40])


def heartbeat_payload(uptime_ms: int, pending: int) -> bytes:
    """HEARTBEAT: uptime in ms (u32) and records waiting for acknowledgement (u8)."""
    return struct.pack(">IB", uptime_ms & 0xFFFFFFFF, min(pending, 255))


def ack_payload(record: int) -> bytes:
    """ACK: the record number acknowledged."""
    return struct.pack(">H", record)


@dataclass(slots=True)
class FrameSplitter:
    """Cuts a byte stream into CRC-checked frames; skips noise, reports damaged frames."""

    _buffer: bytearray = field(default_factory=bytearray)

    def reset(self) -> None:
        """Drop a partial frame."""
        self._buffer.clear()

    def feed(self, data: bytes) -> list[Frame | CorruptMessage | Noise]:
        """Frames (and reports of noise and damage) completed by ``data``."""
        buf = self._buffer
        buf += data
        out: list[Frame | CorruptMessage | Noise] = []
        noise = 0
        i = 0
        size = len(buf)
        while True:
            j = buf.find(SYNC, i)
            if j < 0:
                keep = size - 1 if size > i and buf[-1] == SYNC[0] else size
                noise += keep - i
                i = keep
                break
            noise += j - i
            i = j
            if size - j < 5:
                break
            length = buf[j + 2]
            if length > MAX_PAYLOAD:
                out.append(
                    CorruptMessage(
                        f"frame length {length} exceeds {MAX_PAYLOAD}",
                        bytes(buf[j : j + 5]).hex(" "),
                        recoverable=True,
                    )
                )
                i = j + 1
                continue
            end = j + 7 + length
            if size < end:
                break
            expected = crc16_ccitt(memoryview(buf)[j + 2 : end - 2])
            arrived = (buf[end - 2] << 8) | buf[end - 1]
            if expected != arrived:
                out.append(
                    CorruptMessage(
                        f"bad CRC: expected {expected:04x}, arrived {arrived:04x}",
                        bytes(buf[j:end]).hex(" "),
                        recoverable=True,
                    )
                )
                i = j + 1
                continue
            if noise:
                out.append(Noise(noise))
                noise = 0
            out.append(Frame(buf[j + 3], buf[j + 4], bytes(buf[j + 5 : end - 2])))
            i = end
        if noise:
            out.append(Noise(noise))
        del buf[:i]
        return out


def _read_text(payload: bytes, at: int) -> tuple[str, int]:
    length = payload[at]
    end = at + 1 + length
    if end > len(payload):
        raise ValueError(f"text field of {length} bytes runs past the payload")
    return payload[at + 1 : end].decode("ascii", "replace"), end


@dataclass(slots=True)
class FramedHostCodec:
    """Host side of protocol v1: frames in, events out, acknowledgements to send back."""

    stats: CodecStats = field(default_factory=CodecStats)
    device: str = "shoe"
    boot: int | None = None
    last_record: int | None = None
    _splitter: FrameSplitter = field(default_factory=FrameSplitter)
    _recent: dict[int, bytes] = field(default_factory=dict)
    # the cards of the deck the shoe last said it loaded (DECK_LOADED): a repeat is provable
    _inventory: DeckInventory = field(default_factory=DeckInventory)
    _out: bytearray = field(default_factory=bytearray)
    _tx_seq: int = 0
    # resumed from a journal and no new record seen since: what comes from behind is a
    # resend of what the previous host kept, and records it acknowledged without keeping a
    # card (an empty shoe, a burn card) leave no gap
    _resumed: bool = False

    def feed(self, data: bytes, now: float = 0.0) -> list[ShoeEvent]:
        """Decode ``data``; acknowledgements for received records wait in :meth:`take_output`."""
        self.stats.bytes_in += len(data)
        events: list[ShoeEvent] = []
        for item in self._splitter.feed(data):
            if isinstance(item, Frame):
                self.stats.messages += 1
                self._frame(item, events)
            elif isinstance(item, Noise):
                self.stats.noise_bytes += item.nbytes
                events.append(item)
            else:
                self.stats.corrupt += 1
                events.append(item)
        return events

    def resume(self, boot: int, record: int) -> None:
        """Go on from the last record a previous host kept (the shoe's boot counter and the
        record's number, from the table's journal): a record the shoe resends because that
        host died before acknowledging it is dropped as a duplicate (and acknowledged),
        while a shoe that rebooted since says so in its HELLO and starts afresh."""
        self.boot = boot
        self.last_record = record
        self._recent.clear()
        self._resumed = True

    def take_output(self) -> bytes:
        """Acknowledgements and commands owed to the shoe."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def reset_link(self) -> None:
        """Forget a partial frame after the link was reopened."""
        self._splitter.reset()

    def command(self, kind: MessageType, count: int | None = None) -> bytes:
        """The frame of a host command (LOCK, UNLOCK, IDENTIFY), with its frame number.

        UNLOCK with a ``count`` opens the gate for that many cards, after which the shoe
        shuts it itself; without one, until LOCK.
        """
        if kind not in (MessageType.LOCK, MessageType.UNLOCK, MessageType.IDENTIFY):
            raise ValueError(
                f"{kind.name} is not a host command: expected LOCK, UNLOCK or IDENTIFY"
            )
        if count is None:
            return self._encode(kind, b"")
        if kind is not MessageType.UNLOCK or not 1 <= count <= 255:
            raise ValueError(
                f"a card count goes with UNLOCK only, 1 to 255; got {kind.name} {count}"
            )
        return self._encode(kind, bytes((count,)))

    def _encode(self, kind: MessageType, payload: bytes) -> bytes:
        self._tx_seq = (self._tx_seq + 1) & 0xFF
        return encode_frame(self._tx_seq, kind, payload)

    def _frame(self, frame: Frame, events: list[ShoeEvent]) -> None:
        kind = frame.type
        payload = frame.payload
        try:
            if kind == MessageType.HEARTBEAT:
                uptime, pending = struct.unpack(">IB", payload)
                events.append(Heartbeat(uptime, pending))
                return
            if kind not in RECORD_TYPES:
                raise ValueError(f"type 0x{kind:02x} is no shoe-to-host message")
            (record,) = struct.unpack_from(">H", payload)
            if kind == MessageType.HELLO:
                self._hello(record, payload, events)
                return
            if record == 0:
                raise ValueError("record number 0 on a record")
        except (struct.error, ValueError, IndexError) as error:
            self.stats.corrupt += 1
            events.append(
                CorruptMessage(f"bad {_type_name(kind)} frame: {error}", payload.hex(" "))
            )
            return
        self._record(record, kind, payload, events)

    def _hello(self, record: int, payload: bytes, events: list[ShoeEvent]) -> None:
        (boot,) = struct.unpack_from(">I", payload, 2)
        model, at = _read_text(payload, 6)
        serial, at = _read_text(payload, at)
        firmware, _ = _read_text(payload, at)
        if self.boot is not None and boot != self.boot:
            events.append(
                Rebooted(
                    serial or self.device, "boot counter changed", self.boot, boot, self.last_record
                )
            )
            self.last_record = None
            self._recent.clear()
            self._resumed = False
        self.boot = boot
        self.device = serial or self.device
        if record == 0:  # an answer to IDENTIFY, not a record
            events.append(Hello(self.device, model, firmware, boot))
            return
        self._record(
            record, MessageType.HELLO, payload, events, Hello(self.device, model, firmware, boot)
        )

    def _record(
        self,
        record: int,
        kind: int,
        payload: bytes,
        events: list[ShoeEvent],
        decoded: ShoeEvent | None = None,
    ) -> None:
        self._out += self._encode(MessageType.ACK, ack_payload(record))
        key = bytes((kind,)) + payload
        last = self.last_record
        if last is not None:
            expected = last % RECORD_MODULUS + 1
            ahead = (record - expected) % RECORD_MODULUS
            if ahead >= RECORD_MODULUS // 2:  # behind: a resend, or a contradiction
                if self._recent.get(record) == key or (
                    self._resumed and record not in self._recent
                ):
                    self.stats.duplicates += 1
                    events.append(DuplicateDropped(self.device, record))
                else:
                    self.stats.corrupt += 1
                    events.append(
                        CorruptMessage(
                            f"record {record} arrived again with other content (last was {last})",
                            payload.hex(" "),
                        )
                    )
                return
            if ahead and not self._resumed:
                self.stats.gaps += 1
                missing = tuple((expected - 1 + k) % RECORD_MODULUS + 1 for k in range(ahead))
                events.append(SequenceGap(self.device, expected, record, missing))
        self.last_record = record
        self._resumed = False
        self._recent[record] = key
        if len(self._recent) > 16:
            del self._recent[next(iter(self._recent))]
        if decoded is not None:
            events.append(decoded)
            return
        try:
            events.append(self._decode_record(record, kind, payload))
        except (ValueError, IndexError, struct.error) as error:
            self.stats.corrupt += 1
            events.append(
                CorruptMessage(f"bad {_type_name(kind)} record {record}: {error}", payload.hex(" "))
            )

    def _decode_record(self, record: int, kind: int, payload: bytes) -> ShoeEvent:
        if kind == MessageType.CARD:
            if len(payload) != 4:
                raise ValueError(f"CARD payload of {len(payload)} bytes, expected 4")
            if payload[2] > 51:
                raise ValueError(f"card number {payload[2]}, expected 0 (2C) to 51 (AS)")
            card = Card(payload[2])
            duplicate = self._inventory.add(card)
            if duplicate is not None:
                return duplicate
            self.stats.cards += 1
            return CardRead(
                card, record=record, quality=payload[3], device=self.device, boot=self.boot
            )
        if kind == MessageType.ERROR:
            try:
                code = ErrorCode(payload[2])
            except ValueError:
                code = ErrorCode.OTHER
            detail = payload[3:].decode("ascii", "replace")
            if code is ErrorCode.UNREADABLE:
                self._inventory.add_failure()
                return ReadFailed(detail or "unreadable", record=record, device=self.device)
            return Alarm(code.label, detail, record=record)
        if kind == MessageType.EMPTY:
            return ShoeEmpty(record)
        deck_id = payload[2:].decode("ascii", "replace")
        self._inventory.reset(deck_id)
        return DeckLoaded(deck_id, record)


def _type_name(kind: int) -> str:
    try:
        return MessageType(kind).name
    except ValueError:
        return f"0x{kind:02x}"
