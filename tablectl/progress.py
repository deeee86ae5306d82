"""Progress bars for commands that can run over a second, drawn by ``rich.progress``.

A bar shows what is being done, how far it is, the rate and the time left. It is drawn on
standard error, and only when that is a terminal: piped or redirected output (JSON for a
script, a CI log) carries none of it. The core reports progress as ``progress(done, total)``
calls; :meth:`Bars.bar` gives such a function for one bar. What a command prints on standard
output while its bars run goes above them when both share the terminal, and straight to its
file or pipe otherwise.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from controller import work

__all__ = ["Bars"]


class RateColumn(ProgressColumn):
    """Units per second, in the bar's own unit (``12,400 hands/s``)."""

    def render(self, task: Task) -> Text:
        """The task's current rate, or nothing before there is one."""
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text("")
        unit = task.fields.get("unit", "")
        figure = f"{speed:,.0f}" if speed >= 10 else f"{speed:.1f}"
        return Text(f"{figure} {unit}/s".replace(" /s", "/s"), style="progress.data.speed")


class Bars:
    """One or more progress bars on ``stream`` (standard error), drawn only on a terminal.

    Use as a context manager; each :meth:`bar` adds a line. Off a terminal nothing is
    written at all.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        console = Console(file=stream if stream is not None else sys.stderr)
        self.enabled = console.is_terminal
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=console,
            disable=not self.enabled,
            redirect_stdout=sys.stdout is not None and sys.stdout.isatty(),
        )

    def __enter__(self) -> Bars:
        self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def bar(self, label: str, unit: str = "") -> work.Progress:
        """A new bar called ``label``; call what it returns with ``(done, total)``."""
        task = self._progress.add_task(label, total=None, unit=unit)

        def report(done: int, total: int) -> None:
            self._progress.update(task, completed=done, total=total)

        return report
