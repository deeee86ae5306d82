"""Photographs altered as other cameras, lights and tables would show them.

The recognizer's thresholds were set on real photographs as they were taken; these
alterations show what those photographs do not (a noisier sensor, a warmer light, a
camera elsewhere), for the benchmark's ``--perturbed`` figures and the full tests. Each
takes the image (BGR) and a generator seeded for it (only the noise and the perspective
draw from it), and returns a new image.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from drivers.camera.recognizer import Image

__all__ = ["ALTERATIONS", "Alteration"]

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
