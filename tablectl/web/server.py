"""The web server: pages, ``/login``, one WebSocket per page, the gateway to MQTT.

Routes (the pages' own routes come from :mod:`tablectl.web.pages`, each module's
``register(app)``):

- ``POST /login`` ``{"role": "seat"|"dealer"|"pit", "table": "T1", "seat": "3",
  "password": "...", "user": optional, "by": the pit manager's name}``: the server logs in
  to the broker AS that user with that password (the broker's ACL decides what the page
  sees) and sets a session cookie (random, HttpOnly, SameSite=Strict) that binds the browser
  to that link; ``POST /logout?role=R`` ends it, ``GET /session?role=R`` names it.
- ``GET /ws?table=T1[&role=seat|dealer|pit]``: the page's socket. Public pages need no
  session (they share the server's display login); a role page needs that role's session.
  Server -> page: ``{"table", "topic", "payload", "retained"}`` frames, ``{"gateway": ...}``
  frames about the link, ``{"table", "history"}`` (a public page's last rounds), ``{"sent":
  {"id", "command", "ref"}}`` and ``{"refused": "expected ...; got ..."}``. Page -> server:
  ``{"command": {...}, "ref": optional}``, published on the role's ``cmd`` topic with a
  fresh id; the controller's reply arrives as a frame on the role's ``reply`` topic.
- ``/static/...``: the pages' files (no build step; nothing fetched from the internet).

Every input is bounded: a frame's size, frames per second per socket, sockets per session,
sessions, tables, the frames queued for a slow page (a page that falls that far behind is
closed and reconnects to a fresh state).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import pkgutil
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError

from controller.errors import ConfigError
from controller.inbound import CommandRejected
from controller.topics import SEAT_ID, TABLE_ID
from drivers.mqtt.client import BrokerAddress
from tablectl.web import pages
from tablectl.web.gateway import ROLES, PublicFeed, Role, RoleLink

__all__ = [
    "FEED",
    "JOURNALS",
    "MAX_FRAME_BYTES",
    "STATIC",
    "Session",
    "WebServer",
    "build_app",
    "page",
    "session_of",
]

STATIC = Path(__file__).parent / "static"

#: a page's frame to the server, at most
MAX_FRAME_BYTES = 4096
#: frames a page may send per second (a burst of twice that is let through)
FRAMES_PER_SECOND = 20
#: sockets one session may hold open (tabs of one browser)
SOCKETS_PER_SESSION = 8
#: sessions (logins) the server keeps at once
MAX_SESSIONS = 256
#: frames queued for one page before it is closed as too slow
QUEUE_FRAMES = 2048

COOKIE = "tablectl-{role}"
#: refused logins one address may make in LOGIN_WINDOW seconds before it must wait
LOGIN_FAILURES = 10
LOGIN_WINDOW = 60.0
#: addresses whose refused logins are remembered (the oldest is forgotten first)
LOGIN_ADDRESSES = 1024
#: a seat whose last page closed is marked away after this long (a reload comes back sooner)
AWAY_SECONDS = 10.0
#: a login with no page open this long is closed (its broker link with it)
IDLE_SECONDS = 3600.0
#: logins awaiting the broker's answer at once (each waits on a thread of its own link):
#: 80 at once starved the server's threads, a page took a minute to load and the broker,
#: up all along, was said not to answer
LOGINS_AT_ONCE = 8
#: the longest login's body (JSON: role, table, seat, user, password, name)
LOGIN_BYTES = 2048
#: pages (sockets, public or a role's) the server holds open at once
MAX_PAGES = 2000
#: a connection that has not sent a whole request this long after it opened (or after its
#: last answer) is closed: aiohttp's own bound is an hour, and a request's head sent a
#: header every 2 s kept a connection (and its file) for as long, so that enough of them
#: would leave none for the pages. A page's socket, once upgraded, is not bound by it; a
#: login's body is read within it too
HEAD_SECONDS = 15.0


@dataclass
class Session:
    """One login: its role, its broker link, the sockets it has open."""

    token: str
    role: Role
    link: RoleLink
    table: str  # the table it logged in at ("+" for the pit: every table)
    sockets: int = 0
    created: float = field(default_factory=time.time)
    closed_at: float = 0.0  # monotonic time the last page closed


FEED: web.AppKey[PublicFeed] = web.AppKey("feed", PublicFeed)
SESSIONS: web.AppKey[dict[str, Session]] = web.AppKey("sessions", dict)
BROKER: web.AppKey[BrokerAddress] = web.AppKey("broker", BrokerAddress)
FAILURES: web.AppKey[dict[str, list[float]]] = web.AppKey("failures", dict)
PAGES: web.AppKey[set[Page]] = web.AppKey("pages", set)
TASKS: web.AppKey[set[asyncio.Task[None]]] = web.AppKey("tasks", set)
JOURNALS: web.AppKey[dict[str, Path]] = web.AppKey("journals", dict)
#: logins awaiting the broker now (at most LOGINS_AT_ONCE)
LOGGING_IN: web.AppKey[set[RoleLink]] = web.AppKey("logging_in", set)


class _MalformedRequests(logging.Filter):
    """aiohttp logs a request it cannot parse (a path of 100 kB, a header past its bound)
    as "Error handling request" with its whole traceback, the server's folders in it: such
    a request is the client's fault, refused with 400 already, and is told in one line,
    its bytes cut short."""

    def filter(self, record: logging.LogRecord) -> bool:
        fault = record.exc_info[1] if record.exc_info else None
        if isinstance(fault, HttpProcessingError):
            words = " ".join(str(fault.message).split())[:160]
            record.msg, record.args = (
                "refused a malformed request (%s %s): %s",
                (
                    fault.code,
                    type(fault).__name__,
                    words,
                ),
            )
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_SERVER_LOG = logging.getLogger("aiohttp.server")
if not any(isinstance(f, _MalformedRequests) for f in _SERVER_LOG.filters):
    _SERVER_LOG.addFilter(_MalformedRequests())


def page(name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """A handler serving ``static/<name>`` (an HTML page) for a route with a ``{table}``."""

    async def handler(request: web.Request) -> web.StreamResponse:
        table = request.match_info.get("table")
        if table is not None and not TABLE_ID.fullmatch(table):
            raise web.HTTPNotFound(
                text=f"expected a table id of letters, digits, - and _ (at most 32); got {table!r}"
            )
        return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    return handler


def session_of(request: web.Request, role: str) -> Session | None:
    """The request's session of ``role`` (its cookie), or None."""
    token = request.cookies.get(COOKIE.format(role=role), "")
    session = request.app[SESSIONS].get(token)
    return session if session is not None and session.role.role == role else None


