import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
        ImageError,
        match=rf"table\.png: expected an image file of at most {size - 1} bytes, found {size}",
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


def _png_header(width: int, height: int) -> bytes:
    """A PNG that is a header only: its signature, an IHDR chunk declaring ``width`` x
    ``height`` grey pixels, and IEND, with no image data (45 bytes)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_an_image_declaring_too_many_pixels_is_refused_from_its_header_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a few bytes whose header declares a picture of gigabytes: OpenCV alone decoded a
    # 0.9 MB PNG of 30,000 x 30,000 into 5.4 GB before its size could be checked, and
    # raised an assertion (a traceback at the console) on this PGM's header
    bombs = {
        "bomb.png": _png_header(20_000, 20_000),
        "bomb.pgm": b"P5\n100000 100000\n255\n",
    }
    for name, data in bombs.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(
            ImageError,
            match=rf"{name}: expected at most 100000000 pixels, found a header declaring more "
            r"than \d+",
        ):
            read_image(tmp_path / name)
    # within what Pillow opens but beyond the bound: the size said exactly, and the file
    # holds no image data at all, so nothing was decoded to find it
    (tmp_path / "header.png").write_bytes(_png_header(40, 30))
    monkeypatch.setattr(imageio, "MAX_IMAGE_PIXELS", 1199)
    with pytest.raises(
        ImageError,
        match=r"header\.png: expected at most 1199 pixels, found 40 x 30 \(1200 pixels\)",
    ):
        read_image(tmp_path / "header.png")
    # within the bound, the header alone is an image cut short
    monkeypatch.setattr(imageio, "MAX_IMAGE_PIXELS", 1200)
    with pytest.raises(
        ImageError,
        match=r"header\.png: expected a 40 x 30 image as its header says, found 45 bytes "
        r"OpenCV cannot decode \(cut short, or damaged\)",
    ):
        read_image(tmp_path / "header.png")


def test_an_image_of_no_known_format_is_refused_whatever_it_declares(tmp_path: Path) -> None:
    # OpenCV reads Radiance HDR, whose header no reader of ours checks: it raised an
    # assertion on this one (100,000 x 100,000); a card camera's pictures are never HDR
    hdr = tmp_path / "bomb.hdr"
    hdr.write_bytes(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 100000 +X 100000\n")
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(bytes(range(256)) * 4)
    for path, size in ((hdr, hdr.stat().st_size), (junk, 1024)):
        with pytest.raises(
            ImageError,
            match=rf"{path.name}: expected a PNG, JPEG or other common image format, found "
            rf"{size} bytes of no format known",
        ):
            read_image(path)


_PICTURE = np.asarray(
    np.random.default_rng(7).integers(0, 256, (24, 32, 3)), np.uint8
)  # noise: every byte of its files matters


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kind=st.sampled_from([".png", ".jpg", ".bmp", ".ppm", ".tiff", ".webp"]),
    cut=st.integers(0, 10_000),
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), max_size=4),
)
def test_a_damaged_image_file_is_an_image_or_a_refusal_in_words(
    tmp_path: Path, kind: str, cut: int, flips: list[tuple[int, int]]
) -> None:
    # real encoders' files, cut short and with bytes flipped: read_image returns a picture
    # or raises ImageError (never an assertion of a decoder's, never a traceback)
    ok, encoded = cv2.imencode(kind, _PICTURE)
    assert ok
    data = bytearray(encoded.tobytes()[: max(1, len(encoded) - cut)])
    for at, bits in flips:
        data[at % len(data)] ^= bits
    path = tmp_path / f"damaged{kind}"
    path.write_bytes(bytes(data))
    try:
        image = read_image(path)
    except ImageError as error:
        assert str(error).startswith(f"image {path}: expected ")
    else:
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


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
    with pytest.raises(ImageError, match=r"a\.txt: cannot encode it as \.txt"):  # cv2.error
        write_image(made / "a.txt", picture)
    assert read_image(made / "a.png").shape == (20, 20, 3)
