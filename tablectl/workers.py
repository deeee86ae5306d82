"""Pools that spread the core's independent jobs over the processors.

The core never starts a thread or a process: its long computations (hand counts, returns by
simulation) take a ``map_jobs`` function and run each job through it. These context
managers give one: the builtin :func:`map` for a single worker, else a pool's ``map``,
shut down (pending jobs cancelled) when the block ends, however it ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from controller.work import JobMap

__all__ = ["processes", "threads"]


@contextlib.contextmanager
def _pooled(workers: int, make: Callable[[int], Executor]) -> Iterator[JobMap]:
    if workers <= 1:
        yield map
        return
    pool = make(workers)
    try:
        yield pool.map
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
