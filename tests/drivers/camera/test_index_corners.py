"""Cards whose outline is not found (fanned, piled) read from an index corner found by its
ink: a rank glyph over a suit symbol, the card guessed around it, read by the learned
reader from that one corner."""

import math
import random

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import drivers.camera.recognizer as recognizer_module
from config.camera import ZoneLayout
from controller.cards import STANDARD_52, Card
from drivers.camera.imageio import read_image
from drivers.camera.reader import RANK_LEAD, SUIT_LEAD, CornerRead
from drivers.camera.recognizer import (
    GREY_SINGLE,
    INDEX_BLACK_SIDE,
    INDEX_PIPS_CHECKED,
    INDEX_RANK_AT,
    INDEX_STEP,
    LEARNED_SINGLE,
    SQUASH_STEP,
    Recognizer,
    Status,
    exposed,
    frame_squash,
    index_hypotheses,
    index_ink,
    locate,
    restretched,
)
from simulators.camera.scene import SceneOptions, deal_layout, render_scene
from tests.support.real_cards import real_photo

ASPECT = 63.0 / 88.0


def _cards(codes: str) -> set[Card]:
    return {Card.parse(c) for c in codes.split()}


def _read(recognizer: Recognizer, name: str) -> list[Card]:
    found = recognizer.recognize(read_image(real_photo(name)))
    return [d.card for d in found.detections if d.status is Status.CARD and d.card is not None]


def _read_within(recognizer: Recognizer, name: str, listed: str) -> set[Card]:
    """The cards read on a real photograph, each once, all among those ``listed``."""
    cards = _read(recognizer, name)
    assert len(cards) == len(set(cards)), "a card read twice"
    assert set(cards) <= _cards(listed)
    return set(cards)


def _upright(x: float, y: float, width: float, squash: float = 1.0) -> np.ndarray:
    """An upright card's quad (clockwise from its top-left), stretched down by ``squash``."""
    height = width / ASPECT
    quad = np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]])
    quad[:, 1] *= squash
    return quad


@pytest.mark.parametrize("squash", [1.0, 1.5, 0.75])
def test_the_squash_of_a_square_export_is_measured_on_the_cards_found_whole(
    squash: float,
) -> None:
    # an upright card and one turned a quarter: each a rectangle of the card's aspect
    # once the frame is stretched back
    upright = _upright(10, 20, 100, squash)
    turned = np.array([[0, 0], [140, 0], [140, 100], [0, 100]], np.float64)
    turned[:, 1] *= squash
    assert frame_squash([upright, turned], ASPECT) == pytest.approx(squash, rel=0.01)
    assert frame_squash([], ASPECT) == 1.0


def test_an_index_drawn_on_paper_gives_the_card_around_it() -> None:
    # a white card on a grey table, its index a tall block over a shorter one: the guessed
    # card lies where the card is, its rank's centre where the index's is
    frame = np.full((600, 600, 3), 90, np.uint8)
    card = _upright(150, 100, 200)
    frame[100:380, 150:350] = 235
    height = 200 / ASPECT
    rx, ry = 150 + INDEX_RANK_AT[0] * 200, 100 + INDEX_RANK_AT[1] * height
    step = INDEX_STEP * height
    rank_h, suit_h = 0.1 * height, 0.07 * height
    frame[round(ry - rank_h / 2) : round(ry + rank_h / 2), round(rx - 9) : round(rx + 9)] = 20
    sy = ry + step
    frame[round(sy - suit_h / 2) : round(sy + suit_h / 2), round(rx - 9) : round(rx + 9)] = 20
    guesses = index_hypotheses(frame, height, 1.0, [], ASPECT)
    assert guesses, "no index found"
    quad, centre = guesses[0]
    assert np.hypot(centre[0] - rx, centre[1] - ry) < 3
    assert np.abs(quad - card).max() < 0.1 * height
    # a card read already holds no other card's index
    assert index_hypotheses(frame, height, 1.0, [card.astype(np.float32)], ASPECT) == []


def test_a_fan_of_spades_on_a_light_desk_is_read_from_its_index_corners(
    recognizer: Recognizer,
) -> None:
    # a webcam frame (squashed to 640 x 640) of fourteen cards fanned and piled on a white
    # desk: the edges between the cards are lost, and no outline of these five was found
    # whole; each shows its index corner
    read = _read(recognizer, "amm_WIN_20240627_17_13_02_Pro.jpg")
    # measured: 2S 3C 8S 9C 9S JS KS with the shipped model (8S and KS with the one before)
    assert _cards("2S 3C 8S 9C 9S JS KS") <= set(read)
    listed = _cards("2C 2S 3C 4C 6C 7C 8S 9C 9S AC JC JS KC KS")
    assert set(read) <= listed
    assert len(read) == len(set(read)), "a card read twice"


