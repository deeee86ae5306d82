"""How the core's long computations report their progress and spread their work.

The core draws nothing and starts no thread: a computation that can take seconds (hand
counts, returns, a journal's chain, a calibration) takes a :data:`Progress` callback and,
where its jobs are independent, a :data:`JobMap`; the application supplies both (bars on a
terminal, a pool's ``map``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["JobMap", "Progress"]

#: told as work advances: ``progress(units done, units in all)``
Progress = Callable[[int, int], None]

#: how independent jobs run: ``map_jobs(function, jobs)`` yields each job's result, in the
#: jobs' order. The builtin :func:`map` runs them one after another; the application passes
#: a pool's ``map`` to spread them over the processors.
JobMap = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]
