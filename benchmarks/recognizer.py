"""Card recognizer speed and accuracy: frames per second at 1280x720 on one core, and
correct / unknown / confident-wrong counts on rendered cards, beside a baseline pass.

The frame is a dealt seven-box table: 19 cards (7 boxes x 2, the dealer's 2, a board of 3).
The baseline is the cheapest thing any recognizer must do to the same frame: one colour
conversion and one threshold. Both are measured in the same run, on one OpenCV thread.

    python benchmarks/recognizer.py [--seconds S] [--frames N] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from config.camera import load_zones
from controller.cards import STANDARD_52
from drivers.camera.recognizer import Recognizer
from simulators.camera.accuracy import measure, rendered_frames
from simulators.camera.scene import SceneOptions, deal_layout, render_scene


def rate(work: Callable[[], object], seconds: float) -> tuple[float, float]:
    """Calls per second of ``work`` over about ``seconds`` (after one warm-up call), by the
    wall clock and by this process's CPU time (less sensitive to a busy machine)."""
    work()
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - start) < seconds:
        work()
        n += 1
    return n / elapsed, n / max(time.process_time() - cpu, 1e-9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per timing (default: 3)")
    parser.add_argument("--frames", type=int, default=60, help="rendered frames for accuracy")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)

    layout = load_zones()
    rng = random.Random(2026)
    placements = deal_layout(layout, STANDARD_52.shuffled(rng)[:19], rng)[:19]
    frame = render_scene(placements, SceneOptions(draw_zones=layout), seed=1).image
    recognizer = Recognizer(zones=layout)
    read = recognizer.recognize(frame)

    def baseline() -> None:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)

    fps, fps_cpu = rate(lambda: recognizer.recognize(frame), args.seconds)
    base, base_cpu = rate(baseline, args.seconds)

    start = time.perf_counter()
    report = measure(recognizer, rendered_frames(args.frames, seed=77))
    accuracy_seconds = time.perf_counter() - start

    result: dict[str, Any] = {
        "machine": f"{platform.machine()} {platform.python_implementation()} "
        f"{platform.python_version()}, OpenCV {cv2.__version__}, numpy {np.__version__}",
        "frame": "1280x720, 19 cards",
        "cards_read_on_benchmark_frame": len(read.cards),
        "recognizer_fps": round(fps, 1),
        "recognizer_fps_cpu_time": round(fps_cpu, 1),
        "baseline_fps_cpu_time": round(base_cpu, 1),
        "recognizer_ms_per_frame": round(1000 / fps, 2),
        "baseline_fps": round(base, 1),
        "baseline_ms_per_frame": round(1000 / base, 3),
        "rendered_cards": report.cards,
        "correct": report.correct,
        "accuracy_percent": round(100 * report.accuracy, 2),
        "unknown": report.unknown,
        "missed": report.missed,
        "confident_wrong": report.wrong,
        "backs_found": f"{report.backs_found}/{report.backs}",
        "accuracy_run_seconds": round(accuracy_seconds, 1),
        "by_condition": report.conditions(),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"# card recognizer, one OpenCV thread — {result['machine']}")
    print(f"frame: {result['frame']}, {len(read.cards)} read on it")
    print(f"{'':<34} {'wall clock':>21}   {'process CPU time':>21}")
    print(
        f"{'recognizer (whole frame)':<34} {fps:8.1f} fps {1000 / fps:8.2f} ms"
        f"   {fps_cpu:8.1f} fps {1000 / fps_cpu:8.2f} ms"
    )
    print(
        f"{'baseline cvtColor + Otsu threshold':<34} {base:8.1f} fps {1000 / base:8.3f} ms"
        f"   {base_cpu:8.1f} fps {1000 / base_cpu:8.3f} ms"
    )
    print(f"rendered cards under every augmentation: {report.summary()} ({accuracy_seconds:.1f} s)")
    print(f"by condition: {report.conditions()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
