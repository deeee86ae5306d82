"""Card recognizer speed and accuracy: frames per second at 1280x720 on one core, and
correct / unknown / confident-wrong counts on rendered cards, beside a baseline pass; and
the same on real photographs, by deck group, when they are at hand.

The rendered frame is a dealt seven-box table: 19 cards (7 boxes x 2, the dealer's 2, a
board of 3). The baseline is the cheapest thing any recognizer must do to the same frame:
one colour conversion and one threshold. A second baseline is the least work any reader of
index corners does for each card: its two index corners cut from the frame (the
recognizer's own ``index_patches``, a perspective warp each) and thresholded (Otsu). The
first follows the machine's memory and vector speed; the second is meant to follow its cost
of many small calls, where most of the recognizer's time goes (a frame's work is hundreds
of small array operations): compare figures from two machines by both. All are measured in
the same run, on one OpenCV thread. The real photographs (``../shared/real-cards`` beside
the project's root, or the folder ``TABLECTL_REAL_CARDS`` names; left out when absent) are
evaluated with the built-in profile (or ``--profile``) as ``tablectl cards evaluate
--corrections docs/real-cards-corrections.csv`` does, by deck group: the decks with
standard indices (A, C, D, E, F, I, J), and B (gold and silver on black), G (indices in
four corners) and H (German letters) each alone. The real frames timed are deck F's
photograph of its laid-out deck at 1280x720 (52 cards), a part of it enlarged to 1280x720
(about 19 cards, some cut by the frame's edge), three of its rows of seven enlarged so (21
whole cards), and deck C's two webcam frames of 18 cards piled on a knitted blanket
(exported squashed to 640x640, restored to the camera's 1280x720); each frame's time is
also split by stage (outlines found, outlines read, the index search and its squash
probe), to show where a frame's time goes. Deck F's own faces, cut out of that
photograph, are also dealt on a rendered felt table as a studio deals a round (cards 83
pixels wide), the real print a studio's camera would see: one such frame is timed, and 40
deals are read plain and 40 under the rendered frames' augmentations (tilt, blur, noise,
glare, JPEG, other felts). Beside them, every
photograph listing at least ``CROWDED`` cards is resized to 1280x720 and timed too (each
for a sixth of ``--seconds``): the median, best and worst fps, and how many reach the
target's 25, so that the speed is measured on real frames in general, not on four chosen
ones (about 20 s more). A profile is also
calibrated from that laid-out photograph (as ``tablectl cards calibrate --layout-image …
--layout 4x13`` does) and evaluated on the photographs of its design: deck F's three (the
layout among them) and deck D's eleven.

With ``--perturbed``, every deck's photographs are also read altered as other
cameras, lights and tables would show them (``simulators/camera/alter.py``: grey, sensor
noise, smaller, blurred, JPEG at quality 25, a warm and a cool cast, darker, brighter, a
perspective, turned a quarter and a half turn), each with its own seeded noise: how many
of the standard decks' cards are read, and how many cards of any deck are read wrong with
confidence (about 12 minutes more).

With ``--close-ups``, every card of the photographs read right from an outline found whole
is also cut out to fill a frame of its own, 128, 200 and 400 pixels high (never enlarged:
``simulators/camera/alter.py``, ``close_ups``), as a 128-pixel crop or a camera close over
the board shows it, and read again alone: how many are found, read right and read wrong
(about a minute and a half more).

    python benchmarks/recognizer.py [--seconds S] [--frames N] [--real DIR] [--profile P]
                                    [--perturbed] [--close-ups] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import drivers.camera.recognizer as module
from config.camera import load_zones
from controller.cards import STANDARD_52, Card
from drivers.camera.calibrate import Refusal, calibrate_files
from drivers.camera.evaluate import (
    REAL_CORRECTIONS,
    Tally,
    evaluate,
    read_meta,
    real_labels,
    real_photos,
)
from drivers.camera.imageio import read_image
from drivers.camera.profile import builtin_profile, load_profile
from drivers.camera.recognizer import Recognizer, index_patches
from simulators.camera.accuracy import measure, rendered_frames
from simulators.camera.alter import ALTERATIONS, close_ups, dealt_on_felt, read_altered, real_faces
from simulators.camera.render import CARD_HEIGHT, CARD_WIDTH
from simulators.camera.scene import SceneOptions, deal_layout, random_options, render_scene


def rate(work: Callable[[], object], seconds: float) -> tuple[float, float]:
    """Calls per second of ``work`` over about ``seconds`` (after one warm-up call), by the
    wall clock and by this process's CPU time (less sensitive to a busy machine)."""
    work()
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - start) < seconds:
        work()
        n += 1
    return n / elapsed, n / max(time.process_time() - cpu, 1e-9)


