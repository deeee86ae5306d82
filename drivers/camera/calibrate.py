"""Per-deck calibration: one photograph of each card and its label in, a recognition profile out."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.cards import Card, Rank, Suit
from controller.errors import CalibrationError, InvalidCard
from controller.work import Progress
from drivers.camera.classifier import GlyphClassifier
from drivers.camera.glyphs import PIP_BOX, IndexGlyphs, pip_count, read_pips, split_index
from drivers.camera.imageio import read_image
from drivers.camera.profile import Profile
from drivers.camera.recognizer import (
    canonical_size,
    card_mask,
    find_quads,
    index_patches,
    patch_origin,
    pip_patch,
    refine_quads,
)

__all__ = [
    "DEFAULT_INDEX_BOX",
    "SMALL_RESOLUTION",
    "Sample",
    "augment_patch",
    "calibrate",
    "calibrate_files",
    "read_labels",
]

Image = NDArray[np.uint8]

#: what a calibration reports as it goes: (photographs learnt from, photographs in all)

#: the index region searched on a canonical card (fractions of width and height)
DEFAULT_INDEX_BOX = (-0.03, -0.02, 0.25, 0.31)

#: the resolutions (shares of the canonical card's) that the small-card suit discriminant
#: learns from: cards about 36 to 84 pixels wide
SMALL_RESOLUTION = (0.3, 0.7)


@dataclass(frozen=True, slots=True)
class Sample:
    """One calibration photograph: the image, the card it shows, and a name for messages."""

    image: Image
    card: Card
    name: str


def _largest_quad(sample: Sample) -> NDArray[np.float64]:
    h, w = sample.image.shape[:2]
    quads = find_quads(card_mask(sample.image), min_area=max(500.0, 0.002 * w * h))
    if not quads:
        raise CalibrationError(
            f"{sample.name}: expected one card on a contrasting background, found no card shape"
        )

    def area(q: NDArray[np.float64]) -> float:
        a, b = q[2] - q[0], q[3] - q[1]
        return abs(float(a[0] * b[1] - a[1] * b[0]))

    return refine_quads(sample.image, [max(quads, key=area)])[0]


def _aspect(quad: NDArray[np.float64]) -> float:
    sides = np.hypot(*(quad - np.roll(quad, 1, 0)).T)
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return float(min(a, b) / max(a, b))


def _index_pair(glyphs: list[IndexGlyphs | None]) -> list[int]:
    """Which of the four corner patches hold the index: two diagonally opposite ones."""
    best: list[int] = []
    best_key = (0, -2.0)
    for k in (0, 1):
        found = [i for i in (k, k + 2) if glyphs[i] is not None]
        views = [g for i in found if (g := glyphs[i]) is not None]
        agree = float(views[0].rank @ views[1].rank) if len(views) == 2 else -1.0
        key = (len(found), agree)
        if key > best_key:
            best, best_key = found, key
    return best


def augment_patch(
    patch: Image, rng: np.random.Generator, resolution: tuple[float, float] = (0.35, 1.0)
) -> Image:
    """A degraded copy of a rectified index patch, as a table camera may see the same corner.

    The corner is taken down to a camera's resolution (a share of the canonical card's drawn
    from ``resolution``, by default down to a third of it, and foreshortened along one axis
    as an oblique view does, up to 45 degrees), blurred by the lens, given sensor noise,
    JPEG compression and another exposure (a glare lifts the ink towards the paper), then
    brought back to the canonical size as the recognizer's rectification does, with the
    misregistration of an imperfect outline.
    """
    h, w = patch.shape[:2]
    angle = rng.uniform(-3, 3)
    scale = rng.uniform(0.93, 1.07)
    m = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale), np.float64)
    m[:, 2] += rng.uniform(-2, 2, 2)
    out = cv2.warpAffine(patch, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    f = rng.uniform(*resolution)
    fx, fy = f, f
    if rng.random() < 0.5:  # an oblique view foreshortens one direction of the card
        squeeze = rng.uniform(0.7, 1.0)
        fx, fy = (f * squeeze, f) if rng.random() < 0.5 else (f, f * squeeze)
    sw, sh = max(2, round(w * fx)), max(2, round(h * fy))
    small = np.asarray(cv2.resize(out, (sw, sh), interpolation=cv2.INTER_AREA), np.float32)
    if rng.random() < 0.6:  # the lens, at the camera's resolution
        small = np.asarray(cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.1)), np.float32)
    gain = rng.uniform(0.6, 1.1) * rng.uniform(0.92, 1.08, 3)
    lift = rng.uniform(0, 70) if rng.random() < 0.3 else 0.0  # a glare over the corner
    small = np.asarray(small * gain[None, None, :] + rng.uniform(-15, 15) + lift, np.float32)
    small += rng.normal(0, rng.uniform(0, 8), small.shape).astype(np.float32)
    small8 = np.clip(small, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(
            ".jpg", small8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 96))]
        )
        if ok:
            small8 = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return np.asarray(cv2.resize(small8, (w, h), interpolation=cv2.INTER_LINEAR), np.uint8)


def calibrate(
    samples: Sequence[Sample],
    *,
    name: str,
    source: str,
    aspect: float | None = None,
    index_box: tuple[float, float, float, float] = DEFAULT_INDEX_BOX,
    augment: int = 24,
    seed: int = 0,
    progress: Progress | None = None,
) -> Profile:
    """Build a profile from photographs of single cards (each showing its index corners).

    Every rank and every suit must appear at least once. Each index corner found is also
    degraded ``augment`` times (resolution, blur, noise, exposure, misregistration) so the
    classifiers learn what tells the glyphs apart at table-camera resolution. The index
    corners of clubs and spades are degraded ``augment`` times more to the resolution of
    cards under 80 pixels wide only (:data:`SMALL_RESOLUTION`), for a discriminant of those
    two suits on small cards, where they differ in a few pixels. The card aspect
    is measured from the photographs (median of the card outlines) unless given.
    ``progress(done, total)`` is told of the photographs learnt from, one by one.
    """
    if not samples:
        raise CalibrationError("no calibration photographs: expected one photograph per card")
    if progress is not None:
        progress(0, len(samples))
    quads = [_largest_quad(s) for s in samples]
    if aspect is None:
        aspect = float(np.clip(np.median([_aspect(q) for q in quads]), 0.55, 0.85))
    card_h = float(canonical_size(aspect)[1])
    origin = patch_origin(aspect, index_box)
    rng = np.random.default_rng(seed)
    ranks: list[NDArray[np.float32]] = []
    rank_labels: list[int] = []
    suits: list[NDArray[np.float32]] = []
    suit_labels: list[int] = []
    redness: dict[bool, list[float]] = {True: [], False: []}
    pips: list[NDArray[np.float32]] = []
    pip_labels: list[int] = []
    small_rng = np.random.default_rng(seed + 1)  # the other classifiers' copies stay the same
    small: list[NDArray[np.float32]] = []
    small_labels: list[int] = []
    for done, (sample, quad) in enumerate(zip(samples, quads, strict=True), 1):
        patches = index_patches(sample.image, quad, aspect, index_box)
        glyphs = [split_index(p, card_h, origin) for p in patches]
        chosen = _index_pair(glyphs)
        if not chosen:
            raise CalibrationError(
                f"{sample.name}: expected a rank over a suit in a corner of the card "
                f"({sample.card}), found no index; photograph the card flat and in focus"
            )
        views = [glyphs[i] for i in chosen if glyphs[i] is not None]
        for i in chosen:
            for _ in range(augment):
                g = split_index(augment_patch(patches[i], rng), card_h, origin)
                if g is not None:
                    views.append(g)
        for g in views:
            if g is None:
                continue
            ranks.append(g.rank)
            rank_labels.append(int(sample.card.rank))
            suits.append(g.suit)
            suit_labels.append(int(sample.card.suit))
        if sample.card.suit in (Suit.CLUBS, Suit.SPADES):
            for i in chosen:
                for _ in range(augment):
                    view = augment_patch(patches[i], small_rng, SMALL_RESOLUTION)
                    if (g := split_index(view, card_h, origin)) is not None:
                        small.append(g.suit)
                        small_labels.append(int(sample.card.suit))
        red = sample.card.suit in (Suit.HEARTS, Suit.DIAMONDS)
        redness[red].extend(g.redness for i in chosen if (g := glyphs[i]) is not None)
        expected = pip_count(int(sample.card.rank))
        if expected:  # the pips of an ace to a ten, as the table camera may see them
            suit_h = float(np.median([g.suit_box[3] for g in views[: len(chosen)] if g]))
            middle = pip_patch(sample.image, quad, aspect, chosen[0] % 2)
            top = -round(PIP_BOX[1] * card_h)
            for n in range(1 + augment // 3):
                view = middle if n == 0 else augment_patch(middle, rng)
                found = read_pips(view, card_h, suit_h, top)
                if found is not None and found.count == expected:
                    pips.extend(found.vectors)
                    pip_labels.extend([int(sample.card.suit)] * len(found.vectors))
        if progress is not None:
            progress(done, len(samples))
    missing = [Rank(r).char for r in sorted(set(range(13)) - set(rank_labels))]
    missing += [Suit(s).char for s in sorted(set(range(4)) - set(suit_labels))]
    if missing:
        raise CalibrationError(
            f"calibration photographs lack {', '.join(missing)}: expected every rank and suit"
        )
    red_threshold = 0.15
    if redness[True] and redness[False]:
        lo, hi = max(redness[False]), min(redness[True])
        if hi <= lo:
            raise CalibrationError(
                f"red and black ink overlap in the photographs (black up to {lo:.2f}, red from "
                f"{hi:.2f}): expected colour photographs under white light"
            )
        red_threshold = min((lo + hi) / 2, 0.2)  # blur mixes red ink with paper
    return Profile(
        name=name,
        source=source,
        rank=GlyphClassifier.fit(np.stack(ranks), np.array(rank_labels, np.int16)),
        suit=GlyphClassifier.fit(np.stack(suits), np.array(suit_labels, np.int16)),
        aspect=aspect,
        index_box=index_box,
        red_threshold=red_threshold,
        pip=(
            GlyphClassifier.fit(np.stack(pips), np.array(pip_labels, np.int16))
            if len(set(pip_labels)) == 4
            else None
        ),
        small_suit=(
            GlyphClassifier.fit(np.stack(small), np.array(small_labels, np.int16))
            if len(set(small_labels)) == 2
            else None
        ),
    )


def read_labels(path: Path) -> list[tuple[str, Card]]:
    """Read a ``file,cards`` CSV (a header line, then one file name and one card code a row)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CalibrationError(f"labels file {path}: expected a CSV file, found nothing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CalibrationError(f"labels file {path}: cannot read it ({error})") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or [c.strip().lower() for c in rows[0][:2]] != ["file", "cards"]:
        found = ",".join(rows[0]) if rows else "nothing"
        raise CalibrationError(f"labels file {path}: expected a header 'file,cards', found {found}")
    out: list[tuple[str, Card]] = []
    seen: dict[Card, str] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) < 2:
            raise CalibrationError(f"labels file {path}, line {number}: expected 'file,card'")
        file, code = row[0].strip(), row[1].strip()
        try:
            cards = code.split()
            if len(cards) != 1:
                raise CalibrationError(
                    f"labels file {path}, line {number}: expected one card code for {file}, "
                    f"found {code!r}"
                )
            card = Card.parse(cards[0])
        except InvalidCard as error:
            raise CalibrationError(f"labels file {path}, line {number}: {error}") from None
        if card in seen:
            raise CalibrationError(
                f"labels file {path}, line {number}: card {card} already labelled on {seen[card]}"
            )
        seen[card] = file
        out.append((file, card))
    if not out:
        raise CalibrationError(f"labels file {path}: expected at least one 'file,card' row")
    return out


def calibrate_files(
    images: Path,
    labels: Path,
    *,
    name: str | None = None,
    augment: int = 24,
    progress: Progress | None = None,
) -> Profile:
    """Calibrate from a directory of photographs and their ``file,cards`` labels CSV
    (``progress``: see :func:`calibrate`)."""
    rows = read_labels(labels)
    samples = [Sample(read_image(images / file), card, file) for file, card in rows]
    return calibrate(
        samples,
        name=name or images.resolve().name,
        source=f"calibrated from {len(samples)} photographs",
        augment=augment,
        progress=progress,
    )