def _refusal(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status)


def foreign_origin(request: web.Request) -> str | None:
    """The page's origin where a browser says it is another site's (a login or a role's
    socket opened from another site's page: a forged request riding on the user's cookie,
    which ``SameSite`` does not stop from another port or subdomain), else None. Clients
    that are no browser send no ``Origin``; behind a proxy, the host it forwards counts."""
    origin = request.headers.get("Origin")
    if origin is None:
        return None
    host = origin.partition("://")[2].rstrip("/")
    ours = {request.host, request.headers.get("X-Forwarded-Host", request.host)}
    return None if host in ours else origin


def _not_ours(origin: str, request: web.Request) -> str:
    return f"expected a page of this server ({request.host}); got one of {origin[:80]!r}"


async def _body(request: web.Request, limit: int) -> bytes:
    """A request's body, to its end or to ``limit`` bytes and one more (a longer one is
    refused by its caller), within :data:`HEAD_SECONDS`: a body sent in several pieces is
    read whole (one read returned the first piece only, and a login so sent was refused as
    no JSON), and a body sent a byte at a time, or never, no longer holds its request."""
    parts: list[bytes] = []
    size = 0
    async with asyncio.timeout(HEAD_SECONDS):
        while size <= limit and (part := await request.content.read(limit + 1 - size)):
            parts.append(part)
            size += len(part)
    return b"".join(parts)


