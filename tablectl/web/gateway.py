"""The server's MQTT side: one shared public feed, one link per logged-in role.

:class:`PublicFeed` logs in with the server's own display credentials and subscribes, once
for every table of the broker, to the public topics (``status``, ``state``, ``events``);
every public page of a table receives the same frames (200 player displays are one MQTT
client). It follows the display rules of ``docs/topics.md``: a ``seq`` gap within a birth
publishes a rebirth request; the broker's kept ``online`` is only "connecting" until the
controller is heard live; a lost link shows every table "connecting"; a table the broker
has no status of, a while after the feed's subscriptions were acknowledged, is "unheard" (a
table whose journal the server serves but that never ran on this broker).

:class:`RoleLink` is one role's own login (a seat, the dealer, the pit manager): the broker
checks its password and its ACL decides what it receives, and the link subscribes to that
role's topics only. It publishes the page's commands on the role's own ``cmd`` topic.

paho delivers in its network thread; both hand each message to the server's event loop
(``call_soon_threadsafe``), where the caches and the fan-out live: nothing here is shared
between threads but the loop's queue.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from controller.inbound import parse_command
from controller.messages import SEQ_MODULO
from controller.topics import ROOT, Sender, Topics
from drivers.mqtt.client import BrokerAddress, MqttLink

__all__ = [
    "MAX_TABLES",
    "PublicFeed",
    "RoleLink",
    "Subscriber",
    "frame",
    "gateway_frame",
]

#: the most tables one server follows: a table the broker speaks for takes the place of
#: one only pages named (a page naming a table beyond them is told so)
MAX_TABLES = 64
#: rounds of history a public page is given when it joins
HISTORY = 12
#: a table of which nothing was heard on its status topic this long after the feed's
#: subscriptions were acknowledged is "unheard": the broker keeps no status of it (a table
#: that ran on this broker left its retained "online" or its will's "offline"), so it never
#: ran here; a page says so rather than "connecting" for ever
UNHEARD_AFTER = 3.0
#: the least time between two rebirth requests for one table
REBIRTH_INTERVAL = 0.5
#: how long a login may take before the page is told the broker did not answer
LOGIN_SECONDS = 5.0
#: a command without a reply is sent again, with its id, after this long, this many times
RETRY_SECONDS = 3.0
RETRIES = 2
#: commands awaiting their reply, per link (beyond it a command is sent once, untracked)
PENDING = 256


class Subscriber(Protocol):
    """A page's socket as the gateway sees it: it is offered frames (JSON text)."""

    def offer(self, text: str) -> None:
        """Queue one frame for the page (never blocks)."""


def _payload_text(payload: bytes) -> str:
    """A payload as JSON text: the controller's JSON as it came, plain text quoted."""
    try:
        text = payload.decode()
    except UnicodeDecodeError:
        return json.dumps(payload.decode(errors="replace"))
    try:
        json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return json.dumps(text)
    return text


def _no_constant(name: str) -> Any:
    raise ValueError(f"not JSON for a browser: {name}")


def frame(table: str, topic: str, payload: bytes, retained: bool) -> str:
    """One server -> page frame: ``{"table", "topic", "payload", "retained"}``.

    >>> frame("T1", "status", b"online", True)
    '{"table": "T1", "topic": "status", "payload": "online", "retained": true}'
    """
    return (
        f'{{"table": {json.dumps(table)}, "topic": {json.dumps(topic)}, '
        f'"payload": {_payload_text(payload)}, "retained": {"true" if retained else "false"}}}'
    )


def gateway_frame(gateway: str, **more: Any) -> str:
    """A frame about the link itself: ``{"gateway": "connected"|"broker-down"|..., ...}``."""
    return json.dumps({"gateway": gateway, **more})


def split_topic(topic: str) -> tuple[str, str] | None:
    """``tablectl/T1/seat/3/state`` -> ``("T1", "seat/3/state")``; None for other topics."""
    parts = topic.split("/", 2)
    if len(parts) != 3 or parts[0] != ROOT or not parts[1]:
        return None
    return parts[1], parts[2]


