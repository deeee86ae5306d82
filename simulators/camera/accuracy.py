"""Accuracy of a recognizer on rendered frames: correct, unknown, confident-wrong, missed."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from controller.cards import STANDARD_52, Card
from drivers.camera.recognizer import Recognizer, Status
from simulators.camera.scene import (
    TRAINED_FONTS,
    PlacedCard,
    RenderedFrame,
    SceneOptions,
    grid_capacity,
    random_options,
    render_scene,
    scatter_cards,
)

__all__ = ["AccuracyReport", "match_truth", "measure", "rendered_frames"]


@dataclass
class AccuracyReport:
    """Counts over rendered cards; ``wrong`` is a confident read of another card (the worst)."""

    cards: int = 0
    correct: int = 0
    unknown: int = 0
    wrong: int = 0
    missed: int = 0
    backs: int = 0
    backs_found: int = 0
    phantoms: int = 0  # detections where no card lies
    wrong_examples: list[str] = field(default_factory=list)
    by_condition: Counter[str] = field(default_factory=Counter)

    @property
    def accuracy(self) -> float:
        """Share of face-up cards read correctly."""
        return self.correct / self.cards if self.cards else 0.0

    def condition(self, name: str) -> tuple[int, int]:
        """Correct and total face-up cards rendered under one condition (see :func:`measure`)."""
        return self.by_condition[f"{name}:correct"], self.by_condition[f"{name}:cards"]

    def conditions(self) -> str:
        """Accuracy per condition, one line."""
        names = sorted({k.split(":")[0] for k in self.by_condition})
        parts = []
        for name in names:
            ok, n = self.condition(name)
            parts.append(f"{name} {100 * ok / n:.1f}% of {n}" if n else f"{name} -")
        return "; ".join(parts)

    def summary(self) -> str:
        """One line of figures."""
        return (
            f"{self.cards} cards: {self.correct} correct ({100 * self.accuracy:.2f}%), "
            f"{self.unknown} unknown, {self.missed} missed, {self.wrong} confident-wrong; "
            f"{self.backs_found}/{self.backs} backs found, {self.phantoms} phantom detections"
        )


def rendered_frames(
    count: int,
    seed: int,
    *,
    cards_per_frame: int = 19,
    backs_per_frame: int = 1,
    fonts: Sequence[str] = TRAINED_FONTS,
    options: Callable[[random.Random], SceneOptions] | None = None,
) -> list[RenderedFrame]:
    """``count`` frames of scattered cards under random augmentations, deterministic."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        opts = options(rng) if options is not None else random_options(rng)
        room = grid_capacity(opts) - backs_per_frame
        faces: list[Card | None] = list(STANDARD_52.shuffled(rng)[: min(cards_per_frame, room)])
        faces += [None] * backs_per_frame
        placements = scatter_cards(faces, rng, options=opts, fonts=fonts)
        out.append(render_scene(placements, opts, seed=seed * 100003 + i))
    return out


def match_truth(
    truth: Sequence[PlacedCard], centre: tuple[float, float]
) -> tuple[PlacedCard | None, float]:
    """The rendered card whose centre is nearest ``centre``, and the distance in card widths."""
    best, best_d = None, math.inf
    for t in truth:
        cx = sum(p[0] for p in t.corners) / 4
        cy = sum(p[1] for p in t.corners) / 4
        width = math.dist(t.corners[0], t.corners[1])
        d = math.dist((cx, cy), centre) / max(width, 1.0)
        if d < best_d:
            best, best_d = t, d
    return best, best_d


def measure(recognizer: Recognizer, frames: Sequence[RenderedFrame]) -> AccuracyReport:
    """Run the recognizer over the frames and count outcomes against the ground truth."""
    report = AccuracyReport()
    for frame in frames:
        result = recognizer.recognize(frame.image)
        seen: dict[int, Status] = {}
        for det in result.detections:
            truth, d = match_truth(frame.cards, det.centre)
            if truth is None or d > 0.35:
                report.phantoms += 1
                continue
            key = id(truth)
            if det.status is Status.CARD and truth.card is not None and det.card != truth.card:
                report.wrong += 1
                report.wrong_examples.append(
                    f"{truth.card} read as {det.card} ({det.confidence:.3f})"
                )
            elif det.status is Status.CARD and truth.card is None:
                report.wrong += 1
                report.wrong_examples.append(f"back read as {det.card}")
            seen[key] = (
                det.status
                if det.card == truth.card or det.status is not Status.CARD
                else Status.UNKNOWN
            )
        o = frame.options
        tags = [
            "overhead" if o.tilt_deg < 1 else "tilt<25" if o.tilt_deg < 25 else "tilt25-45",
            "sharp" if o.blur == 0 else "blurred",
            "glare" if o.glare > 0 else "no-glare",
        ]
        for truth in frame.cards:
            status = seen.get(id(truth))
            if truth.card is None:
                report.backs += 1
                report.backs_found += status is Status.FACE_DOWN
                continue
            for tag in tags:
                report.by_condition[f"{tag}:cards"] += 1
                report.by_condition[f"{tag}:correct"] += status is Status.CARD
            report.cards += 1
            if status is None:
                report.missed += 1
            elif status is Status.CARD:
                report.correct += 1
            elif status is Status.UNKNOWN:
                report.unknown += 1
    return report
