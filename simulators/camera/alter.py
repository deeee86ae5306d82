"""Photographs altered as other cameras, lights and tables would show them.

The recognizer's thresholds were set on real photographs as they were taken; these
alterations show what those photographs do not (a noisier sensor, a warmer light, a
camera elsewhere), for the benchmark's ``--perturbed`` figures and the full tests. Each
takes the image (BGR) and a generator seeded for it (only the noise and the perspective
draw from it), and returns a new image.

:func:`close_ups` cuts the cards out instead, each filling its own small frame, as a
camera close over the board (or a 128-pixel crop) shows one card; :func:`real_faces` cuts
them out upright, and :func:`dealt_on_felt` deals those real faces on a rendered felt
table, as a studio's camera over a dealt round shows real print.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from config.camera import ZoneLayout
from controller.cards import Card
from drivers.camera.evaluate import Evaluation, evaluate
from drivers.camera.recognizer import (
    FrameRecognition,
    Image,
    Point,
    Recognizer,
    exposed,
    locate,
)
from simulators.camera.scene import RenderedFrame, SceneOptions, deal_layout, render_scene

__all__ = [
    "ALTERATIONS",
    "ALTERED_SEED",
    "CLOSE_UP_HEIGHTS",
    "DEALT_CARD_WIDTH",
    "Alteration",
    "CloseUps",
    "close_up",
    "close_ups",
    "dealt_on_felt",
    "read_altered",
    "real_faces",
]

Alteration = Callable[[Image, np.random.Generator], Image]


def _image(array: object) -> Image:
    return np.asarray(array, np.uint8)


def grey(image: Image, _: np.random.Generator) -> Image:
    """A greyscale camera's frame (three equal channels)."""
    return _image(cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR))


def noisy(image: Image, rng: np.random.Generator) -> Image:
    """A sensor's noise: Gaussian, 8 levels, each channel its own."""
    return _image(np.clip(image + rng.normal(0, 8, image.shape), 0, 255))


def smaller(image: Image, _: np.random.Generator) -> Image:
    """The camera farther off: 0.6 of the size."""
    return _image(cv2.resize(image, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA))


def blurred(image: Image, _: np.random.Generator) -> Image:
    """Out of focus: a Gaussian blur of a thousandth of the long side (at least 1 pixel)."""
    return _image(cv2.GaussianBlur(image, (0, 0), max(1.0, max(image.shape[:2]) / 1000)))


def jpeg(image: Image, _: np.random.Generator, quality: int = 25) -> Image:
    """Saved as a JPEG of ``quality`` (a stream's compression) and decoded."""
    data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
    return _image(cv2.imdecode(data, cv2.IMREAD_COLOR))


def scaled(image: Image, gains: tuple[float, float, float], offset: float = 0.0) -> Image:
    """Blue, green and red multiplied by ``gains``, plus ``offset`` (a cast, an exposure)."""
    return _image(np.clip(image * np.array(gains) + offset, 0, 255))


def perspective(image: Image, rng: np.random.Generator) -> Image:
    """Seen from another angle: each corner of the frame moved by up to 12 % of it."""
    h, w = image.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32(src + rng.uniform(-0.12, 0.12, (4, 2)) * [w, h])
    warp = cv2.getPerspectiveTransform(src, dst)
    return _image(cv2.warpPerspective(image, warp, (w, h), borderMode=cv2.BORDER_REPLICATE))


#: the alterations, by the name the figures give them
ALTERATIONS: dict[str, Alteration] = {
    "grey": grey,
    "noise, 8 levels": noisy,
    "0.6 of the size": smaller,
    "blurred": blurred,
    "JPEG at 25": jpeg,
    "warm cast": lambda im, _: scaled(im, (0.75, 0.95, 1.1)),
    "cool cast": lambda im, _: scaled(im, (1.1, 1.0, 0.8)),
    "dark (0.55)": lambda im, _: scaled(im, (0.55, 0.55, 0.55)),
    "bright (1.35)": lambda im, _: scaled(im, (1.35, 1.35, 1.35), 10.0),
    "perspective": perspective,
    "a quarter turn": lambda im, _: _image(cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE)),
    "a half turn": lambda im, _: _image(cv2.rotate(im, cv2.ROTATE_180)),
}

#: the seed of the generator each reading of altered photographs draws from
ALTERED_SEED = 5


def read_altered(
    images: Path,
    labels: dict[str, frozenset[Card]],
    recognizer: Recognizer,
    alter: Alteration | None,
    only: Callable[[str], bool],
) -> Evaluation:
    """The labelled photographs ``only`` picks, each altered by ``alter`` (None: as they
    are) and read (:func:`~drivers.camera.evaluate.evaluate`), with one generator seeded
    :data:`ALTERED_SEED` drawn from in the labels' order: the same draws for the
    benchmark's ``--perturbed`` figures and the full tests' floors."""
    rng = np.random.default_rng(ALTERED_SEED)

    def read(image: Image) -> FrameRecognition:
        return recognizer.recognize(image if alter is None else alter(image, rng))

    return evaluate(images, labels, read, only=only)


#: the heights (pixels) a card is cut out at: a 128-pixel crop, and two closer cameras
CLOSE_UP_HEIGHTS = (128, 200, 400)
#: the strip of table kept round a card cut out, a share of its width and height
CLOSE_UP_MARGIN = 0.03