@dataclass
class _Table:
    """What the server knows of one table's public stream, and who follows it."""

    table: str
    reported: str = ""  # the status topic's last payload
    status: str = "connecting"  # online (heard live), offline, connecting, unheard
    birth: int | None = None
    seq: int | None = None
    synced: bool = False
    gaps: int = 0
    retained: dict[str, bytes] = field(default_factory=dict)  # status, state: kept copies
    summary: dict[str, Any] = field(default_factory=dict)  # game, title, phase (the index)
    history: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HISTORY))
    subscribers: set[Subscriber] = field(default_factory=set)
    last_rebirth: float = 0.0


def _named_only(t: _Table) -> bool:
    """Whether only pages named ``t``: the broker never spoke for it."""
    return not (t.reported or t.retained or t.summary or t.history or t.birth is not None)


class PublicFeed:
    """Every table's public topics on one display login, fanned out to the public pages."""

    def __init__(
        self,
        address: BrokerAddress,
        loop: asyncio.AbstractEventLoop,
        *,
        client_id: str | None = None,
        tables: int = MAX_TABLES,
    ) -> None:
        self.address = address
        self.loop = loop
        self.max_tables = tables
        self.tables: dict[str, _Table] = {}
        self.gateway = "connecting"  # connected, broker-down, refused
        self.reason = ""
        self.rebirths = 0
        #: counts the feed's connections: a check of the unheard tables planned during one
        #: connection does nothing in a later one
        self._connection = 0
        #: whether UNHEARD_AFTER has passed in this connection (a table first named then,
        #: by a page, is unheard at once: the broker would have sent its kept status)
        self._settled = False
        self.link = MqttLink(
            address,
            client_id or f"tablectl-web-{secrets.token_hex(4)}",
            subscriptions=[f"{ROOT}/+/status", f"{ROOT}/+/state", f"{ROOT}/+/events"],
            on_connected=lambda: self._soon(self._connected),
            on_disconnected=lambda why: self._soon(self._lost, why),
            on_refused=lambda why: self._soon(self._refused, why),
            on_message=lambda t, p: self._soon(self._receive, t, p, False),
            on_retained=lambda t, p: self._soon(self._receive, t, p, True),
            backoff=(1, 2),
        )

    def _soon(self, fn: Callable[..., None], *args: Any) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def start(self) -> None:
        """Connect in the background (the link retries while the broker is away)."""
        self.link.start()

    def stop(self) -> None:
        """Disconnect."""
        self.link.stop()

    # ------------------------------------------------------------------ pages

    def join(self, table: str, page: Subscriber) -> bool:
        """Follow ``table`` (its kept state, history and status first); False when the
        server already follows as many tables as it may."""
        t = self._table(table, unheard=self._settled)
        if t is None:
            return False
        t.subscribers.add(page)
        page.offer(self._status_frame(t))
        for sub in ("status", "state"):
            if sub in t.retained:
                page.offer(frame(table, sub, t.retained[sub], True))
        page.offer(json.dumps({"table": table, "history": list(t.history)}))
        return True

    def leave(self, table: str, page: Subscriber) -> None:
        """Stop following ``table``; a table only pages named, none of them left, is
        forgotten (pages naming made-up tables leave no trace)."""
        t = self.tables.get(table)
        if t is not None:
            t.subscribers.discard(page)
            if not t.subscribers and _named_only(t):
                del self.tables[table]

    def index(self) -> list[dict[str, Any]]:
        """Every table heard of: id, status, game, title, phase, public pages open."""
        return [
            {"table": t.table, "status": t.status, **t.summary, "pages": len(t.subscribers)}
            for t in sorted(self.tables.values(), key=lambda t: t.table)
            if t.retained or t.summary
        ]

    # ------------------------------------------------------------------ the link (event loop)

    def _table(self, table: str, *, unheard: bool = False, heard: bool = False) -> _Table | None:
        """The table's record, made where new (``unheard``: its status is "unheard"); None
        where the server follows as many as it may. A table the broker speaks for
        (``heard``) takes the place of one that only pages named, whose pages are told:
        pages naming made-up tables never keep a real one out."""
        t = self.tables.get(table)
        if t is None:
            if len(self.tables) >= self.max_tables:
                named = next((n for n in self.tables.values() if _named_only(n)), None)
                if not heard or named is None:
                    return None
                del self.tables[named.table]
                self._tell(named, self.too_many())
            t = self.tables[table] = _Table(table, status="unheard" if unheard else "connecting")
        return t

    def too_many(self) -> str:
        """The words a page gets for a table beyond :attr:`max_tables`."""
        return json.dumps({"refused": f"expected at most {self.max_tables} tables; got more"})

    def _status_frame(self, t: _Table) -> str:
        return gateway_frame(
            self.gateway, link="public", table=t.table, status=t.status, reason=self.reason
        )

    def _tell(self, t: _Table, text: str) -> None:
        for page in list(t.subscribers):
            page.offer(text)

    def _set_status(self, t: _Table, status: str) -> None:
        if status != t.status:
            t.status = status
            self._tell(t, self._status_frame(t))

    def _connected(self) -> None:
        self.gateway, self.reason = "connected", ""
        self._connection += 1
        self._settled = False
        self.loop.call_later(UNHEARD_AFTER, self._unheard, self._connection)
        for t in self.tables.values():
            self._tell(t, self._status_frame(t))

    def _unheard(self, connection: int) -> None:
        """UNHEARD_AFTER into ``connection``: every table never heard on its status topic
        (the broker kept no copy of it) is unheard, once the subscriptions are acknowledged
        (the broker sends its kept copies straight after; asked again later where they are
        not yet). A table heard once, then lost with a broker that forgot it, stays
        "connecting": it ran here, and may come back."""
        if connection != self._connection or self.gateway != "connected":
            return
        if not self.link.wait_subscribed(0):
            self.loop.call_later(UNHEARD_AFTER, self._unheard, connection)
            return
        self._settled = True
        for t in self.tables.values():
            if not t.reported and t.status == "connecting":
                self._set_status(t, "unheard")

    def _lost(self, why: str) -> None:
        self.gateway, self.reason = "broker-down", why
        self._connection += 1
        self._settled = False
        for t in self.tables.values():
            t.birth, t.seq, t.synced = None, None, False
            t.status = "connecting"
            self._tell(t, self._status_frame(t))

    def _refused(self, why: str) -> None:
        self.gateway, self.reason = "refused", why
        for t in self.tables.values():
            self._tell(t, self._status_frame(t))

    def _rebirth(self, t: _Table) -> None:
        now = time.monotonic()
        if now - t.last_rebirth < REBIRTH_INTERVAL:
            return
        t.last_rebirth = now
        self.rebirths += 1
        self.link.publish(Topics(t.table).rebirth, b"{}")

    def _receive(self, topic: str, payload: bytes, retained: bool) -> None:
        where = split_topic(topic)
        if where is None:
            return
        table, sub = where
        t = self._table(table, heard=True)
        if t is None:
            return
        if sub == "status":
            t.reported = payload.decode(errors="replace").strip()
            t.retained["status"] = payload
            if t.reported != "online":
                self._set_status(t, t.reported or "offline")
            elif not retained:
                self._set_status(t, "online")
            else:  # the broker's kept copy: ask the controller to speak
                self._set_status(t, "connecting")
                self._rebirth(t)
            self._tell(t, frame(table, sub, payload, retained))
            return
        if not retained and t.reported == "online":
            self._set_status(t, "online")
        elif t.status == "unheard":  # heard now, its status not yet
            self._set_status(t, "connecting")
        doc = _json(payload)
        if doc is not None:
            self._sequence(t, doc)
            if sub == "state":
                t.retained["state"] = payload
                t.summary = {
                    "game": doc.get("game"),
                    "title": doc.get("title"),
                    "phase": doc.get("phase"),
                }
                last = doc.get("last_round")
                if (
                    isinstance(last, dict)
                    and last.get("round_id")
                    and (not t.history or t.history[-1].get("round_id") != last["round_id"])
                ):
                    t.history.append(last)
        self._tell(t, frame(table, sub, payload, retained))

    def _sequence(self, t: _Table, doc: dict[str, Any]) -> None:
        birth, seq = doc.get("birth"), doc.get("seq")
        if not isinstance(birth, int) or not isinstance(seq, int):
            return
        is_state = doc.get("type") == "state"
        if birth != t.birth:
            t.birth, t.seq, t.synced = birth, seq, is_state
            return
        expected = (0 if t.seq is None else t.seq + 1) % SEQ_MODULO
        if seq != expected and t.synced:
            t.gaps += 1
            t.synced = False
            self._rebirth(t)
        if is_state:
            t.synced = True
        t.seq = seq


