import json
from pathlib import Path

import numpy as np
import pytest

from drivers.camera.imageio import write_image
from tablectl.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tables")
    assert main(["cards", "render", "--out", str(out), "--count", "1", "--seed", "4"]) == 0
    return out


def test_recognize_prints_one_json_object_per_image(
    capsys: pytest.CaptureFixture[str], tables: Path
) -> None:
    image = tables / "table-1.png"
    status, out, _ = run(capsys, "cards", "recognize", str(image), str(image), "--json")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 2
    doc = json.loads(lines[0])
    assert doc["file"] == str(image)
    assert set(doc) >= {"file", "cards", "unknown", "face_down"}
    assert len(doc["cards"]) + doc["unknown"] == 20 and doc["face_down"] == 1
    first = doc["cards"][0]
    assert set(first) >= {"card", "confidence", "corners", "zone"}
    assert len(first["corners"]) == 4 and 0 < first["confidence"] <= 1


def test_calibrate_then_recognize_with_the_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tables: Path
) -> None:
    deck = tmp_path / "deck"
    assert run(capsys, "cards", "render", "--deck", "--font", "triplex", "--out", str(deck))[0] == 0
    profile = tmp_path / "triplex.npz"
    status, out, _ = run(
        capsys, "cards", "calibrate", "--images", str(deck), "--labels",
        str(deck / "labels.csv"), "--out", str(profile), "--augment", "4",
    )  # fmt: skip
    assert status == 0 and "wrote" in out and profile.exists()
    status, out, _ = run(
        capsys, "cards", "recognize", str(deck / "qh.png"), "--profile", str(profile), "--json"
    )
    assert status == 0
    assert [c["card"] for c in json.loads(out)["cards"]] == ["QH"]


def test_zones_are_drawn_over_a_frame(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tables: Path
) -> None:
    out_png = tmp_path / "zones.png"
    status, out, _ = run(
        capsys, "cards", "zones", "--image", str(tables / "table-1.png"), "--out", str(out_png)
    )
    assert status == 0 and out_png.stat().st_size > 1000
    assert "9 zones" in out


def test_errors_name_the_file_and_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = run(capsys, "cards", "recognize", str(tmp_path / "none.png"))
    assert status == 2 and "none.png: expected an image file, found nothing" in err
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"this is not a picture")
    status, _, err = run(capsys, "cards", "recognize", str(bad))
    assert status == 2 and "bad.png" in err and "of no format known" in err
    bomb = tmp_path / "bomb.pgm"  # 21 bytes declaring 100,000 x 100,000 pixels
    bomb.write_bytes(b"P5\n100000 100000\n255\n")
    status, _, err = run(capsys, "cards", "recognize", str(bomb))
    assert status == 2 and "bomb.pgm: expected at most 100000000 pixels" in err
    assert "Traceback" not in err
    status, _, err = run(capsys, "cards", "recognize", str(bad), "--profile", str(bad))
    assert status == 2 and "profile" in err and "cannot read it" in err
    status, _, err = run(
        capsys, "cards", "calibrate", "--images", str(tmp_path), "--labels",
        str(tmp_path / "labels.csv"), "--out", str(tmp_path / "p.npz"),
    )  # fmt: skip
    assert status == 2 and "labels.csv: expected a CSV file, found nothing" in err


def test_calibrate_refuses_a_photograph_with_its_reason_and_a_picture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    deck = tmp_path / "deck"
    assert run(capsys, "cards", "render", "--deck", "--font", "duplex", "--out", str(deck))[0] == 0
    write_image(deck / "blank.png", np.full((300, 300, 3), 90, np.uint8))
    labels = (deck / "labels.csv").read_text(encoding="utf-8").replace("qh.png,QH", "blank.png,QH")
    (deck / "labels.csv").write_text(labels, encoding="utf-8")
    pictures = tmp_path / "refused"
    status, out, err = run(
        capsys, "cards", "calibrate", "--images", str(deck), "--labels", str(deck / "labels.csv"),
        "--out", str(tmp_path / "p.npz"), "--augment", "2", "--annotate", str(pictures),
    )  # fmt: skip
    assert status == 0
    assert "refused blank.png: expected one card on a contrasting background" in err
    assert (pictures / "refused-01-blank.png").stat().st_size > 1000
    assert "lacks QH" in out
    status, _, err = run(capsys, "cards", "calibrate", "--layout", "4x13", "--out", "x.npz")
    assert status == 2 and "needs --layout-image FILE, --layout ROWSxCOLUMNS and --order" in err


