"""Pools that spread the core's independent jobs over the processors, and the bounded
numbers the commands take on their command lines.

The core never starts a thread or a process: its long computations (hand counts, returns by
simulation) take a ``map_jobs`` function and run each job through it. These context
managers give one: the builtin :func:`map` for a single worker, else a pool's map that
keeps only a few jobs in flight per worker (a long run holds no future per job), shut down
(pending jobs cancelled) when the block ends, however it ends. At most
:data:`MAX_WORKERS` workers are started.

:func:`int_from` and :func:`number_from` make argparse ``type=`` functions for the
commands' numbers: each refuses, in words, a value outside its bounds (and a float that is
not finite), so a command never starts on a count that cannot end or a time that cannot
be waited. :func:`table_id` and :func:`seat_id` refuse an id the topics cannot carry.
Each refusal shows what arrived, cut to :data:`SHOWN` characters.
"""

from __future__ import annotations

import argparse
import contextlib
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from controller.topics import SEAT_ID, TABLE_ID
from controller.work import JobMap

__all__ = [
    "MAX_WORKERS",
    "SHOWN",
    "int_from",
    "number_from",
    "processes",
    "seat_id",
    "shown",
    "table_id",
    "threads",
]

#: a refused value is shown up to this many characters (a pasted page is not echoed whole)
SHOWN = 40


def shown(text: str) -> str:
    """``text`` quoted for a refusal, cut to :data:`SHOWN` characters."""
    return repr(text) if len(text) <= SHOWN else repr(text[:SHOWN]) + f"… ({len(text)} characters)"


def table_id(text: str) -> str:
    """An argparse ``type=``: a table id (:data:`~controller.topics.TABLE_ID`), else refused
    in words: a wildcard of MQTT's or a slash would name other tables' topics (paho refused
    them in its own thread, and the command then said the login went unanswered).

    >>> table_id("P1")
    'P1'
    >>> table_id("#")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a table id of 1 to 32 letters, digits, - and _; got '#'
    """
    if not TABLE_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected a table id of 1 to 32 letters, digits, - and _; got {shown(text)}"
        )
    return text


def seat_id(text: str) -> str:
    """An argparse ``type=``: a seat id (:data:`~controller.topics.SEAT_ID`), else refused."""
    if not SEAT_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected a seat id of 1 to 16 letters, digits and _; got {shown(text)}"
        )
    return text


#: the most threads or processes a command starts (``--workers``): a pool is started whole,
#: so a larger number forks that many processes at once
MAX_WORKERS = 64

#: jobs submitted ahead per worker: enough to keep every worker busy, few enough that a
#: run of millions of jobs holds a handful of futures
_AHEAD = 4


def _bounded_map(pool: Executor, workers: int) -> JobMap:
    """``pool``'s map, in the jobs' order, with at most ``workers * _AHEAD`` jobs pending."""

    def map_jobs(function: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[Any]:
        pending: deque[Future[Any]] = deque()
        try:
            for job in jobs:
                pending.append(pool.submit(function, job))
                if len(pending) >= workers * _AHEAD:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()

    return map_jobs


@contextlib.contextmanager
def _pooled(workers: int, make: Callable[[int], Executor]) -> Iterator[JobMap]:
    if workers > MAX_WORKERS:
        raise ValueError(f"workers: expected at most {MAX_WORKERS}; got {workers}")
    if workers <= 1:
        yield map
        return
    pool = make(workers)
    try:
        yield _bounded_map(pool, workers)
    finally:
        pool.shutdown(cancel_futures=True)


def threads(workers: int) -> contextlib.AbstractContextManager[JobMap]:
    """Jobs on ``workers`` threads: for work that releases the GIL (the C kernel's).

    >>> with threads(2) as map_jobs:
    ...     list(map_jobs(abs, [-1, -2, 3]))
    [1, 2, 3]
    """
    return _pooled(workers, ThreadPoolExecutor)


def processes(workers: int) -> contextlib.AbstractContextManager[JobMap]:
    """Jobs in ``workers`` processes: for work in Python (rounds settled by the rules objects);
    the C kernel's jobs run there too."""
    return _pooled(workers, ProcessPoolExecutor)


# --------------------------------------------------------------------------- argparse types


def int_from(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer from ``low`` to ``high``, else refused in words.

    >>> hands = int_from(1, 1000)
    >>> hands("20")
    20
    >>> hands("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected an integer from 1 to 1000; got '0'
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected an integer from {low} to {high}; got {shown(text)}"
            )
        return value

    parse.__name__ = "integer"
    return parse


def _said(number: float) -> str:
    """``number`` as a user types it: 3600, 0.5 (never 3.6e+03)."""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def number_from(low: float, high: float, *, above: bool = False) -> Callable[[str], float]:
    """An argparse ``type=``: a finite number from ``low`` (or, with ``above``, more than
    ``low``) to ``high``, else refused in words; nan and infinities are refused.

    >>> seconds = number_from(0, 60)
    >>> seconds("1.5")
    1.5
    >>> seconds("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a number from 0 to 60; got 'nan'
    >>> number_from(0, 10, above=True)("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a number above 0 and at most 10; got '0'
    """
    bounds = (
        f"above {_said(low)} and at most {_said(high)}"
        if above
        else f"from {_said(low)} to {_said(high)}"
    )

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        inside = value > low if above else value >= low
        if not (math.isfinite(value) and inside and value <= high):
            raise argparse.ArgumentTypeError(f"expected a number {bounds}; got {shown(text)}")
        return value

    parse.__name__ = "number"
    return parse