def _json(payload: bytes) -> dict[str, Any] | None:
    try:
        doc = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


# ---------------------------------------------------------------------- a role's own login

ROLES = ("seat", "dealer", "pit")
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Role:
    """Who a session is: ``seat`` (with its id), ``dealer`` or ``pit``, and its broker user."""

    role: str
    user: str
    seat: str | None = None
    by: str | None = None  # the pit manager's name on commands

    def topics(self, table: str) -> tuple[str, ...]:
        """What this role subscribes to at ``table`` (``+``: every table)."""
        t = Topics(table)
        if self.role == "seat":
            assert self.seat is not None
            s = t.seat(self.seat)
            return (s.state, s.events, s.reply)
        if self.role == "dealer":
            return (t.dealer.state, t.dealer.events, t.dealer.reply)
        return (t.pit.state, t.pit.events, t.pit.alerts, t.pit.reply, t.journal)

    def cmd(self, table: str) -> str:
        """Where this role's commands go at ``table``."""
        t = Topics(table)
        if self.role == "seat":
            assert self.seat is not None
            return t.seat(self.seat).cmd
        return t.dealer.cmd if self.role == "dealer" else t.pit.cmd

    def name(self) -> str:
        """The role in words: seat 3, the dealer, the pit."""
        return f"seat {self.seat}" if self.role == "seat" else self.role