def test_a_28_card_deck_calibrates_with_its_deck_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Triple Action Hold'em's deck of eights to aces: one photograph of each of its 28 cards
    deck = tmp_path / "deck"
    assert run(capsys, "cards", "render", "--deck", "--font", "duplex", "--out", str(deck))[0] == 0
    rows = (deck / "labels.csv").read_text(encoding="utf-8").splitlines()
    kept = [rows[0]] + [r for r in rows[1:] if r.split(",")[1][0] in "89TJQKA"]
    (deck / "labels.csv").write_text("\n".join(kept) + "\n", encoding="utf-8")
    assert len(kept) == 29
    args = ["cards", "calibrate", "--images", str(deck), "--labels", str(deck / "labels.csv"),
            "--augment", "2"]  # fmt: skip
    # as a standard deck the profile is made from them all the same, and says what it cannot
    # read and how to calibrate that deck
    status, out, err = run(capsys, *args, "--out", str(tmp_path / "a.npz"))
    assert status == 0 and "reads no 2, 3, 4, 5, 6, 7: photograph them" in out
    assert "calibrate with --deck stripped28" in out
    assert "warning: no photograph taught 2, 3, 4, 5, 6, 7: with this profile every card" in err
    profile = tmp_path / "ta.npz"
    status, out, _ = run(capsys, *args, "--deck", "stripped28", "--out", str(profile))
    assert status == 0 and "wrote" in out and "lacks" not in out
    status, out, _ = run(
        capsys, "cards", "recognize", str(deck / "qh.png"), "--profile", str(profile), "--json"
    )
    assert status == 0 and [c["card"] for c in json.loads(out)["cards"]] == ["QH"]
    # a seven is no card of that deck: never read with its profile, whichever reader names it
    status, out, _ = run(
        capsys, "cards", "recognize", str(deck / "7h.png"), "--profile", str(profile), "--json"
    )
    assert status == 0 and json.loads(out)["cards"] == [] and json.loads(out)["unknown"] == 1
    status, out, _ = run(capsys, "cards", "recognize", str(deck / "7h.png"), "--json")
    assert status == 0 and [c["card"] for c in json.loads(out)["cards"]] == ["7H"]
    # nor with the built-in profile, where the table deals that deck
    status, out, _ = run(
        capsys, "cards", "recognize", str(deck / "7h.png"), "--deck", "stripped28", "--json"
    )
    assert status == 0 and json.loads(out)["cards"] == [] and json.loads(out)["unknown"] == 1
    # a photograph of a card that deck does not hold is refused, naming the deck
    (deck / "labels.csv").write_text("\n".join([*kept, "7h.png,7H"]) + "\n", encoding="utf-8")
    status, _, err = run(capsys, *args, "--deck", "stripped28", "--out", str(profile))
    assert status == 0 and "7h.png: expected a card of the 28-card deck" in err
    # a card not photographed at all is named among what the profile lacks
    forgotten = [row for row in kept if not row.startswith("8c.png,")]
    assert len(forgotten) == 28
    (deck / "labels.csv").write_text("\n".join(forgotten) + "\n", encoding="utf-8")
    status, out, _ = run(capsys, *args, "--deck", "stripped28", "--out", str(profile))
    assert status == 0 and "calibrated from 27 photographs; lacks 8C" in out


def test_annotating_into_the_images_own_folder_never_replaces_an_image(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the annotated PNG of table.png was written over table.png itself
    picture = tmp_path / "table.png"
    write_image(picture, np.full((60, 80, 3), 90, np.uint8))
    before = picture.read_bytes()
    status, _, err = run(capsys, "cards", "recognize", "--annotate", str(tmp_path), str(picture))
    assert status == 2
    assert "expected a folder apart from the images read" in err
    assert "drawn from table.png would replace table.png" in err
    labels = tmp_path / "labels.csv"
    labels.write_text("file,cards\ntable.png,AS\n", encoding="utf-8")
    evaluate = ["cards", "evaluate", "--images", str(tmp_path), "--labels", str(labels)]
    status, _, err = run(capsys, *evaluate, "--annotate", str(tmp_path))
    assert status == 2 and "would replace table.png, an image read" in err
    assert picture.read_bytes() == before
    # a folder of its own is written as before
    status, _, _ = run(
        capsys, "cards", "recognize", "--annotate", str(tmp_path / "drawn"), str(picture)
    )
    assert status == 0 and (tmp_path / "drawn" / "table.png").is_file()
