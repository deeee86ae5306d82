"""Reading and writing image files, with errors that say which file and why.

An image's size is read from its header (Pillow, which reads no more than the header
until asked) and refused beyond :data:`MAX_IMAGE_PIXELS` before anything is decoded:
OpenCV's ``imdecode`` has no header-only read, and decoded a 0.9 MB PNG of 30,000 x 30,000
plain pixels into 5.4 GB before its size could be checked; a 21-byte PGM header declaring
100,000 x 100,000 made it raise an assertion rather than refuse. OpenCV then decodes what
the header allowed (the recognizer's own decoder, whose colours every figure was measured
with)."""

from __future__ import annotations

import io
import warnings
from pathlib import Path, PurePath

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, UnidentifiedImageError

from config.files import folder as writable_folder
from config.files import read_bytes
from controller.errors import ImageError

__all__ = [
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "image_under",
    "picture_folder",
    "read_image",
    "write_image",
]

#: the largest image file read (every input is bounded): a 12-megapixel phone's JPEG takes
#: 3 to 8 MB, its PNG up to 36
MAX_IMAGE_BYTES = 256 * 1024 * 1024
#: the most pixels an image read may hold: a 100-megapixel camera's photographs. The
#: recognizer scales what it is given. Checked on the header, before decoding
MAX_IMAGE_PIXELS = 100_000_000


def image_under(folder: Path, name: str) -> Path:
    """The image a labels file names, ``name``, in ``folder`` (the folder given with it).
    A name that leads out of the folder (absolute, or through ``..``) is refused with
    :class:`ImageError`: a labels file chooses images among the folder's, never other files
    of the machine."""
    relative = PurePath(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise ImageError(
            f"image {name}: expected a file name within the folder {folder}, found a path "
            "that leads out of it"
        )
    return folder / relative


def read_image(path: Path | str) -> NDArray[np.uint8]:
    """Read an image file as BGR uint8; raise :class:`ImageError` naming the file and the cause."""
    source = Path(path)
    raw = read_bytes(
        source, f"image {source}", limit=MAX_IMAGE_BYTES, error=ImageError, kind="an image file"
    )
    data = np.frombuffer(raw, np.uint8)
    w, h = _declared_size(source, raw)
    if h * w > MAX_IMAGE_PIXELS:
        raise ImageError(
            f"image {source}: expected at most {MAX_IMAGE_PIXELS} pixels, found {w} x {h} "
            f"({w * h} pixels)"
        )
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as error:  # OpenCV's own checks, as assertions
        reason = str(error).strip().splitlines()[-1]
        raise ImageError(
            f"image {source}: expected an image OpenCV decodes, found {data.size} bytes it "
            f"refused ({reason})"
        ) from None
    if image is None:
        raise ImageError(
            f"image {source}: expected a {w} x {h} image as its header says, found "
            f"{data.size} bytes OpenCV cannot decode (cut short, or damaged)"
        )
    return np.asarray(image, dtype=np.uint8)


def _declared_size(source: Path, data: bytes) -> tuple[int, int]:
    """The width and height ``data``'s header declares, read without decoding it; an image
    whose header no reader knows, or that declares more pixels than Pillow opens at all
    (twice its own bound, 179 million), is refused with :class:`ImageError`."""
    unknown = (
        f"image {source}: expected a PNG, JPEG or other common image format, found "
        f"{len(data)} bytes of no format known"
    )
    if not data:
        raise ImageError(unknown)
    try:
        # its size is checked against our own bound, its data by OpenCV: Pillow's warnings
        # (its own bound, a TIFF's tags cut short) are not told
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as header:
                width, height = header.size
    except Image.DecompressionBombError:
        raise ImageError(
            f"image {source}: expected at most {MAX_IMAGE_PIXELS} pixels, found a header "
            f"declaring more than {2 * (Image.MAX_IMAGE_PIXELS or 0)}"
        ) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):  # Pillow's refusals
        raise ImageError(unknown) from None
    return int(width), int(height)


def write_image(path: Path | str, image: NDArray[np.uint8]) -> None:
    """Write ``image`` in the format its suffix names (PNG when it has none)."""
    target = Path(path)
    try:
        ok, data = cv2.imencode(target.suffix or ".png", image)
    except cv2.error:  # a suffix no encoder takes (.txt) is an assertion of OpenCV's
        ok = False
    if not ok:
        raise ImageError(f"image {target}: cannot encode it as {target.suffix or '.png'}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.tobytes())
    except OSError as error:
        raise ImageError(f"image {target}: cannot write it ({error.strerror})") from None


def picture_folder(path: Path) -> Path:
    """``path`` made a folder to write pictures in (with its parents), or
    :class:`ImageError` saying why it cannot be: checked before any work whose pictures go
    there, not when the first is written."""
    return writable_folder(path, "", error=ImageError, purpose="to write pictures in")
