"""The learned index reader: a small neural network over the whole rectified index corner.

The profile's glyph discriminants (:mod:`drivers.camera.classifier`) read a deck whose own
glyphs they were calibrated on. A deck never calibrated prints its rank and suit in a font
of its own, which those templates rarely match. This reader is trained instead on indices
rendered in many fonts and styles, degraded as a camera degrades them
(``tools/train_index_reader.py``, ``make index-model``), and reads the corner as a whole: no
glyph has to be cut out first, so a rank touching its suit, a jumbo index or a dark card's
light ink still reads.

A small convolutional network reads the corner in grey, stretched so that paper is white
and ink black: three 3 x 3 convolutions, each followed by a 2 x 2 pooling, and two fully
connected layers, one output head naming the rank, or that the corner holds no index
(``NO_INDEX``), the other naming the suit's shape. The pooling lets an index printed a few
pixels off the profile's box still read. The ink's colour against the card's own paper says
red or black where the frame has colour. Each answer's **lead** is its best output minus the
runner-up's (logits); what lead is enough was set from real photographs (see
:data:`RANK_LEAD`, :data:`SUIT_LEAD` and docs/camera.md). The network is one ONNX file
shipped with the package, loaded once and run by ONNX Runtime on one thread. OpenCV's
``dnn`` module runs it too, but measured 0.34 ms a corner where ONNX Runtime takes 0.09 ms
(one core, alone or in batches of 32); a frame whose cards are searched for by their
index corners reads dozens of them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import onnxruntime
from numpy.typing import NDArray

from drivers.camera.glyphs import label_type

__all__ = [
    "INDEX_MODEL",
    "INPUT_SIZE",
    "NO_INDEX",
    "OUTPUTS",
    "RANK_LEAD",
    "RED_INK",
    "SUIT_LEAD",
    "CornerRead",
    "IndexReader",
    "corner_input",
    "has_colour",
    "ink_colour",
    "ink_redness",
    "load_index_reader",
    "percentile_u8",
    "with_ink",
]

Image = NDArray[np.uint8]

#: the shipped model, trained by tools/train_index_reader.py
INDEX_MODEL = Path(__file__).with_name("data") / "index_reader.onnx"

#: the rank network's extra class: the corner holds no index (blank paper, a pip, a frame)
NO_INDEX = 13

#: the network's input: the index corner resized to this (width, height), in grey
INPUT_SIZE = (32, 48)
#: the network's outputs: the rank logits (13 ranks and NO_INDEX), then the suit logits
OUTPUTS = NO_INDEX + 1 + 4

#: the leads (best logit minus the runner-up's) a rank and a suit need, from each corner
#: of a card: set from real photographs of decks A, C and E (docs/camera.md): at 2 one card
#: of 813 was read wrong there, at 2.5 none; 3 keeps a margin
RANK_LEAD = 3.0
SUIT_LEAD = 3.0

#: ink is red when its red channel, relative to the card's own paper, exceeds the larger
#: of its green and blue by this much: of 450 index corners of real colour photographs
#: read right, the black ones of decks A, C, D and E reached 0.044 (a few of deck F's 0.07
#: to 0.14), while a webcam's washed-out red fell to 0.03; at 0.06, 5 of the 219 red
#: corners counted as black and 4 of the 231 black as red (at 0.10: 16 and 2), and their
#: cards were refused, never misread
RED_INK = 0.06


#: each suit's partner of the same colour (Suit values: clubs 0, diamonds 1, hearts 2,
#: spades 3)
_PARTNER = (3, 2, 1, 0)
_PARTNERS = np.array(_PARTNER)

_STRETCH = (0.02, 0.98)  # the percentiles stretched to black and white


#: from this many corners in one call, their stretch is found for all of them at once
_BATCHED_STRETCH = 4


def _stretch_bounds(grey: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The 2nd and 98th percentiles (N, 2) of each of N grey images of one size (N, height,
    width), exactly as ``np.percentile`` gives them: :func:`_percentiles` of each, or, from
    :data:`_BATCHED_STRETCH` images, :func:`_batched_percentiles` of all of them (on index
    corners of 55 x 34 pixels, 14 microseconds a corner where one by one took 18 in fours,
    6 where they took 15 in sixteens, 4.4 where they took 17 in the squash probe's 160; one
    by one is faster for up to three)."""
    if len(grey) >= _BATCHED_STRETCH:
        return _batched_percentiles(grey.reshape(len(grey), -1), _STRETCH)
    return np.array([_percentiles(g.ravel(), _STRETCH) for g in grey], np.float64)