async def login(request: web.Request) -> web.Response:
    """``POST /login``: log in to the broker as the role's user; a session cookie."""
    if (origin := foreign_origin(request)) is not None:
        return _refusal(403, _not_ours(origin, request))
    if (request.content_length or 0) > LOGIN_BYTES:
        return _refusal(
            413, f"expected a login of at most {LOGIN_BYTES} bytes; got {request.content_length}"
        )
    try:
        data = await _body(request, LOGIN_BYTES)
    except TimeoutError:
        return _refusal(408, f"expected the login's body within {HEAD_SECONDS:.0f} s")
    if len(data) > LOGIN_BYTES:
        return _refusal(413, f"expected a login of at most {LOGIN_BYTES} bytes; got more")
    try:
        body = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested past the parser too
        return _refusal(400, "expected a JSON object with role, table, seat and password")
    if not isinstance(body, dict):
        return _refusal(400, "expected a JSON object with role, table, seat and password")
    role_name = body.get("role")
    if role_name not in ROLES:
        return _refusal(400, f"expected role seat, dealer or pit; got {role_name!r}")
    password = body.get("password")
    if not isinstance(password, str) or not 0 < len(password) <= 256:
        return _refusal(400, "expected the role's password (1 to 256 characters)")
    table = body.get("table", "+") if role_name == "pit" else body.get("table")
    if role_name == "pit":
        table = "+"
    elif not isinstance(table, str) or not TABLE_ID.fullmatch(table):
        return _refusal(400, f"expected the table's id (letters, digits, - and _); got {table!r}")
    seat = body.get("seat")
    if role_name == "seat":
        seat = str(seat) if isinstance(seat, int | str) else ""
        if not SEAT_ID.fullmatch(seat):
            return _refusal(400, f"expected a seat id such as 3; got {body.get('seat')!r}")
    user = body.get("user") or (f"seat-{seat}" if role_name == "seat" else role_name)
    by = body.get("by")
    if not isinstance(user, str) or not SEAT_ID.fullmatch(user.replace("-", "_")):
        return _refusal(400, f"expected a broker user name; got {user!r}")
    if by is not None and (not isinstance(by, str) or not 0 < len(by) <= 40):
        return _refusal(400, "expected the pit manager's name in at most 40 characters")
    failures = request.app[FAILURES]
    peer = request.remote or "?"
    now = time.monotonic()
    # one list per address, changed in place: the tries of logins still awaiting the
    # broker are in it (see below)
    recent = failures.pop(peer, [])
    recent[:] = [t for t in recent if now - t < LOGIN_WINDOW]
    if len(failures) >= LOGIN_ADDRESSES:
        failures.pop(next(iter(failures)))  # the address longest without a try
    failures[peer] = recent
    if len(recent) >= LOGIN_FAILURES:
        wait = LOGIN_WINDOW - (now - recent[0])
        return _refusal(
            429,
            f"expected at most {LOGIN_FAILURES} refused logins a minute from one address; "
            f"got {len(recent)}: wait {wait:.0f} s, then check the user and password",
        )
    sessions = request.app[SESSIONS]
    if len(sessions) >= MAX_SESSIONS:
        _drop_idle(request.app, sessions)
        if len(sessions) >= MAX_SESSIONS:
            return _refusal(503, f"expected at most {MAX_SESSIONS} logins at once; log one out")
    waiting = request.app[LOGGING_IN]
    if len(waiting) >= LOGINS_AT_ONCE:
        return _refusal(
            503,
            f"expected at most {LOGINS_AT_ONCE} logins awaiting the broker at once; got more: "
            "try again in a moment",
        )
    role = Role(role_name, user, seat if role_name == "seat" else None, by)
    link = RoleLink(request.app[BROKER], role, password, table, asyncio.get_running_loop())
    # the try counts as refused until the broker says otherwise: counted only after the
    # broker's answer, a burst of 50 at once was counted as one (351 wrong passwords
    # reached the broker in a minute where 10 may)
    recent.append(now)
    waiting.add(link)
    try:
        why = await link.start()
    finally:
        waiting.discard(link)
    if why is None or not link.link.refused:  # logged in, or the broker did not answer
        with contextlib.suppress(ValueError):
            recent.remove(now)
    if why is not None:
        return _refusal(401 if link.link.refused else 503, why)
    cookie = COOKIE.format(role=role_name)
    old = sessions.pop(request.cookies.get(cookie, ""), None)
    if old is not None:
        await old.link.close()
    token = secrets.token_urlsafe(32)
    sessions[token] = Session(token, role, link, table)
    response = web.json_response(
        {
            "role": role_name,
            "user": user,
            "seat": role.seat,
            "table": None if table == "+" else table,
        }
    )
    response.set_cookie(cookie, token, httponly=True, samesite="Strict", path="/")
    return response


