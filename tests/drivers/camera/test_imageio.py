import re
from pathlib import Path

import numpy as np
import pytest

from controller.cards import Card
from controller.errors import CalibrationError, CameraError, ImageError
from drivers.camera import calibrate as calibrate_module
from drivers.camera import evaluate as evaluate_module
from drivers.camera import imageio
from drivers.camera.calibrate import calibrate_files
from drivers.camera.evaluate import evaluate
from drivers.camera.imageio import image_under, picture_folder, read_image, write_image
from drivers.camera.recognizer import FrameRecognition


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


@pytest.mark.parametrize("reader", ["evaluate", "calibrate"])
def test_a_labels_file_naming_an_image_outside_its_folder_is_refused_before_any_is_read(
    reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the image named exists, beside the folder: a labels file chooses among the folder's
    # images only, and names leading out of it are refused (naming them) before any is read
    folder = tmp_path / "images"
    for path in (folder / "as.png", folder / "sub" / "qh.png", tmp_path / "kd.png"):
        write_image(path, np.full((40, 30, 3), 200, np.uint8))
    read: list[Path] = []

    def recorded(path: Path) -> object:
        read.append(path)
        return read_image(path)

    monkeypatch.setattr(calibrate_module, "read_image", recorded)
    monkeypatch.setattr(evaluate_module, "read_image", recorded)

    def run(rows: dict[str, str]) -> int:
        if reader == "evaluate":
            labels = {name: frozenset({Card.parse(code)}) for name, code in rows.items()}
            images = evaluate(folder, labels, lambda image: FrameRecognition(30, 40, ()))
            return images.overall.images
        else:
            csv = tmp_path / "labels.csv"
            text = "".join(f"{name},{code}\n" for name, code in rows.items())
            csv.write_text("file,cards\n" + text, encoding="utf-8")
            calibrate_files(folder, csv, augment=0, refused=[])
            return len(rows)

    for name in ("../kd.png", str(tmp_path / "kd.png"), "sub/../../kd.png"):
        expected = rf"image {re.escape(name)}: expected a file name within the folder .*images,"
        with pytest.raises(CameraError, match=expected + " found a path that leads out of it$"):
            run({"as.png": "AS", name: "KD"})
        assert read == []
    # names within the folder, a subfolder's among them, are read (calibration then finds
    # no card on plain paper, and says so; an evaluation counts the two images)
    within = {"as.png": "AS", "sub/qh.png": "QH"}
    if reader == "calibrate":
        with pytest.raises(CalibrationError, match="no card found on any calibration photograph"):
            run(within)
    else:
        assert run(within) == 2
    assert read == [folder / "as.png", folder / "sub" / "qh.png"]


def test_a_picture_that_cannot_be_written_is_refused_naming_it(tmp_path: Path) -> None:
    # a folder that is a file, or cannot be made: refused in words (never an OSError's
    # traceback), and the folder for pictures is checked before any work is done
    blocker = tmp_path / "taken"
    blocker.write_text("a file where a folder should be", encoding="utf-8")
    picture = np.full((20, 20, 3), 90, np.uint8)
    with pytest.raises(ImageError, match=r"taken/a\.png: cannot write it \("):
        write_image(blocker / "a.png", picture)
    with pytest.raises(ImageError, match="taken: expected a folder to write pictures in, found"):
        picture_folder(blocker)
    with pytest.raises(ImageError, match=r"cannot make it \(Not a directory\)"):
        picture_folder(blocker / "below")
    made = picture_folder(tmp_path / "new" / "pictures")
    assert made.is_dir()
    write_image(made / "a.png", picture)
    assert read_image(made / "a.png").shape == (20, 20, 3)