def test_an_outline_left_unknown_is_searched_for_index_corners(recognizer: Recognizer) -> None:
    # eighteen cards piled on a knitted blanket (a webcam frame squashed to 640 x 640): the
    # outlines of the four of spades, the eight of hearts and the ten of diamonds were
    # found but their edges not all measured, their index corners misplaced; the index
    # corners found by their ink inside them read them (none of the three before)
    read = _read(recognizer, "amm_WIN_20240627_12_49_21_Pro.jpg")
    assert _cards("4S 8H TD") <= set(read)
    listed = _cards("3S 4C 4D 4S 5C 5H 5S 8H 8S 9S AC AD AS JC KC QD TC TD")
    assert set(read) <= listed
    assert len(read) == len(set(read)), "a card read twice"


def test_a_thin_rank_glyph_beside_a_cards_edge_is_ink_against_the_paper_around_it() -> None:
    # deck D's nine of hearts on a grey cloth: its index lies by the card's edge, half its
    # neighbourhood dark cloth, and its thin nine measured against that neighbourhood's mean
    # falls apart in specks; against the paper around it alone, it is one glyph
    frame = exposed(read_image(real_photo("alk_in_09.jpg")))
    nine = (752.0, 50.0)  # the nine at the card's top-right corner (the card turned over)

    def near(beside_edges: bool) -> list[tuple[float, float]]:
        ink = index_ink(frame, 255.0, [], beside_edges=beside_edges)
        return [
            (float(w), float(h))
            for (x, y), w, h in zip(ink.centres[1:], ink.w, ink.h, strict=True)
            if abs(x - nine[0]) < 15 and abs(y - nine[1]) < 15
        ]

    assert all(max(w, h) <= 10 for w, h in near(False))  # specks, no glyph
    assert any(20 <= max(w, h) <= 35 for w, h in near(True))


def test_the_ink_found_once_on_a_frame_is_the_ink_found_afresh() -> None:
    # the frame's search asks for its ink up to three times, sharing what it found (a
    # memo): in any order of card heights and of the ink beside edges, each answer is the
    # one a fresh search gives, and a question asked again is answered from the memo
    frame = exposed(read_image(real_photo("alk_in_09.jpg")))
    taken = [np.array([[0, 0], [300, 0], [300, 200], [0, 200]], np.float32)]
    memo: dict[tuple[object, ...], object] = {}
    for height, beside in ((255.0, True), (0.0, False), (255.0, False), (120.0, True)):
        shared = index_ink(frame, height, taken, beside_edges=beside, memo=memo)
        fresh = index_ink(frame, height, taken, beside_edges=beside)
        for name in ("labels", "w", "h", "area", "centres", "inside"):
            assert np.array_equal(getattr(shared, name), getattr(fresh, name)), name
        assert (shared.sx, shared.sy) == (fresh.sx, fresh.sy)
        assert index_ink(frame, height, taken, beside_edges=beside, memo=memo) is shared


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-50, 1400), st.floats(-50, 800), st.floats(0.5, 60), st.floats(0.5, 90)
        ),
        min_size=0,
        max_size=40,
    ),
    st.floats(0.3, 3.0),
)
def test_every_pair_that_could_be_an_index_is_among_the_near_pairs(
    glyphs: list[tuple[float, float, float, float]], squash: float
) -> None:
    # the guesses work out only the pairs of ink near enough to be one index: every pair a
    # rank's extent along the pair reaches (INDEX_RANK_EXTENT) is listed, in the order
    # NumPy's nonzero lists a matrix of all pairs, each once, none a glyph with itself
    low = recognizer_module.INDEX_RANK_EXTENT[0]
    pts = np.array([(x, y / squash) for x, y, _, _ in glyphs], np.float64).reshape(-1, 2)
    w = np.array([g[2] for g in glyphs], np.float64)
    h = np.array([g[3] for g in glyphs], np.float64)
    ri, si = recognizer_module._near_pairs(pts, np.hypot(w, h / squash) / low)
    listed = list(zip(ri.tolist(), si.tolist(), strict=True))
    assert listed == sorted(set(listed))
    assert all(i != j for i, j in listed)
    d = pts[None, :, :] - pts[:, None, :]
    dist = np.maximum(np.hypot(d[..., 0], d[..., 1]), 1e-6)
    along = np.abs(d[..., 0]) / dist * w[:, None] + np.abs(d[..., 1]) / dist * h[:, None] / squash
    rows, cols = np.nonzero(along >= low * dist)
    reaching = {(i, j) for i, j in zip(rows.tolist(), cols.tolist(), strict=True) if i != j}
    assert reaching <= set(listed)


