"""Helpers shared by the shoe driver and simulator tests."""

from __future__ import annotations

import os
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path

from drivers.shoe.base import ShoeCodec
from drivers.shoe.events import ShoeEvent

ARRIVALS = ("whole", "halves", "bytes")


def pieces(data: bytes, arrival: str) -> Iterator[bytes]:
    """``data`` cut as it may arrive: at once, in two halves, or one byte at a time."""
    if arrival == "whole":
        yield data
    elif arrival == "halves":
        yield data[: len(data) // 2]
        yield data[len(data) // 2 :]
    else:
        for i in range(len(data)):
            yield data[i : i + 1]


def feed_all(
    codec: ShoeCodec, data: bytes, arrival: str = "whole", now: float = 0.0
) -> list[ShoeEvent]:
    """Every event ``codec`` makes of ``data`` arriving as ``arrival``."""
    events: list[ShoeEvent] = []
    for piece in pieces(data, arrival):
        events.extend(codec.feed(piece, now))
    return events


def kinds(events: list[ShoeEvent]) -> list[str]:
    """The kinds of ``events``, in order."""
    return [e.kind.value for e in events]


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def make_pty(link: Path) -> int:
    """A raw pseudo-terminal whose slave ``link`` points at; returns the master fd."""
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    os.close(slave)
    tmp = link.with_suffix(".new")
    os.symlink(name, tmp)
    os.replace(tmp, link)
    return master
