"""JSON-lines RFID card readers: one object per line, a per-device sequence, tags by uid.

Each line is an object with ``type`` (``boot``, ``card`` or ``error``), ``seq`` (counting
every message from 1 at boot, the boot message being 1), ``device_id``, and per type
``fw_version`` (boot), ``uid`` (card) or ``error`` and ``detail`` (error). Lines that start
with ``#`` are debug output. The host maps uids to cards through the deck's
:class:`~drivers.shoe.deckmap.DeckMap`, drops a line repeated straight after itself (same
``seq``, same bytes; a boot message is never taken for a repeat), reports a jump in
``seq`` as a gap, suppresses a tag read again straight after itself inside the debounce
window (a tag lingering at the antenna; never once its deck is complete), and keeps a
per-deck inventory.

>>> from drivers.shoe.deckmap import parse_deck_map
>>> codec = JsonlCodec(parse_deck_map("04A1 AS\\n04A2 KD"))
>>> lines = [
...     b'{"type":"boot","seq":1,"device_id":"r1","fw_version":"1.2"}',
...     b'{"type":"card","seq":2,"device_id":"r1","uid":"04A1"}',
...     b'{"type":"card","seq":4,"device_id":"r1","uid":"04A2"}',
... ]
>>> [e.kind.value for e in codec.feed(b"\\n".join(lines) + b"\\n", now=1.0)]
['hello', 'card', 'sequence_gap', 'card']
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from drivers.shoe.base import CodecStats, DeckInventory
from drivers.shoe.deckmap import DeckMap, demo_deck_map, normalise_uid
from drivers.shoe.events import (
    Alarm,
    CardRead,
    CorruptMessage,
    Debounced,
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

__all__ = ["DEFAULT_DEBOUNCE", "JsonlCodec", "format_jsonl"]

DEFAULT_DEBOUNCE = 1.0
"""Seconds within which a second read of the same tag is a re-read, not a new card."""
_MAX_LINE = 2048
_RECENT = 16


def format_jsonl(message: dict[str, Any]) -> bytes:
    """One message as the reader writes it: compact JSON and a newline."""
    return json.dumps(message, separators=(",", ":")).encode("ascii") + b"\n"


@dataclass(slots=True)
class _Device:
    last_seq: int | None = None
    recent: dict[int, bytes] = field(default_factory=dict)
    last_uid: str = ""
    last_read: float = 0.0


@dataclass(slots=True)
class JsonlCodec:
    """Decoder of the JSON-lines RFID reader stream."""

    deck_map: DeckMap = field(default_factory=demo_deck_map)
    debounce: float = DEFAULT_DEBOUNCE
    stats: CodecStats = field(default_factory=CodecStats)
    _buffer: bytearray = field(default_factory=bytearray)
    _devices: dict[str, _Device] = field(default_factory=dict)
    _inventory: DeckInventory = field(init=False)

    def __post_init__(self) -> None:
        self._inventory = DeckInventory(len(self.deck_map), self.deck_map.deck_id)

    def take_output(self) -> bytes:
        """These readers take no acknowledgements."""
        return b""

    def reset_link(self) -> None:
        """Forget a partial line."""
        self._buffer.clear()

    def new_deck(self, deck_id: str = "") -> None:
        """Start a fresh inventory."""
        self._inventory.reset(deck_id)

    def feed(self, data: bytes, now: float = 0.0) -> list[ShoeEvent]:
        """Decode every line completed by ``data``, received at ``now`` (monotonic seconds)."""
        self.stats.bytes_in += len(data)
        buf = self._buffer
        buf += data
        events: list[ShoeEvent] = []
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            self._line(bytes(buf[start:end]).strip(b"\r\x00 \t"), now, events)
            start = end + 1
        del buf[:start]
        if len(buf) > _MAX_LINE:
            self.stats.corrupt += 1
            events.append(CorruptMessage(f"line longer than {_MAX_LINE} bytes", buf[:40].hex()))
            buf.clear()
        return events

    def _line(self, line: bytes, now: float, events: list[ShoeEvent]) -> None:
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
        except ValueError:
            self._corrupt("line is not one JSON object", shown, events)
            return
        problem = _check(message)
        if problem:
            self._corrupt(problem, shown, events)
            return
        self.stats.messages += 1
        self._message(message, line, now, events)

    def _corrupt(self, reason: str, shown: str, events: list[ShoeEvent]) -> None:
        self.stats.corrupt += 1
        events.append(CorruptMessage(reason, shown))

    def _message(self, msg: dict[str, Any], line: bytes, now: float, ev: list[ShoeEvent]) -> None:
        name: str = msg["device_id"]
        seq: int = msg["seq"]
        kind: str = msg["type"]
        device = self._devices.get(name)
        if device is None:
            device = self._devices[name] = _Device()
        last = device.last_seq
        if kind != "boot" and seq == last and device.recent.get(seq) == line:
            self.stats.duplicates += 1
            ev.append(DuplicateDropped(name, seq))
            return
        if kind == "boot":
            firmware = str(msg.get("fw_version", ""))
            if last is not None:
                ev.append(Rebooted(name, "boot message", last_record=last))
            ev.append(Hello(name, firmware=firmware))
            device.recent.clear()
            device.last_uid = ""
            if seq != 1:
                self.stats.gaps += 1
                ev.append(SequenceGap(name, expected=1, received=seq))
        elif last is not None and seq <= last:
            ev.append(
                Rebooted(
                    name,
                    f"seq went back from {last} to {seq} without a boot message",
                    last_record=last,
                )
            )
            device.recent.clear()
            if seq > 1:
                self.stats.gaps += 1
                ev.append(SequenceGap(name, expected=1, received=seq))
        elif last is not None and seq > last + 1:
            self.stats.gaps += 1
            ev.append(SequenceGap(name, expected=last + 1, received=seq))
        device.last_seq = seq
        device.recent[seq] = line
        if len(device.recent) > _RECENT:
            del device.recent[next(iter(device.recent))]
        if kind == "card":
            self._card(name, device, seq, str(msg["uid"]), now, ev)
        elif kind == "error":
            error = str(msg.get("error", ""))
            detail = str(msg.get("detail", ""))
            if error == "read_failed":
                self._inventory.add_failure()
                ev.append(ReadFailed(detail or error, record=seq, device=name))
            else:
                ev.append(Alarm(error or "error", detail, record=seq))

    def _card(
        self, name: str, device: _Device, seq: int, raw_uid: str, now: float, ev: list[ShoeEvent]
    ) -> None:
        uid = normalise_uid(raw_uid)
        card = self.deck_map.card_for(uid)
        if card is None:
            ev.append(UnknownTag(uid, record=seq, device=name))
            return
        repeat = uid == device.last_uid and now - device.last_read < self.debounce
        device.last_uid, device.last_read = uid, now
        if repeat and not self._inventory.complete:
            ev.append(Debounced(card, uid))
            return
        duplicate = self._inventory.add(card)
        if duplicate is not None:
            ev.append(duplicate)
            return
        self.stats.cards += 1
        ev.append(CardRead(card, record=seq, device=name))


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