def test_an_index_beside_a_cards_edge_is_guessed_with_the_tries_left(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # that nine of hearts: its paper runs into the seven of diamonds it lies on, and its
    # index's ink is found only against the paper around it; the guesses from that ink
    # come after all the others, and read it where its edges do not outline it (on this
    # dark cloth they are looked at, the blob being as large as a card: it is read either
    # way)
    listed = "2D 7D 8H 9S 9H"
    assert Card.parse("9H") in _read_within(recognizer, "alk_in_09.jpg", listed)
    monkeypatch.setattr(recognizer_module, "edge_shapes", lambda *_, **__: ([], []))
    assert Card.parse("9H") in _read_within(recognizer, "alk_in_09.jpg", listed)
    monkeypatch.setattr(recognizer_module, "beside_edges_hypotheses", lambda *_, **__: [])
    assert Card.parse("9H") not in _read_within(recognizer, "alk_in_09.jpg", listed)


def test_guesses_beside_cards_edges_add_to_the_first_ones_never_repeat_them() -> None:
    frame = exposed(read_image(real_photo("alk_in_09.jpg")))
    first = index_hypotheses(frame, 255.0, 1.0, [], ASPECT)
    more = recognizer_module.beside_edges_hypotheses(
        frame, 255.0, 1.0, [], ASPECT, recognizer_module.DEFAULT_INDEX_BOX, first
    )
    assert more
    assert len(first) + len(more) <= recognizer_module.MAX_INDEX_PAIRS
    centres = [c for _, c in first + more]
    same = recognizer_module.INDEX_SAME_CENTRE
    for i in range(len(first), len(centres)):  # each added one away from all before it
        x, y = centres[i]
        assert all(max(abs(x - u), abs(y - v)) >= same for u, v in centres[:i])
    # the nine's own index among them
    assert any(abs(x - 752) < 15 and abs(y - 50) < 15 for _, (x, y) in more)


def test_a_fans_index_lying_on_a_card_read_from_its_index_is_read(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # four cards fanned on blue (deck E): the ace of hearts, under the others, is read from
    # its index, and the card guessed around it reaches under the ace of spades, whose
    # index lies inside it, far from where the ace of hearts' own other corners hold theirs
    listed = "TD KD AS AH"
    assert _cards("AS AH") <= _read_within(recognizer, "paw_zbiory_7.jpg", listed)
    # taken, as before, for the ace of hearts' own other corner, it is not read
    monkeypatch.setattr(recognizer_module, "_at_other_index", lambda *_: True)
    assert Card.parse("AS") not in _read_within(recognizer, "paw_zbiory_7.jpg", listed)


def test_a_cards_other_index_corners_are_where_its_shape_puts_them() -> None:
    quad = _upright(100.0, 50.0, 120.0).astype(np.float32)  # 120 x 168, index top-left
    at = recognizer_module._at_other_index
    ax, ay = INDEX_RANK_AT
    width, height = 120.0, 120.0 / ASPECT
    opposite = (100.0 + (1 - ax) * width, 50.0 + (1 - ay) * height)
    assert at(quad, opposite, 5.0)
    assert at(quad, (100.0 + (1 - ax) * width, 50.0 + ay * height), 5.0)  # four corners
    assert at(quad, (100.0 + ax * width, 50.0 + (1 - ay) * height), 5.0)
    assert not at(quad, (160.0, 134.0), 5.0)  # the middle: another card's index
    assert not at(quad, (opposite[0] - 20.0, opposite[1]), 5.0)


def test_a_card_whose_outline_misplaces_its_index_corners_is_read_from_its_ink(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a four of hearts on a knitted blanket: its outline was found, one edge not measured,
    # and its corners read a four of unsure suit; the index found by its ink inside the
    # outline reads it, the frame's squash as its outlines give it (probed, the frame
    # reads three other cards and leaves the four unknown)
    monkeypatch.setattr(recognizer_module, "SQUASH_TRUSTED", 0)
    read = _read(recognizer, "amm_WIN_20240627_12_04_16_Pro.jpg")
    assert Card.parse("4H") in read
    assert set(read) <= _cards("3S 4H 5H 9S AC JC KC TH")


def test_fanned_diamonds_are_read_from_their_index_corners(recognizer: Recognizer) -> None:
    # twelve cards, diamonds and hearts fanned over each other on the same desk
    read = _read(recognizer, "amm_WIN_20240627_17_06_06_Pro.jpg")
    assert _cards("9D AD JD KD") <= set(read)
    assert set(read) <= _cards("2H 5H 7H 8D 9D AD JD JH KD QD QH TD")
    assert len(read) == len(set(read)), "a card read twice"


def test_a_court_cards_tall_rank_over_a_small_suit_symbol_is_an_index(
    recognizer: Recognizer,
) -> None:
    # a king of diamonds fanned with other court cards on a webcam's desk: its K is 1.75 to
    # 2 times as long along the card as its small diamond (the search once stopped at 1.75)
    read = _read(recognizer, "amm_WIN_20240627_17_15_55_Pro.jpg")
    assert Card.parse("KD") in read
    assert set(read) <= _cards("QD KS KH KD KC")


def test_twelve_court_cards_fanned_on_a_webcams_desk_are_read_from_their_indices(
    recognizer: Recognizer,
) -> None:
    # every jack, queen and king fanned in one pile, each showing only its index corner:
    # 96 guessed corners tried read 6 (64 read 4); the jack and the queen of spades are
    # guessed under INDEX_BLACK_SIDE, where one corner reads no club or spade
    read = _read(recognizer, "amm_WIN_20240627_17_15_15_Pro.jpg")
    assert len(read) == len(set(read)) >= 6
    assert set(read) <= _cards("JS JH JD JC QS QH QD QC KS KH KD KC")


def test_a_flat_topped_three_shows_a_threes_pips_and_is_never_read_as_a_five(
    recognizer: Recognizer,
) -> None:
    # deck A's three of spades beside an ace and a ten, guessed from its index corner: an
    # earlier reader took its flat-topped 3 for a 5 from that corner alone (leads of four
    # times those needed). The middle of the card guessed shows three pips in its middle
    # column, which refuses a five read there
    assert int(Card.parse("5S").rank) in INDEX_PIPS_CHECKED
    frame = read_image(real_photo("amm_IMG_20220921_200817.jpg"))
    quad = np.array([[48.2, 165.5], [509.4, 250.2], [390.8, 895.8], [-70.4, 811.1]])
    assert recognizer._shows_three(frame, quad, 0)
    guess = next(recognizer._index_corners(frame, quad, (100.0, 230.0), (1.0,)))
    assert guess is not None and guess.card != Card.parse("5S")
    assert Card.parse("5S") not in _read(recognizer, "amm_IMG_20220921_200817.jpg")


def test_fanned_fives_are_read_though_their_middles_show_other_cards_pips(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a webcam's fan of diamonds and hearts: the five of diamonds' middle lies under the
    # cards fanned over it, whose pips show there (two or three, not in a three's column);
    # only a three's layout denies a five read from its corner
    name = "amm_WIN_20240627_17_05_18_Pro.jpg"
    assert Card.parse("5D") in _read(recognizer, name)
    monkeypatch.setattr(recognizer_module, "THREE_COLUMN", 1.0)  # any two or three pips
    assert Card.parse("5D") not in _read(recognizer, name)


def _fan_of_spades() -> tuple[np.ndarray, list[tuple[np.ndarray, tuple[float, float]]]]:
    """The fan of spades on a webcam's desk, and the index corners guessed on it outside
    the outlines found whole, sized by those outlines."""
    frame = read_image(real_photo("amm_WIN_20240627_17_13_02_Pro.jpg"))
    clean = locate(frame).cards()
    sides = np.array([np.hypot(*(q - np.roll(q, 1, axis=0)).T) for q in clean])
    height = float(np.median(np.maximum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3])))
    outside = [q.astype(np.float32) for q in clean]
    squash = frame_squash(clean, ASPECT)
    return frame, index_hypotheses(frame, height / 2, squash, outside, ASPECT)


def test_an_index_is_guessed_where_no_outline_was_found() -> None:
    # the fan of spades: the nine of spades' index lies outside every outline found whole
    _, guesses = _fan_of_spades()
    assert any(np.hypot(x - 380, y - 128) < 12 for _, (x, y) in guesses), [c for _, c in guesses]


def test_guessed_corners_read_together_settle_as_read_one_by_one(
    recognizer: Recognizer,
) -> None:
    # the fan of spades: each guessed corner, at each scale the search tries, read in one
    # call with the others, names what it names read alone
    frame, guesses = _fan_of_spades()
    scales = (1.0, *recognizer_module.INDEX_RESCALE)
    named = 0
    for quad, centre in guesses[:12]:
        together = list(recognizer._index_corners(frame, quad, centre, scales))
        alone = [next(recognizer._index_corners(frame, quad, centre, (k,))) for k in scales]
        assert len(together) == len(alone) == len(scales)
        for a, b in zip(together, alone, strict=True):
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert (a.card, a.read.rank, a.read.suit) == (b.card, b.read.rank, b.read.suit)
                assert a.share == pytest.approx(b.share, abs=1e-3)
                named += a.card is not None
    assert named > 0


def _drawn_index(
    top: int, left: int, width: float, frame_height: int
) -> tuple[np.ndarray, np.ndarray]:
    """A frame with a white card of ``width`` at (``left``, ``top``) on a grey table, its
    index a tall block over a shorter one; the card may reach beyond the frame's bottom."""
    frame = np.full((frame_height, 600, 3), 90, np.uint8)
    height = width / ASPECT
    frame[max(0, top) : round(top + height), left : round(left + width)] = 235
    rx, ry = left + INDEX_RANK_AT[0] * width, top + INDEX_RANK_AT[1] * height
    rank_h, suit_h = 0.1 * height, 0.07 * height
    for y, h in ((ry, rank_h), (ry + INDEX_STEP * height, suit_h)):
        frame[round(y - h / 2) : round(y + h / 2), round(rx - 9) : round(rx + 9)] = 20
    return frame, _upright(left, top, width)


def test_an_index_alone_on_its_paper_is_tried_before_one_amid_other_ink(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # two drawn indices alike, the first (left) amid a knitted blanket's loops (blocks of
    # ink around it, inside its index box), the second alone on its paper: the second is
    # guessed first; ordered by the rank-over-suit ratio alone, the first would be
    frame, _ = _drawn_index(60, 60, 160, 600)
    clean, card = _drawn_index(60, 330, 160, 600)
    frame[:, 300:] = clean[:, 300:]
    height = 160 / ASPECT
    rx, ry = 60 + INDEX_RANK_AT[0] * 160, 60 + INDEX_RANK_AT[1] * height
    for dx, dy in ((-14, -18), (-14, 6), (-14, 32), (22, -18), (22, 6), (22, 32)):
        x, y = round(rx + dx), round(ry + dy)
        frame[y - 4 : y + 4, x - 4 : x + 4] = 20

    def places() -> tuple[int, int, list[np.ndarray]]:
        guesses = index_hypotheses(frame, height, 1.0, [], ASPECT)
        centres = [c for _, c in guesses]
        cluttered = [i for i, (x, y) in enumerate(centres) if np.hypot(x - rx, y - ry) < 4]
        alone = [i for i, (x, _) in enumerate(centres) if x > 300]
        assert cluttered and alone, centres
        return cluttered[0], alone[0], [q for q, _ in guesses]

    cluttered, alone, quads = places()
    assert alone == 0 < cluttered
    assert np.abs(quads[0] - card).max() < 0.1 * height
    monkeypatch.setattr(recognizer_module, "INDEX_CLUTTER", 0.0)
    cluttered, alone, _ = places()
    assert cluttered < alone


def test_a_knitted_blankets_loops_do_not_take_the_tries_from_real_indices(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a webcam's fan on a knitted blanket as light as the cards: no outline is found, and
    # the loops give hundreds of ink pairs like an index; those whose index box stands
    # clear of other ink are read first, so the four and five of hearts read within the
    # tries (at the squash the blanket's lumps, taken for outlines, give it: probed, the
    # five alone is read)
    monkeypatch.setattr(recognizer_module, "SQUASH_TRUSTED", 0)
    cards = set(_read(recognizer, "amm_WIN_20240627_12_31_10_Pro.jpg"))
    assert cards <= _cards("4S 4H 5D 6C TH TD")
    assert _cards("4H 5D") <= cards


def test_a_card_reaching_beyond_the_frame_is_guessed_from_its_index_inside_it() -> None:
    # a close-up, or a card at the edge of the camera's view: the card runs off the frame's
    # bottom, its index corner is inside
    frame, card = _drawn_index(100, 150, 200, 300)
    height = 200 / ASPECT
    guesses = index_hypotheses(frame, height, 1.0, [], ASPECT)
    assert guesses, "no index found on a card cut by the frame's edge"
    assert np.abs(guesses[0][0] - card).max() < 0.1 * height
    # a card whose index corner itself runs 10 pixels off the frame's top: its glyphs are
    # whole, but the corner the reader reads is not, and it is not guessed (a box lower on
    # the card, inside the frame, is)
    cut, _ = _drawn_index(-10, 150, 200, 600)
    assert index_hypotheses(cut, height, 1.0, [], ASPECT) == []
    assert index_hypotheses(cut, height, 1.0, [], ASPECT, (0.0, 0.5, 0.25, 0.6))


def test_keys_found_as_outlines_do_not_set_the_size_of_cards_looked_for(
    recognizer: Recognizer,
) -> None:
    # a webcam frame with a keyboard below the cards: its keys are clean outlines, a third
    # of a card's size; the queen of diamonds on top of a pile is found by its index, at
    # the size of the jack of diamonds read whole
    read = _read(recognizer, "amm_WIN_20240627_11_36_02_Pro.jpg")
    assert _cards("JD QD") <= set(read)
    assert set(read) <= _cards("2C 7C TC JC JD QC QD KC AC")


def test_a_card_whose_long_side_shows_shorter_is_checked_by_the_pair_that_named_it(
    recognizer: Recognizer,
) -> None:
    # a phone photo exported squashed to 640 x 640: the five of clubs lies upright, but its
    # outline is wider than tall, so the short side's corners show no index and the other
    # pair names the card; its middle's pips, counted with that pair's corner as the card's
    # top-left, are five
    assert _read(recognizer, "amm_IMG_20220921_193915.jpg") == [Card.parse("5C")]


def test_small_cards_guessed_around_their_index_are_read(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a webcam frame of hearts fanned on the desk: the nine, guessed around its index
    # corner, is under the 80 pixels a card read whole needs, above the 65 a guessed card
    # needs (its rank and suit were seen as two glyphs of an index's shape), at the squash
    # its outlines give (probed, the nine is guessed larger)
    monkeypatch.setattr(recognizer_module, "SQUASH_TRUSTED", 0)
    name = "amm_WIN_20240627_12_48_18_Pro.jpg"
    read = _read(recognizer, name)
    assert _cards("9H AH") <= set(read)
    assert set(read) <= _cards("2S 2H 3C 6D 7S 7H 7C 8D 8C 9H 9D TS JD QS QH KS KH AH")
    monkeypatch.setattr(recognizer_module, "INDEX_MIN_SIDE", recognizer_module.LEARNED_MIN_SIDE)
    assert Card.parse("9H") not in _read(recognizer, name)


def test_a_close_up_index_is_found_where_no_card_sizes_the_search() -> None:
    # one large card fills the frame and no card was read: its rank glyph, 59 pixels tall,
    # is larger than the 31-pixel neighbourhood ink is first looked for against; a
    # neighbourhood of an eighth of the frame (INDEX_WIDE_BLOCK) finds it whole
    frame, card = _drawn_index(40, 60, 420, 700)
    guesses = index_hypotheses(frame, 0.0, 1.0, [], ASPECT)
    assert guesses, "no index found on the close-up"
    assert np.abs(guesses[0][0] - card).max() < 0.1 * 420 / ASPECT


def _guess(quad: np.ndarray, squash: float = 1.0) -> recognizer_module._Guess:
    """A guessed corner of the card ``quad`` (in the world's proportions; its first corner
    the index's), its rank glyph where the recognizer puts it, the frame stretched down by
    ``squash``."""
    right, down = quad[1] - quad[0], quad[3] - quad[0]
    centre = quad[0] + INDEX_RANK_AT[0] * right + INDEX_RANK_AT[1] * down
    stretch = np.array([1.0, squash])
    read = recognizer_module.CornerRead(0, 9.0, 0, 9.0, False, 0.0)
    x, y = centre * stretch
    return recognizer_module._Guess(quad * stretch, (float(x), float(y)), read)


@pytest.mark.parametrize("squash", [1.0, 1.8])
def test_two_guessed_corners_lie_opposite_on_one_card_only_where_its_shape_says(
    squash: float,
) -> None:
    card = _upright(100, 50, 120)
    turn = np.array([[0.8, -0.6], [0.6, 0.8]])  # the card turned about 37 degrees
    card = (card - card.mean(axis=0)) @ turn.T + card.mean(axis=0)
    top = _guess(card, squash)
    bottom = _guess(np.roll(card, -2, axis=0), squash)  # the index half a turn round
    opposite = recognizer_module._opposite_corners
    assert opposite(top, bottom, squash) and opposite(bottom, top, squash)
    # each guess's size a little off, as guesses from an index's glyphs are: still one card
    mid = card.mean(axis=0)
    assert opposite(_guess(mid + 1.15 * (card - mid), squash), bottom, squash)
    # the second index a quarter turn round, or in the same direction, or too near
    assert not opposite(top, _guess(np.roll(card, -1, axis=0), squash), squash)
    assert not opposite(top, _guess(card + 200.0, squash), squash)
    assert not opposite(top, _guess(mid + 0.6 * (np.roll(card, -2, axis=0) - mid), squash), squash)


def test_a_card_whose_outline_is_lost_in_a_blanket_is_read_from_its_two_indices(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a webcam frame of cards on a pale knitted blanket: the six of diamonds' outline is
    # lost in the blanket; its two index corners, guessed around their glyphs at opposite
    # corners of one card, name it together, neither alone with the leads one corner needs
    # as the frame's squash guesses them (guessed again unsquashed or moved a little, one
    # alone reads it too), the squash its two outlines give (probed, or guessed again a
    # probe's step either side, the six is left unknown; with ink also looked for against
    # a narrower neighbourhood, one corner alone reads it)
    monkeypatch.setattr(recognizer_module, "SQUASH_TRUSTED", 0)
    monkeypatch.setattr(recognizer_module, "INDEX_SQUASH_STEPS", 0)
    monkeypatch.setattr(recognizer_module, "INDEX_NARROW_BLOCK", 0.3)  # the index's own
    name = "amm_WIN_20240627_12_05_26_Pro.jpg"
    assert Card.parse("6D") in _read(recognizer, name)
    monkeypatch.setattr(recognizer_module, "INDEX_SQUASH_DOUBT", math.inf)
    monkeypatch.setattr(Recognizer, "_shifted_corners", lambda *_, **__: iter(()))
    assert Card.parse("6D") in _read(recognizer, name)
    monkeypatch.setattr(recognizer_module, "PAIR_LEADS", recognizer_module.LEARNED_SINGLE)
    assert Card.parse("6D") not in _read(recognizer, name)


def test_one_corner_on_a_greyscale_frame_settles_its_card_by_shape_with_stricter_leads(
    recognizer: Recognizer,
) -> None:
    # no ink colour says red or black: the suit must lead all three others by its shape,
    # both leads GREY_SINGLE times what one corner needs on a colour frame
    frame = np.full((400, 400, 3), 200, np.uint8)
    quad = _upright(100, 50, 140)
    need = GREY_SINGLE * LEARNED_SINGLE
    heart = int(Card.parse("7H").suit)

    def grey(rank_lead: float, suit_lead: float, size: float = 140.0) -> Card | None:
        read = CornerRead(int(Card.parse("7H").rank), rank_lead, heart, suit_lead, False)
        guess = recognizer._settle_corner(frame, quad, (114.0, 73.0), frame, read, size, True)
        return None if guess is None else guess.card

    assert grey(need * RANK_LEAD, need * SUIT_LEAD) == Card.parse("7H")  # ink black: grey
    assert grey(0.95 * need * RANK_LEAD, need * SUIT_LEAD) is None
    assert grey(need * RANK_LEAD, 0.95 * need * SUIT_LEAD) is None
    # a card guessed too small to show any suit symbol reliably
    assert grey(need * RANK_LEAD, need * SUIT_LEAD, INDEX_BLACK_SIDE - 1) is None


def test_a_greyscale_photographs_card_is_read_from_its_one_index_corner(
    recognizer: Recognizer,
) -> None:
    # phone photographs stored grey, each of one card whose outline is not found whole (a
    # close-up running off the frame, a card half in shade): one index corner alone reads
    # it, by the suit's shape
    assert _read(recognizer, "amm_IMG_20220921_200222.jpg") == [Card.parse("AH")]
    assert _read(recognizer, "amm_IMG_20220921_201535.jpg") == [Card.parse("4H")]


@pytest.mark.parametrize("squash", [1.5, 0.7])
def test_a_card_guessed_on_a_frame_taken_as_squashed_is_guessed_again_unsquashed(
    squash: float,
) -> None:
    # the same index pair guessed with the frame's squash misjudged, then guessed again
    # as the camera's own proportions place it: the card guessed with no squash at all
    frame, card = _drawn_index(100, 150, 200, 500)
    height = 200 / ASPECT
    plain = index_hypotheses(frame, height, 1.0, [], ASPECT)[0]
    for quad, centre in index_hypotheses(frame, 0.0, squash, [], ASPECT):
        if np.hypot(centre[0] - plain[1][0], centre[1] - plain[1][1]) < 1:
            again = restretched(quad, centre, 1.0, ASPECT)
            assert np.abs(again - plain[0]).max() < 1e-6
            assert np.abs(again - card).max() < 0.1 * height
            assert np.abs(restretched(again, centre, squash, ASPECT) - quad).max() < 1e-6
            break
    else:
        pytest.fail("the index pair was not guessed on the squashed frame")


def test_a_close_ups_card_is_read_where_its_cut_outlines_misjudge_the_squash(
    recognizer: Recognizer,
) -> None:
    # a phone close-up on light wood, every outline cut by the frame's edge: they take the
    # frame for squashed (1.38), and the two of hearts' index, guessed so, falls short; the
    # same corner guessed unsquashed reads it
    cards = set(_read(recognizer, "amm_IMG_20220921_194145.jpg"))
    assert cards <= _cards("2H 7D 9D")
    assert Card.parse("2H") in cards


def test_an_index_printed_off_the_typical_place_is_read_with_its_card_moved_a_little(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a webcam's four queens: their index boxes, guessed from where most decks print an
    # index, fall short of the leads at every scale, at the squash the frame's outlines
    # give (none: 1); the best guess moved by 3 % of the card's width or height reads two
    # of them. At the squash probed, or guessed again a probe's step either side of it,
    # they read unmoved
    name = "amm_WIN_20240627_17_17_27_Pro.jpg"
    assert _cards("QD QS") <= _read_within(recognizer, name, "QS QH QD QC")
    monkeypatch.setattr(recognizer_module, "SQUASH_TRUSTED", 0)
    monkeypatch.setattr(recognizer_module, "INDEX_SQUASH_STEPS", 0)
    assert _cards("QD QS") <= set(_read(recognizer, name))
    monkeypatch.setattr(Recognizer, "_shifted_corners", lambda *_, **__: iter(()))
    assert not _cards("QD QS") & set(_read(recognizer, name))


def _stretched(frame: np.ndarray, squash: float) -> np.ndarray:
    """``frame`` stretched down by ``squash`` (squashed where it is under 1), as an export
    to another shape does."""
    h, w = frame.shape[:2]
    shrink = cv2.INTER_AREA if squash < 1 else cv2.INTER_CUBIC
    return np.asarray(cv2.resize(frame, (w, round(h * squash)), interpolation=shrink), np.uint8)


@pytest.mark.parametrize("squash", [0.7, 1.0, 1.6])
def test_a_frames_squash_is_probed_by_how_well_its_index_corners_read(
    recognizer: Recognizer, layout: ZoneLayout, squash: float
) -> None:
    # a dealt table stretched as an export would: told nothing by any outline (1 given),
    # the squash whose guessed cards read best is the frame's own, within one step
    rng = random.Random(7)
    placements = deal_layout(layout, STANDARD_52.shuffled(rng)[:19], rng)[:19]
    frame = _stretched(render_scene(placements, SceneOptions(), seed=3).image, squash)
    probed = recognizer._probed_squash(frame, 1.0, [], [])
    assert squash / SQUASH_STEP < probed < squash * SQUASH_STEP


def test_a_webcam_export_whose_one_outline_misjudges_its_squash_is_read_by_its_indices(
    recognizer: Recognizer,
) -> None:
    # a webcam frame squashed to 640 x 640 on a light desk: its one clean outline is two
    # cards lying edge to edge and takes the frame for 0.91, where it shows the world about
    # 1.5 times taller; the squash its index corners read best at reads six of its seven
    # cards, the seven of diamonds' outline among them (the ace of hearts alone before)
    name = "amm_WIN_20240627_12_09_29_Pro.jpg"
    frame = read_image(real_photo(name))
    assert frame_squash(locate(frame).cards(), ASPECT) < 1.0
    assert 1.2 < recognizer._probed_squash(frame, 1.0, [], []) < 1.8
    assert _cards("2H 7D 8H AH") <= _read_within(recognizer, name, "2H 4C 5C 7D 8H JH AH")


@pytest.mark.parametrize("squash", [0.75, 1.25])
def test_a_photographs_probed_squash_follows_the_photograph_stretched(
    recognizer: Recognizer, squash: float
) -> None:
    # the same webcam export stretched further: its probed squash is stretched with it,
    # within one step
    frame = read_image(real_photo("amm_WIN_20240627_12_09_29_Pro.jpg"))
    plain = recognizer._probed_squash(frame, 1.0, [], [])
    stretched = recognizer._probed_squash(_stretched(frame, squash), 1.0, [], [])
    assert squash / SQUASH_STEP < stretched / plain < squash * SQUASH_STEP


def test_a_club_blurred_into_a_spades_shape_must_stay_one_when_zoomed(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a webcam's eight of clubs, its one visible corner's club blurred into a spade's
    # shape: read as a spade at 1.05 of one corner's leads, but not from the index box
    # shrunk about the card's corner; it is left unknown, and nothing is read wrong
    name = "amm_WIN_20240627_17_12_14_Pro.jpg"
    assert len(_read_within(recognizer, name, "3S 4S 5S 5C 6S 7S 8C TS TC QS QC AS")) >= 6
    monkeypatch.setattr(recognizer_module, "ZOOM_AGREE", 0.0)
    assert Card.parse("8S") in set(_read(recognizer, name))


def test_a_faint_rank_by_a_cards_edge_on_a_dark_table_is_ink_against_a_narrower_neighbourhood(
    recognizer: Recognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a phone's seven of spades on black granite: its outline is lost in a glare beside
    # it, and its index lies by the card's edge, where a neighbourhood of an index's size
    # takes in the dark table: its mean falls to the faint seven's ink (2 pixels of it
    # found). Against a narrower neighbourhood the seven is ink, and the card is read; so
    # it is against the paper around it alone (the guesses beside cards' edges), and with
    # neither it is not
    name = "amm_IMG_20220921_194834.jpg"
    assert Card.parse("7S") in _read_within(recognizer, name, "7S 8D 9H QD")
    monkeypatch.setattr(recognizer_module, "INDEX_NARROW_BLOCK", 0.3)  # the index's own
    assert Card.parse("7S") in _read_within(recognizer, name, "7S 8D 9H QD")
    monkeypatch.setattr(recognizer_module, "beside_edges_hypotheses", lambda *_, **__: [])
    assert Card.parse("7S") not in set(_read(recognizer, name))
