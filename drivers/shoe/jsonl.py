"""JSON-lines RFID card readers: one object per line, a per-device sequence, tags by uid.

Each line is an object with ``type`` (``boot``, ``card`` or ``error``), ``seq`` (counting
every message from 1 at boot, the boot message being 1), ``device_id``, and per type
``fw_version`` (boot), ``uid`` (card) or ``error`` and ``detail`` (error). Lines that start
with ``#`` are debug output. The host maps uids to cards through the deck's
:class:`~drivers.shoe.deckmap.DeckMap` and reports a jump in ``seq`` as a gap.

A message is dropped only when it is provably one already taken: the same device, the same
``seq`` and the same content, straight after itself (a line sent twice; a boot message never
is, since a reader that reboots twice sends the same boot line twice). Each drop is a
``duplicate_dropped`` event and counts in ``stats.duplicates``. A tag read again under a new
``seq`` is a new read by the reader's own count (the reader itself suppresses a tag for
500 ms): it is delivered as a card, and the table judges it, knowing the round in play (a
card already dealt in the round halts it; after a reshuffle it is the next round's card).
The same ``seq`` with other content is a contradiction, reported as ``corrupt`` (halts).

>>> from drivers.shoe.deckmap import parse_deck_map
>>> codec = JsonlCodec(parse_deck_map("04A1 AS\\n04A2 KD"))
>>> lines = [
...     b'{"type":"boot","seq":1,"device_id":"r1","fw_version":"1.2"}',
...     b'{"type":"card","seq":2,"device_id":"r1","uid":"04A1"}',
...     b'{"type":"card","seq":2,"device_id":"r1","uid":"04A1"}',
...     b'{"type":"card","seq":4,"device_id":"r1","uid":"04A2"}',
...     b'{"type":"card","seq":5,"device_id":"r1","uid":"04A1"}',
... ]
>>> [e.kind.value for e in codec.feed(b"\\n".join(lines) + b"\\n", now=1.0)]
['hello', 'card', 'duplicate_dropped', 'sequence_gap', 'card', 'card']
>>> codec.stats.duplicates
1
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from drivers.shoe.base import CodecStats
from drivers.shoe.deckmap import DeckMap, demo_deck_map, normalise_uid
from drivers.shoe.events import (
    Alarm,
    CardRead,
    CorruptMessage,
    DebugLine,
    DuplicateDropped,
    Hello,
    Noise,
    ReadFailed,
    Rebooted,
    SequenceGap,
    ShoeEvent,
    UnknownTag,
)

__all__ = ["JsonlCodec", "format_jsonl"]

_MAX_LINE = 2048
_MAX_DEVICES = 16
"""The most readers one line carries (each keeps its own count of messages): another
``device_id`` is a damaged one, refused, so that a stream of made-up ids grows nothing."""
_MAX_GAP = 32767
"""The most messages one jump of ``seq`` may name as lost (as many as a framed shoe's
record numbers can): a longer jump is a damaged number, reported instead of listed."""


def format_jsonl(message: dict[str, Any]) -> bytes:
    """One message as the reader writes it: compact JSON and a newline."""
    return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


@dataclass(slots=True)
class _Device:
    last_seq: int | None = None
    last_message: dict[str, Any] | None = None  # the message of ``last_seq``, as decoded


@dataclass(slots=True)
class JsonlCodec:
    """Decoder of the JSON-lines RFID reader stream."""

    deck_map: DeckMap = field(default_factory=demo_deck_map)
    stats: CodecStats = field(default_factory=CodecStats)
    _buffer: bytearray = field(default_factory=bytearray)
    _devices: dict[str, _Device] = field(default_factory=dict)
    # the rest of a line too long to keep is skipped up to its newline, never read as a line
    _skipping: bool = False

    def take_output(self) -> bytes:
        """These readers take no acknowledgements."""
        return b""

    def reset_link(self) -> None:
        """Forget a partial line."""
        self._buffer.clear()
        self._skipping = False

    def feed(self, data: bytes, now: float = 0.0) -> list[ShoeEvent]:
        """Decode every line completed by ``data`` (no rule here depends on ``now``)."""
        self.stats.bytes_in += len(data)
        buf = self._buffer
        buf += data
        events: list[ShoeEvent] = []
        start = 0
        if self._skipping:
            end = buf.find(b"\n")
            if end < 0:
                buf.clear()
                return events
            start = end + 1
            self._skipping = False
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            if end - start > _MAX_LINE:  # refused however it arrives, whole or in pieces
                self._too_long(bytes(buf[start : start + 40]), events)
            else:
                self._line(bytes(buf[start:end]).strip(b"\r\x00 \t"), events)
            start = end + 1
        del buf[:start]
        if len(buf) > _MAX_LINE:
            self._too_long(bytes(buf[:40]), events)
            buf.clear()
            self._skipping = True
        return events

    def _too_long(self, head: bytes, events: list[ShoeEvent]) -> None:
        self.stats.corrupt += 1
        events.append(
            CorruptMessage(
                f"line longer than {_MAX_LINE} bytes (expected one JSON object of at most "
                f"{_MAX_LINE}): skipped to its end",
                head.hex(),
            )
        )

    def _line(self, line: bytes, events: list[ShoeEvent]) -> None:
        if not line:
            return
        if line.startswith(b"#"):
            events.append(DebugLine(line[1:].strip().decode("ascii", "replace")))
            return
        brace = line.find(b"{")
        if brace < 0:
            self.stats.noise_bytes += len(line)
            events.append(Noise(len(line)))
            return
        if brace:
            self.stats.noise_bytes += brace
            events.append(Noise(brace))
            line = line[brace:]
        shown = line.decode("ascii", "replace")
        if any(b < 0x20 or b > 0x7E for b in line):
            self._corrupt("line holds bytes that are not printable ASCII", shown, events)
            return
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # nested deeper than the parser goes, too
            self._corrupt("line is not one JSON object", shown, events)
            return
        problem = _check(message)
        if problem:
            self._corrupt(problem, shown, events)
            return
        self.stats.messages += 1
        self._message(message, events)

    def _corrupt(self, reason: str, shown: str, events: list[ShoeEvent]) -> None:
        self.stats.corrupt += 1
        events.append(CorruptMessage(reason, shown))

    def _message(self, msg: dict[str, Any], ev: list[ShoeEvent]) -> None:
        name: str = msg["device_id"]
        seq: int = msg["seq"]
        kind: str = msg["type"]
        device = self._devices.get(name)
        if device is None:
            if len(self._devices) >= _MAX_DEVICES:  # a damaged id, or a stream not a shoe's
                self._corrupt(
                    f"device_id {name[:40]!r} would be reader {len(self._devices) + 1} on "
                    f"this line: expected at most {_MAX_DEVICES} (a damaged id)",
                    json.dumps(msg, separators=(",", ":"))[:200],
                    ev,
                )
                return
            device = self._devices[name] = _Device()
        last = device.last_seq
        lost = _lost(kind, seq, last)
        if lost > _MAX_GAP:
            self._corrupt(
                f"{name} sent seq {seq}{'' if last is None else f' after seq {last}'}: "
                f"{lost} messages lost, expected at most {_MAX_GAP} (a damaged number)",
                json.dumps(msg, separators=(",", ":")),
                ev,
            )
            return
        if kind != "boot" and seq == last:
            if msg == device.last_message:  # the same message again: provably the same read
                self.stats.duplicates += 1
                ev.append(DuplicateDropped(name, seq))
                return
            was = device.last_message or {}
            self._corrupt(
                f"{name} sent seq {seq} twice with other content: first {_what(was)}, "
                f"then {_what(msg)} (expected seq {seq + 1} for a new message)",
                json.dumps(msg, separators=(",", ":")),
                ev,
            )
            return
        if kind == "boot":
            firmware = str(msg.get("fw_version", ""))
            if last is not None:
                ev.append(Rebooted(name, "boot message", last_record=last))
            ev.append(Hello(name, firmware=firmware))
            if seq != 1:
                self.stats.gaps += 1
                ev.append(SequenceGap(name, expected=1, received=seq))
        elif last is not None and seq < last:
            ev.append(
                Rebooted(
                    name,
                    f"seq went back from {last} to {seq} without a boot message",
                    last_record=last,
                )
            )
            if seq > 1:
                self.stats.gaps += 1
                ev.append(SequenceGap(name, expected=1, received=seq))
        elif last is not None and seq > last + 1:
            self.stats.gaps += 1
            ev.append(SequenceGap(name, expected=last + 1, received=seq))
        device.last_seq = seq
        device.last_message = msg
        if kind == "card":
            self._card(name, seq, str(msg["uid"]), ev)
        elif kind == "error":
            error = str(msg.get("error", ""))
            detail = str(msg.get("detail", ""))
            if error == "read_failed":
                ev.append(ReadFailed(detail or error, record=seq, device=name))
            else:
                ev.append(Alarm(error or "error", detail, record=seq))

    def _card(self, name: str, seq: int, raw_uid: str, ev: list[ShoeEvent]) -> None:
        uid = normalise_uid(raw_uid)
        card = self.deck_map.card_for(uid)
        if card is None:
            ev.append(UnknownTag(uid, record=seq, device=name))
            return
        self.stats.cards += 1
        ev.append(CardRead(card, record=seq, device=name))


def _lost(kind: str, seq: int, last: int | None) -> int:
    """How many messages before ``seq`` a gap would name as lost (0: none)."""
    if kind == "boot" or (last is not None and seq < last):
        return seq - 1  # a new boot: its earlier messages
    if last is not None and seq > last + 1:
        return seq - last - 1
    return 0


def _what(msg: dict[str, Any]) -> str:
    """A message in a few words: ``card 04A1``, ``error read_failed``, ``boot``."""
    kind = str(msg.get("type", "message"))
    if kind == "card":
        return f"card {msg.get('uid')}"
    if kind == "error":
        return f"error {msg.get('error')}"
    return kind


def _check(msg: object) -> str:
    """What is wrong with a decoded message, or an empty string."""
    if not isinstance(msg, dict):
        return "line is JSON but not an object"
    kind = msg.get("type")
    if kind not in ("boot", "card", "error"):
        return f"type {kind!r}: expected 'boot', 'card' or 'error'"
    seq = msg.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        return f"seq {seq!r}: expected an integer from 1"
    if not isinstance(msg.get("device_id"), str) or not msg["device_id"]:
        return "device_id missing: expected a string"
    if kind == "card" and not isinstance(msg.get("uid"), str):
        return "card without a uid string"
    return ""
