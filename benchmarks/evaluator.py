"""Seven-card hand evaluation speed: ours beside every peer evaluator installed, same run.

Prints single-hand calls per second (the live-play path: one hand from Python), the
batch rate (game math: many hands per call, one core), and the wall time of the full
C(52,7) category enumeration, each next to the figures measured for the peers and for
our own pure-Python reference on the same machine in the same run.

    python benchmarks/evaluator.py [--hands N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from math import comb
from typing import Any

import numpy as np

from controller.cards import Card
from controller.hands import (
    Category,
    count_categories,
    evaluate,
    reference_strength,
    strength,
    strength_batch,
)
from tablectl.workers import threads

TARGET_BATCH = 30e6  # seven-card hands per second on one core
TARGET_ENUMERATION = 15.0  # seconds for all C(52,7) hands


def random_hands(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52), dtype=np.float32)
    return np.argpartition(keys, 7, axis=1)[:, :7].astype(np.uint8)


def rate(calls: Callable[[], int], repeat: int = 3) -> float:
    """Best of ``repeat`` runs of ``calls`` (which returns how many hands it evaluated)."""
    best = 0.0
    for _ in range(repeat):
        started = time.perf_counter()
        n = calls()
        best = max(best, n / (time.perf_counter() - started))
    return best


def single_hand_rates(rows: np.ndarray) -> dict[str, float | str]:
    """Hands per second through each evaluator's one-hand API, on the same hands."""
    lists = [[Card(c) for c in row] for row in rows.tolist()]
    results: dict[str, float | str] = {}

    def ours() -> int:
        for h in lists:
            strength(h)
        return len(lists)

    results["tablectl strength()"] = rate(ours)

    few = lists[: max(1, len(lists) // 20)]

    def ours_rich() -> int:
        for h in few:
            evaluate(h)
        return len(few)

    results["tablectl evaluate() (with best five and name)"] = rate(ours_rich)

    fewer = lists[: max(1, len(lists) // 100)]

    def reference() -> int:
        for h in fewer:
            reference_strength(h)
        return len(fewer)

    results["tablectl reference_strength() (pure Python)"] = rate(reference, 1)

    try:
        import eval7

        deck7 = [eval7.Card(Card(i).code[0] + Card(i).code[1].lower()) for i in range(52)]
        hands7 = [[deck7[c] for c in row] for row in rows.tolist()]

        def run_eval7() -> int:
            for h in hands7:
                eval7.evaluate(h)
            return len(hands7)

        results["eval7.evaluate"] = rate(run_eval7)
    except ImportError as error:
        results["eval7.evaluate"] = f"not installed ({error})"

    try:
        from phevaluator import evaluate_cards

        ids = rows.tolist()  # phevaluator numbers cards as we do: rank * 4 + suit, clubs first

        def run_phevaluator() -> int:
            for h in ids:
                evaluate_cards(*h)
            return len(ids)

        results["phevaluator.evaluate_cards"] = rate(run_phevaluator)
    except ImportError as error:
        results["phevaluator.evaluate_cards"] = f"not installed ({error})"

    try:
        import treys

        evaluator = treys.Evaluator()
        codes = [treys.Card.new(Card(i).code[0] + Card(i).code[1].lower()) for i in range(52)]
        hands_t = [[codes[c] for c in row] for row in rows[: len(rows) // 10].tolist()]

        def run_treys() -> int:
            for h in hands_t:
                evaluator.evaluate(h[:2], h[2:])
            return len(hands_t)

        results["treys Evaluator.evaluate"] = rate(run_treys)
    except ImportError as error:
        results["treys Evaluator.evaluate"] = f"not installed ({error})"

    try:
        import pokerkit

        codes_pk = "".join(Card(i).code[0] + Card(i).code[1].lower() for i in range(52))
        pk = list(pokerkit.Card.parse(codes_pk))
        hands_p = [[pk[c] for c in row] for row in rows[: max(1, len(rows) // 500)].tolist()]

        def run_pokerkit() -> int:
            for h in hands_p:
                pokerkit.StandardHighHand.from_game(h[:2], h[2:])
            return len(hands_p)

        results["pokerkit StandardHighHand.from_game"] = rate(run_pokerkit, 1)
    except ImportError as error:
        results["pokerkit StandardHighHand.from_game"] = f"not installed ({error})"
    return results


def batch_rate(n: int) -> float:
    rows = random_hands(n, seed=11)
    strength_batch(rows[:1000])  # warm the tables

    def run() -> int:
        strength_batch(rows)
        return n

    return rate(run)


def enumeration_seconds(workers: int) -> float:
    started = time.perf_counter()
    with threads(workers) as map_jobs:
        counts = count_categories(7, map_jobs=map_jobs)
    elapsed = time.perf_counter() - started
    assert sum(counts.values()) == comb(52, 7) and counts[Category.ROYAL_FLUSH] == 4324
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="hands for the single-hand runs")
    parser.add_argument("--batch", type=int, default=5_000_000, help="hands for the batch run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    single = single_hand_rates(random_hands(args.hands))
    batch = batch_rate(args.batch)
    enum2 = enumeration_seconds(2)
    enum1 = enumeration_seconds(1)
    peers = {
        k: v for k, v in single.items() if not k.startswith("tablectl") and isinstance(v, float)
    }
    ours = single["tablectl strength()"]
    assert isinstance(ours, float)
    best_peer = max(peers.values(), default=0.0)
    report: dict[str, Any] = {
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        ),
        "single_hand_per_second": single,
        "batch_per_second_one_core": batch,
        "best_peer_per_second": best_peer,
        "enumeration_seconds": {"2 workers": enum2, "1 worker": enum1},
        "targets": {
            "batch >= 30M/s": batch >= TARGET_BATCH,
            "enumeration <= 15 s": enum2 <= TARGET_ENUMERATION,
            "single hand faster than every peer": bool(peers) and ours > best_peer,
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"seven-card hand evaluation — {report['machine']}")
    print("\nsingle hand, one call per hand (same random hands for all):")
    for name, value in single.items():
        if isinstance(value, float):
            print(f"  {name:<48} {value / 1e6:8.3f} M hands/s  {1e9 / value:9.0f} ns/hand")
        else:
            print(f"  {name:<48} {value}")
    print("\nbatch, many hands per call, one core:")
    print(f"  {'tablectl strength_batch()':<48} {batch / 1e6:8.2f} M hands/s  (target >= 30)")
    print(
        f"  {'fastest peer (no batch API: its one-hand loop)':<48} {best_peer / 1e6:8.3f} M hands/s"
    )
    reference = single["tablectl reference_strength() (pure Python)"]
    assert isinstance(reference, float)
    print(f"  {'our pure-Python reference (baseline)':<48} {reference / 1e6:8.4f} M hands/s")
    print("\nfull C(52,7) = 133,784,560-hand category enumeration:")
    print(f"  2 workers {enum2:6.2f} s   1 worker {enum1:6.2f} s   (target <= 15 s)")
    print("\ntargets:")
    for name, ok in report["targets"].items():
        print(f"  {'met ' if ok else 'MISSED'} {name}")


if __name__ == "__main__":
    main()
