"""A step of the system clock is told to the pit in words.

The round's betting and decision timers run on the system clock (their deadlines are
journaled with the round, and survive a restart), so a step of it (a time service's
correction, a host paused) moves them: a betting window may close early, or run an hour
longer. The table sees the step against its own running time (the monotonic clock) at its
next input or look at the hardware, and the pit hears it before anything the step brings.
"""

from __future__ import annotations

import json
from pathlib import Path

from controller.events import OpenTable, StartRound
from controller.table import Phase
from tablectl.service import CLOCK_STEP_SECONDS, TableService
from tests.support.publisher import Collected
from tests.tablectl.test_service_inbox import Clock, new_runner


def pit_alerts(published: Collected) -> list[str]:
    return [
        json.loads(payload)["data"]["message"]
        for topic, payload in published.messages
        if topic.endswith("pit/alerts")
    ]


def test_a_step_of_the_clock_either_way_is_told_and_a_slow_drift_is_not(tmp_path: Path) -> None:
    runner = new_runner(tmp_path)
    published, clock, mono = Collected(), Clock(1_790_000_000.0), Clock(100.0)
    table = TableService(runner, published, clock=clock, monotonic=mono, hardware_every=None)
    table.start()
    try:
        table.submit(OpenTable(actor="pit:ana"))
        table.submit(StartRound(actor="dealer"))
        assert table.state.phase is Phase.BETTING
        # both clocks on together, and a drift below the step: nothing to tell
        clock.now += 10.0
        mono.now += 10.0 - CLOCK_STEP_SECONDS / 2
        table.sync()
        assert pit_alerts(published) == []
        clock.now += 3600.0  # an hour forward while the table ran a second
        mono.now += 1.0
        table.sync()
        said = pit_alerts(published)
        assert len(said) == 1
        assert said[0].startswith("the system clock stepped forward by 60 min more than")
        assert "a window open now may have closed early" in said[0]
        assert said[0].endswith("check the host's time service (NTP)")
        clock.now -= 90.0  # back a minute and a half
        table.sync()
        said = pit_alerts(published)
        assert len(said) == 2 and said[1].startswith("the system clock stepped back by 90 s")
        assert "runs that much longer (the dealer can close betting at any time)" in said[1]
    finally:
        table.stop()
        runner.close()


def test_a_table_on_a_clock_of_its_own_looks_for_no_step(tmp_path: Path) -> None:
    """A clock given without its running time (a scenario's, a test's) is taken as it comes."""
    runner = new_runner(tmp_path)
    published, clock = Collected(), Clock(1_790_000_000.0)
    table = TableService(runner, published, clock=clock, hardware_every=None)
    table.start()
    try:
        table.submit(OpenTable(actor="pit:ana"))
        clock.now += 86_400.0
        table.sync()
        assert pit_alerts(published) == []
    finally:
        table.stop()
        runner.close()
