"""A player display that checks what it receives: the test oracle of the public stream.

It subscribes exactly as a display does (the public state, events and status of a table)
and checks every message:

- **sequence**: within one birth, each message's ``seq`` follows the last one (wrapping at
  65,536); on a gap it asks for a rebirth and resynchronises on the next state;
- **contradictions**: a card once shown at a position never changes (within a round), a
  round id never goes back, a shown card is never hidden again;
- **hidden data**: no face-down card is shown before the rules reveal it, no card code
  appears that is not on the layout (the shoe's order), no seat's money or id appears.

It also decides what a display shows of the controller (:attr:`DisplayChecker.status`): a
retained ``online`` is only what the broker kept, and a broker restarted from its
persistence file keeps it while the controller is still reconnecting, so the table is shown
``online`` only once a live message (RETAIN clear: relayed as the controller sent it) comes;
on a kept ``online`` the display asks for a rebirth, which a connected controller answers
at once.

Every finding is kept with the message that caused it; a hardware-in-the-loop rig reads
``report()``.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from controller.messages import SEQ_MODULO
from controller.topics import Topics

__all__ = ["DisplayChecker", "Finding"]

_CARD = re.compile(r'"([2-9TJQKA][CDHS])"')


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the display found wrong: its kind, what, and the message's seq."""

    kind: str  # gap, contradiction, hidden, schema
    detail: str
    seq: int | None = None


