"""The learned index reader: a small neural network over the whole rectified index corner.

The profile's glyph discriminants (:mod:`drivers.camera.classifier`) read a deck whose own
glyphs they were calibrated on. A deck never calibrated prints its rank and suit in a font
of its own, which those templates rarely match. This reader is trained instead on indices
rendered in many fonts and styles, degraded as a camera degrades them
(``tools/train_index_reader.py``, ``make index-model``), and reads the corner as a whole: no
glyph has to be cut out first, so a rank touching its suit, a jumbo index or a dark card's
light ink still reads.

Two multilayer perceptrons share one descriptor of the corner: the histogram of its oriented
gradients (HOG: 8-pixel cells, 2 x 2 cell blocks) and its coarse brightness. One names the
rank, or that the corner holds no index (``NO_INDEX``); the other names the suit's shape. The
ink's colour against the card's own paper says red or black where the frame has colour.
Each answer's **lead** is its best output minus the runner-up's (logits); what lead is
enough was set from real photographs (see :data:`RANK_LEAD`, :data:`SUIT_LEAD` and
docs/camera.md). The networks are a few matrix products in NumPy, their weights one small
``.npz`` file shipped with the package, loaded once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FEATURE_SIZE",
    "INDEX_MODEL",
    "NO_INDEX",
    "RANK_LEAD",
    "RED_INK",
    "SUIT_LEAD",
    "CornerRead",
    "IndexReader",
    "Mlp",
    "corner_features",
    "has_colour",
    "ink_colour",
    "load_index_reader",
]

Image = NDArray[np.uint8]

#: the shipped model, trained by tools/train_index_reader.py
INDEX_MODEL = Path(__file__).with_name("data") / "index_reader.npz"

#: the rank network's extra class: the corner holds no index (blank paper, a pip, a frame)
NO_INDEX = 13

#: the descriptor's image: the index corner resized to this (width, height)
FEATURE_SIZE = (32, 48)
_CELL = 8
_BINS = 9

#: the leads (best logit minus the runner-up's) a rank and a suit need, from each corner
#: of a card: set from real photographs (docs/camera.md)
RANK_LEAD = 5.0
SUIT_LEAD = 5.0

#: ink is red when its red channel, relative to the card's own paper, exceeds the larger
#: of its green and blue by this much: on real photographs the black corners read reached
#: 0.06 at most, while a webcam's washed-out red ink fell to 0.03 (0.15 left a fifth of the
#: red corners black)
RED_INK = 0.10


def _hog(image: NDArray[np.float32]) -> NDArray[np.float32]:
    """Histograms of oriented gradients: unsigned orientation in :data:`_BINS` bins per
    :data:`_CELL`-pixel cell, each 2 x 2 block of cells normalised (L2, clipped at 0.2,
    normalised again)."""
    gx = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=1)
    mag, ang = cv2.cartToPolar(gx, gy)
    pos = (ang % np.pi) * (_BINS / np.pi)
    low = np.floor(pos).astype(np.int32) % _BINS
    frac = pos - np.floor(pos)
    h, w = image.shape
    cy, cx = h // _CELL, w // _CELL
    cell = (np.arange(h)[:, None] // _CELL) * cx + (np.arange(w)[None, :] // _CELL)
    n = cy * cx * _BINS
    hist = np.bincount((cell * _BINS + low).ravel(), (mag * (1 - frac)).ravel(), n)
    hist += np.bincount((cell * _BINS + (low + 1) % _BINS).ravel(), (mag * frac).ravel(), n)
    cells = hist.astype(np.float32).reshape(cy, cx, _BINS)
    blocks = np.concatenate(
        [cells[:-1, :-1], cells[:-1, 1:], cells[1:, :-1], cells[1:, 1:]], axis=2
    ).reshape(-1, 4 * _BINS)
    blocks /= np.sqrt((blocks * blocks).sum(axis=1, keepdims=True)) + 1e-3
    np.minimum(blocks, 0.2, out=blocks)
    blocks /= np.sqrt((blocks * blocks).sum(axis=1, keepdims=True)) + 1e-3
    return blocks.reshape(-1)


_STRETCH = np.array([0.02, 0.98])  # the percentiles stretched to black and white


def _stretch_bounds(grey: NDArray[np.uint8]) -> tuple[float, float]:
    """The 2nd and 98th percentiles of a grey image, exactly as ``np.percentile`` gives
    them (linear between the two nearest ranks), from its histogram: several times faster
    on an index corner."""
    n = grey.size
    below = np.bincount(grey.ravel(), minlength=256).cumsum()  # values <= each level
    at = (n - 1) * _STRETCH
    floor = np.floor(at)
    low = floor.astype(np.intp)
    a = np.searchsorted(below, low, side="right").astype(np.uint8)
    b = np.searchsorted(below, np.minimum(low + 1, n - 1), side="right").astype(np.uint8)
    t = at - floor
    step = b - a
    value = a + step * t
    np.subtract(b, step * (1 - t), out=value, where=t >= 0.5)
    return float(value[0]), float(value[1])


def _median(values: NDArray[np.float32]) -> float:
    """The median, exactly as ``np.median`` gives it (the mean of the two middle values)."""
    flat = values.ravel()
    i, j = (flat.size - 1) // 2, flat.size // 2
    part = np.partition(flat, (i, j))
    return float((part[i] + part[j]) / 2)


def _normalised(patch: Image) -> NDArray[np.uint8]:
    """The corner in grey, stretched so that paper is white and ink black (a dark card's
    light ink is turned over)."""
    grey = np.asarray(
        cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch, np.uint8
    )
    lo, hi = _stretch_bounds(grey)
    span = max(hi - lo, 1.0)
    out = np.clip((grey.astype(np.float32) - lo) * (255.0 / span), 0, 255)
    h, w = out.shape
    inner = out[h // 10 : h // 2, w // 6 : (5 * w) // 6]  # the card's own paper and index
    if _median(inner) < 110.0:  # a dark card: its ink is the light print
        out = 255.0 - out
    return np.asarray(out, np.uint8)


def corner_features(patch: Image) -> NDArray[np.float32]:
    """The descriptor of one rectified index corner (BGR or grey): oriented gradients and
    coarse brightness of the stretched corner."""
    norm = cv2.resize(_normalised(patch), FEATURE_SIZE, interpolation=cv2.INTER_AREA)
    hog = _hog(norm.astype(np.float32) / 255.0)
    coarse = cv2.resize(norm, (8, 12), interpolation=cv2.INTER_AREA).astype(np.float32)
    coarse = (coarse.reshape(-1) - 128.0) / 128.0
    return np.concatenate([hog, coarse]).astype(np.float32)


@dataclass(frozen=True, eq=False, slots=True)
class Mlp:
    """A network of one hidden layer (ReLU) over standardised descriptors; outputs logits."""

    mean: NDArray[np.float32]
    scale: NDArray[np.float32]
    w1: NDArray[np.float32]
    b1: NDArray[np.float32]
    w2: NDArray[np.float32]
    b2: NDArray[np.float32]

    def logits(self, x: NDArray[np.float32]) -> NDArray[np.float32]:
        """Logits (N, classes) of descriptors (N, D)."""
        hidden = np.maximum((x - self.mean) * self.scale @ self.w1 + self.b1, 0.0)
        return np.asarray(hidden @ self.w2 + self.b2, np.float32)

    def arrays(self, prefix: str) -> dict[str, NDArray[np.float32]]:
        """The arrays to store, keys prefixed."""
        names = ("mean", "scale", "w1", "b1", "w2", "b2")
        return {f"{prefix}_{n}": getattr(self, n) for n in names}

    @classmethod
    def from_arrays(cls, data: dict[str, NDArray[np.float32]], prefix: str) -> Mlp:
        """Rebuild from :meth:`arrays` output, checking the shapes agree."""
        names = ("mean", "scale", "w1", "b1", "w2", "b2")
        a = {n: np.asarray(data[f"{prefix}_{n}"], np.float32) for n in names}
        d, hidden = a["w1"].shape
        if (
            a["mean"].shape != (d,)
            or a["scale"].shape != (d,)
            or a["b1"].shape != (hidden,)
            or a["w2"].shape[0] != hidden
            or a["b2"].shape != (a["w2"].shape[1],)
        ):
            raise ValueError(
                f"{prefix} network: expected matching layer shapes, got "
                + ", ".join(f"{n} {a[n].shape}" for n in names)
            )
        return cls(**a)


@dataclass(frozen=True, slots=True)
class CornerRead:
    """What the network says of one index corner: rank (``NO_INDEX`` for none), suit (0 … 3,
    ``Suit`` values), each with its lead over the runner-up, and the ink's colour (True for
    red, False for black, None where the frame shows no colour)."""

    rank: int
    rank_lead: float
    suit: int
    suit_lead: float
    red: bool | None


def ink_colour(patch: Image) -> bool | None:
    """True when the corner's ink is red, False when black (or any dark colour, or when the
    frame is grey), None when the corner holds no ink.

    The ink is what Otsu's threshold puts below paper; its colour is measured against the
    card's own paper, a white reference under any light.
    """
    if patch.ndim != 3:
        return False
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    _, ink = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    h, w = grey.shape
    ink[: h // 12, :] = 0  # the table beyond the card's top and left edges
    ink[:, : w // 8] = 0
    if cv2.countNonZero(ink) < 8:
        return None
    paper = np.array(cv2.mean(patch, cv2.bitwise_not(ink))[:3]) + 1.0
    colour = np.array(cv2.mean(patch, ink)[:3]) / paper
    return bool(colour[2] - max(colour[0], colour[1]) >= RED_INK)


def has_colour(frame: Image) -> bool:
    """Whether a frame shows colour at all (a greyscale camera's frames do not): some of its
    pixels, sampled sparsely, differ between channels by more than noise."""
    if frame.ndim != 3:
        return False
    sample = frame[:: max(1, frame.shape[0] // 64), :: max(1, frame.shape[1] // 64)]
    spread = sample.max(axis=2).astype(np.int16) - sample.min(axis=2).astype(np.int16)
    coloured = int(np.count_nonzero(spread > 12))
    return coloured >= max(4, int(spread.size) // 200)


class IndexReader:
    """The two networks, loaded once; :meth:`read` reads many corners in one call."""

    def __init__(self, rank: Mlp, suit: Mlp) -> None:
        if rank.w2.shape[1] != NO_INDEX + 1 or suit.w2.shape[1] != 4:
            raise ValueError(
                f"expected {NO_INDEX + 1} rank and 4 suit outputs, "
                f"got {rank.w2.shape[1]} and {suit.w2.shape[1]}"
            )
        if rank.w1.shape[0] != suit.w1.shape[0]:
            raise ValueError("the rank and suit networks must take the same descriptor")
        self.rank = rank
        self.suit = suit

    @classmethod
    def load(cls, path: Path | str) -> IndexReader:
        """The networks stored in ``path`` (:meth:`save`)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
            return cls(Mlp.from_arrays(arrays, "rank"), Mlp.from_arrays(arrays, "suit"))
        except (OSError, KeyError, ValueError) as error:
            raise ValueError(
                f"index reader model {path}: expected the networks' .npz file ({error})"
            ) from None

    def save(self, path: Path | str) -> None:
        """Write both networks into one compressed .npz file."""
        np.savez_compressed(path, **self.rank.arrays("rank"), **self.suit.arrays("suit"))  # type: ignore[arg-type]

    def logits(self, patches: list[Image]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Both networks' logits for each corner."""
        features = np.stack([corner_features(p) for p in patches])
        return self.rank.logits(features), self.suit.logits(features)

    def read(self, patches: list[Image]) -> list[CornerRead]:
        """Each corner's rank and suit, with their leads, and its ink's colour."""
        if not patches:
            return []
        rank, suit = self.logits(patches)
        out = []
        for i, patch in enumerate(patches):
            r = np.sort(rank[i])
            s = np.sort(suit[i])
            out.append(
                CornerRead(
                    int(rank[i].argmax()),
                    float(r[-1] - r[-2]),
                    int(suit[i].argmax()),
                    float(s[-1] - s[-2]),
                    ink_colour(patch),
                )
            )
        return out


@cache
def load_index_reader() -> IndexReader:
    """The shipped index reader, loaded once."""
    return IndexReader.load(INDEX_MODEL)
