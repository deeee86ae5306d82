"""Index-corner reading: split a rectified corner into rank and suit glyphs and describe them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "PIP_BOX",
    "RANK_SIZE",
    "SUIT_SIZE",
    "IndexGlyphs",
    "Pips",
    "glyph_vector",
    "pip_count",
    "read_pips",
    "split_index",
]

#: the middle of a card where its pips lie (fractions of width and height), clear of the
#: index columns
PIP_BOX = (0.17, 0.08, 0.83, 0.92)


def pip_count(rank: int) -> int:
    """How many pips a card of ``rank`` (``Rank`` value) shows: 1 for the ace, the rank's
    number for two to ten, 0 for court cards (which show a figure instead).

    >>> pip_count(0), pip_count(8), pip_count(9), pip_count(12)
    (2, 10, 0, 1)
    """
    if rank == 12:
        return 1
    return rank + 2 if rank <= 8 else 0


@dataclass(frozen=True, slots=True)
class Pips:
    """The suit symbols in the middle of a card: how many, one unit vector for each pip
    off the card's middle row (turned upright), their median height in patch pixels, the
    ink's redness, one unit vector for each pip on the middle row, as it lies, and where
    each pip's centre lies across the patch (a share of its width)."""

    count: int
    vectors: list[Vector]
    height: float
    redness: float
    middle: list[Vector] = field(default_factory=list)  # the middle row's, as they lie
    across: list[float] = field(default_factory=list)


