"""Real print dealt on felt: deck F's own card faces, cut out of its laid-out photograph,
dealt as a studio deals a round (seven boxes of two, the dealer's two, the board) on a
rendered felt table, read by the recognizer with the built-in profile.

- every card the recognizer reads there is right, and nearly all are read; its two of
  spades, 83 pixels wide, was read as a two of clubs in 5 of 40 deals (the rendered
  glyphs' read, the learned reader's corners split between spade and club): no more;
- the index search looks only round the paper its cards read leave unexplained (a window
  of the frame), and reads there what it reads searching the whole frame.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import drivers.camera.recognizer as recognizer_module
from config.camera import ZoneLayout
from controller.cards import Card
from drivers.camera.evaluate import real_labels
from drivers.camera.imageio import read_image
from drivers.camera.profile import builtin_profile
from drivers.camera.reader import CornerRead
from drivers.camera.recognizer import FrameRecognition, Recognizer, _dissent
from simulators.camera.alter import Image, dealt_on_felt, real_faces
from simulators.camera.render import CARD_HEIGHT, CARD_WIDTH
from tests.support.real_cards import real_cards

LAYOUT = "images/ger_all_cards.jpg"  # deck F laid out 4 x 13 on light wood


@pytest.fixture(scope="module")
def reader() -> Recognizer:
    return Recognizer(builtin_profile())


@pytest.fixture(scope="module")
def faces(reader: Recognizer) -> dict[Card, Image]:
    root = real_cards(LAYOUT)
    held = real_labels(root)[LAYOUT]
    return real_faces(read_image(root / LAYOUT), reader, held, (CARD_WIDTH, CARD_HEIGHT))


def test_deck_fs_faces_are_cut_upright(faces: dict[Card, Image]) -> None:
    assert len(faces) >= 50  # each read right from an outline found whole
    for face in faces.values():
        assert face.shape == (CARD_HEIGHT, CARD_WIDTH, 3)


def assert_same_reads(a: FrameRecognition, b: FrameRecognition) -> None:
    """The same detections: status, card and confidence, corners within a millionth of a
    pixel (the ink's centres found in a window are offset by its corner, in float64)."""
    assert len(a.detections) == len(b.detections)
    for x, y in zip(a.detections, b.detections, strict=True):
        assert (x.status, x.card, x.zone) == (y.status, y.card, y.zone)
        assert x.confidence == pytest.approx(y.confidence, abs=1e-9)
        assert np.allclose(x.corners, y.corners, atol=1e-6)


@pytest.fixture
def searched_windows(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every window the index search chose (None: the whole frame)."""
    chosen: list[object] = []
    original = recognizer_module._search_window

    def spy(*args: object) -> object:
        window = original(*args)  # type: ignore[arg-type]
        chosen.append(window)
        return window

    monkeypatch.setattr(recognizer_module, "_search_window", spy)
    yield chosen


def test_a_dealt_table_of_real_print_is_read_right_and_searched_in_a_window(
    faces: dict[Card, Image],
    reader: Recognizer,
    layout: ZoneLayout,
    searched_windows: list[object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame = dealt_on_felt(faces, layout, seed=2026)
    dealt = {c.card for c in frame.cards}
    assert len(dealt) == 19
    read = reader.recognize(frame.image)
    cards = [d.card for d in read.cards]
    assert not [c for c in cards if c not in dealt], "a card read that was not dealt"
    assert len(set(cards)) >= 17
    # one card was not outlined whole: the search looked round it only
    assert any(w is not None for w in searched_windows)
    window = next(w for w in searched_windows if w is not None)
    x0, y0, x1, y1 = window  # type: ignore[misc]
    assert (x1 - x0) * (y1 - y0) < 0.5 * frame.image.shape[0] * frame.image.shape[1]
    # searching the whole frame reads the same, to a millionth of a pixel
    monkeypatch.setattr(recognizer_module, "SEARCH_WHOLE", 0.0)
    assert_same_reads(reader.recognize(frame.image), read)


@pytest.mark.parametrize("seed", [7, 11, 23])
def test_the_search_window_changes_no_read_on_other_deals(
    faces: dict[Card, Image],
    reader: Recognizer,
    layout: ZoneLayout,
    seed: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = dealt_on_felt(faces, layout, seed=seed).image
    windowed = reader.recognize(image)
    monkeypatch.setattr(recognizer_module, "SEARCH_WHOLE", 0.0)
    assert_same_reads(reader.recognize(image), windowed)


@pytest.mark.parametrize("seed", [3, 10, 11, 13, 34])
def test_deck_fs_small_two_of_spades_is_never_read_as_a_club(
    faces: dict[Card, Image], reader: Recognizer, layout: ZoneLayout, seed: int
) -> None:
    frame = dealt_on_felt(faces, layout, seed=seed)
    dealt = {c.card for c in frame.cards}
    assert Card.parse("2S") in dealt
    read = [d.card for d in reader.recognize(frame.image).cards]
    assert Card.parse("2C") not in read
    assert all(c in dealt for c in read)


def test_a_read_whose_corners_split_on_the_suit_is_refused() -> None:
    two_of_clubs = Card.parse("2C")
    spade, club = int(Card.parse("2S").suit), int(two_of_clubs.suit)
    rank = int(two_of_clubs.rank)
    split = [CornerRead(rank, 11.6, spade, 0.7, None), CornerRead(rank, 12.4, club, 1.2, None)]
    agreed = [CornerRead(rank, 11.6, club, 0.7, None), CornerRead(rank, 12.4, club, 1.2, None)]
    assert _dissent(split, two_of_clubs, whole=False)
    assert not _dissent(agreed, two_of_clubs, whole=False)
    # a card too small for the learned reader's suits (the caller says): the glyphs' read
    assert not _dissent(split, two_of_clubs, whole=False, split=False)
    # a corner too faint on the rank says nothing of the suit
    faint = [CornerRead(rank, 1.0, spade, 0.7, None), CornerRead(rank, 12.4, club, 1.2, None)]
    assert not _dissent(faint, two_of_clubs, whole=False)
