"""Per-deck calibration: one photograph of each card and its label in, a recognition profile out."""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from config.files import read_text
from controller.cards import STANDARD_52, STRIPPED_28, Card, Deck, Rank, Suit
from controller.errors import CalibrationError, InvalidCard
from controller.work import Progress
from drivers.camera.classifier import GlyphClassifier
from drivers.camera.glyphs import PIP_BOX, IndexGlyphs, pip_count, read_pips, split_index
from drivers.camera.imageio import image_under, read_image
from drivers.camera.profile import Profile
from drivers.camera.reader import (
    NO_INDEX,
    RANK_LEAD,
    SUIT_LEAD,
    IndexReader,
    has_colour,
    load_index_reader,
)
from drivers.camera.recognizer import (
    SQUASH_PROBED,
    canonical_size,
    exposed,
    index_hypotheses,
    index_patches,
    locate,
    patch_origin,
    pip_patch,
    suit_lead,
)
from drivers.camera.zones import captioned, shrunk

__all__ = [
    "DEFAULT_INDEX_BOX",
    "SMALL_RESOLUTION",
    "Refusal",
    "Sample",
    "annotate",
    "augment_patch",
    "calibrate",
    "calibrate_files",
    "layout_samples",
    "parse_layout",
    "read_labels",
    "unlearnt",
]

Image = NDArray[np.uint8]

#: what a calibration reports as it goes: (photographs learnt from, photographs in all)

#: the index region searched on a canonical card (fractions of width and height)
DEFAULT_INDEX_BOX = (-0.03, -0.02, 0.25, 0.31)

#: a photograph of one card whose outline is not found (a card as light as the table, or
#: cut by the picture's edge), or whose outline's corners show no index, is looked at again
#: index first, as the recognizer finds cards whose outlines it cannot see: the card guessed
#: around each likely rank-over-suit pair of ink (at most this many, at each of the
#: recognizer's probed stretches), and the one whose corner the learned reader reads as the
#: labelled card, rank and suit each with at least their leads (``RANK_LEAD``,
#: ``SUIT_LEAD``) in ink of the suit's colour, is learnt from. The label names the card:
#: the reader only has to find where its index is
INDEX_FIRST_TRIES = 24
#: the part of the card (shares of its width and height, as the index box) that must lie
#: inside the picture for its index to be looked for there: the rank and suit themselves,
#: not the whole index box (a close-up's lower index may lie near the picture's edge)
INDEX_FIRST_SHOWN = (0.02, 0.02, 0.18, 0.28)
#: a laid-out card's index is looked for within this share of its outline's larger extent
#: around the outline (its place in the layout, where the outline may be a neighbour's)
INDEX_FIRST_AROUND = 0.25
#: the least side, in pixels, of a picture (or a place's surroundings) searched index first
INDEX_FIRST_LEAST = 32

#: the resolutions (shares of the canonical card's) that the small-card suit discriminant
#: learns from: cards about 36 to 84 pixels wide
SMALL_RESOLUTION = (0.3, 0.7)


@dataclass(frozen=True, slots=True)
class Sample:
    """One calibration photograph: the image, the card it shows, and a name for messages;
    ``quad`` is the card's outline when it is already found (a card of a laid-out deck)."""

    image: Image
    card: Card
    name: str
    quad: NDArray[np.float64] | None = None
    placed: bool = False  # the outline is the layout place's, from its neighbours: none was found


@dataclass(frozen=True, slots=True)
class Refusal:
    """A calibration photograph (or a card of a laid-out deck) not learnt from, and why."""

    name: str
    card: Card | None
    reason: str
    image: Image | None = None  # the photograph, for an annotated picture
    quads: tuple[NDArray[np.float64], ...] = ()  # the outlines found on it

    def __str__(self) -> str:
        return f"{self.name}: {self.reason}"


