"""``tablectl web``: the browser pages of every table on a broker.

Serves the player display, the stream overlay, the seat view, the dealer's and the pit
manager's consoles for the tables on ``--broker``. The server logs in with the broker URL's
user (the ``display`` user; its password from the URL or ``$TABLECTL_MQTT_PASSWORD``) for
every public page; a seat, the dealer and the pit manager log in on their page with their
own user and password, and the broker's ACL decides what each page receives.
``--journal T1=PATH`` (repeatable) gives the pit console table T1's round history and its
dispute replay (the file is opened read-only). Stops on Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.errors import ConfigError, TableError
from controller.topics import TABLE_ID
from drivers.mqtt.client import BrokerAddress, parse_broker_url
from tablectl.web.server import WebServer
from tablectl.workers import shown

__all__ = ["parse_journals", "parse_listen", "register"]

PASSWORD_ENV = "TABLECTL_MQTT_PASSWORD"


def register(subparsers: Any) -> None:
    """Add the ``web`` command."""
    parser = subparsers.add_parser(
        "web",
        help="serve the player display, overlay, seat view and consoles in the browser",
        description=__doc__.split("\n\n", 1)[1].replace("``", "'") if __doc__ else None,
    )
    parser.add_argument(
        "--broker",
        required=True,
        help="mqtt://display[:password]@host[:port]: the tables' broker, with the display login",
    )
    parser.add_argument(
        "--listen", default="127.0.0.1:8080", metavar="HOST:PORT", help="default 127.0.0.1:8080"
    )
    parser.add_argument(
        "--journal",
        action="append",
        default=[],
        metavar="T=PATH",
        help="a table's journal for the pit's history and replay (repeatable)",
    )
    parser.set_defaults(run=run)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port).

    >>> parse_listen("127.0.0.1:8080"), parse_listen("0.0.0.0:0")
    (('127.0.0.1', 8080), ('0.0.0.0', 0))
    """
    host, sep, port = text.rpartition(":")
    bracketed = host.startswith("[") or host.endswith("]")
    if bracketed and not (host.startswith("[") and host.endswith("]") and len(host) > 2):
        host = ""  # an IPv6 address's brackets not closed: '[::1'
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ConfigError(f"--listen {shown(text)}: expected HOST:PORT such as 127.0.0.1:8080")
    return host.strip("[]"), int(port)


def parse_journals(items: list[str]) -> dict[str, Path]:
    """``["T1=path", ...]`` -> {"T1": Path}; each file must exist."""
    journals: dict[str, Path] = {}
    for item in items:
        table, sep, path = item.partition("=")
        if not sep or not TABLE_ID.fullmatch(table) or not path:
            raise ConfigError(
                f"--journal {item!r}: expected TABLE=PATH such as T1=tables/T1.journal"
            )
        if not Path(path).is_file():
            raise ConfigError(f"--journal {item!r}: expected a journal file; {path} does not exist")
        journals[table] = Path(path)
    return journals


def display_address(url: str) -> BrokerAddress:
    """The broker URL with the display's password from the environment when it has none."""
    address = parse_broker_url(url)
    if address.username is not None and address.password is None:
        address = replace(address, password=os.environ.get(PASSWORD_ENV))
    return address


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    host, port = parse_listen(args.listen)
    journals = parse_journals(args.journal)
    address = display_address(args.broker)
    server = WebServer(address, host, port, journals=journals)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(server.run())
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, server.stop_soon)
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        if task.done():
            await task
            return
        assert server.feed is not None
        link = server.feed.link
        ok = await loop.run_in_executor(None, link.wait_connected, 5.0)
        if not ok and link.refused is not None:
            server.stop_soon()
            await task
            raise TableError(
                f"could not log in to {address.url()}: {link.last_error}; expected the broker "
                f"to accept the display login given in --broker (password in the URL or "
                f"${PASSWORD_ENV})"
            )
        if not ok:
            print(f"the broker at {address.url()} does not answer yet: retrying", file=sys.stderr)
        print(f"serving the tables of {address.url()} on {server.url}/", flush=True)
        await task

    asyncio.run(main())
    return 0
