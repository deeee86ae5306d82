"""The pit's words for hardware that goes away and comes back: the card shoe, the camera.

A lost shoe or camera is an alert on the pit's ``alerts`` topic saying which device, since
when, what it means for the game and what to check; its return is an alert too. Where the
table halts for a lost shoe (a dialect without sequence numbers, mid-round), the halt's
reason says the same and is journaled. Times are the controller's local wall-clock time, as
the pit's own clock shows it.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["camera_change", "clock_time", "shoe_back", "shoe_lost", "shoe_lost_halt"]


def clock_time(at: float) -> str:
    """``at`` (seconds since the epoch) as the local time of day, ``03:12:04``."""
    return time.strftime("%H:%M:%S", time.localtime(at))


def _why(reason: str) -> str:
    return f" ({reason})" if reason else ""


def shoe_lost(port: str, reason: str, at: float) -> str:
    """The alert for a shoe that stopped answering (the table does not halt for it)."""
    return (
        f"shoe lost: the card shoe on {port} stopped answering at {clock_time(at)}"
        f"{_why(reason)}; dealing is held until it is back: check its cable and power"
    )


def shoe_lost_halt(port: str, reason: str, at: float) -> str:
    """The halt's reason for a shoe lost mid-round whose dialect cannot tell what it missed."""
    return (
        f"the shoe was disconnected at {clock_time(at)}: the card shoe on {port} stopped "
        f"answering{_why(reason)} and a card may have been read while it was away; check its "
        "cable and power, then the layout against the round's cards"
    )


def shoe_back(port: str, at: float, *, halted: bool) -> str:
    """The alert for a shoe that answers again."""
    then = (
        "the table stays halted until the layout is checked and the round resumed or voided"
        if halted
        else "dealing goes on"
    )
    return f"shoe back: the card shoe on {port} answers again at {clock_time(at)}; {then}"


def camera_change(was: Any, status: dict[str, Any], at: float) -> tuple[str, str] | None:
    """The alert (level, words) for the camera's status going from ``was`` (connected: True,
    False, or None before its first report) to ``status``, or None when nothing to say."""
    now = status.get("connected")
    source = status.get("source") or "the configured source"
    if now is False and was is not False:
        why = status.get("last_error") or "no frames"
        since = "stopped sending frames at" if was else "has sent no frame since the start, at"
        return (
            "warning",
            f"camera lost: the overhead camera ({source}) {since} {clock_time(at)} ({why}); "
            "the shoe alone deals on, with nothing to cross-check its cards: check the "
            "camera's cable, power and view of the felt",
        )
    if now is True and was is False:
        return (
            "info",
            f"camera back: the overhead camera ({source}) sends frames again at "
            f"{clock_time(at)}; it cross-checks the shoe's cards again",
        )
    return None
