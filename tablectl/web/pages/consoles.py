"""The staff's consoles: the dealer's (``/table/T/dealer``) and the pit manager's (``/pit``),
and the pit's history and dispute replay under ``/api/`` (a pit login only).

- ``GET /api/pit/tables``: the tables whose journals the server was given (``--journal``).
- ``GET /api/T/rounds``: table T's rounds, as ``tablectl history`` lists them.
- ``GET /api/T/rounds/R``: round R step by step, each with the layout after it.
- ``GET /api/T/rounds/R/scenario``: round R as a scenario file (text/plain).

The journal is read-only, replayed in a worker thread (its chain checked first), by
:mod:`tablectl.web.replay`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.errors import TableError
from controller.topics import TABLE_ID
from tablectl.web import replay
from tablectl.web.server import JOURNALS, page, session_of

__all__ = ["register"]

#: a round id as tables write them (TABLE-20261122T031500Z-000042)
ROUND_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")


def _error(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status)


def _journal(request: web.Request) -> Path | web.Response:
    """The journal of the request's table, for a pit login; or the refusal to answer."""
    if session_of(request, "pit") is None:
        return _error(401, "expected a login as the pit manager (POST /login); got none")
    table = request.match_info["table"]
    if not TABLE_ID.fullmatch(table):
        return _error(404, f"expected a table id of letters, digits, - and _; got {table!r}")
    journals: dict[str, Path] = request.app[JOURNALS]
    path = journals.get(table)
    if path is None:
        given = ", ".join(sorted(journals)) or "none"
        return _error(
            404,
            f"expected a table whose journal the server was given (--journal {table}=PATH); "
            f"got {table}, and the journals given are: {given}",
        )
    return path


def _round_id(request: web.Request) -> str | web.Response:
    rid = request.match_info["round_id"]
    if not ROUND_ID.fullmatch(rid):
        return _error(404, f"expected a round id such as T1-20261122T031500Z-000042; got {rid!r}")
    return rid


async def _off_loop(work: Callable[[], Any]) -> Any:
    """Run a journal's replay in a worker thread (the pages' sockets go on meanwhile)."""
    return await asyncio.get_running_loop().run_in_executor(None, work)


async def pit_tables(request: web.Request) -> web.Response:
    """``GET /api/pit/tables``: the tables with a journal for the history."""
    if session_of(request, "pit") is None:
        return _error(401, "expected a login as the pit manager (POST /login); got none")
    journals: dict[str, Path] = request.app[JOURNALS]
    return web.json_response({"journals": sorted(journals)})


async def rounds(request: web.Request) -> web.Response:
    """``GET /api/T/rounds``: the table's rounds, oldest first."""
    path = _journal(request)
    if isinstance(path, web.Response):
        return path
    try:
        found = await _off_loop(lambda: replay.rounds(path))
    except TableError as error:
        return _unreadable(request.match_info["table"], path, error)
    return web.json_response({"table": request.match_info["table"], "rounds": found})


def _unreadable(table: str, path: Path, error: TableError) -> web.Response:
    """A journal that cannot be read, told by its file's name: the server's folders are
    not the browser's business (the table's configuration says where it lies)."""
    reason = str(error).replace(str(path), path.name)
    return _error(500, f"the journal of {table} cannot be read: {reason}")


async def _of_round(request: web.Request, work: Callable[[Path, str], Any]) -> Any:
    """``work(journal, round_id)`` for the request's table and round, off the loop; or the
    refusal to answer (a :class:`web.Response`)."""
    path, rid = _journal(request), _round_id(request)
    if isinstance(path, web.Response):
        return path
    if isinstance(rid, web.Response):
        return rid
    table = request.match_info["table"]
    try:
        return await _off_loop(lambda: work(path, rid))
    except KeyError:
        return _error(404, f"expected a round of table {table}; got {rid}")
    except TableError as error:
        return _unreadable(table, path, error)


async def one_round(request: web.Request) -> web.Response:
    """``GET /api/T/rounds/R``: the round's steps."""
    found = await _of_round(request, replay.round_steps)
    return found if isinstance(found, web.Response) else web.json_response(found)


async def scenario(request: web.Request) -> web.Response:
    """``GET /api/T/rounds/R/scenario``: the round as a scenario file."""
    text = await _of_round(request, replay.round_scenario)
    if isinstance(text, web.Response):
        return text
    rid = request.match_info["round_id"]  # checked by _of_round
    return web.Response(
        text=text,
        content_type="text/plain",
        headers={"Content-Disposition": f'attachment; filename="{rid}.scn"'},
    )


def register(app: web.Application) -> None:
    """Add ``/table/T/dealer``, ``/pit`` and the pit's ``/api/`` history endpoints."""
    app.router.add_get("/table/{table}/dealer", page("dealer.html"))
    app.router.add_get("/pit", page("pit.html"))
    app.router.add_get("/api/pit/tables", pit_tables)
    app.router.add_get("/api/{table}/rounds", rounds)
    app.router.add_get("/api/{table}/rounds/{round_id}", one_round)
    app.router.add_get("/api/{table}/rounds/{round_id}/scenario", scenario)