def close_up(
    image: Image, corners: Sequence[Point], height: int, margin: float = CLOSE_UP_MARGIN
) -> Image | None:
    """The card whose corners are ``corners`` cut out of ``image`` (the box round it, a
    ``margin`` of its size either side, within the image) and shrunk to ``height`` pixels
    high; None where that would enlarge it (an enlarged photograph shows nothing a camera
    would: its edges blurred by the interpolation)."""
    quad = np.asarray(corners, np.float64)
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    mx, my = margin * (x1 - x0), margin * (y1 - y0)
    h, w = image.shape[:2]
    left, top = max(0, int(x0 - mx)), max(0, int(y0 - my))
    right, bottom = min(w, int(x1 + mx) + 1), min(h, int(y1 + my) + 1)
    crop = image[top:bottom, left:right]
    if crop.shape[0] < height or crop.shape[1] < 1:
        return None
    f = height / crop.shape[0]
    return _image(cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA))


def _read_whole(
    image: Image, recognizer: Recognizer, held: frozenset[Card]
) -> list[tuple[Card, NDArray[np.float64]]]:
    """The cards of a photograph that the recognizer reads right (``held``: the cards it
    holds) from an outline found whole, with their corners: the recognizer's own
    :func:`~drivers.camera.recognizer.locate` on the image as it looks at it (a dim one
    brightened: :func:`~drivers.camera.recognizer.exposed`); a card guessed from its index
    alone has no certain edges to cut along."""
    whole = locate(exposed(image)).full
    out = []
    for read in recognizer.recognize(image).cards:
        corners = np.array(read.corners, np.float64)
        if read.card in held and any(np.abs(q - corners).max() < 1 for q in whole):
            out.append((read.card, corners))
    return out


def real_faces(
    image: Image, recognizer: Recognizer, held: frozenset[Card], size: tuple[int, int]
) -> dict[Card, Image]:
    """The faces of a photograph's cards that the recognizer reads right from an outline
    found whole (as :func:`close_ups` takes them), each cut along its outline and set
    upright at ``size`` (width, height; warped linearly): a real card's print, to lay on a
    rendered table (:func:`~simulators.camera.scene.render_scene`'s ``faces``). A card is
    set upright by its shorter side on top; which of its two ends is up is left as it lay
    (a card's two ends look alike: either way its index is at a top-left corner)."""
    width, height = size
    square = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    out: dict[Card, Image] = {}
    for card, corners in _read_whole(image, recognizer, held):
        sides = np.hypot(*(np.roll(corners, -1, axis=0) - corners).T)
        if sides[0] + sides[2] > sides[1] + sides[3]:  # the top is a long side: turn it
            corners = np.roll(corners, -1, axis=0)
        m = cv2.getPerspectiveTransform(corners.astype(np.float32), square)
        face = cv2.warpPerspective(
            image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        out[card] = _image(face)
    return out


#: the width of a card dealt on felt (:func:`dealt_on_felt`), as a share of the frame's: 83
#: pixels of a 1280-pixel frame, seven boxes of two side by side as the shipped layout
#: places them, above the 80 pixels a black card's suit needs to be read from its index
DEALT_CARD_WIDTH = 0.065


def dealt_on_felt(
    faces: Mapping[Card, Image],
    layout: ZoneLayout,
    seed: int,
    options: SceneOptions | None = None,
    count: int = 19,
) -> RenderedFrame:
    """A table dealt as the layout's zones place its cards (two a box, the dealer's two,
    the board), each card a real one's face (``faces``, :func:`real_faces`), ``count`` of
    them drawn by ``seed``, laid on a rendered felt as the renderer's camera sees it
    (``options``: by default a plain green felt seen from overhead, cards
    :data:`DEALT_CARD_WIDTH` of the frame wide; where given, their cards are no wider than
    that, so that a box's two cards stay side by side)."""
    rng = random.Random(seed)
    cards = sorted(faces)
    rng.shuffle(cards)
    width = DEALT_CARD_WIDTH if options is None else min(options.card_width, DEALT_CARD_WIDTH)
    opts = replace(options or SceneOptions(), card_width=width)
    placements = deal_layout(layout, cards[:count], rng, card_width=opts.card_width)
    return render_scene(placements, opts, seed=seed, faces=faces)


@dataclass
class CloseUps:
    """Cards cut out at one height: how many, and of them how many the recognizer found
    (a detection over the crop's centre), read right, and read wrong (a card the
    photograph does not hold)."""

    cut: int = 0
    found: int = 0
    right: int = 0
    wrong: int = 0


def close_ups(
    photos: Iterable[tuple[Image, frozenset[Card]]],
    recognizer: Recognizer,
    heights: Sequence[int] = CLOSE_UP_HEIGHTS,
) -> dict[int, CloseUps]:
    """Each photograph's cards read right from an outline found whole (:func:`_read_whole`)
    cut out at each of ``heights`` (:func:`close_up`, never enlarged) and read again alone;
    ``photos`` are the images with the cards they hold."""
    out = {height: CloseUps() for height in heights}
    for image, held in photos:
        for card, corners in _read_whole(image, recognizer, held):
            for height in heights:
                crop = close_up(image, [(float(x), float(y)) for x, y in corners], height)
                if crop is None:
                    continue
                tally, again = out[height], recognizer.recognize(crop)
                centre = (crop.shape[1] / 2, crop.shape[0] / 2)
                tally.cut += 1
                tally.found += any(
                    cv2.pointPolygonTest(np.array(d.corners, np.float32), centre, False) >= 0
                    for d in again.detections
                )
                tally.right += any(d.card == card for d in again.cards)
                tally.wrong += any(d.card not in held for d in again.cards)
    return out