def _largest_quad(sample: Sample) -> NDArray[np.float64]:
    """The largest card outline on the photograph, found as the recognizer finds cards (the
    photograph shrunk by a whole factor, paper and edges, the outline measured at full
    resolution)."""
    if sample.quad is not None:
        return sample.quad
    cards = locate(sample.image).cards()
    if not cards:
        raise CalibrationError(
            f"{sample.name}: expected one card on a contrasting background, found no card "
            "shape; lay the card flat and whole inside the picture, on a plain table"
        )
    return cards[0]


def _index_first(
    sample: Sample,
    aspect: float,
    index_box: tuple[float, float, float, float],
    reader: IndexReader | None,
) -> NDArray[np.float64] | None:
    """The card on a photograph of one card, found by its index corner (see
    :data:`INDEX_FIRST_TRIES`); None where no guessed corner reads as the labelled card and
    shows its rank over its suit (:func:`~drivers.camera.glyphs.split_index`). The
    photograph may be stretched (an export squashed to a square): the cards are guessed at
    each of the recognizer's probed stretches, and the corner read best is kept."""
    if reader is None:
        return None
    card = sample.card
    red = card.suit in (Suit.HEARTS, Suit.DIAMONDS)
    image, offset = sample.image, np.zeros(2)
    if sample.quad is not None:  # a laid-out card: looked for around its place only
        reach = INDEX_FIRST_AROUND * float(np.ptp(sample.quad, axis=0).max())
        h, w = image.shape[:2]
        x0, y0 = np.clip(np.floor(sample.quad.min(axis=0) - reach), 0, [w, h]).astype(int)
        x1, y1 = np.clip(np.ceil(sample.quad.max(axis=0) + reach), 0, [w, h]).astype(int)
        image, offset = image[y0:y1, x0:x1], np.array([x0, y0], np.float64)
    if min(image.shape[:2]) < INDEX_FIRST_LEAST:
        return None  # the place lies (almost) beyond the photograph
    colour = has_colour(image)  # a greyscale photograph's ink says neither colour
    card_h = float(canonical_size(aspect)[1])
    origin = patch_origin(aspect, index_box)
    found: list[tuple[float, int, NDArray[np.float64], Image]] = []
    for squash in dict.fromkeys((1.0, *SQUASH_PROBED)):
        hyps = index_hypotheses(image, 0.0, squash, [], aspect, index_box, shown=INDEX_FIRST_SHOWN)
        hyps = hyps[:INDEX_FIRST_TRIES]
        if not hyps:
            continue
        patches = [index_patches(image, q, aspect, index_box, (0,))[0] for q, _ in hyps]
        for (quad, _), read, patch in zip(hyps, reader.read(patches), patches, strict=True):
            if read.rank == NO_INDEX or (read.rank, read.suit) != (card.rank, card.suit):
                continue
            if colour and read.red != red:
                continue
            lead = min(read.rank_lead / RANK_LEAD, suit_lead(read) / SUIT_LEAD)
            if lead >= 1.0:
                found.append((lead, len(found), quad, patch))
    for _, _, quad, patch in sorted(found, key=lambda f: (-f[0], f[1])):
        if split_index(patch, card_h, origin) is not None:
            return quad + offset
    return None


