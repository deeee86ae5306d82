"""Reading and writing image files, with errors that say which file and why."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.errors import ImageError

__all__ = ["read_image", "write_image"]


def read_image(path: Path | str) -> NDArray[np.uint8]:
    """Read an image file as BGR uint8; raise :class:`ImageError` naming the file and the cause."""
    source = Path(path)
    if not source.exists():
        raise ImageError(f"image {source}: expected an image file, found nothing")
    if source.is_dir():
        raise ImageError(f"image {source}: expected an image file, found a directory")
    try:
        data = np.fromfile(source, dtype=np.uint8)
    except OSError as error:
        raise ImageError(f"image {source}: cannot read it ({error.strerror})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageError(
            f"image {source}: expected a PNG, JPEG or other image OpenCV decodes, "
            f"found {data.size} bytes it cannot decode"
        )
    return np.asarray(image, dtype=np.uint8)


def write_image(path: Path | str, image: NDArray[np.uint8]) -> None:
    """Write ``image`` in the format its suffix names (PNG when it has none)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    ok, data = cv2.imencode(target.suffix or ".png", image)
    if not ok:
        raise ImageError(f"image {target}: cannot encode it as {target.suffix or '.png'}")
    try:
        target.write_bytes(data.tobytes())
    except OSError as error:
        raise ImageError(f"image {target}: cannot write it ({error.strerror})") from None
