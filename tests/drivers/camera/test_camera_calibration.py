import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from controller.cards import STANDARD_52, Suit
from controller.errors import CalibrationError, ProfileError
from drivers.camera.calibrate import Sample, calibrate, read_labels
from drivers.camera.profile import FORMAT, builtin_profile, load_profile
from drivers.camera.recognizer import Recognizer
from simulators.camera.builtin import render_deck
from simulators.camera.render import FaceStyle
from simulators.camera.scene import SceneOptions, render_scene, scatter_cards

# a font and index layout the built-in profile was not made from
HELD_OUT = replace(FaceStyle(), font="plain", thickness=3, rank_height=0.1, index_x=0.11)


@pytest.fixture(scope="module")
def deck_profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    samples = render_deck(HELD_OUT, card_px=220, seed=3)
    profile = calibrate(samples, name="plain", source="test", augment=10)
    path = tmp_path_factory.mktemp("profile") / "plain.npz"
    profile.save(path)
    return path


def test_calibration_round_trip_reads_the_calibrated_deck(deck_profile: Path) -> None:
    profile = load_profile(deck_profile)
    assert profile.name == "plain"
    assert abs(profile.aspect - 240 / 336) < 0.03
    recognizer = Recognizer(profile)
    rng = random.Random(5)
    cards = STANDARD_52.shuffled(rng)
    options = SceneOptions(card_width=0.075, blur=0.5, noise=3.0, gradient=0.3)
    correct = wrong = 0
    for start in range(0, 52, 13):
        placements = scatter_cards(cards[start : start + 13], rng, options=options, face=HELD_OUT)
        frame = render_scene(placements, options, seed=start)
        truth = {p.card for p in placements}
        for det in recognizer.recognize(frame.image).cards:
            correct += det.card in truth
            wrong += det.card not in truth
    assert wrong == 0
    assert correct >= 50


def test_profile_file_round_trip_and_refusals(deck_profile: Path, tmp_path: Path) -> None:
    profile = load_profile(deck_profile)
    again = tmp_path / "again.npz"
    profile.save(again)
    reloaded = load_profile(again)
    assert np.allclose(reloaded.rank.weights, profile.rank.weights)
    assert reloaded.metadata() == profile.metadata()
    # the small-card discriminant of clubs and spades is calibrated and kept
    assert profile.small_suit is not None and reloaded.small_suit is not None
    assert profile.small_suit.labels.tolist() == [int(Suit.CLUBS), int(Suit.SPADES)]
    assert np.allclose(reloaded.small_suit.weights, profile.small_suit.weights)
    with pytest.raises(ProfileError, match="found nothing"):
        load_profile(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(ProfileError, match="cannot read it"):
        load_profile(junk)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array('{"format": "something-else"}'))
    with pytest.raises(ProfileError, match=f"expected format '{FORMAT}'"):
        load_profile(other)
    future = tmp_path / "future.npz"
    with np.load(again) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["meta"] = np.array(str(arrays["meta"]).replace('"version": 1', '"version": 99'))
    np.savez(future, **arrays)
    with pytest.raises(ProfileError, match="expected version 1, found 99"):
        load_profile(future)


def test_builtin_profile_loads() -> None:
    profile = builtin_profile()
    assert profile.rank.labels.tolist() == list(range(13))
    assert profile.suit.labels.tolist() == list(range(4))
    assert profile.small_suit is not None


def test_calibration_refuses_missing_ranks_and_blank_photos() -> None:
    samples = render_deck(FaceStyle(), card_px=150)
    with pytest.raises(CalibrationError, match="lack"):
        calibrate([s for s in samples if s.card.rank != 12], name="x", source="x", augment=0)
    blank = Sample(np.zeros((200, 200, 3), np.uint8), samples[0].card, "blank.png")
    with pytest.raises(CalibrationError, match=r"blank\.png: .*found no card shape"):
        calibrate([blank], name="x", source="x", augment=0)
    with pytest.raises(CalibrationError, match="no calibration photographs"):
        calibrate([], name="x", source="x")


def test_label_files(tmp_path: Path) -> None:
    good = tmp_path / "labels.csv"
    good.write_text("file,cards\nas.png,AS\n\n10h.jpg, 10h\n", encoding="utf-8")
    assert [(f, c.code) for f, c in read_labels(good)] == [("as.png", "AS"), ("10h.jpg", "TH")]
    cases = {
        "name,card\na.png,AS\n": "expected a header 'file,cards'",
        "file,cards\na.png,XX\n": "line 2: bad card code 'XX'",
        "file,cards\na.png,AS KD\n": "expected one card code for a.png",
        "file,cards\na.png,AS\nb.png,as\n": "line 3: card AS already labelled on a.png",
        "file,cards\n": "expected at least one",
    }
    for text, message in cases.items():
        bad = tmp_path / "bad.csv"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(CalibrationError, match=message):
            read_labels(bad)
    with pytest.raises(CalibrationError, match="found nothing"):
        read_labels(tmp_path / "none.csv")