def _batched_percentiles(flat: NDArray[np.uint8], shares: tuple[float, ...]) -> NDArray[np.float64]:
    """:func:`_percentiles` of each row of ``flat`` (N, M), the same values, with NumPy's
    calls made once for all the rows: one histogram (each row's levels offset by 256 times
    its row), one cumulative sum, and one ``searchsorted`` in the rows' cumulative counts
    laid end to end, each row's lifted above the one before (by M + 1, more than any count)."""
    n, size = flat.shape
    rows = np.arange(n, dtype=np.intp)
    counts = np.bincount((flat + (rows * 256)[:, None]).ravel(), minlength=256 * n)
    lift = (rows * (size + 1))[:, None]
    below = (counts.reshape(n, 256).cumsum(axis=1) + lift).ravel()  # values <= each level
    ranks = []
    for share in shares:
        low = int((size - 1) * share)
        ranks += [low, min(low + 1, size - 1)]
    # the first levels holding more values than each rank (as _percentiles finds them)
    first = np.searchsorted(below, (lift + np.array(ranks, np.intp)).ravel(), "right")
    levels = first.reshape(n, -1) - (rows * 256)[:, None]
    out = np.empty((n, len(shares)), np.float64)
    for j, share in enumerate(shares):
        at = (size - 1) * share
        a, b = levels[:, 2 * j], levels[:, 2 * j + 1]
        t, step = at - int(at), b - a
        out[:, j] = b - step * (1 - t) if t >= 0.5 else a + step * t
    return out


def _percentiles(flat: NDArray[np.uint8], shares: tuple[float, ...]) -> list[float]:
    """The percentiles at ``shares`` (0 … 1) of uint8 values (1-D), exactly as
    ``np.percentile`` gives them (linear between the two nearest ranks), from their
    histogram, on Python's numbers past it: on an index corner's 1,870 pixels or the 192 of
    :func:`~drivers.camera.recognizer._whiteness`, a fifth of NumPy's time (16
    microseconds a call where it took 85; NumPy's own arrays for each rank took 70)."""
    below = np.bincount(flat, minlength=256).cumsum()  # values <= each level
    out = []
    for share in shares:
        at = (flat.size - 1) * share
        low = int(at)
        high = min(low + 1, flat.size - 1)
        # the first levels holding more values than the ranks either side
        a = int(np.searchsorted(below, low, "right"))
        b = int(np.searchsorted(below, high, "right"))
        t, step = at - low, b - a
        out.append(float(b - step * (1 - t)) if t >= 0.5 else float(a + step * t))
    return out


def percentile_u8(values: NDArray[Any], q: float) -> float:
    """The ``q``-th percentile (0 … 100) of uint8 ``values`` (any shape), exactly as
    ``np.percentile`` gives it (:func:`_percentiles`; the recognizer asks dozens a frame)."""
    flat = np.asarray(values).ravel()
    if flat.dtype != np.uint8 or flat.size == 0:
        raise ValueError(f"expected uint8 values, got {flat.size} of {flat.dtype}")
    return _percentiles(flat, (q / 100,))[0]


def _medians(values: NDArray[np.float32]) -> NDArray[np.float32]:
    """The median of each row (N, M), exactly as ``np.median`` gives it (the mean of the
    two middle values)."""
    i, j = (values.shape[1] - 1) // 2, values.shape[1] // 2
    part = np.partition(values, (i, j), axis=1)
    return np.asarray((part[:, i] + part[:, j]) / 2, np.float32)


def _grey(patch: Image) -> NDArray[np.uint8]:
    """The patch in grey (BGR, or grey already; a grey patch with a channel axis of one)."""
    if patch.ndim == 3 and patch.shape[2] != 1:
        return np.asarray(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), np.uint8)
    return np.asarray(patch.reshape(patch.shape[:2]), np.uint8)