@dataclass
class DisplayChecker:
    """Checks one table's public stream; feed it with :meth:`receive` (topic, payload)."""

    table_id: str
    findings: list[Finding] = field(default_factory=list)
    messages: int = 0
    gaps: int = 0
    rebirths_requested: int = 0
    state: dict[str, Any] | None = None
    # what the display shows of the controller: "online" (a live message confirmed it),
    # "offline", "connecting" (the broker's kept "online", not yet confirmed, or this
    # display's own link lost), "" before any word
    status: str = ""
    reported: str = ""  # the status topic's last payload, as received
    statuses: list[tuple[str, bool]] = field(default_factory=list)  # (payload, kept copy?)
    events: list[dict[str, Any]] = field(default_factory=list)
    request_rebirth: Any = None  # callable() that publishes a rebirth request
    _birth: int | None = None
    _seq: int | None = None
    _synced: bool = False
    _shown: dict[tuple[str, str, int], str] = field(default_factory=dict)
    _round: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def topics(self) -> Topics:
        """The table's topics."""
        return Topics(self.table_id)

    @property
    def subscriptions(self) -> list[str]:
        """What a display subscribes to."""
        t = self.topics
        return [t.status, t.state, t.events]

    def receive(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """Check one message; ``retained``: the broker sent its kept copy (RETAIN set, on
        subscribing) rather than relaying it live."""
        with self._lock:
            self._receive(topic, payload, retained)

    def link_lost(self) -> None:
        """This display lost its broker: nothing it shows is confirmed until it is back, and
        it starts again from what the broker kept, as a display that has just joined."""
        with self._lock:
            if self.status == "online":
                self.status = "connecting"
            self._birth, self._seq, self._synced, self._round = None, None, False, None
            self._shown.clear()

    def _receive(self, topic: str, payload: bytes, retained: bool) -> None:
        t = self.topics
        self.messages += 1
        if topic == t.status:
            self.reported = payload.decode(errors="replace").strip()
            self.statuses.append((self.reported, retained))
            if self.reported != "online":
                self.status = self.reported
            elif not retained:
                self.status = "online"
            else:  # kept by the broker: the controller may be away; ask it to speak
                self.status = "connecting"
                if self.request_rebirth is not None:
                    self.rebirths_requested += 1
                    self.request_rebirth()
            return
        if not retained and self.reported == "online":
            self.status = "online"  # the controller is there: this came from it just now
        try:
            doc = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            self.findings.append(Finding("schema", f"{topic}: not JSON: {error}"))
            return
        if not isinstance(doc, dict) or doc.get("v") != 1:
            self.findings.append(Finding("schema", f"{topic}: expected a v1 object"))
            return
        self._sequence(doc)
        self._hidden(topic, doc, payload)
        if doc.get("type") == "state":
            self.state = doc
            self._check_state(doc)
        else:
            self.events.append(doc)
            self._check_event(doc)

    # ------------------------------------------------------------------ sequence

    def _sequence(self, doc: dict[str, Any]) -> None:
        birth, seq = doc.get("birth"), doc.get("seq")
        if not isinstance(birth, int) or not isinstance(seq, int):
            self.findings.append(Finding("schema", "a message without birth or seq"))
            return
        if birth != self._birth:  # a new birth: the stream starts again
            self._birth, self._seq, self._synced = birth, seq, doc.get("type") == "state"
            return
        assert self._seq is not None
        expected = (self._seq + 1) % SEQ_MODULO
        if seq != expected and self._synced:
            self.gaps += 1
            self._synced = False
            self.findings.append(Finding("gap", f"expected seq {expected}, got {seq}", seq))
            if self.request_rebirth is not None:
                self.rebirths_requested += 1
                self.request_rebirth()
        if doc.get("type") == "state" and not self._synced:
            self._synced = True  # a whole state: in step again
        self._seq = seq

    # ------------------------------------------------------------------ contents

    def _hidden(self, topic: str, doc: dict[str, Any], payload: bytes) -> None:
        text = payload.decode(errors="replace")
        for word in ("seat:", "balance", "halt_reason", "removed", "stray", "corrections"):
            if f'"{word}' in text:
                self.findings.append(Finding("hidden", f"{topic} carries {word!r}", doc.get("seq")))
        cards = doc.get("cards") if doc.get("type") == "state" else None
        if doc.get("event") == "card":
            data = doc.get("data", {})
            if data.get("face") == "down" and data.get("card") and data.get("position") != "board":
                self.findings.append(
                    Finding(
                        "hidden",
                        f"face-down card {data['card']} at {data['position']} shown when dealt",
                        doc.get("seq"),
                    )
                )
        for c in cards or []:
            if (
                c.get("face") == "down"
                and c.get("card")
                and c["position"] not in ("dealer", "board")
                and doc.get("phase") != "settling"
            ):
                self.findings.append(
                    Finding(
                        "hidden",
                        f"face-down card {c['card']} at {c['position']} shown in "
                        f"phase {doc.get('phase')}",
                        doc.get("seq"),
                    )
                )

    def _check_state(self, doc: dict[str, Any]) -> None:
        rid = doc.get("round_id")
        if rid is not None and rid != self._round:
            if self._round is not None and rid < self._round:
                self.findings.append(Finding("contradiction", f"round {rid} after {self._round}"))
            self._round = rid
            self._shown = {k: v for k, v in self._shown.items() if k[0] == rid}
        for c in doc.get("cards", []):
            key = (str(rid), c["position"], int(c["index"]))
            if c.get("card"):
                was = self._shown.get(key)
                if was is not None and was != c["card"]:
                    self.findings.append(
                        Finding(
                            "contradiction",
                            f"{c['position']} card {c['index']} was {was}, now {c['card']}",
                            doc.get("seq"),
                        )
                    )
                self._shown[key] = c["card"]
            elif key in self._shown and doc.get("phase") != "halted":
                self.findings.append(
                    Finding(
                        "contradiction",
                        f"{c['position']} card {c['index']} hidden again",
                        doc.get("seq"),
                    )
                )

    def _check_event(self, doc: dict[str, Any]) -> None:
        event, data = doc.get("event"), doc.get("data", {})
        if event in ("round_ended", "redeal", "sequence_restored"):
            self._shown.clear()
        elif event == "card_corrected":  # the pit corrected a misread: the new card stands
            key = (str(self._round), str(data.get("position")), int(data.get("index", 0)))
            self._shown.pop(key, None)

    def report(self) -> dict[str, Any]:
        """What was received and found."""
        with self._lock:
            return {
                "messages": self.messages,
                "gaps": self.gaps,
                "rebirths_requested": self.rebirths_requested,
                "findings": [f"{f.kind}: {f.detail}" for f in self.findings],
                "status": self.status,
                "reported": self.reported,
                "phase": None if self.state is None else self.state.get("phase"),
            }