#: the stages of a frame's reading that :func:`stage_times` times, each the recognizer's own
#: function (the module's ``locate`` or a :class:`Recognizer` method), and what a reader of
#: the figures calls it; each stage's time is its own, less the stages it calls
STAGES = (
    ("locate", "outlines found"),
    ("_recognize", "outlines read"),
    ("_read_indices", "index search"),
    ("_probed_squash", "squash probed"),
)


def stage_times(recognizer: Recognizer, frame: np.ndarray, repeats: int) -> dict[str, float]:
    """Where a frame's reading time goes: the mean CPU milliseconds of each of
    :data:`STAGES` over ``repeats`` readings (after one warm-up), and ``other`` (the frame's
    exposure, a second look white-balanced where no card was read, the zones). Each stage
    is timed by wrapping the recognizer's own function for the duration of the call (the
    wrappers cost a few microseconds a frame); nothing else is changed."""
    spent = {name: 0.0 for name, _ in STAGES}
    inner: list[float] = []  # the time of the stages called within the running one

    def timed(name: str, work: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            inner.append(0.0)
            start = time.process_time()
            try:
                return work(*args, **kwargs)
            finally:
                took = time.process_time() - start
                spent[name] += took - inner.pop()
                if inner:
                    inner[-1] += took

        return run

    originals = {name: getattr(module, name, None) or getattr(Recognizer, name)
                 for name, _ in STAGES}  # fmt: skip
    recognizer.recognize(frame)
    try:
        for name, work in originals.items():
            target = module if hasattr(module, name) else Recognizer
            setattr(target, name, timed(name, work))
        start = time.process_time()
        for _ in range(repeats):
            recognizer.recognize(frame)
        total = time.process_time() - start
    finally:
        for name, work in originals.items():
            setattr(module if hasattr(module, name) else Recognizer, name, work)
    out = {label: round(1000 * spent[name] / repeats, 1) for name, label in STAGES}
    out["other"] = round(1000 * (total - sum(spent.values())) / repeats, 1)
    return out


#: deck C's two webcam frames of 18 cards (piled on a knitted blanket), timed too
WEBCAM_FRAMES = ("amm_WIN_20240627_12_48_18_Pro.jpg", "amm_WIN_20240627_12_49_21_Pro.jpg")

#: the deck groups reported (deck column of the photographs' sources.csv)
DECK_GROUPS = {
    "standard (A C D E F I J)": {"deck-A", "deck-C", "deck-D", "deck-E", "deck-F", "deck-I",
                                 "deck-J"},
    "B gold/silver on black": {"deck-B"},
    "G four-corner indices": {"deck-G"},
    "H German letters": {"deck-H"},
}  # fmt: skip


#: a real photograph listing at least this many cards is timed at 1280x720 (34 photographs)
CROWDED = 8
#: the real frames' speed target (fps on one core)
TARGET_FPS = 25.0


def crowded_speed(
    root: Path, labels: dict[str, frozenset[Card]], recognizer: Recognizer, seconds: float
) -> dict[str, Any]:
    """Every photograph listing at least :data:`CROWDED` cards, resized to 1280x720
    (shrunk by area, enlarged by cubic interpolation), timed in process CPU time: the
    median, best and worst fps, how many reach :data:`TARGET_FPS`, each one's, and the mean
    time of each stage of their reading (:func:`stage_times`)."""
    each: dict[str, float] = {}
    stages: dict[str, float] = {}  # each stage's CPU ms, summed over the photographs
    for name, cards in sorted(labels.items()):
        if len(cards) < CROWDED:
            continue
        image = read_image(root / name)
        shrink = image.shape[1] > 1280
        interpolation = cv2.INTER_AREA if shrink else cv2.INTER_CUBIC
        frame = np.asarray(cv2.resize(image, (1280, 720), interpolation=interpolation), np.uint8)
        each[name] = round(rate(partial(recognizer.recognize, frame), seconds)[1], 1)
        for stage, ms in stage_times(recognizer, frame, 2).items():
            stages[stage] = stages.get(stage, 0.0) + ms
    rates = sorted(each.values())
    if not rates:
        return {"photographs": 0}
    return {
        "photographs": len(rates),
        "median_fps": round(float(np.median(rates)), 1),
        "best_fps": rates[-1],
        "worst_fps": rates[0],
        "at_target": sum(r >= TARGET_FPS for r in rates),
        "mean_ms_by_stage": {k: round(v / len(rates), 1) for k, v in stages.items()},
        "each": each,
    }


def real_figures(root: Path, recognizer: Recognizer, seconds: float) -> dict[str, Any]:
    """Accuracy by deck group and speed on real frames (see the module's description)."""
    labels = real_labels(root)
    decks = read_meta(root / "sources.csv", "deck")
    start = time.perf_counter()
    result = evaluate(root, labels, recognizer.recognize, meta={"deck": decks})
    seconds_taken = time.perf_counter() - start
    groups: dict[str, Tally] = {}
    for score in result.scores:
        for group, members in DECK_GROUPS.items():
            if decks.get(score.file) in members:
                groups.setdefault(group, Tally()).add(score)
    layout = read_image(root / "images" / "ger_all_cards.jpg")
    whole = np.asarray(cv2.resize(layout, (1280, 720), interpolation=cv2.INTER_AREA), np.uint8)
    part = np.asarray(
        cv2.resize(layout[60:510, 0:800], (1280, 720), interpolation=cv2.INTER_CUBIC), np.uint8
    )
    webcam = [
        np.asarray(
            cv2.resize(read_image(root / "images" / f), (1280, 720), interpolation=cv2.INTER_CUBIC),
            np.uint8,
        )
        for f in WEBCAM_FRAMES
    ]
    # three rows of seven whole cards, nothing cut by the frame's edge: a dealt table's
    # frame as near as the photographs come to one (cards 110 pixels wide on light wood)
    rows = np.asarray(
        cv2.resize(layout[140:628, 30:878], (1280, 720), interpolation=cv2.INTER_CUBIC), np.uint8
    )
    dealt = dealt_figures(root, labels, recognizer)
    frames = [("1280x720, 52 cards", whole), ("1280x720, about 19 cards", part)]
    frames += [("1280x720, 21 whole cards", rows)]
    frames += [(f"webcam 1280x720, 18 cards ({i})", f) for i, f in enumerate(webcam, 1)]
    if dealt is not None:
        frames += [("1280x720, 19 of deck F's cards dealt on felt", dealt.pop("frame"))]
    speed = {}
    for name, frame in frames:
        fps, fps_cpu = rate(partial(recognizer.recognize, frame), seconds)
        found = recognizer.recognize(frame)
        speed[name] = {"fps": round(fps, 1), "fps_cpu_time": round(fps_cpu, 1),
                       "outlines": len(found.detections), "read": len(found.cards),
                       "ms_by_stage": stage_times(recognizer, frame, 10)}  # fmt: skip
    return {
        "crowded_speed": crowded_speed(root, labels, recognizer, seconds / 6),
        "calibrated": calibrated_figures(root, labels, decks),
        "dealt_on_felt": dealt,
        "images": result.overall.images,
        "seconds": round(seconds_taken, 1),
        "groups": {k: v.to_json() for k, v in groups.items()},
        "by_deck": {k: v.to_json() for k, v in sorted(result.groups["deck"].items())},
        "misreads": result.to_json()["misreads"],
        "speed": speed,
    }


def perturbed_figures(root: Path, recognizer: Recognizer) -> dict[str, Any]:
    """Every deck's photographs read as they are and altered each way of
    :data:`~simulators.camera.alter.ALTERATIONS`: for each, the standard decks' tally and
    confident misreads, and the other decks' (B, G, H: no target, but a card read wrong
    there is as wrong as anywhere). Each group is read with its own generator
    (:func:`~simulators.camera.alter.read_altered`: the standard decks' figures as the
    tests' floors measure them)."""
    labels = real_labels(root)
    decks = read_meta(root / "sources.csv", "deck")
    standard = DECK_GROUPS["standard (A C D E F I J)"]
    out: dict[str, Any] = {}
    for name, alter in [("as they are", None), *ALTERATIONS.items()]:
        start = time.perf_counter()
        ours, others = (
            read_altered(
                root,
                labels,
                recognizer,
                alter,
                lambda file, wanted=wanted: (decks.get(file) in standard) == wanted,
            )
            for wanted in (True, False)
        )
        out[name] = {
            **ours.overall.to_json(),
            "seconds": round(time.perf_counter() - start, 1),
            "misreads": ours.to_json()["misreads"],
            "other decks": {**others.overall.to_json(), "misreads": others.to_json()["misreads"]},
        }
    return out


def close_up_figures(root: Path, recognizer: Recognizer) -> dict[str, Any]:
    """Every labelled photograph's cards read right from an outline found whole, cut out
    at each height of :data:`~simulators.camera.alter.CLOSE_UP_HEIGHTS` and read alone
    (:func:`~simulators.camera.alter.close_ups`): the counts at each height."""
    labels = real_labels(root)
    start = time.perf_counter()
    photos = ((read_image(root / name), cards) for name, cards in sorted(labels.items()))
    tallies = close_ups(photos, recognizer)
    return {
        "seconds": round(time.perf_counter() - start, 1),
        "heights": {str(height): vars(t) for height, t in tallies.items()},
    }


#: the laid-out deck calibrated from, its layout and order, and the decks of its design
LAYOUT = ("ger_all_cards.jpg", "4x13", "rows=HCDS cols=KQJT98765432A")
LAYOUT_DESIGN = ("deck-D", "deck-F")


def calibrated_figures(
    root: Path, labels: dict[str, frozenset[Card]], decks: dict[str, str]
) -> dict[str, Any] | None:
    """The profile calibrated from deck F's laid-out photograph: what it learnt and what it
    reads of the photographs of its design, by deck; None where the folder lacks it."""
    name, shape, order = LAYOUT
    if not (root / "images" / name).is_file():
        return None
    refused: list[Refusal] = []
    start = time.perf_counter()
    profile = calibrate_files(
        None, None, refused=refused, layout=(root / "images" / name, shape, order)
    )
    calibration_seconds = time.perf_counter() - start
    result = evaluate(
        root,
        labels,
        Recognizer(profile).recognize,
        meta={"deck": decks},
        only=lambda file: decks.get(file) in LAYOUT_DESIGN,
    )
    return {
        "source": profile.source,
        "refused": [str(r) for r in refused],
        "calibration_seconds": round(calibration_seconds, 1),
        "overall": result.overall.to_json(),
        "by_deck": {k: v.to_json() for k, v in sorted(result.groups["deck"].items())},
    }


#: the deals of deck F's real faces on felt read for accuracy, plain and under the renderer's
#: augmentations (each seed its own cards, places and, augmented, camera, light and felt)
DEALT_SEEDS = range(40)


def dealt_figures(
    root: Path, labels: dict[str, frozenset[Card]], recognizer: Recognizer
) -> dict[str, Any] | None:
    """Deck F's own faces (cut out of its laid-out photograph where read right from an
    outline found whole) dealt on a rendered felt table as a studio deals a round
    (:func:`~simulators.camera.alter.dealt_on_felt`): real print at a studio camera's scale
    (cards 83 pixels wide at 1280 x 720), read plain and under every augmentation of the
    rendered frames; and the frame of seed 2026 to time. None where the folder lacks the
    photograph."""
    name = f"images/{LAYOUT[0]}"
    if not (root / name).is_file():
        return None
    faces = real_faces(read_image(root / name), recognizer, labels[name], (CARD_WIDTH, CARD_HEIGHT))
    zones = load_zones()
    out: dict[str, Any] = {"faces": len(faces)}
    for kind in ("plain", "augmented"):
        tally = {"dealt": 0, "right": 0, "wrong": 0, "misreads": []}
        for seed in DEALT_SEEDS:
            options = random_options(random.Random(seed)) if kind == "augmented" else None
            frame = dealt_on_felt(faces, zones, seed, options)
            dealt = {c.card for c in frame.cards}
            read = recognizer.recognize(frame.image).cards
            tally["dealt"] += len(dealt)
            tally["right"] += sum(d.card in dealt for d in read)
            wrong = [str(d.card) for d in read if d.card not in dealt]
            tally["wrong"] += len(wrong)
            tally["misreads"] += [f"seed {seed}: {c}" for c in wrong]
        out[kind] = tally
    out["frame"] = dealt_on_felt(faces, zones, 2026).image
    return out


def tally_header(first: str) -> str:
    """The header of :func:`tally_row`'s table, its first column named ``first``."""
    return (
        f"  {first:<26} {'listed':>6} {'right':>6} {'recall':>7} {'wrong':>6} "
        f"{'per 1000':>8} {'unknown':>7} {'missed':>6} {'outlines':>8}"
    )


def tally_row(name: str, t: dict[str, Any]) -> str:
    """One line of a tally's table; the recall worked out from the counts (the JSON's is
    rounded to four places, and rounding it again showed 816 of 945 as 86.4 %)."""
    recall = 100 * t["right"] / t["listed"] if t["listed"] else 0.0
    return (
        f"  {name:<26} {t['listed']:>6} {t['right']:>6} {recall:>6.1f}% "
        f"{t['confident_wrong']:>6} {t['wrong_per_thousand']:>8.2f} {t['unknown']:>7} "
        f"{t['missed']:>6} {t['outlines']:>8}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per timing (default: 3)")
    parser.add_argument("--frames", type=int, default=60, help="rendered frames for accuracy")
    parser.add_argument("--real", type=Path, default=None, help="labelled real photographs")
    parser.add_argument("--profile", type=Path, help="deck profile for the real photographs")
    parser.add_argument(
        "--perturbed", action="store_true", help="every deck's photographs altered too (~12 min)"
    )
    parser.add_argument(
        "--close-ups", action="store_true", help="the real cards cut out alone (~1.5 min)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    root = args.real or real_photos()

    layout = load_zones()
    rng = random.Random(2026)
    placements = deal_layout(layout, STANDARD_52.shuffled(rng)[:19], rng)[:19]
    scene = render_scene(placements, SceneOptions(draw_zones=layout), seed=1)
    frame = scene.image
    quads = [np.array(c.corners, np.float64) for c in scene.cards]
    recognizer = Recognizer(zones=layout)
    read = recognizer.recognize(frame)

    def baseline() -> None:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)

    def per_card() -> None:
        p = recognizer.profile
        for quad in quads:
            for patch in index_patches(frame, quad, p.aspect, p.index_box, (0, 2)):
                grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
                cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)

    fps, fps_cpu = rate(lambda: recognizer.recognize(frame), args.seconds)
    base, base_cpu = rate(baseline, args.seconds)
    card_base, card_base_cpu = rate(per_card, args.seconds)

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
        "per_card_baseline_fps": round(card_base, 1),
        "per_card_baseline_fps_cpu_time": round(card_base_cpu, 1),
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
    if (root / "labels.csv").exists():
        profile = load_profile(args.profile) if args.profile else builtin_profile()
        result["real"] = real_figures(root, Recognizer(profile), args.seconds)
        if args.perturbed:
            result["real"]["perturbed"] = perturbed_figures(root, Recognizer(profile))
        if args.close_ups:
            result["real"]["close_ups"] = close_up_figures(root, Recognizer(profile))
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
    print(
        f"{'baseline per card (2 corners cut)':<34} {card_base:8.1f} fps "
        f"{1000 / card_base:8.3f} ms   {card_base_cpu:8.1f} fps {1000 / card_base_cpu:8.3f} ms"
    )
    print(f"rendered cards under every augmentation: {report.summary()} ({accuracy_seconds:.1f} s)")
    print(f"by condition: {report.conditions()}")
    real = result.get("real")
    if real is None:
        print(f"real photographs: none at {root} (set TABLECTL_REAL_CARDS)")
        return 0
    print(f"real photographs ({real['images']} at {root}, {real['seconds']} s; labels "
          f"corrected by docs/{REAL_CORRECTIONS.name}):")  # fmt: skip
    print(tally_header("deck group"))
    rows = list(real["groups"].items()) + [(f"  {k}", v) for k, v in real["by_deck"].items()]
    for name, t in rows:
        print(tally_row(name, t))
    for miss in real["misreads"]:
        print(f"  confident-wrong: {miss['file']}: read {' '.join(miss['read'])}")
    cal = real["calibrated"]
    if cal is None:
        print(f"calibrated profile: no laid-out deck ({LAYOUT[0]}) at {root}")
    else:
        print(f"calibrated from deck F's laid-out photograph in {cal['calibration_seconds']} s: "
              f"{cal['source']}; {len(cal['refused'])} refused")  # fmt: skip
    for name, t in [("decks D and F", cal["overall"]), *cal["by_deck"].items()] if cal else []:
        print(tally_row(name, t))
    dealt = real["dealt_on_felt"]
    if dealt is not None:
        deals = len(DEALT_SEEDS)
        print(f"deck F's {dealt['faces']} real faces dealt on felt, 19 a deal, {deals} deals:")
        for kind in ("plain", "augmented"):
            t = dealt[kind]
            print(f"  {kind:<10} dealt {t['dealt']:>4}  right {t['right']:>4} "
                  f"({100 * t['right'] / t['dealt']:.1f} %)  wrong {t['wrong']}"
                  + (f": {', '.join(t['misreads'])}" if t["misreads"] else ""))  # fmt: skip
    perturbed = real.get("perturbed")
    if perturbed:
        print("standard decks' photographs altered (--perturbed; the other decks' misreads too):")
        print(tally_header("altered"))
        for name, t in perturbed.items():
            print(tally_row(name, t))
            for miss in t["misreads"]:
                print(f"    confident-wrong: {miss['file']}: read {' '.join(miss['read'])}")
            for miss in t["other decks"]["misreads"]:
                codes = " ".join(miss["read"])
                print(f"    confident-wrong, other deck: {miss['file']}: read {codes}")
    close = real.get("close_ups")
    if close:
        print(f"cards read whole, cut out alone (--close-ups, {close['seconds']} s):")
        print(f"  {'height':<8} {'cut':>6} {'found':>6} {'right':>6} {'recall':>7} {'wrong':>6}")
        for height, t in close["heights"].items():
            recall = 100 * t["right"] / t["cut"] if t["cut"] else 0.0
            print(
                f"  {height + ' px':<8} {t['cut']:>6} {t['found']:>6} {t['right']:>6} "
                f"{recall:>6.1f}% {t['wrong']:>6}"
            )
    for name, t in real["speed"].items():
        print(
            f"real frame {name}: {t['fps']:.1f} fps wall clock, {t['fps_cpu_time']:.1f} fps "
            f"CPU time ({t['outlines']} outlines, {t['read']} read)"
        )
        print(
            "  CPU ms a frame by stage: "
            + ", ".join(f"{k} {v:.1f}" for k, v in t["ms_by_stage"].items())
        )
    crowded = real["crowded_speed"]
    if crowded["photographs"]:
        print(
            f"real photographs of {CROWDED} cards or more at 1280x720 ({crowded['photographs']}),"
            f" CPU time: median {crowded['median_fps']:.1f} fps, best {crowded['best_fps']:.1f},"
            f" worst {crowded['worst_fps']:.1f}; at {TARGET_FPS:.0f} fps or more:"
            f" {crowded['at_target']}"
        )
        by_stage = crowded["mean_ms_by_stage"].items()
        print("  mean CPU ms a frame by stage: " + ", ".join(f"{k} {v:.1f}" for k, v in by_stage))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