async def whoami(request: web.Request) -> web.Response:
    """``GET /session?role=R``: this browser's login as that role (401 without one)."""
    role = request.query.get("role", "")
    session = session_of(request, role) if role in ROLES else None
    if session is None:
        return _refusal(401, f"expected a login as {role or 'a role'}; got none")
    return web.json_response(
        {
            "role": session.role.role,
            "user": session.role.user,
            "seat": session.role.seat,
            "table": None if session.table == "+" else session.table,
            "link": session.link.gateway,
        }
    )


async def logout(request: web.Request) -> web.Response:
    """``POST /logout?role=R``: end that role's session (its broker link closes)."""
    if (origin := foreign_origin(request)) is not None:
        return _refusal(403, _not_ours(origin, request))
    role = request.query.get("role", "")
    session = session_of(request, role) if role in ROLES else None
    if session is not None:
        request.app[SESSIONS].pop(session.token, None)
        await session.link.close()
    response = web.json_response({"ok": True})
    if role in ROLES:
        response.del_cookie(COOKIE.format(role=role), path="/")
    return response


def _unattended(app: web.Application, session: Session) -> None:
    """The session's last page closed a while ago: its seat is away; long idle, it ends."""
    if session.sockets > 0 or app[SESSIONS].get(session.token) is not session:
        return
    session.link.set_away(True)
    idle = time.monotonic() - session.closed_at
    if idle >= IDLE_SECONDS:
        app[SESSIONS].pop(session.token, None)
        _background(app, session.link.close())
    else:
        delay = max(AWAY_SECONDS, IDLE_SECONDS - idle)
        asyncio.get_running_loop().call_later(delay, _unattended, app, session)


def _background(app: web.Application, job: Coroutine[Any, Any, None]) -> None:
    """Run ``job`` in the event loop, kept until it is done (a link closing, say)."""
    task = asyncio.get_running_loop().create_task(job)
    app[TASKS].add(task)
    task.add_done_callback(app[TASKS].discard)


