"""The public pages: the index, the player display, the stream overlay, the seat view."""

from __future__ import annotations

from aiohttp import web

from tablectl.web.server import FEED, page

__all__ = ["register"]


async def tables(request: web.Request) -> web.Response:
    """``GET /api/tables``: every table the server has heard of (public: status, game)."""
    return web.json_response({"tables": request.app[FEED].index()})


def register(app: web.Application) -> None:
    """Add ``/``, ``/table/T/player``, ``/table/T/overlay``, ``/table/T/seat``, ``/api/tables``."""
    app.router.add_get("/", page("index.html"))
    app.router.add_get("/table/{table}/player", page("player.html"))
    app.router.add_get("/table/{table}/overlay", page("overlay.html"))
    app.router.add_get("/table/{table}/seat", page("seat.html"))
    app.router.add_get("/api/tables", tables)