class RoleLink:
    """One role's login to the broker (as that user), for one table or, for the pit, all."""

    def __init__(
        self,
        address: BrokerAddress,
        role: Role,
        password: str,
        table: str,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.role = role
        self.table = table  # "+" for the pit: every table
        self.loop = loop
        self.gateway = "connecting"
        self.reason = ""
        self.retained: dict[tuple[str, str], bytes] = {}  # (table, sub) -> kept state
        self.subscribers: dict[str, set[Subscriber]] = {}
        self._prefix = secrets.token_hex(3)
        self._count = itertools.count(1)
        # id -> (table, topic, payload, sends so far, the page's ref, the timer)
        self.pending: dict[str, tuple[str, str, bytes, int, Any, asyncio.TimerHandle]] = {}
        will = None
        self.away = False
        if role.role == "seat":
            assert role.seat is not None
            self.presence: str | None = Topics(table).seat(role.seat).presence
            will = (self.presence, b"offline")
        else:
            self.presence = None
        self.link = MqttLink(
            replace(address, username=role.user, password=password),
            f"tablectl-web-{role.user}-{self._prefix}-{next(_ids)}",
            subscriptions=role.topics(table),
            will=will,
            on_connected=self._on_connected,
            on_disconnected=lambda why: self._soon(self._status, "broker-down", why),
            on_refused=lambda why: self._soon(self._status, "refused", why),
            on_message=lambda t, p: self._soon(self._receive, t, p, False),
            on_retained=lambda t, p: self._soon(self._receive, t, p, True),
            backoff=(1, 2),
        )

    def _soon(self, fn: Callable[..., None], *args: Any) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def _on_connected(self) -> None:  # network thread
        if self.presence is not None and not self.away:
            self.link.publish(self.presence, b"online", retain=True)
        self._soon(self._status, "connected", "")

    def set_away(self, away: bool) -> None:
        """A seat whose every page closed is away (``offline`` on its presence: before "no
        more bets" the table returns its bets); a page open again brings it back."""
        if self.presence is None or away == self.away:
            return
        self.away = away
        self.link.publish(self.presence, b"offline" if away else b"online", retain=True)

    async def start(self, timeout: float = LOGIN_SECONDS) -> str | None:
        """Connect; None once the broker accepted the login, else why it did not."""
        self.link.start()
        ok = await asyncio.get_running_loop().run_in_executor(
            None, self.link.wait_connected, timeout
        )
        if ok:
            return None
        self.link.stop()
        if self.link.refused is not None:
            return (
                f"the broker refused {self.role.user}'s login ({self.link.refused}): "
                f"expected {self.role.user}'s password"
            )
        return (
            f"the broker at {self.link.address.host}:{self.link.address.port} did not answer "
            f"within {timeout:g} s: expected it running; check the broker"
        )

    def stop(self) -> None:
        """Disconnect (a seat says it is away first); blocks until the farewell is sent."""
        farewell = (self.presence, b"offline") if self.presence is not None else None
        self.link.stop(farewell)

    async def close(self) -> None:
        """:meth:`stop` from the event loop, without holding up the other pages."""
        self.stop_retries()
        await asyncio.get_running_loop().run_in_executor(None, self.stop)

    def join(self, table: str, page: Subscriber) -> None:
        """Give ``page`` this role's frames of ``table`` (its kept states first)."""
        self.subscribers.setdefault(table, set()).add(page)
        page.offer(self._status_frame(table))
        for (t, sub), payload in self.retained.items():
            if t == table:
                page.offer(frame(t, sub, payload, True))

    def leave(self, table: str, page: Subscriber) -> None:
        """Stop giving ``page`` frames."""
        self.subscribers.get(table, set()).discard(page)

    @property
    def pages(self) -> int:
        """Pages open on this link."""
        return sum(len(s) for s in self.subscribers.values())

    def send(self, table: str, command: dict[str, Any], ref: Any = None) -> str:
        """Publish ``command`` on the role's ``cmd`` topic with a fresh id; the id. A
        command the table's reader refuses (:func:`~controller.inbound.parse_command`) is
        not sent: :class:`~controller.inbound.CommandRejected` says why.

        Until its reply comes it is sent again with the same id (the table applies an id
        once and answers a repeat with its first answer), :data:`RETRIES` times; then the
        page is told no answer came (call in the server's event loop)."""
        cid = f"web-{self._prefix}-{next(self._count)}"
        body: dict[str, Any] = {"v": 1, "id": cid, **command}
        if self.role.role == "pit":
            body["by"] = self.role.by or self.role.user
        topic, payload = self.role.cmd(table), json.dumps(body).encode()
        # read as the table reads it: a command it could not read (an amount of NaN, JSON
        # nested deeper than it takes, a frame the envelope makes too long) is refused here,
        # in its words, not sent to be refused with no id to answer and resent until the
        # page is told it "may or may not have been applied"
        parse_command(Sender(self.role.role, self.role.seat or ""), payload)
        self.link.publish(topic, payload)
        if len(self.pending) < PENDING:
            timer = self.loop.call_later(RETRY_SECONDS, self._retry, cid)
            self.pending[cid] = (table, topic, payload, 1, ref, timer)
        return cid

    def _retry(self, cid: str) -> None:
        entry = self.pending.pop(cid, None)
        if entry is None:
            return
        table, topic, payload, sends, ref, _ = entry
        if sends <= RETRIES:
            self.link.publish(topic, payload)
            timer = self.loop.call_later(RETRY_SECONDS, self._retry, cid)
            self.pending[cid] = (table, topic, payload, sends + 1, ref, timer)
            return
        name = json.loads(payload).get("command")
        text = json.dumps(
            {
                "refused": f"expected the table's answer to {name} (id {cid}) within "
                f"{RETRY_SECONDS * sends:g} s; got none after {sends} sends: it may or may not "
                "have been applied; check the table's status before sending it again",
                "ref": ref,
            }
        )
        for page in list(self.subscribers.get(table, ())):
            page.offer(text)

    def stop_retries(self) -> None:
        """Forget the commands awaiting a reply (the link is closing)."""
        for entry in self.pending.values():
            entry[5].cancel()
        self.pending.clear()

    def _status_frame(self, table: str) -> str:
        return gateway_frame(self.gateway, link=self.role.name(), table=table, reason=self.reason)

    def _status(self, gateway: str, reason: str) -> None:
        self.gateway, self.reason = gateway, reason
        for table, pages in self.subscribers.items():
            text = self._status_frame(table)
            for page in list(pages):
                page.offer(text)

    def _receive(self, topic: str, payload: bytes, retained: bool) -> None:
        where = split_topic(topic)
        if where is None:
            return
        table, sub = where
        if sub.endswith("reply"):
            cid = (_json(payload) or {}).get("id")
            entry = self.pending.pop(cid, None) if isinstance(cid, str) else None
            if entry is not None:
                entry[5].cancel()
        kept = sub.endswith("state") or sub == "pit/journal"
        if kept and ((table, sub) in self.retained or len(self.retained) < 8 * MAX_TABLES):
            self.retained[(table, sub)] = payload
        text = frame(table, sub, payload, retained)
        for page in list(self.subscribers.get(table, ())):
            page.offer(text)