def _drop_idle(app: web.Application, sessions: dict[str, Session]) -> None:
    """Close the oldest sessions with no page open (a full table of logins)."""
    idle = sorted((s for s in sessions.values() if s.sockets == 0), key=lambda s: s.created)
    for s in idle[: max(1, len(idle) // 2)]:
        sessions.pop(s.token, None)
        _background(app, s.link.close())


class Page:
    """One page's socket: a bounded queue of frames, written by its own task."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_FRAMES)
        self.lagging = False
        self.tokens = float(2 * FRAMES_PER_SECOND)
        self.refill = time.monotonic()

    def offer(self, text: str) -> None:
        """Queue one frame; a page too far behind is closed (it reconnects to a fresh state)."""
        if self.lagging:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.lagging = True
            with contextlib.suppress(asyncio.QueueEmpty):
                while True:
                    self.queue.get_nowait()
            self.queue.put_nowait(None)

    def allow(self) -> bool:
        """Whether one more frame from the page is within its rate."""
        now = time.monotonic()
        self.tokens = min(
            2 * FRAMES_PER_SECOND, self.tokens + (now - self.refill) * FRAMES_PER_SECOND
        )
        self.refill = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def write(self) -> None:
        """Send queued frames until the socket closes (or the page fell behind)."""
        while True:
            text = await self.queue.get()
            if text is None:
                await self.ws.close(code=1013, message=b"the page fell behind: reconnect")
                return
            await self.ws.send_str(text)


async def websocket(request: web.Request) -> web.StreamResponse:
    """``GET /ws?table=T[&role=R]``: one page's frames, and its commands."""
    table = request.query.get("table", "")
    role = request.query.get("role", "")
    if not TABLE_ID.fullmatch(table):
        raise web.HTTPBadRequest(text=f"expected ?table= a table id; got {table!r}")
    session: Session | None = None
    if len(request.app[PAGES]) >= MAX_PAGES:
        raise web.HTTPServiceUnavailable(
            text=f"expected at most {MAX_PAGES} pages open at once; got more: try again later"
        )
    if role:
        if role not in ROLES:
            raise web.HTTPBadRequest(text=f"expected role seat, dealer or pit; got {role!r}")
        if (origin := foreign_origin(request)) is not None:
            raise web.HTTPForbidden(text=_not_ours(origin, request))
        session = session_of(request, role)
        if session is None:
            raise web.HTTPUnauthorized(text=f"expected a login as {role} first (POST /login)")
        if session.table not in ("+", table):
            raise web.HTTPForbidden(
                text=f"expected table {session.table} (this login's table); got {table}"
            )
        if session.sockets >= SOCKETS_PER_SESSION:
            raise web.HTTPTooManyRequests(
                text=f"expected at most {SOCKETS_PER_SESSION} pages per login; close one"
            )
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=64 * 1024)
    await ws.prepare(request)
    page_ = Page(ws)
    feed = request.app[FEED]
    writer = asyncio.create_task(page_.write())
    request.app[PAGES].add(page_)
    if not feed.join(table, page_):
        page_.offer(feed.too_many())
    if session is not None:
        session.sockets += 1
        session.link.set_away(False)
        session.link.join(table, page_)
    try:
        async for message in ws:
            if message.type is not WSMsgType.TEXT:
                page_.offer(json.dumps({"refused": "expected a text frame of JSON; got binary"}))
                continue
            answer = _command(message.data, page_, session, table)
            page_.offer(json.dumps(answer))
    finally:
        request.app[PAGES].discard(page_)
        feed.leave(table, page_)
        if session is not None:
            session.sockets -= 1
            session.link.leave(table, page_)
            if session.sockets == 0:
                session.closed_at = time.monotonic()
                loop = asyncio.get_running_loop()
                loop.call_later(AWAY_SECONDS, _unattended, request.app, session)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await writer
    return ws


ENVELOPE = ("v", "id", "by")
SHAPE = '{"command": {...}}'


def _command(text: str, page_: Page, session: Session | None, table: str) -> dict[str, Any]:
    """Check one page frame and publish its command; the answer frame for the page."""
    size = len(text.encode())
    if size > MAX_FRAME_BYTES:
        return {"refused": f"expected a frame of at most {MAX_FRAME_BYTES} bytes; got {size} bytes"}
    if not page_.allow():
        return {
            "refused": f"expected at most {FRAMES_PER_SECOND} frames a second; got more: "
            "the frame was dropped, send it again in a moment"
        }
    try:
        doc = json.loads(text)
    except ValueError as error:
        return {
            "refused": f'expected a JSON object {{"command": {{...}}}}; got invalid JSON ({error})'
        }
    except RecursionError:  # deeper than the parser goes: no command nests so
        return {"refused": f"expected {SHAPE}; got JSON nested deeper than any command"}
    if not isinstance(doc, dict) or not isinstance(doc.get("command"), dict):
        return {
            "refused": f'expected {{"command": {{...}}}}; got {type(doc).__name__} {text[:80]!r}'
        }
    extra = sorted(set(doc) - {"command", "ref"})
    if extra:
        return {"refused": f"expected only command and ref; got {', '.join(extra)}"}
    ref = doc.get("ref")
    if ref is not None and (not isinstance(ref, str | int) or len(str(ref)) > 64):
        return {"refused": f"expected a ref of at most 64 characters; got {str(ref)[:80]!r}"}
    command = doc["command"]
    if session is None:
        return {
            "refused": "expected no commands from a public page; got "
            f"{str(command.get('command'))[:40]!r}: log in as a seat, the dealer or the pit",
            "ref": ref,
        }
    name = command.get("command")
    if not isinstance(name, str) or not 0 < len(name) <= 40:
        return {
            "refused": f"expected the command's name (place_bet, decide, ...); got {name!r}",
            "ref": ref,
        }
    filled = [k for k in ENVELOPE if k in command]
    if filled:
        return {
            "refused": f"expected a command without {', '.join(ENVELOPE)} (the server fills "
            f"them); got {', '.join(filled)}",
            "ref": ref,
        }
    if not session.link.link.connected:
        return {
            "refused": f"expected the broker link up to send {name}; got it down "
            f"({session.link.reason or 'reconnecting'}): nothing was sent, try again",
            "ref": ref,
        }
    try:
        cid = session.link.send(table, command, ref)
    except CommandRejected as error:
        return {"refused": f"{name}: {error}: nothing was sent", "ref": ref}
    return {"sent": {"id": cid, "command": name, "ref": ref}}


def build_app(
    broker: BrokerAddress,
    feed: PublicFeed,
    *,
    journals: dict[str, Path] | None = None,
) -> web.Application:
    """The application: core routes, then every page module's ``register(app)``."""
    app = web.Application(client_max_size=64 * 1024)
    app[FEED] = feed
    app[BROKER] = broker
    app[SESSIONS] = {}
    app[JOURNALS] = dict(journals or {})
    app[FAILURES] = {}
    app[LOGGING_IN] = set()
    pages_open: set[Page] = set()
    app[PAGES] = pages_open
    tasks: set[asyncio.Task[None]] = set()
    app[TASKS] = tasks
    app.router.add_post("/login", login)
    app.router.add_post("/logout", logout)
    app.router.add_get("/session", whoami)
    app.router.add_get("/ws", websocket)
    app.router.add_static("/static/", STATIC, append_version=False)
    for info in sorted(pkgutil.iter_modules(pages.__path__), key=lambda m: m.name):
        importlib.import_module(f"{pages.__name__}.{info.name}").register(app)

    async def closing(app: web.Application) -> None:
        open_pages: set[Page] = app[PAGES]
        for p in list(open_pages):  # the pages reconnect to the server that replaces this one
            await p.ws.close(code=1001, message=b"the server is stopping")
        await asyncio.gather(*(s.link.close() for s in app[SESSIONS].values()))
        app[SESSIONS].clear()

    app.on_shutdown.append(closing)
    return app


class WebServer:
    """The server on ``host:port``: in this thread (:meth:`serve`) or its own (:meth:`start`).

    ``broker`` is where the tables are, with the server's own display login (its user and
    password; none on a broker without users); each role page logs in with its own.
    """

    def __init__(
        self,
        broker: BrokerAddress,
        host: str = "127.0.0.1",
        port: int = 8080,
        *,
        journals: dict[str, Path] | None = None,
    ) -> None:
        self.broker = broker
        self.host, self.port = host, port
        self.journals = journals or {}
        self.feed: PublicFeed | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self.error: BaseException | None = None

    @property
    def url(self) -> str:
        """The server's address for a browser."""
        return f"http://{self.host}:{self.port}"

    async def _open(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.feed = PublicFeed(self.broker, self.loop)
        app = build_app(self.broker, self.feed, journals=self.journals)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, keepalive_timeout=HEAD_SECONDS
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self.feed.start()

    async def _close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self.feed is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.feed.stop)

    async def run(self) -> None:
        """Serve until :meth:`stop` (or cancellation)."""
        self._stopping = asyncio.Event()
        try:
            try:
                await self._open()
            except OSError as error:  # a host that is none, a port taken: said in words
                await self._close()
                raise ConfigError(
                    f"cannot serve the pages on {self.host}:{self.port}: {error.strerror or error}"
                ) from None
        except BaseException as error:
            self.error = error
            self._ready.set()
            raise
        self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            await self._close()

    @property
    def started(self) -> bool:
        """Whether the server is listening."""
        return self._ready.is_set() and self.error is None

    def stop_soon(self) -> None:
        """Stop serving (called in the server's own event loop, e.g. from a signal)."""
        if self._stopping is not None:
            self._stopping.set()

    def start(self, timeout: float = 10.0) -> WebServer:
        """Serve in a thread of its own; returns once listening (raises what stopped it)."""
        self._thread = threading.Thread(target=self._serve_thread, name="web", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the web server did not start within {timeout:g} s")
        if self.error is not None:
            raise self.error
        return self

    def _serve_thread(self) -> None:
        with contextlib.suppress(Exception):
            asyncio.run(self.run())

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving (from another thread)."""
        if self.loop is not None and self._stopping is not None and not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