def _corners(
    image: Image,
    quad: NDArray[np.float64],
    aspect: float,
    index_box: tuple[float, float, float, float],
) -> tuple[list[Image], list[IndexGlyphs | None], list[int]]:
    """The four corner patches of the card ``quad`` outlines, their glyphs split (None
    where a corner shows no rank over a suit), and which two hold its index
    (:func:`_index_pair`; none where no corner does)."""
    patches = index_patches(image, quad, aspect, index_box)
    card_h = float(canonical_size(aspect)[1])
    glyphs = [split_index(p, card_h, patch_origin(aspect, index_box)) for p in patches]
    return patches, glyphs, _index_pair(glyphs)


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
    refused: list[Refusal] | None = None,
    reader: IndexReader | None = None,
    deck: Deck = STANDARD_52,
) -> Profile:
    """Build a profile from photographs of single cards (each showing its index corners).

    With a ``refused`` list, a photograph in which no card or no index is found is added to
    it (with the reason) and the profile is made from the rest; without, it is an error.
    ``reader``: the learned index reader, to find the index of a card whose outline is not
    found, or whose outline's corners show none (:func:`_index_first`); None: not looked
    for (:func:`calibrate_files` passes the shipped one). ``deck``: the deck the
    photographs show (the 28-card deck of eights to aces: ``STRIPPED_28``); a photograph of
    a card it does not hold is refused.

    Without a ``refused`` list every rank and suit of ``deck`` must be learnt; with one,
    at least two ranks and two suits (the others are then read by no profile glyph, see
    :func:`unlearnt`). Each index corner found is also
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
    kept: list[Sample] = []
    quads: list[NDArray[np.float64] | None] = []  # None: no outline, its index looked for
    failed: dict[int, str] = {}  # why each photograph without an outline has none
    for sample in samples:
        if sample.card not in deck:
            message = (
                f"{sample.name}: expected a card of the {deck.description}, the label names "
                f"{sample.card}"
            )
            if refused is None:
                raise CalibrationError(message)
            refused.append(_refusal(sample, message))
            continue
        try:
            quads.append(_largest_quad(sample))
        except CalibrationError as error:
            if refused is None and reader is None:
                raise
            failed[len(kept)] = str(error)
            quads.append(None)
        kept.append(sample)
    samples = kept
    outlined = [q for q in quads if q is not None]
    if aspect is None:
        shapes = [_aspect(q) for q in outlined] or [Profile.aspect]
        aspect = float(np.clip(np.median(shapes), 0.55, 0.85))
    card_h = float(canonical_size(aspect)[1])
    origin = patch_origin(aspect, index_box)
    for i, reason in failed.items():  # no outline: the card looked for index first
        quads[i] = _index_first(samples[i], aspect, index_box, reader)
        if quads[i] is None:
            if refused is None:
                raise CalibrationError(reason)
            refused.append(_refusal(samples[i], reason))
    samples = [s for s, q in zip(samples, quads, strict=True) if q is not None]
    cards = [q for q in quads if q is not None]
    if not cards:
        raise CalibrationError(
            "no card found on any calibration photograph: expected one card on each"
        )
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
    for done, (sample, quad) in enumerate(zip(samples, cards, strict=True), 1):
        patches, glyphs, chosen = _corners(sample.image, quad, aspect, index_box)
        if not chosen:  # the outline's (or the place's) corners show no index
            again = _index_first(sample, aspect, index_box, reader)
            if again is not None:
                quad = again
                patches, glyphs, chosen = _corners(sample.image, quad, aspect, index_box)
        if not chosen:
            message = (
                f"{sample.name}: expected a rank over a suit in a corner of the card "
                f"({sample.card}), found no index; photograph the card flat and in focus"
            )
            if sample.placed:
                message = (
                    f"{sample.name}: found no card shape there, and no index (a rank over a "
                    f"suit, {sample.card}) in the corners of the place its neighbours give "
                    "(outlined); lay the cards apart, flat and whole, and photograph again"
                )
            if refused is None:
                raise CalibrationError(message)
            refused.append(_refusal(sample, message, quad))
            continue
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
        if has_colour(sample.image):  # a greyscale photograph's red ink measures as black
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
    missing = unlearnt(deck, rank_labels, suit_labels)
    # without a refused list every rank and suit must be learnt; with one, the profile is
    # made from the rest while two ranks and two suits are (a discriminant tells two
    # classes apart at least): the cards of the others are reported unknown by it
    # (:class:`~drivers.camera.recognizer.Recognizer`), and its source says so
    if missing and (refused is None or len(set(rank_labels)) < 2 or len(set(suit_labels)) < 2):
        also = f" ({len(refused)} photographs refused)" if refused else ""
        if _looks_stripped(deck, rank_labels):
            also += f"; for the {STRIPPED_28.description}, calibrate with --deck {STRIPPED_28.name}"
        least = "" if refused is None else " (at least two ranks and two suits)"
        raise CalibrationError(
            f"calibration photographs lack {', '.join(missing)}: expected every rank and suit "
            f"of the {deck.description}{least}{also}"
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


def _looks_stripped(deck: Deck, ranks: Sequence[int]) -> bool:
    """Whether a standard deck's calibration learnt exactly the 28-card deck's ranks (eights
    to aces): most likely that deck, calibrated without ``--deck stripped28``."""
    return deck is STANDARD_52 and set(ranks) == {int(c.rank) for c in STRIPPED_28.cards}


def unlearnt(deck: Deck, ranks: Sequence[int], suits: Sequence[int]) -> list[str]:
    """The ranks and suits of ``deck`` (their letters) that none of ``ranks`` and ``suits``
    (the classes a profile learnt) is."""
    missing = [Rank(r).char for r in sorted({int(c.rank) for c in deck.cards} - set(ranks))]
    return missing + [Suit(s).char for s in sorted({int(c.suit) for c in deck.cards} - set(suits))]


def _refusal(sample: Sample, message: str, quad: NDArray[np.float64] | None = None) -> Refusal:
    reason = message.split(": ", 1)[1] if message.startswith(f"{sample.name}: ") else message
    quads = (quad,) if quad is not None else tuple(locate(sample.image).cards())
    return Refusal(sample.name, sample.card, reason, sample.image, quads)


def lacks(
    samples: Sequence[Sample], refused: Sequence[Refusal], deck: Sequence[Card]
) -> list[Card]:
    """The cards of ``deck`` that no photograph learnt from shows."""
    bad = {r.name for r in refused}
    shown = {s.card for s in samples if s.name not in bad}
    return [c for c in deck if c not in shown]


def annotate(refusal: Refusal, width: int = 1000) -> Image:
    """The refused photograph, at most ``width`` pixels wide, with the outlines found on it
    (red) and the reason written over it."""
    if refusal.image is None:
        raise CalibrationError(f"{refusal.name}: no picture to annotate")
    out, f = shrunk(refusal.image, width)
    for quad in refusal.quads:
        cv2.polylines(out, [np.round(quad * f).astype(np.int32)], True, (0, 0, 255), 2)
    return captioned(out, [refusal.reason])


#: the largest calibration labels file read: a deck's 52 rows take about a kilobyte
MAX_LABELS_BYTES = 1024 * 1024


def read_labels(path: Path) -> list[tuple[str, Card]]:
    """Read a ``file,cards`` CSV (a header line, then one file name and one card code a row)."""
    text = read_text(
        path,
        f"labels file {path}",
        limit=MAX_LABELS_BYTES,
        error=CalibrationError,
        kind="a CSV file",
    )
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as error:  # a field beyond the csv module's bound
        raise CalibrationError(
            f"labels file {path}: expected CSV text, found a row it cannot take ({error})"
        ) from None
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


def parse_layout(layout: str, order: str) -> list[list[Card]]:
    """The cards of a laid-out deck, row by row: ``layout`` is ROWSxCOLUMNS (``4x13``) and
    ``order`` names what the rows and the columns hold, one letter each, suits or ranks
    (``rows=SHDC cols=A23456789TJQK``)."""
    shape = layout.lower().split("x")
    if len(shape) != 2 or not all(p.isdigit() and 0 < int(p) <= 52 for p in shape):
        raise CalibrationError(
            f"layout {layout!r}: expected ROWSxCOLUMNS, e.g. 4x13 (4 rows of 13 cards)"
        )
    rows, cols = int(shape[0]), int(shape[1])
    parts = dict(p.partition("=")[::2] for p in order.split())
    if set(parts) != {"rows", "cols"}:
        raise CalibrationError(
            f"order {order!r}: expected 'rows=… cols=…', one suit or rank letter per row and "
            "per column, e.g. 'rows=SHDC cols=A23456789TJQK'"
        )
    row_text, col_text = parts["rows"].upper(), parts["cols"].upper().replace("10", "T")
    row_text = row_text.replace("10", "T")
    if len(row_text) != rows or len(col_text) != cols:
        raise CalibrationError(
            f"order {order!r}: expected {rows} row letters and {cols} column letters for a "
            f"{rows}x{cols} layout, found {len(row_text)} and {len(col_text)}"
        )
    grid: list[list[Card]] = []
    for r in row_text:
        line = []
        for c in col_text:
            suit, rank = (r, c) if r in "SHDC" and c not in "SHDC" else (c, r)
            try:
                line.append(Card.parse(rank + suit))
            except InvalidCard:
                raise CalibrationError(
                    f"order {order!r}: expected suits (S H D C) along one side and ranks "
                    f"(A 2-9 T J Q K) along the other, found {r!r} with {c!r}"
                ) from None
        grid.append(line)
    cards = [c for line in grid for c in line]
    if len(set(cards)) != len(cards):
        twice = sorted((c for c, k in Counter(cards).items() if k > 1), key=int)
        raise CalibrationError(
            f"order {order!r}: names a card twice ({' '.join(c.code for c in twice)}): "
            "expected each row letter and each column letter once"
        )
    return grid


def _groups(values: NDArray[np.float64], gap: float, count: int) -> list[float] | None:
    """The centres of the ``count`` most populated runs of sorted ``values`` split where
    two neighbours are more than ``gap`` apart, in order; None when there are fewer runs."""
    order = np.sort(values)
    cuts = np.flatnonzero(np.diff(order) > gap) + 1
    runs = np.split(order, cuts)
    if len(runs) < count:
        return None
    best = sorted(sorted(range(len(runs)), key=lambda i: -len(runs[i]))[:count])
    return [float(np.median(runs[i])) for i in best]


def layout_samples(
    image: Image, name: str, grid: Sequence[Sequence[Card]]
) -> tuple[list[Sample], list[Refusal]]:
    """The cards of one photograph of a whole deck laid out in rows and columns (``grid``,
    from :func:`parse_layout`): each card outline found (as the recognizer finds cards) is
    placed in the nearest row and column; a place with no card, or with two, is refused.
    Outlines far from every row or column (a joker laid aside) are left out."""
    rows, cols = len(grid), len(grid[0])
    found = locate(image).cards(loose=True)
    if not found:
        return [], [Refusal(name, None, "expected a laid-out deck, found no card shape", image)]
    areas = np.array([abs(cv2.contourArea(q.astype(np.float32))) for q in found])
    typical = float(np.median(areas[: rows * cols]))
    cards = [q for q, a in zip(found, areas, strict=True) if 0.4 * typical <= a <= 2.5 * typical]
    centres = np.array([q.mean(axis=0) for q in cards])
    sides = np.array([np.sort(np.hypot(*(q - np.roll(q, 1, 0)).T)) for q in cards])
    short, long = float(np.median(sides[:, :2])), float(np.median(sides[:, 2:]))
    refused: list[Refusal] = []
    # the rows and columns: runs of centres, the card's own size apart at most
    size_y = long if rows <= cols else short
    size_x = short if rows <= cols else long
    ys = _groups(centres[:, 1], 0.5 * size_y, rows)
    xs = _groups(centres[:, 0], 0.5 * size_x, cols)
    if ys is None or xs is None:
        found_rows = len(_runs(centres[:, 1], 0.5 * size_y))
        found_cols = len(_runs(centres[:, 0], 0.5 * size_x))
        reason = (
            f"expected {rows} rows and {cols} columns of cards, found {len(cards)} cards in "
            f"{found_rows} rows and {found_cols} columns"
        )
        return [], [Refusal(name, None, reason, image, tuple(cards))]
    places: dict[tuple[int, int], list[NDArray[np.float64]]] = {}
    for quad, (x, y) in zip(cards, centres, strict=True):
        r = int(np.argmin([abs(y - v) for v in ys]))
        c = int(np.argmin([abs(x - v) for v in xs]))
        if abs(y - ys[r]) <= 0.5 * size_y and abs(x - xs[c]) <= 0.5 * size_x:
            places.setdefault((r, c), []).append(quad)
    samples = []
    for r in range(rows):
        for c in range(cols):
            card = grid[r][c]
            where = f"{name} row {r + 1} column {c + 1} ({card})"
            held = places.get((r, c), [])
            if len(held) == 1:
                samples.append(Sample(image, card, where, held[0]))
            elif not held:
                place = _place(places, r, c, xs[c], ys[r])
                if place is not None:  # read where its neighbours put the card
                    place = _fit_edges(image, place)
                    samples.append(Sample(image, card, where, place, placed=True))
                    continue
                x, y = xs[c], ys[r]
                w, h = size_x / 2, size_y / 2
                place = np.array([[x - w, y - h], [x + w, y - h], [x + w, y + h], [x - w, y + h]])
                reason = "found no card shape there (the place is outlined)"
                refused.append(Refusal(where, card, reason, image, (place,)))
            else:
                reason = f"found {len(held)} card shapes there, expected one"
                refused.append(Refusal(where, card, reason, image, tuple(held)))
    return samples, refused


def _place(
    places: dict[tuple[int, int], list[NDArray[np.float64]]], r: int, c: int, x: float, y: float
) -> NDArray[np.float64] | None:
    """The outline of a layout place where no card shape was found (a card whose outline
    runs into a neighbour's, or into glare), from the cards found around it: the nearest
    one's outline (its size, turn and perspective) moved to the place's centre, the centre's
    height from the cards beside it in its row and its width from those above and below it
    in its column. None when no card beside, above or below it was found."""

    def centres(spots: list[tuple[int, int]]) -> list[NDArray[np.float64]]:
        return [held[0].mean(axis=0) for s in spots if len(held := places.get(s, [])) == 1]

    beside = centres([(r, c - 1), (r, c + 1)])
    over = centres([(r - 1, c), (r + 1, c)])
    nearest = [
        held[0]
        for s in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c))
        if len(held := places.get(s, [])) == 1
    ]
    if not nearest:
        return None
    cx = float(np.mean([p[0] for p in over])) if over else x
    if not over and len(beside) == 2:
        cx = float(np.mean([p[0] for p in beside]))
    cy = float(np.mean([p[1] for p in beside])) if beside else y
    if not beside and len(over) == 2:
        cy = float(np.mean([p[1] for p in over]))
    shape = nearest[0] - nearest[0].mean(axis=0)
    return np.asarray(shape + np.array([cx, cy]), np.float64)


def _fit_edges(image: Image, quad: NDArray[np.float64]) -> NDArray[np.float64]:
    """``quad`` turned (up to 6 degrees) and moved (up to a fifth of its short side) to where
    its sides lie best on the photograph's edges: the straight runs of each side, corners
    left out, where the brightness changes most."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), (5, 5), 0).astype(np.float32)
    edges = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    t = np.linspace(0.15, 0.85, 40)[:, None]
    ends = np.roll(quad, -1, 0)
    points = np.concatenate([a + t * (b - a) for a, b in zip(quad, ends, strict=True)])
    centre = quad.mean(axis=0)
    reach = max(2, round(0.2 * float(np.min(np.hypot(*(quad - ends).T)))))
    steps = np.arange(-reach, reach + 1, max(1, reach // 20))
    dx, dy = (g.ravel() for g in np.meshgrid(steps, steps))
    h, w = edges.shape
    best, best_score = quad, -1.0
    for degrees in range(-6, 7, 2):
        a = np.radians(degrees)
        turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        turned = (points - centre) @ turn.T + centre
        xs = np.clip(np.round(turned[:, 0][None] + dx[:, None]), 0, w - 1).astype(np.intp)
        ys = np.clip(np.round(turned[:, 1][None] + dy[:, None]), 0, h - 1).astype(np.intp)
        scores = edges[ys, xs].mean(axis=1)
        k = int(np.argmax(scores))
        if scores[k] > best_score:
            best_score = float(scores[k])
            best = (quad - centre) @ turn.T + centre + np.array([dx[k], dy[k]])
    return np.asarray(best, np.float64)


def _runs(values: NDArray[np.float64], gap: float) -> list[NDArray[np.float64]]:
    order = np.sort(values)
    return np.split(order, np.flatnonzero(np.diff(order) > gap) + 1)


def calibrate_files(
    images: Path | None,
    labels: Path | None,
    *,
    name: str | None = None,
    augment: int = 24,
    progress: Progress | None = None,
    layout: tuple[Path, str, str] | None = None,
    refused: list[Refusal] | None = None,
    deck: Deck = STANDARD_52,
) -> Profile:
    """Calibrate from a directory of photographs and their ``file,cards`` labels CSV, and/or
    from one photograph of a laid-out deck (``layout``: the file, ROWSxCOLUMNS and the
    order, see :func:`parse_layout`). With a ``refused`` list, photographs (and laid-out
    cards) that cannot be learnt from are listed there and the profile is made from the
    rest (``progress``, ``deck``: see :func:`calibrate`)."""
    samples: list[Sample] = []
    if images is not None and labels is not None:
        rows = read_labels(labels)
        # every name checked before any photograph is read
        paths = [image_under(images, file) for file, _ in rows]
        samples += [
            Sample(exposed(read_image(path)), card, file)
            for path, (file, card) in zip(paths, rows, strict=True)
        ]
    if layout is not None:
        path, shape, order = layout
        grid = parse_layout(shape, order)
        laid, missing = layout_samples(exposed(read_image(path)), path.name, grid)
        if refused is None and missing:
            raise CalibrationError(str(missing[0]))
        if refused is not None:
            refused += missing
        samples += laid
        if not samples:  # the laid-out deck refused whole, and nothing else given
            raise CalibrationError(
                f"{path.name}: expected a laid-out deck to learn from, every card of it "
                f"refused ({missing[0].reason if missing else 'no card found'})"
            )
    before = len(refused) if refused is not None else 0
    profile = calibrate(
        samples,
        name=name or (images.resolve().name if images is not None else "deck"),
        source="",
        augment=augment,
        progress=progress,
        refused=refused,
        reader=load_index_reader(),
        deck=deck,
    )
    learnt = len(samples) - (len(refused) - before if refused is not None else 0)
    source = f"calibrated from {learnt} photographs"
    if layout is not None:
        source = f"calibrated from {learnt} cards" + (
            " and photographs" if images is not None else f" of {layout[0].name}"
        )
    profile = replace(profile, source=source)
    # what it lacks: the laid-out deck's cards, or the deck's, not learnt (refused, or
    # never photographed: a studio's forgotten card is named too)
    grid_cards = [c for line in parse_layout(*layout[1:]) for c in line] if layout else []
    bad = {r.name for r in refused or []}
    shown = {s.card for s in samples if s.name not in bad}
    lacking = [c for c in grid_cards or deck.cards if c not in shown]
    if lacking:
        codes = " ".join(c.code for c in lacking)
        profile = replace(profile, source=f"{profile.source}; lacks {codes}")
    ranks = profile.rank.labels.tolist()
    unread = unlearnt(deck, ranks, profile.suit.labels.tolist())
    if unread:  # whole ranks or suits: their cards are read unknown with this profile
        hint = ""
        if _looks_stripped(deck, ranks):
            hint = f" (for the {STRIPPED_28.description}, calibrate with --deck stripped28)"
        profile = replace(
            profile,
            source=f"{profile.source}; reads no {', '.join(unread)}: photograph them{hint}",
        )
    return profile