def _normalised(grey: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """N grey corners of one size (N, height, width), each stretched so that paper is
    white and ink black (a dark card's light ink is turned over)."""
    bounds = _stretch_bounds(grey)
    lo = bounds[:, 0]
    span = np.maximum(bounds[:, 1] - lo, 1.0)
    # float32 throughout, as one corner's arithmetic with Python floats gives it
    out = np.clip(
        (grey.astype(np.float32) - lo.astype(np.float32)[:, None, None])
        * (255.0 / span).astype(np.float32)[:, None, None],
        0,
        255,
    )
    h, w = out.shape[1:]
    inner = out[:, h // 10 : h // 2, w // 6 : (5 * w) // 6]  # the card's own paper and index
    dark = _medians(inner.reshape(len(out), -1)) < 110.0  # a dark card: its ink is the print
    out[dark] = 255.0 - out[dark]
    return np.asarray(out, np.uint8)


def corner_input(patch: Image) -> NDArray[np.float32]:
    """The network's input for one rectified index corner (BGR or grey): the corner
    stretched (:func:`_normalised`), resized to :data:`INPUT_SIZE`, scaled to 0 … 1."""
    one: NDArray[np.float32] = corner_inputs([patch])[0]
    return one


def corner_inputs(patches: list[Image]) -> NDArray[np.float32]:
    """:func:`corner_input` of each corner (N, height, width). Corners of one size (as
    :func:`~drivers.camera.recognizer.index_patches` cuts them) are greyed and stretched
    together: on the real photographs' index corners, 28 microseconds a corner where one by
    one took 72; with the grey and the stretch's percentiles found for all of them at once,
    36 where they took 62 (in sixteens, on a slower run of the machine)."""
    if len({p.shape for p in patches}) == 1:
        # one colour conversion for all of them, stacked (the same pixels: it works pixel
        # by pixel): 2.3 microseconds a corner in sixteens where one by one took 3.2
        stack = np.stack(patches)
        n, h, w = stack.shape[:3]
        norms: NDArray[np.uint8] | list[NDArray[np.uint8]] = _normalised(
            _grey(stack.reshape(n * h, w, -1)).reshape(n, h, w)
        )
    else:
        norms = [_normalised(_grey(p)[None])[0] for p in patches]
    return _resized(norms).astype(np.float32) / np.float32(255.0)


def _resized(norms: NDArray[np.uint8] | list[NDArray[np.uint8]]) -> NDArray[np.uint8]:
    """Stretched corners (N, height, width) resized to :data:`INPUT_SIZE` (N, 48, 32), by
    OpenCV's area interpolation. Corners of one size at least as large as the input are
    laid side by side and resized in one call: shrunk (OpenCV's areas, never its bilinear
    enlargement, which would blend neighbours), each output column averages the same
    pixels of its own corner with the same weights (the input's width a whole share of
    theirs), so each corner comes out the same as alone (every one of the real
    photographs' corners did), 15 microseconds a corner where one by one took 20."""
    n = len(norms)
    w, h = INPUT_SIZE
    if isinstance(norms, np.ndarray) and n > 1 and norms.shape[2] >= w and norms.shape[1] >= h:
        width = norms.shape[2]
        row = np.ascontiguousarray(norms.transpose(1, 0, 2)).reshape(-1, n * width)
        small = cv2.resize(row, (n * w, h), interpolation=cv2.INTER_AREA)
        return np.ascontiguousarray(small.reshape(h, n, w).transpose(1, 0, 2), np.uint8)
    return np.stack([cv2.resize(g, INPUT_SIZE, interpolation=cv2.INTER_AREA) for g in norms])


@dataclass(frozen=True, slots=True)
class CornerRead:
    """What the network says of one index corner: rank (``NO_INDEX`` for none), suit (0 … 3,
    ``Suit`` values), each with its lead over the runner-up, and the ink's colour (True for
    red, False for black, None where the corner shows no ink) with its measure
    (:func:`ink_redness`; None where not measured)."""

    rank: int
    rank_lead: float
    suit: int
    suit_lead: float
    red: bool | None
    redness: float | None = None
    #: the suit's lead over the other suit of its colour only (clubs over spades, diamonds
    #: over hearts): what the shape must settle where the ink has settled the colour
    colour_lead: float | None = None


def ink_colour(patch: Image) -> bool | None:
    """True when the corner's ink is red (:func:`ink_redness` at least :data:`RED_INK`),
    False when black (or any dark colour, or when the frame is grey), None when the corner
    holds no ink."""
    redness = ink_redness(patch)
    return None if redness is None else redness >= RED_INK


def ink_redness(patch: Image) -> float | None:
    """How red the corner's ink is: its red channel, against the card's own paper, less the
    larger of its green and blue (0 for grey ink or a grey frame); None when the corner
    holds no ink.

    The ink is looked for on the card only (:func:`_card_region`): the table beyond the
    card's edges, dark or as red as wood, is no ink. There it is what Otsu's threshold
    puts below paper in the darkest of each pixel's three channels (red ink is dark in
    green and blue, however light its grey), and its colour is measured against the
    card's own paper, a white reference under any light.
    """
    if patch.ndim != 3:
        return 0.0
    card = _card_region(np.asarray(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), np.uint8))
    if card is None:
        return None
    # the darkest channel, and the masks below, by OpenCV's own operations: with NumPy's,
    # this function took 270 microseconds an index corner of the real photographs, with
    # these (and the card's region so) 162; with the region's labels 16-bit and the last
    # figures on Python's floats, 160 where it took 218 (1,275 corners of real frames and
    # photographs, the same values, on a slower run of the machine)
    b, g, r = cv2.split(patch)
    darkest = cv2.min(cv2.min(b, g), r)
    levels = darkest[card > 0].reshape(-1, 1)
    t, _ = cv2.threshold(levels, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    ink = cv2.bitwise_and(cv2.threshold(darkest, t, 255, cv2.THRESH_BINARY_INV)[1], card)
    paper_mask = cv2.bitwise_and(cv2.threshold(darkest, t, 255, cv2.THRESH_BINARY)[1], card)
    if cv2.countNonZero(ink) < 8 or cv2.countNonZero(paper_mask) < 8:
        return None
    if cv2.mean(darkest, paper_mask)[0] - cv2.mean(darkest, ink)[0] < INK_CONTRAST:
        return None  # blank paper: its noise split in two is no ink
    # each channel of the ink over the paper's, on Python's floats (the same operations as
    # NumPy's on float64)
    pb, pg, pr, _ = cv2.mean(patch, paper_mask)
    ib, ig, ir, _ = cv2.mean(patch, ink)
    return ir / (pr + 1.0) - max(ib / (pb + 1.0), ig / (pg + 1.0))


#: the least difference (0-255) between paper and ink, in the darkest channel, for a corner
#: to hold ink at all
INK_CONTRAST = 25


def _card_region(grey: NDArray[np.uint8]) -> Image | None:
    """The card's part of an index corner, as a mask, with its print; None where none is
    found. Otsu's threshold parts light from dark; the card is the largest light stretch
    with the dark holes in it, apart from what reaches the patch's border (the table beyond
    the card's rounded corner and edges reaches the border; the index printed on the card
    does not)."""
    _, light = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(
        light, connectivity=4, ltype=label_type(light.shape)
    )
    if n < 2:
        return None
    # the largest light stretch (the first of equals, as ``np.argmax`` finds it), on
    # Python's numbers: 4 microseconds where NumPy's call took 15
    areas: list[int] = stats[1:, cv2.CC_STAT_AREA].tolist()
    paper = 1 + areas.index(max(areas))
    # OpenCV's comparisons with a number (its stubs know only arrays): with NumPy's, this
    # took 142 microseconds an index corner, with these 106
    not_paper = cv2.compare(labels, paper, cv2.CMP_NE)  # type: ignore[call-overload]
    # what is not paper and reaches the border, through a frame of it around the patch
    # (filled from a corner of that frame, 8-connected), is beyond the card
    beyond = cv2.copyMakeBorder(not_paper, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=255)
    cv2.floodFill(beyond, None, (0, 0), 128, flags=8)
    card = np.asarray(
        cv2.compare(beyond[1:-1, 1:-1], 128, cv2.CMP_NE),  # type: ignore[call-overload]
        np.uint8,
    )
    if cv2.countNonZero(card) < 0.2 * grey.size:
        return None
    return card


def has_colour(frame: Image) -> bool:
    """Whether a frame shows colour at all (a greyscale camera's frames do not): some of its
    pixels, sampled sparsely, differ between channels by more than noise.

    Each sample is the mean of a small block (up to 4 x 4 pixels), so that a grey camera's
    noise, independent in each channel, is no colour: each of the 318 real photographs,
    greyed and given noise of 8 levels, was taken for colour when single pixels were
    sampled (and a grey nine of diamonds' index, its ink measured black, was read as a
    spade); with block means none is, and the photographs as taken are judged as before.
    The blocks are summed by strided slices, written here: on a 1280 x 720 frame they take
    0.23 ms, where ``cv2.resize`` with ``INTER_AREA`` takes 0.8 ms and NumPy's reshape and
    mean 1.5 ms (the test runs once per frame that asks it)."""
    if frame.ndim != 3:
        return False
    h, w = frame.shape[:2]
    sy, sx = max(1, h // 64), max(1, w // 64)
    k = min(_COLOUR_BLOCK, sy, sx)
    rows, cols = len(range(0, h - k + 1, sy)), len(range(0, w - k + 1, sx))
    lines = np.zeros((rows, w, 3), np.uint16)  # each block's rows summed, then its columns
    for i in range(k):
        lines += frame[i : i + rows * sy : sy]
    total = np.zeros((rows, cols, 3), np.uint16)
    for j in range(k):
        total += lines[:, j : j + cols * sx : sx]
    sample = np.ascontiguousarray(total // (k * k), np.uint8)
    b, g, r = cv2.split(sample)  # OpenCV: 6 times NumPy's speed here
    spread = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    coloured = cv2.countNonZero(cv2.threshold(spread, 12, 255, cv2.THRESH_BINARY)[1])
    return coloured >= max(4, int(spread.size) // 200)


#: the side of the block of pixels each of :func:`has_colour`'s samples averages
_COLOUR_BLOCK = 4


class IndexReader:
    """The network, loaded once from its ONNX file and run by ONNX Runtime on one thread
    (the table's other work keeps the other cores); :meth:`read` reads many corners in one
    call (one forward pass, under a lock, so that a reader shared by threads runs one
    batch at a time)."""

    def __init__(self, model: bytes, *, origin: str = "the index reader model") -> None:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: they are raised, not logged
        try:
            session = onnxruntime.InferenceSession(
                model, options, providers=["CPUExecutionProvider"]
            )
            inputs = session.get_inputs()
            if len(inputs) != 1:
                raise ValueError(f"{len(inputs)} inputs")
            self._input = inputs[0].name
            blank = np.zeros((1, 1, INPUT_SIZE[1], INPUT_SIZE[0]), np.float32)
            shape = tuple(np.asarray(session.run(None, {self._input: blank})[0]).shape)
        except Exception as error:  # ONNX Runtime's own exception types are not public
            text = str(error).strip()
            first = text.splitlines()[-1][:200] if text else type(error).__name__
            raise ValueError(
                f"{origin}: expected an ONNX network of the corner ({first})"
            ) from None
        if shape != (1, OUTPUTS):
            raise ValueError(
                f"{origin}: expected {OUTPUTS} outputs ({NO_INDEX + 1} ranks, 4 suits) for a "
                f"{INPUT_SIZE[0]}x{INPUT_SIZE[1]} corner, got an output of shape {shape}"
            )
        self.model = model
        self._session = session
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: Path | str) -> IndexReader:
        """The network stored in ``path`` (:meth:`save`)."""
        try:
            model = Path(path).read_bytes()
        except OSError as error:
            raise ValueError(
                f"index reader model {path}: expected the network's ONNX file ({error})"
            ) from None
        return cls(model, origin=f"index reader model {path}")

    def save(self, path: Path | str) -> None:
        """Write the network's ONNX file."""
        Path(path).write_bytes(self.model)

    def logits(self, patches: list[Image]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """The rank logits (N, 14) and suit logits (N, 4) of each corner."""
        batch = corner_inputs(patches)[:, None]
        with self._lock:
            result = self._session.run(None, {self._input: batch})[0]
        out = np.asarray(result, np.float32).reshape(len(patches), OUTPUTS)
        return out[:, : NO_INDEX + 1], out[:, NO_INDEX + 1 :]

    def read(self, patches: list[Image], *, ink: bool = True) -> list[CornerRead]:
        """Each corner's rank and suit, with their leads, and its ink's colour (``ink``:
        measured; otherwise left unmeasured, for :func:`with_ink` to measure where the
        leads are worth it)."""
        if not patches:
            return []
        rank, suit = self.logits(patches)
        # each corner's figures worked out for all of them at once, the same numbers (the
        # differences of the same float32 logits): on the real photographs' corners, 3.3
        # microseconds a corner where one by one took 6.6
        rows = np.arange(len(patches))
        best = suit.argmax(axis=1)
        r, s = np.sort(rank, axis=1), np.sort(suit, axis=1)
        figures = zip(
            rank.argmax(axis=1).tolist(),
            (r[:, -1] - r[:, -2]).tolist(),
            best.tolist(),
            (s[:, -1] - s[:, -2]).tolist(),
            (suit[rows, best] - suit[rows, _PARTNERS[best]]).tolist(),
            strict=True,
        )
        out = []
        for patch, (rank_of, rank_lead, suit_of, suit_lead, colour_lead) in zip(
            patches, figures, strict=True
        ):
            redness = ink_redness(patch) if ink else None
            red = None if redness is None else redness >= RED_INK
            out.append(
                CornerRead(rank_of, rank_lead, suit_of, suit_lead, red, redness, colour_lead)
            )
        return out


def with_ink(read: CornerRead, patch: Image) -> CornerRead:
    """``read`` with the ink of its corner ``patch`` measured (:func:`ink_redness`)."""
    redness = ink_redness(patch)
    return replace(read, red=None if redness is None else redness >= RED_INK, redness=redness)


@cache
def load_index_reader() -> IndexReader:
    """The shipped index reader, loaded once."""
    return IndexReader.load(INDEX_MODEL)
