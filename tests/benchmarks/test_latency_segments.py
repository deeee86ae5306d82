"""The latency benchmark's split of each card's path: the floor's stamps joined to the
controller's by the one clock."""

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _latency() -> ModuleType:
    spec = importlib.util.spec_from_file_location("latency_bench", ROOT / "benchmarks/latency.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_card_is_split_where_its_time_went() -> None:
    segments = _latency().segments
    ms = 1_000_000
    # three cards written at 0, 100 and 200 ms: (written, received) from the floor
    stamps = [(0, 3 * ms), (100 * ms, 101 * ms + ms // 2), (200 * ms, 210 * ms)]
    # the controller: handed over, written to the broker (out of order, as tables interleave)
    cards = [(200 * ms + ms, 200 * ms + 2 * ms), (ms // 2, 2 * ms), (100 * ms + ms // 4, 101 * ms)]
    found = segments(stamps, cards)
    assert found["joined"] == found["of"] == 3
    assert found["pty"]["max_ms"] == 1.0 and found["controller"]["max_ms"] == 1.5
    assert found["broker"]["max_ms"] == 8.0  # the third card waited in the broker
    assert found["slowest_one_percent_lost_most_in"] == {"pty": 0, "controller": 0, "broker": 1}


def test_a_card_the_controller_did_not_hand_over_is_left_out() -> None:
    segments = _latency().segments
    # the only card the controller handed over was written to the broker after the floor's
    # card arrived: it is another card, not this one
    found = segments([(0, 5)], [(1, 9)])
    assert found["joined"] == 0 and found["of"] == 1 and found["pty"]["n"] == 0