def read_pips(
    patch: Image,
    card_height: float,
    suit_height: float,
    top: float,
    *,
    darkest: bool = False,
    shapes: bool = True,
) -> Pips | None:
    """The pips of a rectified middle-of-card patch (BGR, :data:`PIP_BOX`); None if none.

    Pips are dark components, not touching the patch's border, at least about as tall as
    the index's suit symbol (``suit_height``) and at most four times as tall, roughly as
    wide as tall. A pip whose centre lies below the card's middle is printed upside down
    (``top`` is the card's top edge in patch rows) and is turned upright before it is
    described, so that it compares with the index's suit symbols. A pip on the middle row
    (an ace's, the middle one of a three) is described as it lies, apart (``middle``): the
    card's two ends look alike, so which way up it is printed cannot be told from them.

    ``darkest``: only the darkest print is ink (a court card's suit symbols beside a figure
    printed in colours darker than paper but lighter than ink): Otsu's threshold is taken
    again among the pixels darker than paper, and each symbol is measured against the
    background round it.

    ``shapes``: describe each pip (``vectors`` and ``middle``); without it they are left
    empty, for a caller that counts the pips and measures their ink only.
    """
    gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    dark, light, _, _ = cv2.minMaxLoc(gray)
    if light - dark < 40:
        return None
    t, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    paper_mask = cv2.bitwise_not(ink)
    paper = cv2.mean(gray, paper_mask)[0]
    if paper - dark < 40:
        return None
    if darkest:
        below = gray[gray <= t]
        if below.size < 50:
            return None
        t2, _ = cv2.threshold(below.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        ink = cv2.threshold(gray, t2, 255, cv2.THRESH_BINARY_INV)[1]
    _, labels, raw, _ = cv2.connectedComponentsWithStats(
        ink, connectivity=8, ltype=label_type(ink.shape)
    )
    stats = np.asarray(raw, np.int32)[1:]
    ph, pw = ink.shape
    xs, ys, ws, hs, areas = (stats[:, i] for i in range(5))
    keep = (
        (xs > 0)
        & (ys > 0)
        & (xs + ws < pw)
        & (ys + hs < ph)
        & (hs >= 0.85 * suit_height)
        & (hs <= 4.0 * suit_height)
        & (ws >= 0.5 * hs)
        & (ws <= 1.5 * hs)
        & (areas >= 0.3 * ws * hs)
    )
    found = np.flatnonzero(keep)
    if found.size == 0:
        return None
    level = max(paper - dark, 1.0)
    middle = top + card_height / 2
    vectors: list[Vector] = []
    centre_row: list[Vector] = []
    # the pips' ink measured over all of them at once (a pip at a time took twice as long)
    chosen = np.zeros(len(raw), np.uint8)
    chosen[found + 1] = 255
    ink_of = chosen.take(np.asarray(labels))  # a third of indexing's time
    weight = cv2.countNonZero(ink_of)
    ink_b, ink_g, ink_r, _ = cv2.mean(patch, ink_of)
    # against the paper: each grey level's ink intensity worked out once for all the pips
    # and looked up (the same float32 operations as on each pip's pixels)
    lut = None if darkest or not shapes else np.clip((paper - _GREY_LEVELS) / level, 0.0, 1.0)
    # each pip's box among Python's ints (NumPy's scalars took 10 microseconds a pip)
    boxes = stats.tolist()
    picked = found.tolist()
    for i in picked if shapes else ():
        x, y, w, h = boxes[i][:4]
        off = y + h / 2 - middle
        if lut is None:  # against the figure's colours round the symbol, not the paper
            roi = gray[y : y + h, x : x + w].astype(np.float32)
            ground = float(np.median(roi[labels[y : y + h, x : x + w] != i + 1]))
            glyph = np.clip((ground - roi) / max(ground - dark, 1.0), 0.0, 1.0)
        else:
            glyph = lut.take(gray[y : y + h, x : x + w])
        if abs(off) > 0.05 * card_height:
            if off > 0:  # below the middle: printed upside down
                glyph = glyph[::-1, ::-1]
            vectors.append(glyph_vector(np.ascontiguousarray(glyph), SUIT_SIZE))
        else:
            centre_row.append(glyph_vector(glyph, SUIT_SIZE))
    # the ink's redness, its width and the pips' median height on Python's floats and ints:
    # the same operations as NumPy's on float64 (the sums and halves of small ints exact)
    pb, pg, pr, _ = cv2.mean(patch, paper_mask)
    share = max(weight, 1)
    rel = (
        ink_b * weight / share / (pb + 1.0),
        ink_g * weight / share / (pg + 1.0),
        ink_r * weight / share / (pr + 1.0),
    )
    redness = rel[2] - max(rel[0], rel[1])
    across = [(boxes[i][0] + boxes[i][2] / 2) / pw for i in picked]
    heights = sorted(boxes[i][3] for i in picked)
    half = len(heights) // 2
    height = heights[half] if len(heights) % 2 else (heights[half - 1] + heights[half]) / 2
    return Pips(len(picked), vectors, float(height), redness, centre_row, across)


Image = NDArray[np.uint8]
Vector = NDArray[np.float32]

_GREY_LEVELS = np.arange(256, dtype=np.float32)

#: template sizes (width, height) of the rank and suit glyph descriptors
RANK_SIZE = (18, 24)
SUIT_SIZE = (18, 18)


@dataclass(frozen=True, slots=True)
class IndexGlyphs:
    """The two glyphs of one index corner as unit vectors, and the ink's redness."""

    rank: Vector
    suit: Vector
    redness: float  # about 0 for black ink, 0.3 … 0.8 for red ink
    rank_box: tuple[int, int, int, int]  # x, y, w, h in the patch
    suit_box: tuple[int, int, int, int]


def glyph_vector(ink: NDArray[np.float32], size: tuple[int, int]) -> Vector:
    """Fit an ink-intensity crop into ``size`` keeping its aspect; zero mean, unit length."""
    tw, th = size
    h, w = ink.shape
    nw, nh, interp, x0, y0, root = _fitted(w, h, tw, th)
    canvas = np.zeros((th, tw), np.float32)
    # resized straight into the canvas: a copy less, 2.5 microseconds a glyph
    cv2.resize(ink, (nw, nh), dst=canvas[y0 : y0 + nh, x0 : x0 + nw], interpolation=interp)
    mean, std = cv2.meanStdDev(canvas)
    scale = float(std[0, 0]) * root
    canvas -= float(mean[0, 0])
    canvas *= 1.0 / max(scale, 1e-6)
    out: Vector = canvas.reshape(-1)
    return out


@lru_cache(maxsize=4096)
def _fitted(w: int, h: int, tw: int, th: int) -> tuple[int, int, int, int, int, float]:
    """Where a glyph of ``w`` by ``h`` pixels goes in a ``tw`` by ``th`` template (its size,
    the interpolation, its corner) and the root of the template's pixel count: the same few
    sizes come again and again (worked out once, 2.5 microseconds a glyph less)."""
    s = min(tw / w, th / h)
    nw, nh = max(1, min(tw, round(w * s))), max(1, min(th, round(h * s)))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return nw, nh, interp, (tw - nw) // 2, (th - nh) // 2, (tw * th) ** 0.5


def split_index(
    patch: Image, card_height: float, origin: tuple[int, int] = (0, 0)
) -> IndexGlyphs | None:
    """Read one rectified index-corner patch (BGR); None when it holds no rank-over-suit index.

    ``card_height`` is the height of the whole canonical card in patch pixels, to judge glyph
    sizes; ``origin`` is where the card's corner lies in the patch: the ink mask is blanked
    beyond the card's edges, slivers of table left inside them are dropped, and components
    touching the patch border (pips, a court card's frame) are ignored.
    """
    gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    dark, light, _, _ = cv2.minMaxLoc(gray)
    if light - dark < 40:
        return None
    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    paper_mask = cv2.bitwise_not(ink)
    ox, oy = origin
    if ox > 0 or oy > 0:
        # blank out the table beyond the card's edges (and a strip inside them), so that ink
        # near an edge is not joined to the table
        e = max(2, round(0.012 * card_height))  # the same strip as ``cut`` below
        ink[:, : ox + e] = 0
        ink[: oy + e, :] = 0
        r = round(0.03 * card_height)
        ink[oy : oy + e + r, ox : ox + e + r] = 0
    if cv2.countNonZero(ink) < 0.004 * card_height * card_height:
        return None  # blank paper: the corner without an index
    paper = cv2.mean(gray, paper_mask)[0]
    if paper - dark < 40:
        return None
    _, labels, raw_stats, _ = cv2.connectedComponentsWithStats(
        ink, connectivity=8, ltype=label_type(ink.shape)
    )
    ph, pw = ink.shape
    min_area = max(4, int(0.0004 * card_height * card_height))
    sliver = max(2, round(0.02 * card_height))
    cut = max(2, round(0.012 * card_height))
    edge_x, edge_y = ox + cut, oy + cut  # the first column and row after the blanked strips
    # components that may be glyphs: big enough, clear of the patch's border, no sliver of
    # table along the card's left edge, in its rounded corner, or along its top edge
    rows: list[tuple[int, int, int, int, int]] = []
    for label, (x, y, w, h, area) in enumerate(raw_stats.tolist()[1:], 1):
        if area < min_area or x == 0 or y == 0 or x + w >= pw or y + h >= ph:
            continue
        if ox > 0 and x <= edge_x and (w <= sliver or y <= edge_y):
            continue
        if oy > 0 and y <= edge_y and h <= sliver:
            continue
        rows.append((y, x, w, h, label))
    if not rows:
        return None
    rows.sort()
    # components grouped by overlapping rows, top to bottom: their boxes and labels
    boxes: list[list[int]] = []  # x0, y0, x1, y1
    members: list[list[int]] = []
    bottom = -1
    for y, x, w, h, label in rows:
        if boxes and y < bottom - 1:
            box = boxes[-1]
            box[0], box[1] = min(box[0], x), min(box[1], y)
            box[2], box[3] = max(box[2], x + w), max(box[3], y + h)
            members[-1].append(label)
            bottom = max(bottom, y + h)
        else:
            boxes.append([x, y, x + w, y + h])
            members.append([label])
            bottom = y + h
    lo, hi = 0.035 * card_height, 0.15 * card_height
    kept = [i for i, bx in enumerate(boxes) if bx[3] - bx[1] >= 0.3 * lo]
    if len(kept) == 1:
        x0, y0, x1, y1 = boxes[kept[0]]
        x, y, w, h = x0, y0, x1 - x0, y1 - y0
        if not 1.6 * lo <= h <= 2.6 * hi:
            return None
        member = np.isin(labels[y : y + h, x : x + w], members[kept[0]])
        counts = member.sum(axis=1)
        a, b = int(0.3 * h), max(int(0.7 * h), int(0.3 * h) + 1)
        split = a + int(np.argmin(counts[a:b]))
        if counts[split] > 1:
            return None
        rank_box = (x, y, w, split)
        suit_rows = np.flatnonzero(counts[split + 1 :]) + split + 1
        if suit_rows.size == 0:
            return None
        suit_box = (x, y + int(suit_rows[0]), w, int(suit_rows[-1] - suit_rows[0] + 1))
        rank_box = _tighten(member, rank_box, x, y)
        suit_box = _tighten(member, suit_box, x, y)
    elif len(kept) >= 2:
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[kept[0]], boxes[kept[1]]
        rank_box = (ax0, ay0, ax1 - ax0, ay1 - ay0)
        suit_box = (bx0, by0, bx1 - bx0, by1 - by0)
    else:
        return None
    for _, _, w, h in (rank_box, suit_box):
        if not lo <= h <= hi or w < 1 or w > 1.6 * hi:
            return None
    level = max(paper - dark, 1.0)
    grey: Image = np.asarray(gray, np.uint8)
    # each grey level's ink intensity, worked out once for both glyphs and looked up: the
    # same float32 operations as on each glyph's pixels, 7 microseconds a corner less
    lut = (paper - _GREY_LEVELS) * (1.0 / level)
    np.minimum(np.maximum(lut, 0.0, out=lut), 1.0, out=lut)
    vectors = []
    blue = green = red = 0.0
    weight = 0
    for (x, y, w, h), size in ((rank_box, RANK_SIZE), (suit_box, SUIT_SIZE)):
        vectors.append(glyph_vector(lut.take(grey[y : y + h, x : x + w]), size))
        roi_ink = ink[y : y + h, x : x + w]
        count = cv2.countNonZero(roi_ink)
        ink_b, ink_g, ink_r, _ = cv2.mean(patch[y : y + h, x : x + w], roi_ink)
        blue, green, red = blue + ink_b * count, green + ink_g * count, red + ink_r * count
        weight += count
    if weight == 0:
        return None
    # redness of the ink against the card's own paper (a white reference under any light),
    # on Python's floats: the same operations as NumPy's on float64, 20 microseconds a
    # corner less
    pb, pg, pr, _ = cv2.mean(patch, paper_mask)
    rel = (blue / weight / (pb + 1.0), green / weight / (pg + 1.0), red / weight / (pr + 1.0))
    redness = rel[2] - max(rel[0], rel[1])
    return IndexGlyphs(vectors[0], vectors[1], redness, rank_box, suit_box)


def label_type(shape: tuple[int, ...]) -> int:
    """The label type for the components of a mask of ``shape``: 16-bit where it has too few
    pixels for more labels than that holds (the same labels, a quarter of the labelling's
    time less; the index corners' patches and pips)."""
    return cv2.CV_16U if shape[0] * shape[1] < 65536 else cv2.CV_32S


def _tighten(
    member: NDArray[np.bool_], box: tuple[int, int, int, int], ox: int, oy: int
) -> tuple[int, int, int, int]:
    x, y, w, h = box
    sub = member[y - oy : y - oy + h, x - ox : x - ox + w]
    cols = np.flatnonzero(sub.any(axis=0))
    rows = np.flatnonzero(sub.any(axis=1))
    if cols.size == 0 or rows.size == 0:
        return box
    return (
        x + int(cols[0]),
        y + int(rows[0]),
        int(cols[-1] - cols[0] + 1),
        int(rows[-1] - rows[0] + 1),
    )
