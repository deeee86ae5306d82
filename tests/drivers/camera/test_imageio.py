from pathlib import Path

import numpy as np
import pytest

from controller.errors import ImageError
from drivers.camera import imageio
from drivers.camera.imageio import image_under, read_image, write_image


def test_an_image_file_beyond_the_bounds_is_refused_saying_what_was_expected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picture = tmp_path / "table.png"
    write_image(picture, np.full((30, 40, 3), 120, np.uint8))
    assert read_image(picture).shape == (30, 40, 3)
    size = picture.stat().st_size
    # a file larger than the bound is not read at all
    monkeypatch.setattr(imageio, "MAX_IMAGE_BYTES", size - 1)
    with pytest.raises(
        ImageError, match=rf"table\.png: expected a file of at most {size - 1} bytes, found {size}"
    ):
        read_image(picture)
    monkeypatch.setattr(imageio, "MAX_IMAGE_BYTES", size)
    assert read_image(picture).shape == (30, 40, 3)
    # a small file that decodes to more pixels than the bound (a plain PNG compresses well)
    monkeypatch.setattr(imageio, "MAX_IMAGE_PIXELS", 30 * 40 - 1)
    with pytest.raises(
        ImageError, match=r"table\.png: expected at most 1199 pixels, found 40 x 30 \(1200 pixels\)"
    ):
        read_image(picture)


def test_a_name_leading_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    assert image_under(tmp_path, "a/b.png") == tmp_path / "a" / "b.png"
    assert image_under(tmp_path, "b..png") == tmp_path / "b..png"  # two dots in a name
    for name in ("../b.png", "a/../../b.png", "/etc/b.png", ".."):
        with pytest.raises(ImageError, match="expected a file name within the folder"):
            image_under(tmp_path, name)
