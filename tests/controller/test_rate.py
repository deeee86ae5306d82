"""Each seat's commands at most a burst at once and a rate after it (controller.rate)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rate import CommandRate


def test_a_burst_then_the_rate_then_the_flood_told_once_each_way() -> None:
    rate = CommandRate(4.0, 3)  # times in halves and quarters: exact in binary
    assert [rate.take("seat:1", 0.0).ok for _ in range(3)] == [True] * 3
    first = rate.take("seat:1", 0.0)
    assert not first.ok and first.flood_starts and first.since == 0.0
    second = rate.take("seat:1", 0.125)
    assert not second.ok and not second.flood_starts and second.refused == 2
    assert rate.take("seat:2", 0.125).ok  # each seat has its own bucket
    between = rate.take("seat:1", 0.25)  # 0.25 s at 4 a second: one command's worth
    assert between.ok and not between.flood_ends  # taken, but the flood goes on
    later = rate.take("seat:1", 0.25)  # the bucket is empty again: the same flood
    assert not later.ok and not later.flood_starts and later.refused == 3
    assert rate.take("seat:1", 0.75).ok  # 0.5 s: two commands' worth, not the burst's three
    assert not rate.take("seat:1", 0.75).flood_ends
    again = rate.take("seat:1", 10.0)  # paused long enough for the whole burst
    assert again.ok and again.flood_ends and again.refused == 3 and again.since == 0.0
    assert rate.take("seat:1", 10.0).ok and not rate.take("seat:1", 10.0).flood_ends


def test_a_clock_that_goes_back_refills_nothing() -> None:
    rate = CommandRate(1.0, 1)
    assert rate.take("s", 100.0).ok
    assert not rate.take("s", 50.0).ok  # stepped back 50 s: no token made of it
    assert not rate.take("s", 100.5).ok
    assert rate.take("s", 101.0).ok


@pytest.mark.parametrize(
    ("per_second", "burst", "most"),
    [(0.0, 1, 1), (-1.0, 1, 1), (float("nan"), 1, 1), (1.0, 0, 1), (1.0, 1, 0)],
)
def test_a_limit_that_takes_nothing_is_refused(per_second: float, burst: int, most: int) -> None:
    with pytest.raises(ValueError, match="expected a rate above 0 a second"):
        CommandRate(per_second, burst, most=most)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.floats(0, 5, allow_nan=False)), min_size=1, max_size=300
    ),
    st.floats(0.5, 20),
    st.integers(1, 10),
)
def test_no_seat_gets_more_than_its_burst_and_rate_and_memory_is_bounded(
    steps: list[tuple[int, float]], per_second: float, burst: int
) -> None:
    """Seeded random senders and gaps: while no sender is forgotten (fewer than ``most``),
    each is taken at most its burst plus the rate times the time since its first command;
    with many made-up senders the remembered stay at most ``most``."""
    rate = CommandRate(per_second, burst, most=8)
    now = 0.0
    first: dict[int, float] = {}
    taken: dict[int, int] = {}
    for who, gap in steps:
        now += gap
        first.setdefault(who, now)
        if rate.take(str(who), now).ok:
            taken[who] = taken.get(who, 0) + 1
        assert len(rate) <= 8
    if len(first) <= 8:  # none forgotten
        for who, n in taken.items():
            assert n <= burst + per_second * (now - first[who]) + 1e-9
