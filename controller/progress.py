"""A small progress bar for long computations, shown only on a terminal."""

from __future__ import annotations

import time
from typing import TextIO


class ProgressBar:
    """Draw ``label [#####.....] 42% 0:07`` on ``stream`` when it is a terminal; else stay silent.

    Call the instance with ``(done, total)``; call :meth:`close` at the end.
    """

    def __init__(self, label: str, stream: TextIO, *, width: int = 30) -> None:
        self._label = label
        self._stream = stream
        self._width = width
        self._enabled = stream.isatty()
        self._started = time.monotonic()
        self._last_drawn = -1.0
        self._drew = False

    def __call__(self, done: int, total: int) -> None:
        """Report ``done`` of ``total`` units of work."""
        if not self._enabled or total <= 0:
            return
        now = time.monotonic()
        if now - self._last_drawn < 0.1 and done < total:
            return
        self._last_drawn = now
        fraction = min(1.0, done / total)
        filled = int(self._width * fraction)
        elapsed = int(now - self._started)
        bar = "#" * filled + "." * (self._width - filled)
        self._stream.write(
            f"\r{self._label} [{bar}] {fraction:4.0%} {elapsed // 60}:{elapsed % 60:02d}"
        )
        self._stream.flush()
        self._drew = True

    def close(self) -> None:
        """End the bar's line, if one was drawn."""
        if self._drew:
            self._stream.write("\n")
            self._stream.flush()
