"""Reading and writing image files, with errors that say which file and why."""

from __future__ import annotations

from pathlib import Path, PurePath

import cv2
import numpy as np
from numpy.typing import NDArray

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
#: recognizer scales what it is given; OpenCV's decoders refuse more than 2^30 pixels
#: themselves, before decoding (``OPENCV_IO_MAX_IMAGE_PIXELS``)
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
    if not source.exists():
        raise ImageError(f"image {source}: expected an image file, found nothing")
    if source.is_dir():
        raise ImageError(f"image {source}: expected an image file, found a directory")
    try:
        size = source.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise ImageError(
                f"image {source}: expected a file of at most {MAX_IMAGE_BYTES} bytes, found "
                f"{size} bytes"
            )
        # no more than the bound, however large the file has grown since
        data = np.fromfile(source, dtype=np.uint8, count=MAX_IMAGE_BYTES + 1)
    except OSError as error:
        raise ImageError(f"image {source}: cannot read it ({error.strerror})") from None
    if data.size > MAX_IMAGE_BYTES:
        raise ImageError(
            f"image {source}: expected a file of at most {MAX_IMAGE_BYTES} bytes, found more"
        )
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageError(
            f"image {source}: expected a PNG, JPEG or other image OpenCV decodes, "
            f"found {data.size} bytes it cannot decode"
        )
    h, w = image.shape[:2]
    if h * w > MAX_IMAGE_PIXELS:
        raise ImageError(
            f"image {source}: expected at most {MAX_IMAGE_PIXELS} pixels, found {w} x {h} "
            f"({w * h} pixels)"
        )
    return np.asarray(image, dtype=np.uint8)


def write_image(path: Path | str, image: NDArray[np.uint8]) -> None:
    """Write ``image`` in the format its suffix names (PNG when it has none)."""
    target = Path(path)
    ok, data = cv2.imencode(target.suffix or ".png", image)
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
    if path.exists() and not path.is_dir():
        raise ImageError(f"{path}: expected a folder to write pictures in, found a file")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ImageError(
            f"{path}: expected a folder to write pictures in, cannot make it ({error.strerror})"
        ) from None
    return path
