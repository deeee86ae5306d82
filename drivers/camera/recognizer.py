"""The pure card recognizer: one BGR frame in, the cards on it (code, confidence, corners, zone)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache, lru_cache, partial
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from config.camera import ZoneLayout
from controller.cards import STANDARD_52, Card, Deck, Rank, Suit
from drivers.camera.classifier import GlyphClassifier, Verdict
from drivers.camera.glyphs import (
    PIP_BOX,
    SUIT_SIZE,
    IndexGlyphs,
    Pips,
    pip_count,
    read_pips,
    split_index,
)
from drivers.camera.profile import DEFAULT_INDEX_BOX, Profile, builtin_profile
from drivers.camera.reader import (
    NO_INDEX,
    RANK_LEAD,
    RED_INK,
    SUIT_LEAD,
    CornerRead,
    IndexReader,
    has_colour,
    load_index_reader,
    percentile_u8,
    with_ink,
)

__all__ = [
    "CANONICAL_WIDTH",
    "CROSS_CHECK_SIDE",
    "DETECTION_SIZE",
    "FULL_EVIDENCE_SIDE",
    "FULL_RED_SUIT_SIDE",
    "FULL_SUIT_SIDE",
    "INDEX_PIPS_CHECKED",
    "INDEX_RANK_AT",
    "INDEX_STEP",
    "LEARNED_LOOSE",
    "LEARNED_MIN_SIDE",
    "LEARNED_STRONG",
    "LEARNED_WIDE",
    "LEARNED_ZOOM",
    "MAX_INDEX_PAIRS",
    "MAX_INDEX_TRIES",
    "MIN_CARD_SIDE",
    "MIN_PIP_SIDE",
    "MIN_RED_SUIT_SIDE",
    "MIN_SMALL_SUIT_SIDE",
    "MIN_SUIT_SIDE",
    "SINGLE_CORNER",
    "SMALL_SUIT_MARGIN",
    "SMALL_SUIT_SIDE",
    "FrameRecognition",
    "IndexInk",
    "IndexRead",
    "Located",
    "Quad",
    "Recognition",
    "Recognizer",
    "Status",
    "beside_edges_hypotheses",
    "canonical_size",
    "card_mask",
    "corner_hypotheses",
    "edge_shapes",
    "effective_size",
    "find_quads",
    "find_shapes",
    "frame_squash",
    "index_hypotheses",
    "index_ink",
    "index_patches",
    "locate",
    "measure_quads",
    "needed_margins",
    "paper_and_value",
    "patch_origin",
    "pip_patch",
    "refine_quads",
    "shows_ace",
    "shows_figure",
    "shows_print",
]

Image = NDArray[np.uint8]
Quad = NDArray[np.float32]  # 4 x 2 corners, clockwise on screen
Point = tuple[float, float]

#: width in pixels of the canonical card that corners are rectified to
CANONICAL_WIDTH = 120

#: a card whose shortest side is shorter than this (pixels) is never read: its index is too
#: small to tell clubs from spades, so it is reported as unknown
MIN_CARD_SIDE = 40.0

#: a card whose shortest side is shorter than this (pixels) must show proportionally larger
#: margins: its glyphs have fewer pixels, so the same margin is weaker evidence
FULL_EVIDENCE_SIDE = 90.0

#: below this effective size (pixels) a suit needs a steeply larger margin, and below
#: MIN_SUIT_SIDE none is read: see :func:`needed_margins`
FULL_SUIT_SIDE = 80.0
MIN_SUIT_SIDE = 70.0

#: pips (larger than the index's suit symbol) are held to the suit rule of an index suit
#: symbol of their own size, read down to this size (pixels): see :func:`needed_margins`
MIN_PIP_SIDE = 64.0

#: below this effective size (pixels) a red suit needs a larger margin
FULL_RED_SUIT_SIDE = 64.0

#: clubs and spades told by a profile's small-card suit discriminant need at least this
#: margin, steeply more below SMALL_SUIT_SIDE pixels, and are read down to
#: MIN_SMALL_SUIT_SIDE: see :func:`needed_margins`
SMALL_SUIT_MARGIN = 1.0
SMALL_SUIT_SIDE = 82.0
MIN_SMALL_SUIT_SIDE = 66.0

#: red suits (hearts or diamonds, the ink's colour read on both index corners) are told
#: apart down to this effective size (pixels): see :func:`needed_margins`
MIN_RED_SUIT_SIDE = 48.0

#: suit symbols a court card shows besides its index (one at each end of the figure); a
#: court card's suit is read from them as a number card's from its pips
COURT_SYMBOLS = 2

#: on cards of this many pips or more, pips printed close together may run into one blob
#: under blur, which is not read: up to CROWDED_SHORT fewer pips than the rank says are seen
CROWDED_PIPS = 7
CROWDED_SHORT = 2

#: an ace's pip, which may lie either way up, is read the way up in which it correlates
#: with a suit's mean pip at least this much, leading the other way by UPRIGHT_LEAD
UPRIGHT_PIP = 0.85
UPRIGHT_LEAD = 0.1

#: a corner whose glyphs correlate less than this with every class holds no index at all
NOT_AN_INDEX = 0.3

#: how many times the profile's margin a card read from one index corner alone must show
SINGLE_CORNER = 2.0

#: the learned index reader (:mod:`drivers.camera.reader`) reads cards from this effective
#: size (pixels) on: below it the profile's small-card rules alone decide (a suit symbol
#: there has too few pixels to tell clubs from spades safely: at 70, the convolutional
#: reader read two more real cards, and a rendered five of clubs as the five of spades)
LEARNED_MIN_SIDE = 80.0
#: the same for a card guessed around an index corner found by its ink
#: (:func:`index_hypotheses`): its rank and suit were seen as two separate glyphs of an
#: index's proportions, and on the standard decks 65 reads 12 cards more than 80 (fans on
#: webcam frames), none wrong; rendered frames keep 0 wrong. At 55 the standard decks read
#: 4 cards more, none wrong, but a small rendered seven of spades, tilted, was read as a
#: club (``test_small_tilted_cards_are_never_read_wrong``)
INDEX_MIN_SIDE = 65.0
#: a club or a spade is read from one index corner of a card guessed around it only from
#: this effective size (pixels) on, the size the profile's glyphs need to read a suit at
#: all: with guesses read down to 65 pixels (and ink looked for on paper half as light as
#: the frame's lightest), 30,720 small rendered cards, tilted, had four spades of 65 to 70
#: pixels read as clubs with up to 1.34 times the leads; from 70 on none. On the standard
#: decks it costs 3 of 665 cards (68 pixels, 1)
INDEX_BLACK_SIDE = MIN_SUIT_SIDE

#: the learned reader reads a loose outline (one that may hold two cards, or whose edges
#: could not all be measured) with this many times its leads: its two index corners must
#: still name one card, which two different cards' corners cannot
LEARNED_LOOSE = 1.5

#: two corners that name the same card, one with less than the leads, settle it when the
#: other shows this many times the leads (on real photographs the first card read wrong
#: this way came at 1.35 times)
LEARNED_STRONG = 2.0

#: a card the learned reader does not settle is read again from an index box shrunk to this
#: share of its size about the card's corner (a small index fills more of the network's
#: input), with the same leads
LEARNED_ZOOM = 0.85
#: and then from one enlarged to this share of its size (:func:`_zoomed`): a large
#: ("jumbo") index, as casino decks print it, fills the profile's box with its rank alone,
#: its suit below the box. Deck G's outlines (large indices in four corners) read the same
#: three cards more at any share from 1.4 to 1.7; the cards so read do not size the index
#: search (:meth:`Recognizer._read_indices`)
LEARNED_WIDE = 1.5

#: on a greyscale frame (no ink colour to say red or black) the learned reader settles a
#: card only on both corners of a pair naming it, each with this many times the leads: the
#: suit rests on its shape alone (at 1.5, the real photographs turned grey read a webcam's
#: eight of clubs as a spade; at 2, 33 cards fewer of them, none wrong, and of the 43
#: listed cards on frames photographed grey 12 where 13 were read)
LEARNED_GREY = 2.0

#: two corners naming the same number card (two to ten), one with the leads and the other
#: more faintly, settle it when the middle of the card shows exactly that many pips in ink
#: of the suit's colour (on real photographs, two of the three cards such corners alone
#: read wrong named another number of the same suit); an ace or a court card, when the
#: middle shows its kind (:func:`shows_ace`, :func:`shows_figure`). The fainter corner's
#: suit must still lead: the pips are counted, not told club from spade (a small rendered
#: three of spades whose corners led for clubs by 3.0 and 2.5 was read as clubs). On a
#: greyscale frame the pips are counted in any ink, under its stricter leads
#: (:data:`LEARNED_GREY`): all 318 photographs turned grey read 415 cards where 400 were,
#: none wrong; deck A's six of spades photographed grey is read (its corners led by 11.9
#: and 8.9 where 9 were needed)
LEARNED_PIPS = 1.0

#: one guessed index corner of a number card names its rank with this many times the
#: rank's lead (its suit still with :data:`LEARNED_SINGLE` times the suit's) where the
#: middle of its guessed card shows exactly its rank's pips (:meth:`Recognizer._counted_corner`)
COUNTED_RANK = 2.0

#: an ace's one pip is at least this share of the card's height (about twice the least an
#: index's suit symbol is printed at): two corners naming an ace, one with the leads and
#: the other more faintly, settle it when the middle shows one such pip alone, on the
#: middle row, in ink of the suit's colour
ACE_PIP_SHARE = 0.12
#: ... with other print in the middle adding up to no more than this share of the pip's
ACE_ALONE = 0.25

#: a court card's figure: the print of the card's middle (ink or colour) joined into one
#: piece spans at least this share of the middle's width and height ...
FIGURE_SPAN = 0.6
#: ... covers at least this share of the box it spans ...
FIGURE_FILL = 0.25
#: ... and at least this share of it is coloured other than red (the figure's blue,
#: yellow or green: a red number card's pips are red only)
FIGURE_COLOUR = 0.03

#: a pip is taken as at least about this share of the card's height (the least an index's
#: suit symbol is printed at on the decks measured): smaller print is no pip
PIP_SHARE = 0.06

#: the middle of a card whose pips confirm one clear corner: wider and taller than
#: :data:`~drivers.camera.glyphs.PIP_BOX`, as some decks (Bicycle's among them) print their
#: outer pips out to about a seventh of the card's width and height from its edges; a pip
#: cut by the box's edge is not counted, and an index corner's glyphs reach into the box
#: only across its edge
PIP_CHECK_BOX = (0.11, 0.05, 0.89, 0.95)

#: a card the learned reader reads must show at least this share of paper in its interior
#: (a card back's pattern shows less)
LEARNED_PAPER = 0.25

#: an outline whose index corners settle no card is a back only where less than this share
#: of its interior is paper (:func:`_whiteness`); otherwise it is a face left unknown. The
#: backs of the rendered accuracy mix show at most 0.005 (59 backs); each of the 6 outlines
#: of the 318 real photographs called backs at the earlier 0.25 (0.12 where an index was
#: glimpsed) was a face: German jacks, a gold ace on black (0.14 to 0.22). A face called a
#: back where the shoe dealt it face up halts the table (more backs than dealt); a back
#: left unknown only goes unconfirmed
BACK_PAPER = 0.05

#: the learned reader vetoes a built-in profile's read when one of its corners names
#: another card with this share of its own leads (on a card of CROSS_CHECK_SIDE or more) ...
DISSENT_LEAD = 1.8
#: ... or, at any size, when both its corners name one other rank with the rank's lead, or
#: one other suit with this share of the suit's lead: on the real layout photograph of
#: deck F scaled to 1000 to 2000 pixels wide (its cards 60 to 125 pixels), the built-in
#: glyphs read 5 of 101 cards wrong (spades as clubs, one of them with a confidence of
#: 0.97; an ace of clubs as a six), each where both learned corners named the card itself
#: (their suit leads 0.8 to 11); none since, and the rendered cards of the benchmark keep
#: 99.6 %. A rendered small card's two corners rarely agree on the wrong suit (at 0.2,
#: 1,033 of 1,037 rendered cards read where a corner alone with 0.5 times the lead
#: vetoing read 1,024)
AGREED_DISSENT = 0.2

#: what :meth:`Recognizer._classify` gives as the corners agreeing where the built-in
#: profile's read was refused by the learned reader (:meth:`Recognizer._learned_dissents`)
#: and the learned reader settled no card either: the outline is left unknown and its index
#: corners are not read again one by one (on small rendered cards the learned reader's one
#: corner then named a seven of spades a club with three times the leads)
CONTESTED = -1

#: a card the built-in profile reads, this size (effective, pixels) or more, is checked by
#: the learned index reader's corners one by one: see :meth:`Recognizer._learned_dissents`
CROSS_CHECK_SIDE = 100.0

#: a built-in profile's read whose rank and suit glyphs both match the profile's rendered
#: glyphs this closely (similarity, :class:`~drivers.camera.classifier.Verdict`) is print of
#: the profile's own kind and is not checked by the learned reader: on the real photographs
#: (as taken, scaled, blurred, brightened, darkened, compressed, noisy) no built-in read's
#: rank reached 0.84, and none the learned reader disputed reached 0.76; on the rendered
#: frames 85 % of the reads reach it (checking every read, one card at a time, had cost
#: the benchmark's rendered frame nearly half its time: ``benchmarks/recognizer.py``)
OWN_PRINT = 0.85

#: the built-in profile's glyphs read a frame's outlines beyond this many only where they
#: name a card on one of the first ones, or where the outline is too small for the learned
#: reader (:meth:`Recognizer._outline_glyphs`). On the rendered frames of the accuracy mix
#: they named a card on one of the first two outlines of every frame (94 % of all); on the
#: real photographs on 36 of 802 outlines, where reading them all took deck F's frame of
#: about 19 cards 9.5 ms of its 84 (now 5.4) and the layout of 52 cards 40 of its 250.
#: The standard decks read the same 818 cards as taken, one more greyed and one fewer
#: noised (a noisy eight of spades of deck A the glyphs had read)
GLYPHS_LOOK = 3

#: a frame shows print of the built-in profile's own kind (rendered glyphs) where one of
#: its outlines is read by them this closely (:data:`OWN_PRINT`): only then are its blobs of
#: overlapping cards searched corner by corner for a corner the glyphs settle alone
#: (:meth:`Recognizer._read_blobs`); elsewhere the learned reader's index search reads the
#: same corners. On the real photographs no frame's closest read reached 0.79 (searching
#: their blobs had read no card the index search did not), on the rendered frames of
#: overlapping cards every frame's reached 0.82 (the blobs read 25 cards more of 570)
FRAME_OWN_PRINT = 0.8

#: all of a deck's cards are one size: a card read on a frame whose long side is more than
#: this many times the median of the frame's other cards read (at least
#: :data:`DECK_SIZE_OTHERS` of them), or less than its inverse, is not one of them and is
#: reported unknown (:func:`_sized_like_the_deck`). Every right read of the real
#: photographs lay within 0.49 and 2.1 times its frame's median, as they are and in 13
#: altered forms (grey, noise, 0.6 of their size, blur, JPEG at 25, a warm and a cool
#: cast, dark, bright, a perspective, turned a quarter, a half and 20 degrees: 8,355 reads
#: beside at least two others); a light blanket's triangle between two cards, under a warm
#: cast, was read as an ace of clubs' index on a card guessed 3.2 times as long as the
#: others (3.6 on the frame brightened)
DECK_SIZE_SPREAD = 2.75
#: the least number of other cards read on a frame for their median to size its deck
DECK_SIZE_OTHERS = 2

#: frames are searched for card outlines shrunk by a whole factor to this size (longest side,
#: pixels) or less; the index corners are always read from the full-resolution frame
DETECTION_SIZE = 800


class Status(StrEnum):
    """What a detection is: a card read with confidence, an unreadable face, or a card back."""

    CARD = "card"
    UNKNOWN = "unknown"
    FACE_DOWN = "face_down"


@dataclass(frozen=True, slots=True)
class Recognition:
    """One card-shaped object on a frame and what it is."""

    status: Status
    card: Card | None  # set only when status is CARD
    confidence: float  # 0 … 1; 0 unless status is CARD
    corners: tuple[Point, Point, Point, Point]  # image pixels, clockwise
    zone: str | None

    @property
    def centre(self) -> Point:
        """The centre of the card in image pixels."""
        xs = [p[0] for p in self.corners]
        ys = [p[1] for p in self.corners]
        return sum(xs) / 4, sum(ys) / 4

    def to_json(self) -> dict[str, Any]:
        """The recognition as a JSON-ready dict (``card`` is null unless read)."""
        return {
            "card": self.card.code if self.card is not None else None,
            "status": self.status.value,
            "confidence": round(self.confidence, 3),
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "zone": self.zone,
        }


@dataclass(frozen=True, slots=True)
class FrameRecognition:
    """Everything recognised on one frame."""

    width: int
    height: int
    detections: tuple[Recognition, ...]

    @property
    def cards(self) -> tuple[Recognition, ...]:
        """The detections read as a card."""
        return tuple(d for d in self.detections if d.status is Status.CARD)

    @property
    def unknown(self) -> int:
        """How many face-up cards could not be read with confidence."""
        return sum(d.status is Status.UNKNOWN for d in self.detections)

    @property
    def face_down(self) -> int:
        """How many card backs are on the frame."""
        return sum(d.status is Status.FACE_DOWN for d in self.detections)

    def to_json(self) -> dict[str, Any]:
        """The frame's cards, unknown count and face-down backs as a JSON-ready dict."""
        return {
            "cards": [d.to_json() for d in self.cards],
            "unknown": self.unknown,
            "face_down": self.face_down,
            "face_down_cards": [
                {"corners": d.to_json()["corners"], "zone": d.zone}
                for d in self.detections
                if d.status is Status.FACE_DOWN
            ],
        }


class _GlyphVerdict(NamedTuple):
    """What the profile's glyphs make of one outline (:meth:`Recognizer._classify_glyphs`)."""

    status: Status
    card: Card | None = None
    confidence: float = 0.0
    agreeing: int = 0  # how many index corners agreed on the card
    fit: float = 0.0  # the weaker glyph similarity of the reads that named the card
    patches: list[Image] | None = None  # the pair of index corners that named the card
    # the pairs of index corners cut (by the first corner of each), and the whiteness
    # measured, where they were: the learned reader's look at the outline takes them as
    # they are (:meth:`Recognizer._read_learned`; cut again, they took 0.6 ms of deck F's
    # frame of 19 cards)
    shown: dict[int, list[Image]] | None = None
    whiteness: float | None = None


#: the learned reader's first look at an outline (:meth:`Recognizer._first_looks`): its
#: whiteness, and (where that shows paper) its first pair of index corners and their reads
_FirstLook = tuple[float, list[Image] | None, list[CornerRead] | None]


def _unread_glyphs(
    frame: Image, quad: NDArray[np.float64], shown: dict[int, list[Image]] | None = None
) -> _GlyphVerdict:
    """An outline whose index the profile's glyphs do not read (``shown``: the pairs of
    index corners they cut, if any): a back where next to no paper shows (no index read,
    or a back's pattern taken for one), otherwise a face not read (a face called a back
    halts a table)."""
    white = _whiteness(frame, quad)
    status = Status.FACE_DOWN if white < BACK_PAPER else Status.UNKNOWN
    return _GlyphVerdict(status, shown=shown, whiteness=white)


def _fit(read: IndexRead) -> float:
    """How closely the read's rank and suit glyphs match the profile's (the weaker)."""
    return min(read.rank.similarity, read.suit.similarity)


def _colour_of(frame: Image) -> Callable[[], bool]:
    """Whether ``frame`` shows colour (:func:`~drivers.camera.reader.has_colour`), measured
    once, when first asked: most frames never ask, and a frame whose outlines are left
    unknown asks for each."""
    return cache(partial(has_colour, frame))


def _dissenting(corner: CornerRead, card: Card) -> bool:
    """Whether one learned corner names another rank than ``card``'s with the rank's lead
    (or sees no index there with that lead: on deck F's layout squashed to 0.7 of its
    height, the cards nearly square, a two of spades' outline was turned a quarter and its
    corners showed the rendered glyphs a two of clubs, the learned reader no index), or
    ``card``'s rank in another suit with :data:`AGREED_DISSENT` times the suit's lead."""
    if corner.rank != int(card.rank):
        return corner.rank_lead >= RANK_LEAD
    return corner.suit != int(card.suit) and corner.suit_lead >= AGREED_DISSENT * SUIT_LEAD


def _clearly_agrees(corner: CornerRead, card: Card) -> bool:
    """Whether one learned corner names ``card`` itself with the rank's and the suit's
    leads."""
    return (
        corner.rank == int(card.rank)
        and corner.suit == int(card.suit)
        and corner.rank_lead >= RANK_LEAD
        and corner.suit_lead >= SUIT_LEAD
    )


def _dissent(corners: Sequence[CornerRead], card: Card, whole: bool, split: bool = True) -> bool:
    """Whether the learned reader's two corners of a card refuse the built-in profile's
    read ``card``: both name one other rank than its (or no index), each with the rank's
    lead, or both one other suit, each with :data:`AGREED_DISSENT` times the suit's lead
    (their rank the card's) (:func:`_dissenting`); or both name the card's rank, each with
    the rank's lead, in one other suit, one of them with that share of the suit's lead (on
    deck F's layout squashed to 0.7 of its height, a two of spades found whole by its
    border was read by the rendered glyphs as a two of clubs with a confidence of 0.87;
    both learned corners read the two of spades, their suit leads 4.4 and 0.2); or, on a
    card checked ``whole`` (of
    :data:`CROSS_CHECK_SIDE` pixels or more), either of them names another rank with
    :data:`DISSENT_LEAD` times the rank's lead, or another suit with that many times the
    suit's lead (its rank read at least with the rank's lead). One corner is enough there:
    a built-in profile's read of a loose outline rests on one corner too; and a king of
    clubs the rendered glyphs call a spade is refused on the suit alone, the rank being the
    same. Nor does a read stand whose two corners, both naming the card's rank with the
    rank's lead, ``split`` on the suit: one of them names another (with any lead), on a
    card large enough for the learned reader to read its suit (the caller says: from
    :data:`LEARNED_MIN_SIDE` on; on smaller rendered cards its corners split where the
    rendered glyphs read right)."""
    a, b = corners
    rank, suit = int(card.rank), int(card.suit)
    sure = _dissenting(a, card), _dissenting(b, card)
    if all(sure) and a.rank != rank and a.rank == b.rank:
        return True  # both corners name another rank
    # both name the card's rank in one other suit: each with the suit's share of the lead,
    # or one of them, both naming the rank with the rank's lead
    if (
        a.rank == rank == b.rank
        and a.suit == b.suit != suit
        and (all(sure) or (any(sure) and min(a.rank_lead, b.rank_lead) >= RANK_LEAD))
    ):
        return True
    # both name the card's rank with the rank's lead, and one of them another suit: the suit
    # is in doubt (deck F's real two of spades dealt 83 pixels wide on felt: the rendered
    # glyphs read a two of clubs in 5 of 40 deals, the learned corners one a spade, the
    # other a club, both with less than the suit's lead)
    if (
        split
        and a.rank == rank == b.rank
        and min(a.rank_lead, b.rank_lead) >= RANK_LEAD
        and (a.suit != suit or b.suit != suit)
    ):
        return True
    if not whole:
        return False
    for c in corners:
        if c.rank == NO_INDEX:
            continue
        if c.rank != rank and c.rank_lead >= DISSENT_LEAD * RANK_LEAD:
            return True
        if c.suit != suit and c.rank_lead >= RANK_LEAD and c.suit_lead >= DISSENT_LEAD * SUIT_LEAD:
            return True
    return False


@dataclass(frozen=True, slots=True)
class IndexRead:
    """What the visible index corners of one card say, and whether that is accepted."""

    card: Card
    rank: Verdict
    suit: Verdict
    colour_ok: bool
    corners: int  # how many index corners were read (1 or 2)
    dissent: float = 0.0  # the clearest lead of a corner that, read alone, names another card
    pair: int = 0  # the corners read: 0 and 2, or 1 and 3, of the card's outline
    suit_height: float = 0.0  # the suit symbols' height in the rectified corner, pixels
    small_suit: bool = False  # the suit was told by the profile's small-card discriminant

    @property
    def confidence(self) -> float:
        """The weaker of the rank and suit margins, clipped to 0 … 1."""
        return max(0.0, min(1.0, self.rank.margin, self.suit.margin))

    def accepted(
        self, profile: Profile, size: float = FULL_EVIDENCE_SIDE, factor: float = 1.0
    ) -> bool:
        """Whether the read clears the profile's thresholds for a card of ``size`` pixels
        (its :func:`effective_size`), and the colour agrees.

        Two opposite index corners read together need the profile's margin and similarity,
        and neither corner, read alone, may name another rank or suit with that margin. The
        margin needed grows as the card gets smaller (:func:`needed_margins`). One corner
        alone is one witness: it needs :data:`SINGLE_CORNER` times the margin and a
        glyph-like similarity of 0.6, because a corner cut short (the "1" of a "10" lost at
        the edge, a "6" losing its loop under a glare) can look like another glyph with a
        clear lead, which its opposite corner would have contradicted. ``factor`` multiplies
        the margins needed (a card outline that may hold two cards).
        """
        red = self.corners >= 2 and self.suit.label in _RED
        rank_need, suit_need = needed_margins(
            profile.min_margin, size, red=red, small_suit=self.small_suit
        )
        rank_need, suit_need = factor * rank_need, factor * suit_need
        if self.corners >= 2:
            similar = profile.min_similarity
            if self.dissent >= rank_need:
                return False
        else:
            rank_need, suit_need = SINGLE_CORNER * rank_need, SINGLE_CORNER * suit_need
            similar = max(0.6, profile.min_similarity)
        return (
            self.colour_ok
            and self.rank.margin >= rank_need
            and self.suit.margin >= suit_need
            and self.rank.similarity >= similar
            and self.suit.similarity >= similar
        )


_ROLL = [np.array([(i + k) % 4 for i in range(4)]) for k in range(4)]  # corner k first


def _sides(quad: NDArray[np.float64]) -> NDArray[np.float64]:
    """Side lengths: side i runs from corner i - 1 to corner i.

    Worked out on Python's floats (the same operations, so the same figures as NumPy's on
    float64 corners): a frame asks for them dozens of times, and NumPy's operations on four
    points cost more in calling than in arithmetic."""
    return np.array(_side_lengths(quad.tolist()))


def _side_lengths(points: list[list[float]]) -> tuple[float, float, float, float]:
    """:func:`_sides` of four corners given as Python's floats."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
    return (
        math.sqrt((x0 - x3) * (x0 - x3) + (y0 - y3) * (y0 - y3)),
        math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)),
        math.sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1)),
        math.sqrt((x3 - x2) * (x3 - x2) + (y3 - y2) * (y3 - y2)),
    )


def effective_size(quad: NDArray[np.float64], aspect: float) -> float:
    """The width in pixels of a card seen square-on at the resolution of its worse direction.

    An oblique view foreshortens one direction of the card: an index glyph then has fewer
    pixels down than across, and the fewer count.
    """
    sides = _side_lengths(quad.tolist())  # as :func:`_sides`, 3 microseconds where it took 5.5
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return min(min(a, b), max(a, b) * aspect)


def needed_margins(
    min_margin: float,
    size: float,
    *,
    red: bool = False,
    small_suit: bool = False,
    pips: bool = False,
) -> tuple[float, float]:
    """The rank and suit margins a two-corner read needs on a card of ``size`` pixels.

    Below :data:`FULL_EVIDENCE_SIDE` pixels both grow as 90 / size: fewer pixels are weaker
    evidence. A suit symbol is the index's smallest glyph, and clubs and spades differ in a
    few of its pixels: below :data:`FULL_SUIT_SIDE` the suit's margin grows with the fourth
    power of the shortfall, and below :data:`MIN_SUIT_SIDE` no suit is read at all (studies
    of small, tilted, blurred cards found clubs read as spades with margins over 2 below 60
    pixels, and up to 1.46 times this rule's margin between 64 and 70 pixels: none came
    within 1.85 times of it from 70 pixels on). ``pips``: the suit of a card's pips, of
    the size given, read under the same rule down to :data:`MIN_PIP_SIDE`.

    ``red``: the suit of a two-corner read whose ink both corners show red, a heart or a
    diamond. Those two shapes differ in many pixels (a notch and round lobes against four
    straight sides): from 40 pixels on, 43,500 two-corner reads of small red cards named
    the other red suit 40 times, never with more than 0.42 of what this rule asks. From
    :data:`FULL_RED_SUIT_SIDE` on the suit needs the rank's margin; below it the square of
    the shortfall more, and below :data:`MIN_RED_SUIT_SIDE` none is read.

    ``small_suit``: clubs or spades told by the profile's small-card discriminant (two black
    corners of a card under :data:`FULL_SUIT_SIDE` pixels). Its suit must reach the class's
    own mean (:data:`SMALL_SUIT_MARGIN`) and grow below :data:`SMALL_SUIT_SIDE` pixels as
    the fourth power of the shortfall, down to :data:`MIN_SMALL_SUIT_SIDE`: in 35,800
    two-corner reads of small, tilted black cards no wrong suit came within 1.9 times of
    that from 66 pixels on (a club at 65 pixels read as a spade reached 1.16 times it).
    """
    rank = min_margin * max(1.0, FULL_EVIDENCE_SIDE / size)
    if red:
        if size < MIN_RED_SUIT_SIDE:
            return rank, math.inf
        return rank, rank * max(1.0, FULL_RED_SUIT_SIDE / size) ** 2
    if small_suit:
        if size < MIN_SMALL_SUIT_SIDE:
            return rank, math.inf
        suit = rank * max(1.0, SMALL_SUIT_SIDE / size) ** 4
        return rank, max(SMALL_SUIT_MARGIN, suit)
    if size < (MIN_PIP_SIDE if pips else MIN_SUIT_SIDE):
        return rank, math.inf
    return rank, rank * max(1.0, FULL_SUIT_SIDE / size) ** 4


def card_mask(frame: Image) -> Image:
    """Pixels that may belong to a card face or a white card border, as a 0/255 mask.

    Paper is unsaturated and brighter than the surrounding table; the table's own brightness
    and saturation are estimated by a coarse median, so any felt colour, wood and uneven
    light work. Thin printed lines and specks are removed by a morphological opening.
    """
    return paper_and_value(frame)[0]


#: smooth areas at least this saturated (HSV, 0-255) covering TINTED_SHARE of the frame are
#: a tinted table; paper on it is less than PAPER_TINT as saturated
TINTED_TABLE = 30
TINTED_SHARE = 0.15
PAPER_TINT = 0.35

#: where the table's typical saturation (the median over a wide window) exceeds 80 on at
#: least this share of the frame (a blue mat, felt), unsaturated lit pixels within a third
#: of the frame's shorter side of it are paper: cards crowding the window (deck E's six
#: cards on a blue mat) make its median paper's, and the paper test left blocky holes in
#: them; on deck E 9 more cards read (0.4 to 0.6 alike; with no share at all, the green
#: board beside deck C's light desk made the desk paper)
COLOURED_SHARE = 0.5


def paper_and_value(frame: Image) -> tuple[Image, Image]:
    """:func:`card_mask` and the frame's brightness (the HSV value) it was made from."""
    mask, value, _ = _paper_value_sat(frame)
    return mask, value


#: paper is unsaturated: its HSV saturation at most this (the paper test's and the edge
#: search's, and :func:`_paper_share`'s)
PAPER_SATURATION = 70
#: the edge search's paper is lit: its HSV value above this (and :func:`_paper_share`'s)
PAPER_VALUE = 90


def _paper_value_sat(frame: Image) -> tuple[Image, Image, Image]:
    """:func:`paper_and_value`, and its unsaturated pixels (HSV saturation at most
    :data:`PAPER_SATURATION`, as a 0/255 mask), which :func:`edge_shapes` asks for too."""
    h, w = frame.shape[:2]
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    # contiguous planes: OpenCV copied each strided one it was given (0.3 ms a frame)
    _, s, v = cv2.split(hsv)
    f = 8
    # the two planes used shrunk apart (the same pixels as the three shrunk together, the
    # hue's left out: 0.1 ms a rendered frame)
    shrunk = (max(1, w // f), max(1, h // f))
    small_s = np.asarray(cv2.resize(s, shrunk, interpolation=cv2.INTER_AREA), np.uint8)
    small_v = np.asarray(cv2.resize(v, shrunk, interpolation=cv2.INTER_AREA), np.uint8)
    k = max(3, (min(small_v.shape[:2]) // 2) | 1)
    # the table around each pixel: its typical brightness and saturation (the median over a
    # wide window, or over the whole frame where cards crowd the window)
    table_s = cv2.medianBlur(small_s, min(k, 31))
    coloured = (table_s > 80).astype(np.uint8) * 255
    if cv2.countNonZero(coloured) >= COLOURED_SHARE * coloured.size:
        # a coloured cloth under most of the frame: cards crowding the window there are
        # still on it (within a third of the frame's shorter side)
        reach = max(3, min(small_v.shape[:2]) // 3 | 1)
        coloured = np.asarray(cv2.dilate(coloured, np.ones((reach, reach), np.uint8)), np.uint8)
    low_sat = cv2.threshold(s, PAPER_SATURATION, 255, cv2.THRESH_BINARY_INV)[1]
    # paper is lit: brighter than 70, or than half the frame's brightest in a frame taken
    # in dim light (a card on a black cloth, all of it under 62)
    lit_level = min(70.0, LIT_SHARE * percentile_u8(small_v, 99))
    lit = cv2.threshold(v, lit_level, 255, cv2.THRESH_BINARY)[1]
    mask = cv2.bitwise_and(low_sat, lit)
    # paper is brighter than the table round it, or on a coloured table; where that table
    # lies under the whole frame (felt) every pixel passes and the test is not made (on the
    # rendered frame, this function in 1.7 ms where it took 2.6)
    coloured_count = cv2.countNonZero(coloured)
    if coloured_count < coloured.size:
        table_v = np.minimum(cv2.medianBlur(small_v, min(k, 31)), np.median(small_v))
        brighter_than = cv2.resize(
            np.clip(table_v.astype(np.float32) * 1.25 + 20, 0, 255).astype(np.uint8),
            (w, h),
            interpolation=cv2.INTER_LINEAR,
        )
        bright = cv2.compare(v, brighter_than, cv2.CMP_GT)
        if coloured_count:  # (no coloured table at all adds nothing: 0.1 ms a frame)
            coloured_table = cv2.resize(coloured, (w, h), interpolation=cv2.INTER_NEAREST)
            bright = cv2.bitwise_or(bright, coloured_table)
        # on a tinted table (light wood, a beige cloth: too pale for ``coloured_table``)
        # paper is told by its lack of colour even where it is no brighter than the table (a
        # shaded card): near smooth areas TINTED_TABLE to 80 saturated (within a third of
        # the frame's shorter side), paper is less than PAPER_TINT as saturated as the most
        # saturated
        smooth_s = cv2.medianBlur(small_s, 5)
        tinted = cv2.inRange(smooth_s, TINTED_TABLE, 80)
        if cv2.countNonZero(tinted) >= TINTED_SHARE * smooth_s.size:
            reach = max(3, min(smooth_s.shape) // 3 | 1)
            tint = cv2.dilate(cv2.bitwise_and(smooth_s, tinted), np.ones((reach, reach), np.uint8))
            limit = cv2.resize(
                (tint * PAPER_TINT).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR
            )
            bright = cv2.bitwise_or(bright, cv2.compare(s, limit, cv2.CMP_LT))
        mask = cv2.bitwise_and(mask, bright)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    return np.asarray(mask, np.uint8), np.asarray(v, np.uint8), np.asarray(low_sat, np.uint8)


_SQUARE = np.ones((3, 3), np.uint8)
#: paper is at least this share of the frame's brightest (or 70 of 255)
LIT_SHARE = 0.5

#: Canny's hysteresis thresholds for the edges that bound paper on a table as light as it
EDGE_LOW, EDGE_HIGH = 20, 50


def _pixels(coords: NDArray[np.float64], size: int) -> NDArray[np.intp]:
    """Coordinates rounded to whole pixels (halves to even) and kept within 0 to ``size``
    less 1, to index an image by: NumPy's ``clip`` took 18 microseconds a call on a few
    dozen points, its ``maximum`` and ``minimum`` 8 (the same values)."""
    return np.minimum(np.maximum(np.round(coords).astype(np.intp), 0), size - 1)


def _pixel_points(points: NDArray[np.float64], w: int, h: int) -> NDArray[np.intp]:
    """Points (..., 2) rounded and kept within a ``w`` by ``h`` image as :func:`_pixels`
    does each coordinate, x and y together (one call of each, not two)."""
    return np.minimum(np.maximum(np.round(points).astype(np.intp), 0), (w - 1, h - 1))


def _may_hold(n: int, min_area: float) -> bool:
    """Whether an outline of ``n`` pixels may enclose ``min_area``: each pixel is a step of
    at most √2 from the last, so it runs at most n√2 round, and its hull, no longer, holds
    at most (n√2)² / 4π < n² / 6 (the isoperimetric inequality). A short outline is too
    small without measuring it or its hull (most of a frame's specks and curves)."""
    return n * n >= 6 * min_area


def edge_quads(
    frame: Image,
    *,
    min_area: float,
    min_side: float = 10.0,
    known: Sequence[NDArray[np.float64] | NDArray[np.int32]] = (),
) -> list[NDArray[np.float64]]:
    """Card-shaped quadrilaterals outlined by brightness edges, for a table as light as
    paper (light wood, a white desk), where paper is not brighter than the table but its
    outline is still an edge.

    Edges are Canny's on the lightly blurred grey frame, thickened by a pixel. Three kinds of
    candidates: the regions the edges enclose (a card's face, its pips holes in it), the
    convex hull of each connected run of edges (a card's outline with a gap where its edge
    is faint), and the convex hull of each stretch of paper (a court card's white border,
    :func:`edge_shapes`). Each candidate's quadrilateral must run along edges on all four sides
    (:data:`EDGE_SUPPORT` of each side; each side is first fitted to its own outline
    points), hold mostly lit, unsaturated paper, lie clear of the frame's border and fill at
    most 95 % of the frame (a card photographed close). The edges inside the ``known``
    outlines (cards already found) are not looked at.
    """
    return edge_shapes(frame, min_area=min_area, min_side=min_side, known=known)[0]


#: straight segments at least this share of the frame's shorter side, found on the grey frame
#: with its contrast equalised locally, close the faint edges where a card lies on another
#: (white on white); each is drawn longer by SEGMENT_REACH of that side at both ends
SEGMENT_LENGTH = 0.03
SEGMENT_REACH = 0.02
#: segments are looked for at half the size on a frame whose shorter side is at least this
SEGMENT_HALVE = 300


def _segments(grey: Image, windows: Sequence[_Window] | None = None) -> NDArray[np.float32]:
    """Straight segments (x0, y0, x1, y1) of the grey frame (OpenCV's line segment
    detector on the frame with its contrast equalised locally, CLAHE), long enough to be
    part of a card's edge, each drawn longer at both ends to bridge the gap a corner
    leaves. ``windows``: only those parts of the frame are looked at (the contrast still
    equalised over the whole frame)."""
    h, w = grey.shape[:2]
    half = min(w, h) >= SEGMENT_HALVE  # a card's edge is long enough at half the size
    look = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA) if half else grey
    equal = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(look)
    if not half:
        equal = cv2.GaussianBlur(equal, (3, 3), 0)
    k = 2 if half else 1
    detector = cv2.createLineSegmentDetector()
    runs = []
    for x0, y0, x1, y1 in windows if windows is not None else [(0, 0, w, h)]:
        a, b = x0 // k, y0 // k
        found: Any = detector.detect(equal[b : -(-y1 // k), a : -(-x1 // k)])[0]
        if found is not None:
            runs.append(
                np.asarray(found, np.float32).reshape(-1, 4) + np.array([a, b, a, b], np.float32)
            )
    if not runs:
        return np.zeros((0, 4), np.float32)
    lines = np.vstack(runs)
    if half:
        lines = (lines + 0.5) * 2 - 0.5
    step = lines[:, 2:] - lines[:, :2]
    length = np.hypot(step[:, 0], step[:, 1])
    keep = length >= SEGMENT_LENGTH * min(w, h)
    lines, step, length = lines[keep], step[keep], length[keep]
    reach = (SEGMENT_REACH * min(w, h) / length)[:, None] * step
    return np.hstack([lines[:, :2] - reach, lines[:, 2:] + reach]).astype(np.float32)


#: a stretch of paper enclosed by edges that is no whole card (a card partly under another)
#: is kept as a blob when its rotated bounding box is at least this share as wide as long
PART_ASPECT = 0.15

#: a region enclosed by edges and the frame's border is a card the frame cuts when it covers
#: at most this share of the frame (larger ones are the table)
BORDER_PART = 0.15

#: a stretch of paper enclosed by edges is part of a card when its area is at least
#: PART_SHARE of the typical card's found whole and at most MAX_PARTS cards' area
PART_SHARE = 0.15
MAX_PARTS = 6


def edge_shapes(
    frame: Image,
    *,
    min_area: float,
    min_side: float = 10.0,
    known: Sequence[NDArray[np.float64] | NDArray[np.int32]] = (),
    planes: tuple[Image, Image] | None = None,
    edges: Image | None = None,
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.int32]]]:
    """:func:`edge_quads`, and the outlines of the stretches of paper that the edges
    enclose but that are no whole card: the visible parts of cards lying partly under
    others or an object (each read corner by corner, or left unknown).

    Cards are looked for twice: by Canny's edges alone (and by the stretches of lit,
    unsaturated paper, each a card where edges outline it all round and paper rings its
    inside, as a court card's white border does: on light wood the table's grain joins a
    court card's edges to the next card's, and its figure's edges cut its border into
    pieces), then, outside the cards found, by those edges and the straight segments of
    :func:`_segments`, which close the faint edge of a white card lying on another (white
    on white). The stretches of paper are those of the second look that hold no card found
    whole. ``planes``, where given, are the frame's unsaturated pixels and its HSV value
    as :func:`_paper_value_sat` found them (not converted again: 2 ms a light table's
    frame); ``edges``, where given, the frame's :func:`canny_edges` (left unchanged)."""
    grey = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    edges = canny_edges(grey) if edges is None else edges.copy()
    if planes is None:
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        low_sat = cv2.threshold(hsv[:, :, 1], PAPER_SATURATION, 255, cv2.THRESH_BINARY_INV)[1]
        value = hsv[:, :, 2]
    else:
        low_sat, value = planes
    paper = np.asarray(
        cv2.bitwise_and(low_sat, cv2.threshold(value, PAPER_VALUE, 255, cv2.THRESH_BINARY)[1]),
        np.uint8,
    )
    found, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    blobs = [np.asarray(c, np.int32) for c in found]
    out, _ = _edge_look(edges.copy(), paper, known, min_area, min_side, blobs)
    # the second look only where paper lies outside every card known or found
    # (:func:`_unexplained`): on deck F's rows of 21 cards, a quarter of the frame
    cards = [*known, *out]
    windows = _unexplained(paper, cards, min_area)
    # all the segments drawn in one call: the same pixels as one ``cv2.line`` each (both
    # round halves to even), 0.3 ms where a loop over 400 segments took 6
    segments = np.round(_segments(grey, windows)).astype(np.int32).reshape(-1, 2, 2)
    cv2.polylines(edges, list(segments), False, 255, 1)
    regions = []
    for window in windows:  # the windows do not overlap: each looks past the same cards
        more, found_regions = _edge_look(edges, paper, cards, min_area, min_side, window=window)
        out += more
        regions += found_regions
    parts = []
    for rim in regions:
        (cx, cy), (a, b), _ = cv2.minAreaRect(rim)
        if min(a, b) < max(PART_ASPECT * max(a, b), min_side / 2):
            continue
        if any(cv2.pointPolygonTest(q.astype(np.float32), (cx, cy), False) >= 0 for q in out):
            continue  # a card found whole
        if shows_print(grey, rim):
            parts.append(rim)
    return out, parts


def canny_edges(grey: Image) -> Image:
    """Canny's edges of the lightly blurred grey frame, as the light table's edge search
    (:func:`edge_shapes`) takes them."""
    return np.asarray(cv2.Canny(cv2.GaussianBlur(grey, (5, 5), 0), EDGE_LOW, EDGE_HIGH), np.uint8)


#: a stretch of paper shows print (an index, a pip) where at least PART_INK of it (its holes
#: filled) is darker than its typical brightness by INK_DROP
PART_INK = 0.005
INK_DROP = 40


def shows_print(grey: Image, rim: NDArray[np.int32]) -> bool:
    """Whether the region within the outline shows print: a stretch of table that edges
    happen to enclose (a texture, a shadow) shows none."""
    x, y, bw, bh = cv2.boundingRect(rim)
    inside = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(inside, [rim - np.array([x, y], np.int32)], -1, 255, -1)
    levels = grey[y : y + bh, x : x + bw][inside > 0]
    if levels.size == 0:
        return False
    dark = np.count_nonzero(levels < float(np.median(levels)) - INK_DROP)
    return bool(dark >= PART_INK * levels.size)


#: a quadrilateral looked at by :func:`_edge_look`: its corners, the outline points its
#: sides are fitted to, and whether it came from a stretch of paper (not from edges)
_Candidate = tuple[NDArray[np.float64], NDArray[np.float64] | NDArray[np.int32], bool]


def _edge_look(
    edges: Image,
    paper: Image,
    known: Sequence[NDArray[np.float64] | NDArray[np.int32]],
    min_area: float,
    min_side: float,
    blobs: Sequence[NDArray[np.int32]] = (),
    window: _Window | None = None,
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.int32]]]:
    """One look of :func:`edge_shapes` at an edge map (changed in place: the edges inside
    the ``known`` outlines are dropped): the card quadrilaterals, and the outlines of the
    regions the edges enclose that are mostly paper and centred on no known card. The
    hulls of ``blobs`` (stretches of paper) are candidates too, held to
    :func:`_edge_card`'s test of a court card alone.

    ``window`` (x0, y0, x1, y1): only that part of the frame is looked at. A region or a
    run of edges that reaches one of its sides inside the frame is cut by it, and is no
    candidate (a card lies wholly inside the window that its paper gives it)."""
    full_h, full_w = edges.shape[:2]
    x0, y0, x1, y1 = window if window is not None else (0, 0, full_w, full_h)
    shift = np.array([x0, y0], np.int32)
    edges, paper = edges[y0:y1, x0:x1], paper[y0:y1, x0:x1]  # views: ``edges`` still changed
    if window is not None:
        blobs = [np.asarray(b - shift, np.int32) for b in blobs]
    h, w = edges.shape[:2]
    # the sides of the window that lie inside the frame (left, top, right, bottom)
    cut = (x0 > 0, y0 > 0, x1 < full_w, y1 < full_h)
    done = np.zeros((h, w), np.uint8)
    if known:
        for outline in known:
            rim = np.round(outline).astype(np.int32).reshape(-1, 1, 2) - shift
            cv2.fillPoly(done, [rim], 255)
        done = np.asarray(cv2.dilate(done, _SQUARE, iterations=2), np.uint8)
        edges[done > 0] = 0
    thick = cv2.dilate(edges, _SQUARE)
    # hull, outline, and whether it is a stretch of paper's (not the edges')
    # (the outline's own whole pixels: :func:`_refine` converts the few it uses)
    hulls: list[_Candidate] = []
    regions: list[NDArray[np.int32]] = []  # the enclosed stretches of paper

    def fresh(hull: NDArray[np.float64]) -> bool:  # not centred on a card already found
        # the mean as ``np.mean`` works it out (the sum, divided), rounded and clipped by
        # Python's numbers (both round halves to even): 5 microseconds a hull where NumPy's
        # mean, round and clip took 24, a tenth of a look on a knitted blanket's frame
        mx, my = (hull.sum(axis=0) / len(hull)).tolist()
        return not done[min(max(round(my), 0), h - 1), min(max(round(mx), 0), w - 1)]

    free = np.asarray(cv2.bitwise_not(thick), np.uint8)  # the pixels off the edges
    labels, enclosed = _components(free, min_area, 0.95 * full_w * full_h)
    for i, x, y, bw, bh, size in enclosed:
        reach = _sides_reached((x, y, bw, bh), w, h)
        if _cut_by(reach, cut):
            continue  # cut by the window
        border = any(reach)
        if border and size > BORDER_PART * full_w * full_h:
            continue  # the table round the cards
        region = np.asarray(labels[y : y + bh, x : x + bw] == i, np.uint8)
        found, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if found:
            rim = np.asarray(max(found, key=cv2.contourArea) + np.array([x, y], np.int32))
            shell = np.asarray(cv2.convexHull(rim), np.float64).reshape(-1, 2)
            if not border:  # a card cut by the frame's edge is read corner by corner
                hulls.append((shell, np.asarray(rim, np.int32).reshape(-1, 2), False))
            lit = cv2.countNonZero(cv2.bitwise_and(region, paper[y : y + bh, x : x + bw]))
            if lit >= EDGE_PAPER * size and fresh(shell):
                regions.append(np.asarray(rim, np.int32).reshape(-1, 1, 2))
    curves, _ = cv2.findContours(thick, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    # the hulls of the paper's own stretches too (``blobs``): a court card on a table as
    # light as it, whose white border the figure's edges cut into pieces, and whose
    # outline the table's grain joins to the next card's
    for k, curve in enumerate([*curves, *blobs]):
        if not _may_hold(len(curve), min_area):  # most of a light table's curves, 0.5 ms a frame
            continue
        if (
            window is not None
            and k < len(curves)
            and _cut_by(_sides_reached(cv2.boundingRect(curve), w, h), cut)
        ):
            continue  # cut by the window
        wrap = cv2.convexHull(curve)
        if min_area <= cv2.contourArea(wrap) <= 0.95 * full_w * full_h:
            hulls.append(
                (
                    np.asarray(wrap, np.float64).reshape(-1, 2),
                    np.asarray(curve, np.int32).reshape(-1, 2),
                    k >= len(curves),
                )
            )
    near = np.asarray(cv2.dilate(edges, np.ones((5, 5), np.uint8)), np.uint8)

    # the hulls' four longest edges first; then, where those do not run along the edges (a
    # rounded corner can tilt a hull's edge), each side fitted to its own outline points.
    # A quadrilateral from a stretch of paper is a card only as a court card is
    # (:func:`_edge_card`, ``framed``): edges and paper find no card that neither finds alone
    first: list[_Candidate] = [
        (_order(q), points, paper_only)
        for hull, points, paper_only in hulls
        if fresh(hull) and (q := _hull_quad(hull)) is not None
    ]
    second: list[_Candidate] = []
    out: list[NDArray[np.float64]] = []
    # each card found's centre and shortest side, as each later candidate asks of them (on
    # the whole layout's frame 470 pairs a look, each worked out afresh took 6 ms a frame)
    sizes: list[tuple[NDArray[np.float64], np.float64]] = []
    third: list[_Candidate] = []
    # the first look's quadrilaterals that refitting left as they were (the same array): the
    # second look refuses them again without asking (on the webcam's frames, half of them)
    refused: set[int] = set()
    for quads in (first, second, third):
        for quad, points, paper_only in quads:
            if id(quad) in refused or not _edge_card(
                quad, near, paper, min_area, min_side, framed=paper_only
            ):
                if quads is first:
                    refined = _refine(quad, points)
                    if refined is quad:
                        refused.add(id(quad))
                    second.append((refined, points, paper_only))
                elif (
                    quads is second
                    and _card_like(quad, near.shape, min_area, min_side)
                    and (snapped := _snap(quad, edges)) is not None
                ):
                    third.append((snapped, points, paper_only))
                continue
            centre, size = quad.mean(axis=0), _sides(quad).min()
            if any(np.hypot(*(m - centre)) < 0.2 * min(size, s) for m, s in sizes):
                continue  # the same card twice (its region and its outline)
            out.append(quad)
            sizes.append((centre, size))
    if window is None:
        return out, regions
    return [q + shift for q in out], [r + shift for r in regions]


def _components(
    free: Image, least: float, most: float
) -> tuple[NDArray[np.int32], list[tuple[int, int, int, int, int, int]]]:
    """The 4-connected components of a 0/255 image (OpenCV's labels, the zero pixels label
    0), and, in label order, those of an area from ``least`` to ``most`` pixels: each one's
    label, bounding box (x, y, width, height) and area, as OpenCV's statistics give them.

    The areas and boxes come from the labels' runs along the rows (whole numbers, so the
    same figures): on a crowded photograph's frame OpenCV's labels with its statistics took
    3.7 ms, the labels alone 1.2 and their runs 1.4 more (on the 34 crowded photographs,
    2.2 ms a frame less)."""
    n, found = cv2.connectedComponents(free, connectivity=4)
    labels = np.asarray(found, np.int32)
    h, w = labels.shape[:2]
    change = np.empty((h, w), np.bool_)  # where a run starts: a row's start, a new label
    change[:, 0] = True
    np.not_equal(labels[:, 1:], labels[:, :-1], out=change[:, 1:])
    starts = np.flatnonzero(change)
    runs = np.diff(starts, append=h * w)
    label = labels.ravel()[starts]
    area = np.bincount(label, weights=runs, minlength=n).astype(np.int64)
    wanted = np.flatnonzero((area >= least) & (area <= most))
    if not len(wanted):
        return labels, []
    pick = np.zeros(n, np.bool_)
    pick[wanted] = True
    taken = pick[label]
    label, starts, runs = label[taken], starts[taken], runs[taken]
    y = starts // w
    x = starts - y * w
    box = np.empty((4, n), np.int64)
    box[0], box[1], box[2], box[3] = w, h, -1, -1
    np.minimum.at(box[0], label, x)
    np.minimum.at(box[1], label, y)
    np.maximum.at(box[2], label, x + runs - 1)
    np.maximum.at(box[3], label, y)
    x0, y0, x1, y1 = box[:, wanted]
    table = np.stack([wanted, x0, y0, x1 - x0 + 1, y1 - y0 + 1, area[wanted]], axis=1)
    return labels, [(i, x, y, bw, bh, size) for i, x, y, bw, bh, size in table.tolist()]


#: a part of the frame (x0, y0, x1, y1: the first column and row in it, the first beyond)
_Window = tuple[int, int, int, int]

#: the paper outside every card known or found is looked at again (:func:`_unexplained`)
#: in windows round each stretch of it of at least UNEXPLAINED_SHARE of the least card's
#: area, widened by UNEXPLAINED_MARGIN of the frame's shorter side on each side; where
#: the windows cover UNEXPLAINED_WHOLE of the frame or more, or there are more than
#: UNEXPLAINED_MOST stretches, the whole frame is (a light table's grain left up to 733
#: stretches on a photograph, and merging their windows took 45 ms; of the 32 photographs
#: with more than 32, the windows of 30 covered the whole frame anyway)
UNEXPLAINED_SHARE = 0.05
UNEXPLAINED_MARGIN = 0.05
UNEXPLAINED_WHOLE = 0.6
UNEXPLAINED_MOST = 32


def _unexplained(
    paper: Image, cards: Sequence[NDArray[np.float64] | NDArray[np.int32]], min_area: float
) -> list[_Window]:
    """The windows of the frame where paper lies outside every one of ``cards`` (opened by
    a 5-pixel square: the slivers along a card's rim are none), each stretch's bounding box
    widened by :data:`UNEXPLAINED_MARGIN`, those that overlap merged; none where no such
    paper lies, the whole frame where they cover most of it."""
    h, w = paper.shape[:2]
    left = paper.copy()
    for card in cards:  # one by one: overlapping outlines filled at once cancel out
        cv2.fillPoly(left, [np.round(card).astype(np.int32).reshape(-1, 1, 2)], 0)
    left = np.asarray(cv2.morphologyEx(left, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)), np.uint8)
    # each stretch's outline (0.1 ms on deck F's rows, where its connected components took
    # 1.5), its area the outline's own
    found, _ = cv2.findContours(left, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    m = max(4, round(UNEXPLAINED_MARGIN * min(w, h)))
    boxes: list[list[int]] = []
    for outline in found:
        if cv2.contourArea(outline) >= UNEXPLAINED_SHARE * min_area:
            if len(boxes) == UNEXPLAINED_MOST:
                return [(0, 0, w, h)]
            x, y, bw, bh = cv2.boundingRect(outline)
            boxes.append([max(0, x - m), max(0, y - m), min(w, x + bw + m), min(h, y + bh + m)])
    while True:  # the first two windows that overlap made one, until none overlap
        pairs = ((i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)))
        found_pair = next((p for p in pairs if _boxes_overlap(boxes[p[0]], boxes[p[1]])), None)
        if found_pair is None:
            break
        i, j = found_pair
        a, b = boxes[i], boxes.pop(j)
        boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
    if sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes) >= UNEXPLAINED_WHOLE * w * h:
        return [(0, 0, w, h)]
    return [(b[0], b[1], b[2], b[3]) for b in boxes]


def _boxes_overlap(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether two windows (x0, y0, x1, y1) share a pixel."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _sides_reached(box: Sequence[int], w: int, h: int) -> tuple[bool, bool, bool, bool]:
    """Which sides (left, top, right, bottom) of a ``w`` by ``h`` image a bounding box
    (x, y, width, height) reaches."""
    x, y, bw, bh = box
    return x == 0, y == 0, x + bw >= w, y + bh >= h


def _cut_by(reach: tuple[bool, ...], cut: tuple[bool, ...]) -> bool:
    """Whether something reaching the window's sides ``reach`` is cut by the window: it
    reaches a side that ``cut`` marks as lying inside the frame."""
    return any(r and c for r, c in zip(reach, cut, strict=True))


#: a quadrilateral from edges that does not run along them is snapped onto them
#: (:func:`_snap`) when, on each side, SNAP_POINTS of the places along it find an edge
#: within SNAP_REACH of the side's length (at least 3 pixels) across it: on deck C's webcam
#: frames (640x640) a hull's quadrilateral is often 2 to 4 pixels off a card's edge;
#: snapping found 25 more outlines there, whose corners named 10 more listed cards (deck A:
#: 12 more outlines, 3 more cards), none an unlisted one
SNAP_POINTS = 0.5
SNAP_REACH = 0.05
_SNAP_T = np.linspace(0.12, 0.88, 20)  # where along each side an edge is looked for


def _snap(quad: NDArray[np.float64], edges: Image) -> NDArray[np.float64] | None:
    """The quadrilateral with each side moved onto the edge pixels nearest to it across
    the side (a hull's quadrilateral a pixel or three off the card's outline); None when a
    side finds too few of them."""
    h, w = edges.shape[:2]
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 1:
            return None
        u = d / length
        n = np.array([-u[1], u[0]])
        reach = max(3.0, SNAP_REACH * length)
        offs = np.arange(-reach, reach + 0.5, 1.0)
        offs = offs[np.argsort(np.abs(offs), kind="stable")]
        base = a + _SNAP_T[:, None] * d
        pts = base[:, None, :] + offs[None, :, None] * n  # (T, O, 2)
        xy = _pixel_points(pts, w, h)
        hit = edges[xy[..., 1], xy[..., 0]] > 0
        ok = hit.any(axis=1)
        if np.count_nonzero(ok) < SNAP_POINTS * len(_SNAP_T):
            return None
        found = pts[np.flatnonzero(ok), hit[ok].argmax(axis=1)]
        vx, vy, x0, y0 = cv2.fitLine(
            found.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).ravel()
        lines.append(((float(x0), float(y0)), (float(vx), float(vy))))
    out = []
    for i in range(4):
        p, r = lines[i - 1]
        q, s = lines[i]
        corner = _intersect(p, r, q, s)
        if corner is None:
            return None
        out.append(corner)
    snapped = np.array(out)
    if np.hypot(*(snapped - quad).T).max() > 0.15 * _sides(quad).min():
        return None
    return snapped


#: a card found by its edges stands for a paper blob holding its centre when it covers at
#: least this share of the blob's area, or when Canny's edges alone run along WHOLE_OUTLINE
#: of each of its sides (the card on top where cards overlap; a card whose paper the paper
#: test ran into a knitted blanket): on decks C and E this found 12 more outlines, whose
#: corners named 7 more listed cards and no unlisted one (0.8: one more, naming an
#: unlisted card)
WHOLE_BLOB = 0.8
WHOLE_OUTLINE = 0.9


#: a frame at least this bright (the median HSV value) may be a table as light as paper,
#: where cards are also looked for by their edges
LIGHT_TABLE = 110

#: the share of each side of a quadrilateral found from edges that must run along an edge,
#: and the share of its inside that must be paper (lit and unsaturated)
EDGE_SUPPORT = 0.7
EDGE_PAPER = 0.75

#: a quadrilateral found from edges is card-shaped when its shorter sides are at least
#: CARD_ASPECT of its longer ones (a card seen square-on is 0.72, or 0.5 foreshortened), or
#: down to SQUASHED_ASPECT when SQUASHED_SUPPORT of each side runs along an edge and
#: SQUASHED_PAPER of its inside is paper: a frame exported squashed to a square (a 16:9
#: webcam frame stretched to 640x640, deck C's WIN_2024 series) makes an upright card 0.42
#: as wide as long and a rotated one narrower still; in that series the outlines so found
#: measured 0.33 to 0.45 with at least 0.92 of every side on an edge and 0.94 of paper
CARD_ASPECT = 0.45
SQUASHED_ASPECT = 0.3
SQUASHED_SUPPORT = 0.9
SQUASHED_PAPER = 0.9

#: a quadrilateral found from edges that holds less paper than EDGE_PAPER (a court card,
#: whose figure is no paper) is a card when FRAMED_SUPPORT of each side runs along an edge,
#: paper runs all round just inside its edge (its white border) and it holds at least
#: FRAMED_PAPER of paper: on decks A, C and E whole court cards held 0.62 to 0.88 (21 more
#: outlines whose corners name a listed card), the frame round a court card's figure,
#: whose inside is also ringed with white, 0.45 to 0.54 (its corners named unlisted cards)
FRAMED_SUPPORT = 0.9
FRAMED_PAPER = 0.6


_ALONG = np.linspace(0.1, 0.9, 24)


def _edge_support(quad: NDArray[np.float64], near: Image) -> float:
    """The least share of a side of the quadrilateral that runs along an edge (``near``:
    the edges thickened)."""
    h, w = near.shape[:2]
    step = quad.take(_NEXT, axis=0) - quad  # the same figures as ``np.roll``, in a third
    pts = quad[:, None, :] + _ALONG[None, :, None] * step[:, None, :]  # (4, 24, 2)
    # the least count of hits over the places looked at (the same as the least share of
    # them: the shares are those counts divided alike), 11 microseconds a quadrilateral
    # where it took 22
    xy = _pixel_points(pts, w, h)
    hits = np.count_nonzero(near[xy[..., 1], xy[..., 0]], axis=1)
    return int(hits.min()) / len(_ALONG)


def _card_like(
    quad: NDArray[np.float64], shape: tuple[int, ...], min_area: float, min_side: float
) -> bool:
    """Whether a quadrilateral has a card's shape (at least :data:`SQUASHED_ASPECT` as wide
    as long), is large enough to read and lies inside a frame of ``shape``."""
    h, w = shape[:2]
    # on Python's floats (as :func:`_sides`): a light table's frame asks this of a few
    # hundred candidates, most of them refused here, and NumPy's calls on four points
    # took three times as long (13 microseconds a candidate refused, 31 one kept)
    points = quad.tolist()
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
    if (
        min(x0, x1, x2, x3) < 1
        or min(y0, y1, y2, y3) < 1
        or max(x0, x1, x2, x3) > w - 2
        or max(y0, y1, y2, y3) > h - 2
    ):
        return False
    s0, s1, s2, s3 = _side_lengths(points)
    a, b = (s0 + s2) / 2, (s1 + s3) / 2
    if min(a, b) / max(a, b) < SQUASHED_ASPECT or min(s0, s1, s2, s3) < min_side:
        return False
    return bool(cv2.contourArea(quad.astype(np.float32)) >= min_area)


def _edge_card(
    quad: NDArray[np.float64],
    near: Image,
    paper: Image,
    min_area: float,
    min_side: float,
    framed: bool = False,
) -> bool:
    """Whether a quadrilateral found from edges is card-shaped, inside the frame, runs along
    edges on every side and holds mostly paper; with ``framed`` (a stretch of paper's hull,
    not the edges' own), also whether it is outlined as a court card is: edges along
    :data:`FRAMED_SUPPORT` of every side, and paper all round just inside them."""
    if not _card_like(quad, near.shape, min_area, min_side):
        return False
    sides = _sides(quad)
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    squashed = min(a, b) / max(a, b) < CARD_ASPECT
    support = _edge_support(quad, near)
    if support < (SQUASHED_SUPPORT if squashed else EDGE_SUPPORT):
        return False
    x, y, bw, bh = cv2.boundingRect(np.round(quad).astype(np.int32))
    box = np.zeros((bh, bw), np.uint8)
    cv2.fillConvexPoly(box, np.round(quad - [x, y]).astype(np.int32), 255)
    inside = cv2.countNonZero(box)
    held = cv2.countNonZero(cv2.bitwise_and(box, paper[y : y + bh, x : x + bw]))
    if not framed and held >= (SQUASHED_PAPER if squashed else EDGE_PAPER) * max(1, inside):
        return True
    # a court card: its figure is no paper, but its white border runs all round inside
    return (
        support >= FRAMED_SUPPORT
        and held >= FRAMED_PAPER * max(1, inside)
        and _paper_frame(paper, quad)
    )


def _order(quad: NDArray[np.float64]) -> NDArray[np.float64]:
    """The corners by their angle about their mean: clockwise on screen from the
    upper-left side, ordered on Python's floats (as with :func:`_sides`, NumPy's calls
    cost more than the arithmetic)."""
    points = quad.tolist()
    cx = (((points[0][0] + points[1][0]) + points[2][0]) + points[3][0]) / 4
    cy = (((points[0][1] + points[1][1]) + points[2][1]) + points[3][1]) / 4
    angles = [math.atan2(y - cy, x - cx) for x, y in points]
    return quad[sorted(range(4), key=angles.__getitem__)]


def _refine(
    quad: NDArray[np.float64], points: NDArray[np.float64] | NDArray[np.int32]
) -> NDArray[np.float64]:
    """Corners from straight lines fitted to each side's contour points (not the rounding);
    an outline's own whole pixels may be given (only those used are converted)."""
    if len(points) > 64:  # every few points of a long outline say as much about its sides
        points = points[:: len(points) // 64 + 1]
    pts = np.asarray(points, np.float64)
    # each side's length, unit direction u and normal (-uy, ux), and where its start lies
    # along and across it, on Python's floats: the same operations as NumPy's on the four
    # corners (the same figures), 130 microseconds a call where NumPy's calls took 149
    corner = quad.tolist()
    ends = list(zip(corner, corner[1:] + corner[:1], strict=True))  # side i: corner i to i + 1
    length = [
        math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)) for (x0, y0), (x1, y1) in ends
    ]
    shortest = min(length)
    if shortest < 1:
        return quad
    u, normal, along, across = [], [], [], []
    for ((x0, y0), (x1, y1)), size in zip(ends, length, strict=True):
        ux, uy = (x1 - x0) / size, (y1 - y0) / size
        u.append((ux, uy))
        normal.append((-uy, ux))
        along.append(x0 * ux + y0 * uy)
        across.append(x0 * -uy + y0 * ux)
    # where each point lies along each side (0 at its start, 1 at its end), and off it:
    # both from one product with the sides' directions and normals (each of its figures
    # the same as from a product of its own: on 14,964 outlines of real and rendered
    # frames, the same corners bit for bit, 88 microseconds a call where it took 100)
    off = pts @ np.array(u + normal).T - np.array(along + across)  # (N, 8)
    t = off[:, :4] / np.array(length)
    dist = np.abs(off[:, 4:])
    reach = [max(2.0, 0.06 * size) for size in length]
    near = (t > 0.15) & (t < 0.85) & (dist < reach)  # (N, 4)
    n = near.sum(axis=0)
    if min(n.tolist()) < 4:
        return quad
    w = near.T / n[:, None]  # (4, N): each side's points, equally weighted
    centre = w @ pts  # (4, 2): a point on each side's line
    square = np.empty((len(pts), 3))  # x², y² and xy of each point
    np.multiply(pts, pts, out=square[:, :2])
    np.multiply(pts[:, 0], pts[:, 1], out=square[:, 2])
    moments = w @ square
    # each side's line and the corners on Python's floats: the same operations (the same
    # figures), where NumPy's calls on four values cost more than their arithmetic
    lines = []
    for (cx, cy), (mxx, myy, mxy) in zip(centre.tolist(), moments.tolist(), strict=True):
        sxx, syy, sxy = mxx - cx * cx, myy - cy * cy, mxy - cx * cy
        angle = 0.5 * math.atan2(2 * sxy, sxx - syy)  # the side's principal direction
        lines.append((cx, cy, math.cos(angle), math.sin(angle)))
    limit = (0.3 * shortest) ** 2  # no corner moves further
    corners = []
    for i, (qx, qy) in enumerate(corner):  # corner i: where side i - 1 meets side i
        ax, ay, rax, ray = lines[i - 1]
        cx, cy, rx, ry = lines[i]
        den = rax * ry - ray * rx
        if abs(den) < 1e-9:
            return quad
        k = ((cx - ax) * ry - (cy - ay) * rx) / den
        x, y = ax + k * rax, ay + k * ray
        if (x - qx) * (x - qx) + (y - qy) * (y - qy) > limit:
            return quad
        corners.append((x, y))
    return np.array(corners)


def _intersect(
    p: Sequence[float], r: Sequence[float], q: Sequence[float], s: Sequence[float]
) -> tuple[float, float] | None:
    """Where the line through ``p`` along ``r`` meets the one through ``q`` along ``s``; None
    where they run (nearly) parallel. On Python's floats: the same operations, half the
    time NumPy's scalars took."""
    (px, py), (rx, ry), (qx, qy), (sx, sy) = p, r, q, s
    den = rx * sy - ry * sx
    if abs(den) < 1e-9:
        return None
    k = ((qx - px) * sy - (qy - py) * sx) / den
    return (px + k * rx, py + k * ry)


def _hull_quad(hull: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The card's quadrilateral from its convex hull: the lines of the four longest edges.

    Ink at the card's edge (an index printed close to it) or a worn corner cuts corners off
    the paper's outline; extending the four longest edges restores them.
    """
    outline = hull.astype(np.float32)
    peri = cv2.arcLength(outline, True)
    approx = cv2.approxPolyDP(outline, 0.015 * peri, True).reshape(-1, 2)
    pts = approx.astype(np.float64)
    n = len(pts)
    if n < 4:
        return None
    if n == 4:
        return pts
    edges = np.concatenate((pts[1:], pts[:1])) - pts  # as ``np.roll``, in half its time
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = sorted(np.argsort(lengths)[-4:].tolist())
    size = lengths.tolist()
    if min(size[k] for k in keep) < 0.08 * peri:
        return None
    # the lines' meeting points, on Python's floats taken from the arrays once
    at, step = pts.tolist(), edges.tolist()
    out = []
    for j in range(4):
        a, b = keep[j], keep[(j + 1) % 4]
        corner = _intersect(at[a], step[a], at[b], step[b])
        if corner is None:
            return None
        out.append(corner)
    return np.array(out)


def find_shapes(
    mask: Image, *, min_area: float = 600.0, value: Image | None = None
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.int32]], list[NDArray[np.int32] | None]]:
    """Card-shaped convex quadrilaterals (corners clockwise on screen) in a card mask, the
    outlines of the other paper blobs (cards overlapping one another, a card and glare), and
    for each quadrilateral its outline when paper fills it loosely (it may be two cards).

    With the frame's brightness (``value``, the HSV value the mask was made from), a blob
    that is not one clean card and holds two clearly different brightnesses (cards in a
    glare that made the felt around them pass for paper) is split at the brightness that
    separates them, and its parts are looked at again; and a blob whose outline mostly runs
    where the brightness has no sharp edge is no paper at all (a glare on the felt) and is
    dropped.
    """
    h, w = mask.shape[:2]
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    quads = []
    blobs = []
    loose: list[NDArray[np.int32] | None] = []
    near: Image | None = None
    # most of a frame's few hundred specks are left out before they are listed
    # (:func:`_may_hold`); the rest are looked at in the same order
    work = [(np.asarray(c, np.int32), value is not None) for c in contours
            if _may_hold(len(c), min_area)]  # fmt: skip
    while work:
        contour, may_split = work.pop()
        if not _may_hold(len(contour), min_area):  # a part of a blob split by brightness
            continue
        area = cv2.contourArea(contour)
        if area < min_area or area > 0.95 * w * h:
            continue
        # the outline's hull and quadrilateral, fitted once for both tests of it (one blob in
        # two that is no card's shape took the same fit twice)
        fitted = _hull_fit(contour)
        shape = _card_quad(mask, contour, area, fitted)
        clean = shape is not None and shape[1] >= 0.93
        if not clean and may_split and value is not None:
            parts = _split_bright(mask, value, contour)
            if parts:
                work += [(c, False) for c in parts]
                continue
        if shape is None:
            if value is not None:
                if near is None:  # sharp brightness edges, near which paper's outline runs
                    edges = cv2.Canny(value, 40, 80)
                    near = np.asarray(cv2.dilate(edges, np.ones((5, 5), np.uint8)), np.uint8)
                pts = contour.reshape(-1, 2)
                if np.count_nonzero(near[pts[:, 1], pts[:, 0]]) < 0.6 * len(pts):
                    continue  # an outline along no sharp edge: a glare, not paper
                closed = _closed_card(contour, fitted)
                if closed is not None:  # a card whose pips bite into its outline
                    quads.append(closed)
                    loose.append(np.asarray(contour, np.int32))
                    continue
            blobs.append(np.asarray(contour, np.int32))
            continue
        quad, fit = shape
        quads.append(quad)
        loose.append(np.asarray(contour, np.int32) if fit < 0.93 else None)
    return quads, blobs, loose


def _hull_fit(
    contour: NDArray[np.int32],
) -> tuple[NDArray[np.float64], NDArray[np.float64], float] | None:
    """An outline's convex hull, the quadrilateral fitted to it (corners clockwise on
    screen, :func:`_order`) and that quadrilateral's area; None where none fits."""
    hull = cv2.convexHull(contour).reshape(-1, 2).astype(np.float64)
    found = _hull_quad(hull)
    if found is None:
        return None
    quad = _order(found)
    area = float(cv2.contourArea(quad.astype(np.float32)))
    return (hull, quad, area) if area > 0 else None


def _proportion(quad: NDArray[np.float64]) -> tuple[float, float]:
    """A quadrilateral's proportions (its mean shorter pair of opposite sides over its mean
    longer pair) and its shortest side."""
    sides = _side_lengths(quad.tolist())  # as :func:`_sides`, 3.4 microseconds where it took 9
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return min(a, b) / max(a, b), min(sides)


#: a paper blob that is no card's shape is closed by this share of its box's shorter side
#: (:func:`_closed_card`), and is one card where it then fills CLOSED_FILL of a quadrilateral
#: whose sides are in CLOSED_ASPECT's proportions (a card's, seen up to about 45 degrees
#: oblique). At 0.8 a blurred, oblique ten of hearts of deck D read as a five
CLOSED_SHARE = 0.15
CLOSED_FILL = 0.9
CLOSED_ASPECT = (0.55, 0.85)


_Fitted = tuple[NDArray[np.float64], NDArray[np.float64], float] | None


def _closed_card(contour: NDArray[np.int32], fitted: _Fitted) -> NDArray[np.float64] | None:
    """The card a paper blob ``contour`` is once its outline is closed (a morphological
    closing, :data:`CLOSED_SHARE`): pips printed close to a card's edge, and the ink
    between them, bite into the paper (deck F's laid-out ten of hearts, its lower hearts
    and the edge one blob of ink), and its outline then fills no card-shaped quadrilateral;
    None where the closed blob is still no card's shape. The caller reads it as an outline
    paper fills loosely (one corner's margins; it may hold two cards).

    A closing lies within the blob's convex hull and holds the blob, so its hull, and the
    quadrilateral fitted to it, are the blob's own: a blob whose hull is no card's shape, or
    fills too little of it, is refused before it is closed (on deck F's real frame of the
    benchmark, 11 blobs a frame took 3 ms to close). ``fitted`` is :func:`_hull_fit`'s of
    the outline."""
    if fitted is None:
        return None
    hull, quad, quad_area = fitted
    proportion, shortest = _proportion(quad)
    if (
        cv2.contourArea(hull.astype(np.float32)) < CLOSED_FILL * quad_area
        or not CLOSED_ASPECT[0] <= proportion <= CLOSED_ASPECT[1]
        or shortest < 10
    ):
        return None
    x, y, w, h = cv2.boundingRect(contour)
    k = max(3, int(CLOSED_SHARE * min(w, h)) | 1)
    box = np.zeros((h + 2 * k, w + 2 * k), np.uint8)
    offset = np.array([x - k, y - k])
    cv2.drawContours(box, [contour.reshape(-1, 1, 2) - offset], -1, 255, -1)
    closed = cv2.morphologyEx(box, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    outline = max(cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0],
                  key=cv2.contourArea)  # fmt: skip
    if cv2.contourArea(outline) < CLOSED_FILL * quad_area:
        return None
    return _refine(quad, outline.reshape(-1, 2) + offset)


def _card_quad(
    mask: Image, contour: NDArray[np.int32], area: float, fitted: _Fitted
) -> tuple[NDArray[np.float64], float] | None:
    """A card-shaped quadrilateral for one outline, and how well the outline fills it
    (intersection over union; 1 for a card with a white frame round a printed middle);
    ``fitted`` is :func:`_hull_fit`'s of the outline."""
    if fitted is None:
        return None
    _, quad, quad_area = fitted
    framed = False
    if area / quad_area < 0.8:
        if not _paper_frame(mask, quad):
            return None
        framed = True
    proportion, shortest = _proportion(quad)
    if proportion < 0.35 or shortest < 10:
        return None
    refined = _refine(quad, contour.reshape(-1, 2))  # keeps the order
    if framed or area >= 0.97 * quad_area:  # a clean card: no need to measure the overlap
        return refined, 1.0
    return refined, _overlap(np.asarray(contour, np.int32), refined)


def _split_bright(mask: Image, value: Image, contour: NDArray[np.int32]) -> list[NDArray[np.int32]]:
    """The outlines of the brighter part of a blob whose brightness has two clear levels.

    Cards in a glare: the felt around them is bright and colourless enough to pass for
    paper, but paper is brighter still. A blob of one paper (cards overlapping) has one
    level, and is not split.
    """
    x, y, bw, bh = cv2.boundingRect(contour)
    blob = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(blob, [contour - np.array([x, y], np.int32)], -1, 255, -1)
    blob = np.asarray(cv2.bitwise_and(blob, mask[y : y + bh, x : x + bw]), np.uint8)
    roi = value[y : y + bh, x : x + bw]
    levels = roi[blob > 0]
    if levels.size < 50:
        return []
    t, _ = cv2.threshold(levels.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    bright = cv2.threshold(roi, t, 255, cv2.THRESH_BINARY)[1]
    # both levels must fill areas, not the rims of paper and ink that blur leaves between
    core = cv2.erode(blob, _SQUARE)
    hi = np.asarray(cv2.bitwise_and(core, cv2.erode(bright, _SQUARE)), np.uint8)
    lo = np.asarray(cv2.bitwise_and(core, cv2.erode(cv2.bitwise_not(bright), _SQUARE)), np.uint8)
    n_hi, n_lo = cv2.countNonZero(hi), cv2.countNonZero(lo)
    if min(n_hi, n_lo) < 0.15 * levels.size:
        return []
    # each level's mean as NumPy's of its pixels: their exact sum (OpenCV's, a whole number
    # well within float64's) over their count, without gathering them (0.2 ms a frame)
    if _sum(roi, hi) / n_hi - _sum(roi, lo) / n_lo < 30:
        return []
    part = cv2.bitwise_and(blob, bright)
    part = cv2.morphologyEx(part, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    found, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    offset = np.array([x, y], np.int32)
    return [np.asarray(c + offset, np.int32) for c in found]


def _sum(image: Image, mask: Image) -> float:
    """The sum of an 8-bit image's pixels where the 0/255 ``mask`` is set."""
    return float(cv2.sumElems(cv2.bitwise_and(image, mask))[0])


def _paper_frame(mask: Image, quad: NDArray[np.float64]) -> bool:
    """Whether paper runs all round the inside of the quadrilateral's edge: a card with a
    white border and a printed middle (a court card's frame, a back), its border broken by
    an index printed close to the edge."""
    x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
    sides = np.hypot(*(quad - quad.take(_PREVIOUS, axis=0)).T)  # as ``np.roll``'s, faster
    band = max(2, round(0.06 * float(sides.min())))
    box = np.zeros((h + 2, w + 2), np.uint8)
    cv2.fillConvexPoly(box, np.round(quad - [x - 1, y - 1]).astype(np.int32), 255)
    inner = cv2.erode(box, np.ones((2 * band + 1, 2 * band + 1), np.uint8))
    ring = cv2.bitwise_and(box, cv2.bitwise_not(inner))
    roi = np.zeros_like(box)
    x0, y0 = max(0, x - 1), max(0, y - 1)
    src = mask[y0 : y + h + 1, x0 : x + w + 1]
    roi[y0 - (y - 1) : y0 - (y - 1) + src.shape[0], x0 - (x - 1) : x0 - (x - 1) + src.shape[1]] = (
        src
    )
    paper = cv2.countNonZero(cv2.bitwise_and(ring, roi))
    return paper >= 0.85 * max(1, cv2.countNonZero(ring))


def _overlap(contour: NDArray[np.int32], quad: NDArray[np.float64]) -> float:
    """Intersection over union of the filled outline and the quadrilateral."""
    x, y, w, h = cv2.boundingRect(
        np.concatenate([contour.reshape(-1, 2), np.round(quad)]).astype(np.int32)
    )
    a = np.zeros((h + 2, w + 2), np.uint8)
    b = np.zeros_like(a)
    offset = np.array([x - 1, y - 1])
    cv2.drawContours(a, [contour.reshape(-1, 1, 2) - offset], -1, 255, -1)
    cv2.fillConvexPoly(b, np.round(quad - offset).astype(np.int32), 255)
    inter = cv2.countNonZero(cv2.bitwise_and(a, b))
    union = cv2.countNonZero(cv2.bitwise_or(a, b))
    return inter / union if union else 0.0


def _drop_holders(
    quads: list[NDArray[np.float64]], loose: list[NDArray[np.int32] | None]
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.int32] | None]]:
    """The quadrilaterals without those that hold the centres of two or more others: a
    stretch of table as pale as paper that holds cards, not a card."""
    if len(quads) < 3:
        return quads, loose
    corners = np.array(quads)  # (N, 4, 2), each convex
    centres = corners.mean(axis=1)  # (N, 2)
    # a centre lies inside a convex quadrilateral where it lies on the same side of all four
    # of its edges (strictly: on an edge is outside, as cv2.pointPolygonTest says); all
    # pairs at once (one by one, a rendered frame's 19 outlines took 0.7 ms more)
    edge = corners.take(_NEXT, axis=1) - corners  # (N, 4, 2)
    to = centres[None, None, :, :] - corners[:, :, None, :]  # (N, 4, M, 2)
    cross = edge[:, :, None, 0] * to[..., 1] - edge[:, :, None, 1] * to[..., 0]  # (N, 4, M)
    inside = (cross > 0).all(axis=1) | (cross < 0).all(axis=1)  # (N, M)
    np.fill_diagonal(inside, False)
    keep = (inside.sum(axis=1) < 2).tolist()
    return (
        [q for q, k in zip(quads, keep, strict=True) if k],
        [o for o, k in zip(loose, keep, strict=True) if k],
    )


def find_quads(mask: Image, *, min_area: float = 600.0) -> list[NDArray[np.float64]]:
    """Card-shaped convex quadrilaterals in a card mask, corners clockwise on screen."""
    return find_shapes(mask, min_area=min_area)[0]


def _edge_line(
    pts: NDArray[np.float64], a: NDArray[np.float64], e: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """The straight line fitted to the outline's points ``pts`` along the edge from ``a``
    by ``e`` (its middle 70 %, near it; not the rounded corners): a point on it and its
    direction (either way); None where fewer than 4 points lie there."""
    length = float(np.hypot(*e))
    u = e / length
    rel = pts - a
    t = rel @ u / length
    dist = np.abs(rel @ np.array([-u[1], u[0]]))
    sel = pts[(t > 0.15) & (t < 0.85) & (dist < max(2.0, 0.05 * length))]
    if len(sel) < 4:
        return None
    vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _fit_corner(
    lines: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]] | None],
    p: NDArray[np.float64],
    e1: NDArray[np.float64],
    e2: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None:
    """The corner ``p`` and its two edge vectors re-fitted to the outline's own points:
    ``lines`` are the two edges' lines (:func:`_edge_line`), each fitted once for the two
    corners it joins."""
    oriented = []
    for line, e in zip(lines, (e1, e2), strict=True):
        if line is None:
            return None
        point, direction = line
        if direction @ (e / float(np.hypot(*e))) < 0:
            direction = -direction
        oriented.append((point, direction))
    (p1, d1), (p2, d2) = oriented
    met = _intersect(p1.tolist(), d1.tolist(), p2.tolist(), d2.tolist())
    if met is None:
        return None
    corner = np.array(met)
    if float(np.hypot(*(corner - p))) > 0.2 * min(float(np.hypot(*e1)), float(np.hypot(*e2))):
        return None
    return corner, d1 * float(np.hypot(*e1)), d2 * float(np.hypot(*e2))


def corner_hypotheses(
    contour: NDArray[np.int32], mask: Image, short: float, long: float
) -> list[NDArray[np.float64]]:
    """Whole-card quads guessed from the right-angled outer corners of a blob of paper.

    Where cards overlap, each card still shows some of its corners on the blob's outline.
    A corner with two straight edges, taken as a card's top-left, gives a card of the usual
    size (``short`` x ``long``) lying along those edges; it is kept if paper covers it.
    """
    peri = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, 0.012 * peri, True).reshape(-1, 2).astype(np.float64)
    n = len(poly)
    if n < 4:
        return []
    signed = 0.0
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        signed += x0 * y1 - x1 * y0
    pts = contour.reshape(-1, 2).astype(np.float64)
    out = []
    # each edge's line, fitted once for both corners it joins (edge i runs from vertex i
    # to i + 1): on the blobs of deck F's 21 whole cards 78 fits a frame, where a fit for
    # each corner made 120
    lines: dict[int, tuple[NDArray[np.float64], NDArray[np.float64]] | None] = {}

    def line(j: int) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
        j %= n
        if j not in lines:
            lines[j] = _edge_line(pts, poly[j], poly[(j + 1) % n] - poly[j])
        return lines[j]

    for i in range(n):
        p = poly[i]
        e1, e2 = poly[i - 1] - p, poly[(i + 1) % n] - p
        l1, l2 = float(np.hypot(*e1)), float(np.hypot(*e2))
        if min(l1, l2) < 0.25 * short:
            continue
        fitted = _fit_corner((line(i - 1), line(i)), p, e1, e2)
        if fitted is not None:
            p, e1, e2 = fitted
            l1, l2 = float(np.hypot(*e1)), float(np.hypot(*e2))
        u1, u2 = e1 / l1, e2 / l2
        cross = u1[0] * u2[1] - u1[1] * u2[0]
        if cross * signed > 0:  # a concave (inner) vertex
            continue
        if abs(float(u1 @ u2)) > 0.45:  # not near a right angle
            continue
        (u, lu), (v, lv) = ((u1, l1), (u2, l2)) if cross > 0 else ((u2, l2), (u1, l1))
        # an edge seen whole gives the card's own size there (perspective changes it)
        s = lu if 0.75 * short <= lu <= 1.3 * short else short
        t = lv if 0.75 * long <= lv <= 1.3 * long else long
        quad = np.array([p, p + s * u, p + s * u + t * v, p + t * v])
        if _covered(mask, quad) >= 0.8:
            out.append(quad)
    return out


def _covered(mask: Image, quad: NDArray[np.float64]) -> float:
    """The share of the quadrilateral's pixels inside the frame that ``mask`` covers (0
    where none lies inside). It is drawn in a canvas of its own bounding box only: a guess
    drawn on a canvas of the whole mask took most of :func:`corner_hypotheses`' time."""
    h, w = mask.shape[:2]
    corners = np.round(quad).astype(np.int32)
    x0, y0 = np.maximum(corners.min(axis=0), 0).tolist()
    x1, y1 = corners.max(axis=0).tolist()
    x1, y1 = min(x1, w - 1), min(y1, h - 1)
    if x1 < x0 or y1 < y0:
        return 0.0
    box = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    cv2.fillConvexPoly(box, corners - np.array([x0, y0], np.int32), 255)
    inside = cv2.countNonZero(cv2.bitwise_and(box, mask[y0 : y1 + 1, x0 : x1 + 1]))
    return inside / max(1, cv2.countNonZero(box))


#: index-first finding: where a card's outline cannot be found (cards fanned or piled on a
#: table as light as their paper, the edges between them lost), its index corner still
#: shows. An index is a rank glyph over a suit symbol: two ink components, the rank the
#: longer along the card's "down" (the vector from the rank's centre to the suit's). The
#: centre of the rank glyph on the card (x / width, y / height): the median over 353 index
#: corners of cards read whole on decks A, C and E
INDEX_RANK_AT = (0.10, 0.104)
#: the card is placed as though the distance from its rank's centre to its suit's were this
#: share of its height (measured 0.11 on the same corners; placed at 0.09 to 0.14, the
#: learned reader read right most at 0.12 to 0.14, the index taken a little larger)
INDEX_STEP = 0.13
#: a rank glyph's extent along the card's down, over its suit symbol's: 1.12 to 1.57 on
#: the 80 pairs read right on decks A, C and E (0.65 to 2.11 on all the pairs tried); up to
#: 2, not 1.75, the standard decks read 7 cards more, none wrong (a webcam's small suit
#: symbols under a tall rank; the pairs are tried most typical first, so the rarer shapes
#: come last); 2.3 read none more
INDEX_RANK_OVER_SUIT = (1.05, 2.0)
#: the rank glyph's and the suit symbol's extents along the down, over the distance
#: between their centres: 0.79 to 1.52 and 0.58 to 1.36 on those pairs
INDEX_RANK_EXTENT = (0.75, 1.6)
INDEX_SUIT_EXTENT = (0.5, 1.4)
#: the card a pair implies, over the typical card of the frame (their long sides): 0.64 to
#: 1.37 on those pairs, but the typical card is the median of the few cards read, and
#: perspective and the 640 x 640 exports' squash vary it; at 0.6 to 1.6 deck C read 16
#: cards fewer, none wrong either way
INDEX_CARD_SIZE = (0.3, 3.0)
#: a pair's card whose reader leads fall short is read again this much smaller and larger,
#: in turn until one settles it, when its corner already shows this share of the leads the
#: one corner needs (on deck C the first two read 12 cards more; the next two 10 more on
#: the standard decks, none wrong: a frame's squash taken from one outline, or a glyph
#: pair's distance, misjudges a card's size by more; a third pair, 0.67 and 1.5, read 3
#: fewer, its tries taken from other corners)
INDEX_RESCALE = (0.88, 1.14, 0.77, 1.3)
INDEX_PROMISING = 0.5
#: with a calibrated profile, a guessed index corner the learned reader names with this
#: share of one corner's leads (:func:`_single_share`), short of settling it, is settled
#: where the deck's own glyphs read the same card as one corner alone
#: (:meth:`Recognizer._own_glyphs_agree`). With deck F's profile (from its laid-out
#: photograph) on the standard decks: 2 cards more, none wrong, and 0 to 4 more under
#: every degradation of the safety sweep, none wrong; the agreeing corners that named a
#: card the photograph does not hold (that profile read on another deck's webcam frames)
#: had shares of 0.28 and less
OWN_GLYPHS_AGREE = INDEX_PROMISING
#: a promising guessed corner whose leads are still short after the rescalings, on a frame
#: whose squash (:func:`frame_squash`) is further from 1 than this (a log), is read again
#: with its card guessed as the camera's own proportions place it (a squash of 1), at each
#: of the scales in turn (:func:`restretched`): a close-up's outlines, all cut by the
#: frame's edge, or cards seen in perspective, misjudge the squash. On the standard decks
#: 8 cards more, none wrong (deck A's close-ups 2, deck F's layout 3). Where the frame's
#: squash was probed (:data:`SQUASH_TRUSTED`) and the probe chose another than its outlines
#: gave, the corner is also guessed at theirs: 2 cards more, none wrong (with the probe,
#: the retries at 1 read 3 more); and on every frame :data:`INDEX_SQUASH_STEPS` probe's
#: steps either side of the frame's squash
INDEX_SQUASH_DOUBT = 0.05
#: how many of the probe's steps (about 19 %, :data:`SQUASH_PROBED`) either side of the
#: frame's squash a promising corner is also guessed at, as perspective varies the squash
#: across a frame: at 1, 10 cards more, none wrong (at 2, 6 more; steps of 30 % and 9 %
#: instead, 2 and 1 more)
INDEX_SQUASH_STEPS = 1
#: a promising guessed corner still short of the leads after all that is read again with
#: its best guess moved by this share of the card's width left and right, then of its
#: height up and down, in turn until one settles it (:meth:`Recognizer._shifted_corners`):
#: decks print their index a little off the typical place (:data:`INDEX_RANK_AT`, a
#: median), and a guessed box that cuts a glyph's edge reads it short. On the standard
#: decks 0.03 reads 20 cards more, none wrong; 0.02 and 0.015 (down), 18; 0.04 and 0.03,
#: 10; 0.07 and 0.05, 4
INDEX_SHIFT = 0.03
#: two guessed index corners at opposite corners of one card (:func:`_opposite_corners`)
#: that name it, in ink of its suit's colour, each with this many times the leads, settle
#: it: a card whose outline was not found (on a knitted blanket, a light desk) but whose
#: two indices show
PAIR_LEADS = 2.25
#: how far two such corners' guessed sizes, and the distance between their rank glyphs,
#: may stray from each other's (a ratio), and their directions (degrees)
PAIR_SIZE = 1.35
PAIR_ANGLE = 12.0
#: ranks a card read from guessed index corners is not reported as when its middle shows a
#: three's pips (:meth:`Recognizer._shows_three`): the learned reader takes a flat-topped 3
#: (deck A's) for a 5 with leads of four times the single corner's. Only a three's layout
#: denies: the middle of a five lying under others in a fan shows their pips (denying every
#: count but five refused 8 real fives on deck C; during development three threes of deck A
#: read as fives were refused either way)
INDEX_PIPS_CHECKED = frozenset({int(Rank.FIVE)})
#: how far from the middle of the card's width a three's pips lie (a share of the middle's
#: width, :data:`PIP_CHECK_BOX`)
THREE_COLUMN = 0.13
#: a frame where no card nor stretch of paper was found is searched for index corners all
#: over where at least this share of it is lit, unsaturated paper (:func:`_paper_share`): a
#: card close, filling the frame. Of the cards of the real photographs cut out alone
#: (``close_ups``), those 128 to 400 pixels high where nothing was found are 0.67 to 0.96
#: paper; an empty table of coloured or black felt or of deck F's wood, 0 (not searched);
#: of grey felt, deck A's pale grey wood or one grey, 0.98 to 1 (searched, nothing read,
#: 5 ms more a 1280 x 720 frame of that wood)
CLOSE_UP_PAPER = 0.5


def _paper_share(frame: Image) -> float:
    """The share of ``frame`` (every fourth pixel each way) that is lit, unsaturated paper,
    as :func:`edge_shapes` takes paper (:data:`PAPER_SATURATION`, :data:`PAPER_VALUE`)."""
    sample = np.ascontiguousarray(frame[::4, ::4])
    hsv = cv2.cvtColor(sample, cv2.COLOR_BGR2HSV)
    low_sat = cv2.threshold(hsv[:, :, 1], PAPER_SATURATION, 255, cv2.THRESH_BINARY_INV)[1]
    lit = cv2.threshold(hsv[:, :, 2], PAPER_VALUE, 255, cv2.THRESH_BINARY)[1]
    return cv2.countNonZero(cv2.bitwise_and(low_sat, lit)) / max(1, low_sat.size)


#: the share of a typical card's area of paper that must lie outside the cards read on a
#: frame for its index corners to be looked for (on a rendered frame whose cards were all
#: read none lies outside them; on decks A, C and E it costs no card)
INDEX_PAPER = 0.2
#: the least height (pixels) of a typical rank glyph (a tenth of the card's) on the frame
#: ink is looked for on (shrunk by a whole factor while glyphs keep this; the split of
#: rank from suit needs a few pixels between them)
INDEX_GLYPH = 9
#: ink: the darkest channel (red ink is dark in green and blue) this much (0-255) below
#: the mean of a neighbourhood of 0.3 of the typical card's height (an index's own size),
#: as the learned reader's ink test (:data:`~drivers.camera.reader.INK_CONTRAST`) asks 25
INDEX_INK = 20
#: ink is looked for where its neighbourhood is light: at least this share of the frame's
#: lightest (its 99th percentile, in the darkest channel), paper rather than a table. On
#: the standard decks 0.6 read 21 cards more than 0.65, and 0.5 17 more still, none wrong
#: either (665 of 943), and the photographs scaled, blurred or given noise read 12 to 26
#: more, with no new wrong card but one (scale 0.6: a court figure's diamond beside a
#: yellow robe read as an ace's index). On deck F's crowded frame of the benchmark, 0.5
#: tries 35 guessed corners where 0.6 tries 6, for 3 cards more; with the corners read in
#: batches (:data:`INDEX_BATCH`) it runs about a tenth slower than 0.6 did before them
INDEX_LIGHT = 0.5
#: ink beside a card's edge (:func:`index_ink`'s ``beside_edges``) is measured against the
#: paper around it where paper is at least this share of its neighbourhood (on the
#: standard decks 0.15 reads as many cards, 0.5 two fewer)
INDEX_BESIDE_PAPER = 0.3
#: where no card was read to size the search by, ink is also looked for against a
#: neighbourhood of this share of the frame's shorter side, for glyphs larger than the
#: 31-pixel one (close-ups: a neighbourhood smaller than a glyph finds only its rim); on
#: the standard decks this reads 5 cards more than the 31-pixel one alone, none wrong (a
#: fifth of the side reads 2 fewer than an eighth); with paper at half the frame's
#: lightest (:data:`INDEX_LIGHT`), 3 more, and without it a webcam's frame read an ace
#: of diamonds it does not show
INDEX_WIDE_BLOCK = 0.125
#: where a card sized the search, ink is also looked for against a neighbourhood this share
#: of the typical card's height (a glyph and three quarters; the index's own is 0.3): near a
#: card's edge on a dark table, the wider neighbourhood takes in the table, its mean falls
#: to the ink's and a faint glyph is lost (a phone's seven of spades on black granite, its
#: rank found as 2 pixels). On the standard decks 0.175 reads 11 cards more (sevens above
#: all, their one thin stroke: 15 more, 4 fewer), none wrong but a seven of clubs whose
#: label leaves it out (``docs/real-cards-corrections.csv``); 0.1 to 0.2 read 6 to 11 more.
#: At half the index's neighbourhood (0.15) the photographs scaled to 0.45 read one five
#: of hearts wrong; at 0.175 none besides those read so before
INDEX_NARROW_BLOCK = 0.175
#: pairs guessed per frame, the most plausible first, and index corners read per frame
#: (every input is bounded: one corner costs the learned reader about 0.35 ms, read alone
#: or in a batch; on the standard decks 32 tries read 10 cards fewer than 64, 96 four
#: more, 128 five more; deck F's crowded frames, 19 and 52 cards, take no longer at 96
#: in ``benchmarks/recognizer.py``, where the 52 read 16 cards instead of 12)
MAX_INDEX_PAIRS = 400
MAX_INDEX_TRIES = 96
#: the guessed pairs are tried the least cluttered index box first: the box's clutter (the
#: share of 64 places in it that other ink components cover: a knitted blanket's loops
#: around a loop pair, a card's other pips around a pip pair, where a real index stands
#: alone on its paper) weighs this much against how far the pair's rank-over-suit ratio
#: lies from its typical 1.36 (as a log). On the standard decks 3 reads 8 cards more than
#: ordering by the ratio alone (deck C's knitted blanket), none wrong; 2 and 4, 6 and 5
#: more. Only the INDEX_CLUTTER_POOL pairs most plausible by their ratio are weighed
INDEX_CLUTTER = 3.0
INDEX_CLUTTER_POOL = 4000
#: the guessed corners the learned reader reads in one call, ahead of their turn (on deck
#: F's frame, 0.22 ms a corner where one call each took 0.38 ms); a corner read ahead
#: whose turn then does not come (inside a card read meanwhile) was read for nothing
INDEX_BATCH = 8


_BOX_STEPS = (np.arange(8) + 0.5) / 8  # where in an index box its clutter is sampled:
# 8 x 8 places, at these shares of its width and of its height


#: where fewer clean outlines than this give the frame's squash (:func:`frame_squash`),
#: the index search probes it by reading (:meth:`Recognizer._probed_squash`). A few
#: outlines misjudge it: two cards lying edge to edge make one wide outline, a close-up's
#: outlines are cut by the frame's edge, and a frame with none says nothing (deck C's
#: webcam frames, exported squashed to 640 x 640, show the world about 1.55 times taller:
#: their clean outlines, one by one, gave 0.5 to 2). The standard decks read 691 cards
#: without probing; probing below 3, 5 and 6 outlines 756, 766 and 767; on every frame 765
SQUASH_TRUSTED = 6
#: the squashes probed, besides the one the outlines give: 0.5 to 2, each about 19 % from
#: the next (5 of them, 41 % apart, read 12 cards fewer; 13 of them, 4 fewer)
SQUASH_PROBED = tuple(float(x) for x in np.geomspace(0.5, 2.0, 9))
#: the ratio between neighbouring squashes probed (about 1.19)
SQUASH_STEP = SQUASH_PROBED[1] / SQUASH_PROBED[0]
#: how many of each probed squash's most plausible guesses are read (8 read 19 cards
#: fewer, 24 read 3 fewer)
SQUASH_PROBE = 16
#: the probe reads first this many of each squash's guesses, then this many more of each
#: squash still in the running (:meth:`Recognizer._probed_squash`)
PROBE_FIRST, PROBE_MORE = 4, 2
#: a club or a spade settled by one guessed index corner must still be read so, with this
#: share of one corner's leads (:func:`_single_share`), from the index box shrunk to
#: :data:`LEARNED_ZOOM` about the card's corner (:meth:`Recognizer._zoom_agrees`): a
#: webcam's eight of clubs, its corner's club blurred into a spade's shape, was read as a
#: spade at 1.05 of the leads, and at 0.17 zoomed (at 0.75 of the box, as a club). On the
#: standard decks 2 cards fewer at 0.3, none at 0.2; the eight of clubs read wrong at 0.1,
#: and at 0.8 of the box. Red suits are not asked: their ink settles the colour, and a heart
#: and a diamond do not blur into each other (asked of all suits, 13 cards fewer)
ZOOM_AGREE = 0.3


def _zoomed(
    box: tuple[float, float, float, float], zoom: float = LEARNED_ZOOM
) -> tuple[float, float, float, float]:
    """An index box scaled by ``zoom`` about the card's corner (its top-left kept): shrunk
    (:data:`LEARNED_ZOOM`), a small index fills more of the learned reader's input;
    enlarged (:data:`LEARNED_WIDE`), a large one fits in it with its suit."""
    x0, y0, x1, y1 = box
    return (x0, y0, x0 + (x1 - x0) * zoom, y0 + (y1 - y0) * zoom)


def _typical_height(taken: Sequence[NDArray[np.float32]], squash: float) -> float:
    """The typical card's height in the world's proportions, from the cards read ``taken``
    on a frame stretched by ``squash``; 0 where none was read."""
    if not taken:
        return 0.0
    world = np.array([1.0, 1.0 / squash])
    sides = np.array([_sides(q.astype(np.float64) * world) for q in taken])
    long_sides = np.maximum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3])
    return float(np.median(long_sides)) / 2


def frame_squash(quads: Sequence[NDArray[np.float64]], aspect: float) -> float:
    """How much taller than wide the frame shows the world (1 for a camera's own frames):
    the vertical stretch, from 0.5 to 2, that best makes the cards found whole rectangles of
    the card's ``aspect`` (frames exported squashed to 640 x 640 show cards up to twice as
    tall as they are), by the median over them of how far each is from one, in the ratio
    of its sides and the angle at its corners; 1 without cards."""
    if not quads:
        return 1.0
    q = np.stack(quads).astype(np.float64)[:, None, :, :]  # (Q, 1, 4, 2)
    stretched = q / np.stack([np.ones_like(_SQUASHES), _SQUASHES], axis=1)[None, :, None, :]
    d = np.roll(stretched, -1, axis=2) - stretched  # side i from corner i to i + 1
    length = np.maximum(np.hypot(d[..., 0], d[..., 1]), 1e-6)  # (Q, S, 4)
    a, b = length[..., 0] + length[..., 2], length[..., 1] + length[..., 3]
    ratio = np.abs(np.log(np.minimum(a, b) / np.maximum(a, b) / aspect))
    u = d / length[..., None]
    cos = np.abs(np.sum(u * np.roll(u, -1, axis=2), axis=-1)).mean(axis=-1)
    return float(_SQUASHES[int(np.argmin(np.median(ratio + cos, axis=0)))])


_SQUASHES = np.geomspace(0.5, 2.0, 57)  # the stretches tried, about 2.5 % apart


#: the index search looks for ink only within this many typical card heights of the paper
#: its cards read leave unexplained (a card's index lies on its own paper; its glyphs'
#: neighbourhoods and the guessed index box reach a third of a card beyond), unless that
#: covers at least SEARCH_WHOLE of the frame
SEARCH_REACH = 1.0
SEARCH_WHOLE = 0.5


def _search_window(
    left: Image, scale: NDArray[np.float64], card_h: float, shape: tuple[int, ...]
) -> _Window | None:
    """The part of the frame the index search looks at: the box round the paper ``left``
    (a mask of the frame shrunk by ``scale``), :data:`SEARCH_REACH` typical card heights
    (``card_h``, frame pixels) wider each way; None (the whole frame) where no card was
    read to size it, or where the box covers at least :data:`SEARCH_WHOLE` of the frame."""
    if card_h <= 0:
        return None
    h, w = shape[:2]
    x, y, bw, bh = cv2.boundingRect(left)
    reach = SEARCH_REACH * card_h
    x0 = max(0, int(x * scale[0] - reach))
    y0 = max(0, int(y * scale[1] - reach))
    x1 = min(w, math.ceil((x + bw) * scale[0] + reach))
    y1 = min(h, math.ceil((y + bh) * scale[1] + reach))
    if (x1 - x0) * (y1 - y0) >= SEARCH_WHOLE * w * h:
        return None
    return (x0, y0, x1, y1)


def _shrunk_window(window: _Window, f: int, w: int, h: int) -> _Window:
    """A window of the frame (x0, y0, x1, y1) on the frame shrunk by ``f`` to ``w`` x
    ``h``: every shrunk pixel it touches, within the shrunk frame."""
    x0, y0, x1, y1 = window
    return (max(0, x0 // f), max(0, y0 // f), min(w, -(-x1 // f)), min(h, -(-y1 // f)))


@dataclass(frozen=True, slots=True)
class IndexInk:
    """The ink components a frame shows, where index glyphs are looked for
    (:func:`index_ink`): each component's box (its width and height) and area in frame
    pixels, its centre on the frame, and whether it lies inside a card already read; their
    labels on the frame shrunk by (``sx``, ``sy``), over the part of it looked at: from
    ``origin`` (x, y, in shrunk pixels) on, as large as ``labels``, of a shrunk frame of
    ``shrunk`` (width, height) pixels (all of it where no window was given)."""

    labels: NDArray[np.int32]
    w: NDArray[np.float64]
    h: NDArray[np.float64]
    area: NDArray[np.float64]  # in shrunk pixels
    centres: NDArray[np.float64]  # (N + 1, 2): the background's first, as OpenCV gives them
    inside: NDArray[np.bool_]
    sx: float
    sy: float
    width: int  # the frame's
    height: int
    origin: tuple[int, int]
    shrunk: tuple[int, int]


def index_ink(
    frame: Image,
    card_height: float,
    taken: Sequence[NDArray[np.float32]],
    *,
    beside_edges: bool = False,
    memo: dict[tuple[Any, ...], Any] | None = None,
    window: _Window | None = None,
) -> IndexInk:
    """The ink components of ``frame`` that index glyphs may be (:func:`index_hypotheses`),
    looked for around the typical card of ``card_height`` pixels (0: any size).

    ``beside_edges``: also the ink darker than the paper around it (the mean of the light
    pixels only, where they are at least :data:`INDEX_BESIDE_PAPER` of the neighbourhood).
    An index lies by its card's edge; on a dark table half its neighbourhood is table, whose
    mean is then as dark as a thin rank glyph (deck D's nine of hearts on grey cloth: its
    nine found as six specks, its index never guessed).

    ``memo``: what was found already on this ``frame`` with these ``taken`` (one dict for
    each frame and ``taken``, empty at first): the frame's index search asks for the ink
    up to three times (:meth:`Recognizer._probed_squash`, :func:`index_hypotheses`,
    :func:`beside_edges_hypotheses`), around one card height or two; the same ink is then
    found once, and the ink beside edges adds to it (on the webcam frames of 18 cards, a
    tenth of the index search's time). It may hold the frame already shrunk by a factor
    ``f`` under ``("small", f)``, as :func:`locate` shrank it.

    ``window`` (x0, y0, x1, y1, frame pixels): only that part of the frame is looked at
    (the index search's, round the paper its cards read leave unexplained); the paper's
    level is still the whole frame's. Ink is found there as on the whole frame, but within
    a neighbourhood's reach of the window's sides."""
    if memo is None:
        memo = {}
    fh, fw = frame.shape[:2]
    # ink is looked for on the frame shrunk by a whole factor, the typical rank glyph kept
    # at least INDEX_GLYPH pixels tall
    f = max(1, min(int(0.1 * card_height / INDEX_GLYPH), -(-max(fw, fh) // DETECTION_SIZE)))
    if ("dark", f, window) not in memo:
        # the frame shrunk as :func:`locate` shrinks it, where it was (the same call: 0.8 ms
        # of a 1280 x 720 frame's 40 where it was shrunk again)
        small = memo.get(("small", f))
        if small is None:
            small = (
                frame
                if f == 1
                else cv2.resize(
                    frame, (max(1, fw // f), max(1, fh // f)), interpolation=cv2.INTER_AREA
                )
            )
        sh, sw = small.shape[:2]
        x0, y0, x1, y1 = (0, 0, sw, sh) if window is None else _shrunk_window(window, f, sw, sh)
        b, g, r = cv2.split(np.ascontiguousarray(small[y0:y1, x0:x1]))
        dark = cv2.min(cv2.min(b, g), r)
        # the paper's level from every fourth pixel of the whole frame, windowed or not
        sample = dark[::4, ::4]
        if window is not None:
            b, g, r = cv2.split(np.ascontiguousarray(small[::4, ::4]))
            sample = cv2.min(cv2.min(b, g), r)
        memo["dark", f, window] = (
            dark,
            round(INDEX_LIGHT * percentile_u8(sample, 99)),
            cv2.add(dark, np.full_like(dark, INDEX_INK)),
            (x0, y0),
            (sw, sh),
        )
    # light: paper is at least INDEX_LIGHT of the frame's lightest, in the darkest channel;
    # darker: the darkest channel plus INDEX_INK (ink is where even that is below the mean
    # of its neighbourhood)
    darkest, light, darker, origin, shrunk_size = memo["dark", f, window]
    sx, sy = fw / shrunk_size[0], fh / shrunk_size[1]
    # ink: darker than its neighbourhood by INDEX_INK, where the neighbourhood is light
    if card_height:  # an index's own size, and a narrower one (INDEX_NARROW_BLOCK)
        blocks = [max(15, int(share * card_height / f) | 1) for share in (0.3, INDEX_NARROW_BLOCK)]
    else:  # glyphs of any size: also against a neighbourhood of large ones
        blocks = [31, max(31, int(INDEX_WIDE_BLOCK * min(shrunk_size[::-1])) | 1)]
    key = (f, window, *blocks)
    if ("found", *key, beside_edges) in memo:
        found_ink: IndexInk = memo["found", *key, beside_edges]
        return found_ink
    if ("ink", *key) not in memo:
        ink = np.zeros_like(darkest)
        for bl in blocks:
            mean = cv2.blur(darkest, (bl, bl))
            found = cv2.compare(darker, mean, cv2.CMP_LT)
            found = cv2.bitwise_and(found, cv2.compare(mean, np.full_like(mean, light), cv2.CMP_GE))
            ink = cv2.bitwise_or(ink, found)
        memo["ink", *key] = ink
    ink = memo["ink", *key]
    if beside_edges:
        # against the paper of the second neighbourhood: around a typical card the narrower
        # one (the first as well reads no card more, and takes twice the time); where no
        # card sizes the search, the wide one (a close-up's large glyphs; the 31-pixel one
        # instead reads a card fewer)
        bl = blocks[-1]
        # the paper as 0 and 1 straight from the comparison (through OpenCV's 0 and 255
        # divided in float64 it took six times as long: 0.9 ms of a 1280 x 720 frame)
        paper = (darkest >= light).astype(np.float32)
        share = cv2.blur(paper, (bl, bl))
        paper_mean = cv2.blur(cv2.multiply(darkest.astype(np.float32), paper), (bl, bl))
        beside = (darker * share < paper_mean) & (share >= INDEX_BESIDE_PAPER)
        ink = cv2.bitwise_or(ink, beside.astype(np.uint8) * 255)
    inside = np.zeros_like(ink)
    if taken:  # a component centred inside a quad taken is no index of another card
        to_shrunk = np.array([sx, sy], np.float32)
        at = np.array(origin, np.int32)
        shrunk = [np.round(t / to_shrunk).astype(np.int32) - at for t in taken]
        for t in shrunk:  # one by one: overlapping quads filled at once cancel out
            cv2.fillConvexPoly(inside, t, 255)
        ink = cv2.bitwise_and(ink, cv2.bitwise_not(inside))
    _, labels, stats, centres = cv2.connectedComponentsWithStatsWithAlgorithm(
        ink, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    cx, cy = _pixels(centres[1:, 0], ink.shape[1]), _pixels(centres[1:, 1], ink.shape[0])
    w, h, area = (stats[1:, i].astype(np.float64) for i in (2, 3, 4))
    out = IndexInk(
        np.asarray(labels, np.int32),
        w * sx,
        h * sy,
        area,
        (centres + np.array(origin) + 0.5) * np.array([sx, sy]) - 0.5,
        inside[cy, cx] != 0,
        sx,
        sy,
        fw,
        fh,
        origin,
        shrunk_size,
    )
    memo["found", *key, beside_edges] = out
    return out


def index_hypotheses(
    frame: Image,
    card_height: float,
    squash: float,
    taken: Sequence[NDArray[np.float32]],
    aspect: float,
    box: tuple[float, float, float, float] = DEFAULT_INDEX_BOX,
    ink: IndexInk | None = None,
    shown: tuple[float, float, float, float] | None = None,
    memo: dict[tuple[Any, ...], Any] | None = None,
    most: int = MAX_INDEX_PAIRS,
    window: _Window | None = None,
) -> list[tuple[NDArray[np.float64], Point]]:
    """Whole-card quads guessed from index corners: each pair of ink components that looks
    like a rank glyph over a suit symbol (:data:`INDEX_RANK_OVER_SUIT` and the extents
    around it) gives a card whose index that is, lying along the pair's axis, of the height
    the pair implies (:data:`INDEX_STEP`), within :data:`INDEX_CARD_SIZE` of the typical
    card's ``card_height`` (pixels, in the world's proportions; 0 when no card was read:
    no bound), the frame
    stretched by ``squash`` (:func:`frame_squash`). Components inside the quads ``taken``
    (cards already read) are not looked at. A card may reach beyond the frame (a close-up,
    or a card at the edge of the camera's view) as long as its index corner, the profile's
    ``box`` (x0, y0, x1, y1 as shares of the card's width and height), lies inside it: on
    decks A, C and E that reads 14 cards more, none wrong. Each quad comes with its rank
    glyph's centre, most plausible first (the ratio nearest its typical, the index box
    least cluttered by other ink: :data:`INDEX_CLUTTER`), at most :data:`MAX_INDEX_PAIRS`,
    or the first ``most`` of them (the squash's probe reads 16 of each squash's: placing
    the quads of those only, and weighing the clutter of the guesses on the frame only,
    this took 10 ms of a crowded real photograph where it took 13.5).

    ``ink``: the frame's ink components (:func:`index_ink`) where already found (the
    frame's squash is probed by guessing at several: :meth:`Recognizer._probed_squash`);
    otherwise they are found here, around ``card_height``. ``shown``: the part of the card
    (as ``box``) that must lie on the frame, where not all of ``box`` (calibration's
    photographs of one card: a close-up's index may lie near the picture's edge). ``memo``:
    :func:`index_ink`'s, where ``ink`` is not given."""
    if ink is None:
        ink = index_ink(frame, card_height, taken, memo=memo, window=window)
    fh, fw = ink.height, ink.width
    sx, sy, labels = ink.sx, ink.sy, ink.labels
    w, h, area = ink.w, ink.h, ink.area
    size = np.maximum(w, h / squash)  # in the world's proportions, as card_height
    lo, hi = (0.05 * card_height, 0.17 * card_height) if card_height else (6.0, min(fh, fw) / 6)
    keep = (size >= lo) & (size <= hi) & (area * sx * sy >= 0.15 * w * h) & (area >= 12)
    keep &= ~ink.inside
    idx = np.flatnonzero(keep)
    if len(idx) < 2:
        return []
    c = ink.centres[idx + 1].astype(np.float64)
    c[:, 1] /= squash  # the world's proportions
    # each pair from a rank (ri) to a suit (si) near enough to be one index, row by row
    gw, gh = w[idx], h[idx]  # each glyph's box
    ri, si = _near_pairs(c, np.hypot(gw, gh / squash) / INDEX_RANK_EXTENT[0])
    dx, dy = c[si, 0] - c[ri, 0], c[si, 1] - c[ri, 1]
    dist = np.maximum(np.hypot(dx, dy), 1e-6)
    ux, uy = np.abs(dx) / dist, np.abs(dy) / dist
    # each glyph's extent along the pair's axis, from its box
    along_rank = ux * gw[ri] + uy * gh[ri] / squash
    along_suit = ux * gw[si] + uy * gh[si] / squash
    ratio = along_rank / np.maximum(along_suit, 1e-6)
    good = (
        (ratio >= INDEX_RANK_OVER_SUIT[0]) & (ratio <= INDEX_RANK_OVER_SUIT[1])
        & (along_rank >= INDEX_RANK_EXTENT[0] * dist) & (along_rank <= INDEX_RANK_EXTENT[1] * dist)
        & (along_suit >= INDEX_SUIT_EXTENT[0] * dist) & (along_suit <= INDEX_SUIT_EXTENT[1] * dist)
    )  # fmt: skip
    height = dist / INDEX_STEP
    if card_height:
        good &= (height >= INDEX_CARD_SIZE[0] * card_height) & (
            height <= INDEX_CARD_SIZE[1] * card_height
        )
    ri, si = ri[good], si[good]
    typical = np.abs(np.log(ratio[good] / 1.36))  # the ratio's distance from its typical
    d = np.stack([dx[good], dy[good]], axis=1)
    x0, y0, x1, y1 = max(0.0, box[0]), max(0.0, box[1]), box[2], box[3]  # on the card
    shares = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    # the pairs most plausible by their ratio (nearest its typical 1.36), at most
    # INDEX_CLUTTER_POOL of them, each placed as its card's index corner
    pool = np.argsort(typical, kind="stable")[:INDEX_CLUTTER_POOL]
    ri, si, typical = ri[pool], si[pool], typical[pool]
    cards = _cards_around(c[ri], d[pool], aspect)

    # the index box must lie on the frame (a card may reach beyond it: a close-up)
    if shown is not None:
        u0, v0, u1, v1 = shown
        shares = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]], np.float64)
    index = _on_cards(cards, shares[:, 0], shares[:, 1], squash)
    ix, iy = index[..., 0], index[..., 1]
    margin = (0.02 * cards[3])[:, None]
    on_frame = ~(
        (ix.min(axis=1) < -margin[:, 0])
        | (iy.min(axis=1) < -margin[:, 0])
        | (ix > fw - 1 + margin).any(axis=1)
        | (iy > fh - 1 + margin).any(axis=1)
    )
    # the cards whose index box lies on the frame only are weighed further, and the first
    # ``most`` of them placed: each card's figures are its own, the same as when all were
    kept = np.flatnonzero(on_frame)
    on = _some_cards(cards, kept)
    # clutter: the share of the index box that other ink components cover
    grid_u, grid_v = x0 + _BOX_STEPS * (x1 - x0), y0 + _BOX_STEPS * (y1 - y0)
    gx, gy = _grid_on_cards(on, grid_u, grid_v, squash)
    lh, lw = labels.shape
    # each point's pixel on the shrunk frame, then in the part of it labelled (beyond
    # that part, where a window was looked at, no ink: the background's label)
    px = _pixels((gx + 0.5) / sx - 0.5, ink.shrunk[0]) - ink.origin[0]
    py = _pixels((gy + 0.5) / sy - 0.5, ink.shrunk[1]) - ink.origin[1]
    looked = (px >= 0) & (px < lw) & (py >= 0) & (py < lh)
    at = np.where(looked, py * lw + px, 0)
    lab = np.where(looked, labels.ravel()[at], 0).reshape(len(kept), len(_BOX_STEPS) ** 2)
    rk, sk = ri[kept], si[kept]
    own = (lab == 0) | (lab == (idx[rk] + 1)[:, None]) | (lab == (idx[sk] + 1)[:, None])
    clutter = 1.0 - own.mean(axis=1)
    # the most plausible first: the ratio nearest its typical, the index box least cluttered
    key = typical[kept] + INDEX_CLUTTER * clutter
    first = np.argsort(key, kind="stable")[: min(most, MAX_INDEX_PAIRS)]
    quads = _on_cards(_some_cards(on, first), *_CARD_CORNERS, squash)
    centres_out = (c[rk[first]] * np.array([1.0, squash])).tolist()
    return list(zip(quads, map(tuple, centres_out), strict=True))


def _grid_on_cards(
    cards: _Cards, u: NDArray[np.float64], v: NDArray[np.float64], squash: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The x and y (P, V, U each) of the grid of points at shares ``u`` (U) across and ``v``
    (V) down each card, the same numbers as :func:`_on_cards` gives each of its points
    (the grid's points row by row): each coordinate is the card's corner plus the step
    across plus the step down, added in that order, so the first sum is made once for
    each column and the second once for each point (the clutter's 64 places of up to
    4,000 cards: 0.7 ms of a crowded real photograph where :func:`_on_cards` took 2)."""
    corner, right, down, ht, wd = cards
    across, along = u[None, :] * wd[:, None], v[None, :] * ht[:, None]
    columns_x = corner[:, 0, None] + across * right[:, 0, None]  # (P, U)
    columns_y = corner[:, 1, None] + across * right[:, 1, None]
    x = columns_x[:, None, :] + (along * down[:, 0, None])[:, :, None]
    y = columns_y[:, None, :] + (along * down[:, 1, None])[:, :, None]
    y *= squash
    return x, y


def _some_cards(cards: _Cards, which: NDArray[np.intp]) -> _Cards:
    """The cards ``which`` of those placed (:func:`_cards_around`)."""
    corner, right, down, ht, wd = cards
    return corner[which], right[which], down[which], ht[which], wd[which]


def _near_pairs(
    points: NDArray[np.float64], reach: NDArray[np.float64]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The pairs (i, j) of distinct ``points`` (N, 2) with point j within ``reach[i]`` of
    point i across and down (and a little more: a bound, not the test), ordered by i, then
    j, as ``np.nonzero`` lists a matrix's. A rank glyph's pair lies within its own extent's
    reach (:data:`INDEX_RANK_EXTENT`): on a knitted blanket's webcam frame, of the 170
    components' 28,900 pairs, the rest are never one index, and working out all of them
    took half of :func:`index_hypotheses`' time."""
    n = len(points)
    reach = reach * 1.001 + 1e-6  # rounding can only lengthen a pair's extents a little
    order = np.argsort(points[:, 0], kind="stable")
    xs = points[order, 0]
    lo = np.searchsorted(xs, points[:, 0] - reach, "left")
    hi = np.searchsorted(xs, points[:, 0] + reach, "right")
    counts = hi - lo
    i = np.repeat(np.arange(n), counts)
    at = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts - lo, counts)
    j = order[at]
    keep = (i != j) & (np.abs(points[j, 1] - points[i, 1]) <= reach[i])
    # ordered by i, then j, as one number each: 19 microseconds on a frame's 1,200 pairs,
    # where NumPy's lexsort of the two took 47
    ranked = np.sort(i[keep] * n + j[keep])
    return ranked // n, ranked % n


#: a guess from ink beside cards' edges whose rank glyph is centred within this many frame
#: pixels (across and down) of a first guess's is that guess again (1.5 and 6 read as many)
INDEX_SAME_CENTRE = 3.0


def beside_edges_hypotheses(
    frame: Image,
    card_height: float,
    squash: float,
    taken: Sequence[NDArray[np.float32]],
    aspect: float,
    box: tuple[float, float, float, float],
    first: Sequence[tuple[NDArray[np.float64], Point]],
    memo: dict[tuple[Any, ...], Any] | None = None,
    window: _Window | None = None,
) -> list[tuple[NDArray[np.float64], Point]]:
    """The guesses :func:`index_hypotheses` makes from the ink found also beside cards'
    edges (:func:`index_ink`'s ``beside_edges``) whose rank glyphs are not those of the
    guesses ``first`` (:data:`INDEX_SAME_CENTRE`), most plausible first, as many as
    :data:`MAX_INDEX_PAIRS` less the first. They come after the first ones: the ink they add
    (the table's dark rim beside a card among it) reorders the guesses of a crowded frame,
    whose budget of tries the first ones use: pooled with them, the standard decks read 39
    cards more and 32 fewer; after them, 9 more and none fewer. ``memo``: :func:`index_ink`'s."""
    ink = index_ink(frame, card_height, taken, beside_edges=True, memo=memo, window=window)
    seen = np.array([c for _, c in first], np.float64).reshape(-1, 2)
    out: list[tuple[NDArray[np.float64], Point]] = []
    room = MAX_INDEX_PAIRS - len(first)
    for quad, centre in index_hypotheses(frame, card_height, squash, taken, aspect, box, ink):
        if len(out) >= room:
            break
        if len(seen) and (np.abs(seen - centre).max(axis=1) < INDEX_SAME_CENTRE).any():
            continue
        out.append((quad, centre))
        seen = np.vstack([seen, centre])
    return out


def restretched(
    quad: NDArray[np.float64], centre: Point, new: float, aspect: float
) -> NDArray[np.float64]:
    """The card :func:`index_hypotheses` guessed around an index pair (``quad``, on the
    frame), guessed again as though the frame were stretched by ``new``: the same rank
    glyph's centre (``centre``) and suit symbol's (where ``quad``'s height puts it), the
    card's proportions and size taken in the world that ``new`` makes of the frame."""
    rank = np.array(centre, np.float64)
    world = np.array([1.0, 1.0 / new])
    step = INDEX_STEP * (quad[3] - quad[0]) * world  # from the rank to the suit symbol
    cards = _cards_around(rank[None] * world, step[None], aspect)
    out: NDArray[np.float64] = _on_cards(cards, *_CARD_CORNERS, new)[0]
    return out


#: a card's corners as shares of its width and height, clockwise from its top-left
_CARD_CORNERS = (np.array([0.0, 1.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0, 1.0]))

#: cards placed around index pairs (:func:`_cards_around`): each one's top-left corner, its
#: right and down unit vectors, its height and its width, in the world's proportions
_Cards = tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
]


def _cards_around(rank: NDArray[np.float64], step: NDArray[np.float64], aspect: float) -> _Cards:
    """The cards whose index pairs have their rank glyphs' centres at ``rank`` (P, 2) and
    their suit symbols' a ``step`` (P, 2) further along the card's down, in the world's
    proportions: each card's height the step over :data:`INDEX_STEP`, its rank's centre at
    :data:`INDEX_RANK_AT` of its width and height from its top-left corner."""
    dist = np.maximum(np.hypot(step[:, 0], step[:, 1]), 1e-6)
    down = step / dist[:, None]
    right = np.stack([down[:, 1], -down[:, 0]], axis=1)
    ht = dist / INDEX_STEP
    wd = ht * aspect
    corner = rank - INDEX_RANK_AT[0] * wd[:, None] * right - INDEX_RANK_AT[1] * ht[:, None] * down
    return corner, right, down, ht, wd


def _on_cards(
    cards: _Cards, u: NDArray[np.float64], v: NDArray[np.float64], squash: float
) -> NDArray[np.float64]:
    """Points (P, N, 2) at shares (``u``, ``v``: N each) of each card's width and height, on
    a frame stretched by ``squash``."""
    corner, right, down, ht, wd = cards
    p: NDArray[np.float64] = (
        corner[:, None, :] + (u[None, :] * wd[:, None])[..., None] * right[:, None, :]
    )
    p += (v[None, :] * ht[:, None])[..., None] * down[:, None, :]
    p[..., 1] *= squash
    return p


_EDGE_T = np.linspace(0.14, 0.86, 12)  # where along each side its edge is measured
# each corner's next and previous (NumPy's roll took ten times as long as these takes)
_NEXT, _PREVIOUS = np.array([1, 2, 3, 0]), np.array([3, 0, 1, 2])


_GREY = np.array([0.114, 0.587, 0.299], np.float32)  # BGR weights of brightness


def refine_quads(
    image: Image, quads: Sequence[NDArray[np.float64]], reach: float = 4.0
) -> list[NDArray[np.float64]]:
    """:func:`measure_quads` without saying which were measured."""
    return measure_quads(image, quads, reach)[0]


#: an outline not measured all round is measured again, looking this many times as far either
#: side of its own edges: an index printed near a card's edge bites into the paper's outline
#: and tilts that side, up to 15 px at 1280 x 720 where the reach is 6 (deck F's ten of clubs
#: on light wood, read by its index corners alone at 15 corners' cost)
REGULAR_REACH = 2.0
#: a measured outline whose four sides all ran along clear edges may move a corner up to
#: this many times the reach (not only 1.5) where that makes it a truer parallelogram
#: (:func:`_skew`)
REGULAR_MOVE = 3.0


def measure_quads(
    image: Image, quads: Sequence[NDArray[np.float64]], reach: float = 4.0
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.bool_]]]:
    """Card corners moved onto the paper's edges, measured at the frame's full resolution.

    ``image`` is the frame (BGR or grey). Outlines found on a shrunk frame are a pixel or
    two off, which is much of an index glyph on a small card. Across each side, at twelve
    places clear of the rounded corners, the brightness is sampled up to ``reach`` pixels
    in and out; the edge is the outermost place where it falls steeply going outwards
    (paper is brighter than the table, and ink printed near the edge falls further in), to
    a tenth of a pixel. A line through those points (refitted without the ones that stray)
    is the side, and adjacent sides meet at the corners. A side with too few clear edge
    points, or a corner that would move further than 1.5 ``reach``, keeps the outline's
    own; the second list says which sides of each were measured (side i runs from corner
    i). An outline whose four sides all ran along edges may move further, up to
    :data:`REGULAR_MOVE` ``reach``, where it comes out a truer parallelogram; one not
    measured all round (and lying wholly inside the frame) is measured again
    :data:`REGULAR_REACH` times as far, and kept so where all four sides are then measured
    and it comes out a truer parallelogram.
    """
    if not quads:
        return [], []
    q = np.array(quads, np.float64)  # (Q, 4, 2)
    corners, fitted, moved = _measure(image, q, reach)
    skew = _skew(q)
    whole = fitted.all(axis=1)
    truer = whole & (moved <= REGULAR_MOVE * reach) & (_skew(corners) < skew)
    kept = (moved <= 1.5 * reach) | truer
    h, w = image.shape[:2]
    inside = ((q >= 0) & (q <= np.array([w - 1, h - 1]))).all(axis=(1, 2))
    again = np.flatnonzero(~(kept & whole) & inside)  # a card the frame cuts: by its corners
    if len(again):
        wide, wide_fitted, wide_moved = _measure(image, q[again], REGULAR_REACH * reach)
        better = (
            wide_fitted.all(axis=1)
            & (wide_moved <= REGULAR_MOVE * reach)
            & (_skew(wide) < skew[again])
        )
        take = again[better]
        corners[take], fitted[take], kept[take] = wide[better], True, True
    sides = fitted & kept[:, None]
    out = [corners[i] if kept[i] else q[i] for i in range(len(q))]
    return out, list(sides)


def _measure(
    image: Image, q: NDArray[np.float64], reach: float
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    """:func:`measure_quads`' measuring of the quadrilaterals ``q`` (Q, 4, 2) at one reach:
    the corners where the measured sides meet (Q, 4, 2), which sides had enough clear edge
    points (Q, 4), and how far each quadrilateral's corners moved at most (Q)."""
    a, b = q, q.take(_NEXT, axis=1)  # side i runs from corner i to corner i + 1
    d = b - a
    length = np.maximum(np.hypot(d[..., 0], d[..., 1]), 1e-6)
    u = d / length[..., None]
    centre = q.mean(axis=1, keepdims=True)
    normal = np.stack([u[..., 1], -u[..., 0]], axis=-1)
    mid = (a + b) / 2
    flip = np.sum((mid - centre) * normal, axis=-1) < 0
    normal[flip] *= -1  # pointing out of the card
    offsets = np.arange(-reach, reach + 0.25, 0.5)
    base = a[:, :, None, :] + _EDGE_T[None, None, :, None] * d[:, :, None, :]  # (Q, 4, M, 2)
    # each sample's x and y apart, in rows of the offsets (the same sums as on the (x, y)
    # pairs, where a last axis of two made NumPy's loops take 0.4 ms a rendered frame)
    step = offsets[None, None, :] * normal.transpose(2, 0, 1)[..., None]  # (2, Q, 4, O)
    ends = base.transpose(3, 0, 1, 2)[..., None]  # (2, Q, 4, M, 1)
    map_x = (ends[0] + step[0][:, :, None, :]).astype(np.float32).reshape(-1, len(offsets))
    map_y = (ends[1] + step[1][:, :, None, :]).astype(np.float32).reshape(-1, len(offsets))
    sampled = cv2.remap(
        image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    profile = sampled @ _GREY if sampled.ndim == 3 else sampled  # brightness of a colour frame
    slope = profile[:, 2:] - profile[:, :-2]  # brightness change going outwards
    # the outermost clear fall: ink printed near the edge falls steeper, further in
    strongest = -slope.min(axis=1, keepdims=True)
    fall = -slope >= np.maximum(12.0, 0.4 * strongest)
    fall[:, 1:-1] &= (slope[:, 1:-1] <= slope[:, :-2]) & (slope[:, 1:-1] <= slope[:, 2:])
    i = slope.shape[1] - 1 - np.argmax(fall[:, ::-1], axis=1)
    # each row's slope at i and on either side, taken from the flat array (the same values
    # as indexing by rows and columns, in a third of its time)
    flat, rows = slope.ravel(), np.arange(len(i)) * slope.shape[1]
    at_i = flat.take(rows + i)
    steep = np.where(fall.any(axis=1), -at_i, 0.0)
    lo = flat.take(rows + np.maximum(i - 1, 0))
    hi = flat.take(rows + np.minimum(i + 1, slope.shape[1] - 1))
    curve = lo + hi - 2 * at_i
    shift = np.where(np.abs(curve) > 1e-6, 0.5 * (lo - hi) / np.where(curve == 0, 1, curve), 0)
    at = offsets[1 + i] + 0.5 * np.clip(shift, -1, 1)
    ok = (steep >= 12.0) & (i > 0) & (i < slope.shape[1] - 1)
    edge = base.reshape(-1, 2) + at[:, None] * np.repeat(normal.reshape(-1, 2), len(_EDGE_T), 0)
    edge = edge.reshape(-1, len(_EDGE_T), 2)  # (sides, M, 2)
    centre_pt, direction, fitted = _fit_edges(edge, ok.reshape(-1, len(_EDGE_T)))
    # sides without enough clear edge points keep the outline's own line
    centre_pt = np.where(fitted[:, None], centre_pt, a.reshape(-1, 2))
    direction = np.where(fitted[:, None], direction, u.reshape(-1, 2))
    p0 = centre_pt.reshape(-1, 4, 2)
    r0 = direction.reshape(-1, 4, 2)
    # corner c is where side c - 1 (ending at it) meets side c (starting from it)
    pa, ra = p0.take(_PREVIOUS, axis=1), r0.take(_PREVIOUS, axis=1)
    den = ra[..., 0] * r0[..., 1] - ra[..., 1] * r0[..., 0]
    diff = p0 - pa
    k = (diff[..., 0] * r0[..., 1] - diff[..., 1] * r0[..., 0]) / np.where(
        np.abs(den) < 1e-9, 1.0, den
    )
    corners = pa + k[..., None] * ra
    corners = np.where((np.abs(den) < 1e-9)[..., None], q, corners)
    moved = np.hypot(*(corners - q).transpose(2, 0, 1)).max(axis=1)
    return corners, fitted.reshape(-1, 4), moved


def _skew(quads: NDArray[np.float64]) -> NDArray[np.float64]:
    """How far each quadrilateral (Q, 4, 2) is from a parallelogram: the larger of its two
    pairs of opposite sides' difference in length, as a share of the longer."""
    d = quads.take(_NEXT, axis=1) - quads
    length = np.hypot(d[..., 0], d[..., 1])
    pairs = np.abs(length[:, :2] - length[:, 2:]) / np.maximum(
        np.maximum(length[:, :2], length[:, 2:]), 1e-6
    )
    return np.asarray(pairs.max(axis=1), np.float64)


def _fit_edges(
    points: NDArray[np.float64], ok: NDArray[np.bool_]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Lines through the edge points of many sides at once (a point and a unit direction
    each), refitted twice without the points more than 0.75 px off; and whether each side
    had enough points (five) to fit."""
    keep = ok.copy()
    centre = np.zeros((len(points), 2))
    direction = np.zeros((len(points), 2))
    for _ in range(3):
        n = keep.sum(axis=1)
        w = keep / np.maximum(n, 1)[:, None]
        centre = np.einsum("sm,smk->sk", w, points)
        rel = points - centre[:, None, :]
        sxx = np.einsum("sm,sm->s", w, rel[..., 0] ** 2)
        syy = np.einsum("sm,sm->s", w, rel[..., 1] ** 2)
        sxy = np.einsum("sm,sm->s", w, rel[..., 0] * rel[..., 1])
        angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # the principal axis of the points
        direction = np.stack([np.cos(angle), np.sin(angle)], axis=1)
        normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
        resid = np.abs(np.einsum("smk,sk->sm", rel, normal))
        keep = ok & (resid <= 0.75)
    fitted = keep.sum(axis=1) >= 5
    return centre, direction, fitted


def canonical_size(aspect: float) -> tuple[int, int]:
    """Width and height of the canonical card for a card aspect (width / height)."""
    return CANONICAL_WIDTH, round(CANONICAL_WIDTH / aspect)


def index_patches(
    frame: Image,
    quad: NDArray[np.float64],
    aspect: float,
    index_box: tuple[float, float, float, float],
    corners: Sequence[int] = (0, 1, 2, 3),
) -> list[Image]:
    """Candidate index-corner patches, one per corner (of ``corners``, by default all four)
    taken as the card's top-left."""
    size, dst, shift = _box_warp(aspect, index_box)
    out = []
    for k in corners:
        src = quad[_ROLL[k]].astype(np.float32)
        m = shift @ cv2.getPerspectiveTransform(src, dst)
        patch = cv2.warpPerspective(
            frame, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        out.append(np.asarray(patch, np.uint8))
    return out


@lru_cache(maxsize=64)  # a few boxes (index, zoomed, pips) of a few decks
def _box_warp(
    aspect: float, box: tuple[float, float, float, float]
) -> tuple[tuple[int, int], NDArray[np.float32], NDArray[np.float64]]:
    """For a box of the canonical card (fractions of its width and height): the patch's
    size, the canonical card's corners, and the shift that puts the box's corner at the
    patch's origin. The same few boxes are cut hundreds of times a frame: made once (the
    arrays are not to be written)."""
    cw, ch = canonical_size(aspect)
    x0, y0, x1, y1 = box
    bx, by = round(x0 * cw), round(y0 * ch)
    size = (round(x1 * cw) - bx, round(y1 * ch) - by)
    dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    shift = np.array([[1, 0, -bx], [0, 1, -by], [0, 0, 1]], np.float64)
    dst.flags.writeable = False
    shift.flags.writeable = False
    return size, dst, shift


def pip_patch(
    frame: Image,
    quad: NDArray[np.float64],
    aspect: float,
    k: int,
    box: tuple[float, float, float, float] = PIP_BOX,
) -> Image:
    """The middle of the card (``box``, by default :data:`~drivers.camera.glyphs.PIP_BOX`),
    rectified, with corner ``k`` taken as the card's top-left."""
    size, dst, shift = _box_warp(aspect, box)
    m = shift @ cv2.getPerspectiveTransform(quad[_ROLL[k]].astype(np.float32), dst)
    patch = cv2.warpPerspective(
        frame, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(patch, np.uint8)


def patch_origin(aspect: float, index_box: tuple[float, float, float, float]) -> tuple[int, int]:
    """Where the card's own corner lies in an index patch (pixels from the patch's corner)."""
    cw, ch = canonical_size(aspect)
    return max(0, -round(index_box[0] * cw)), max(0, -round(index_box[1] * ch))


# a suit descriptor's elements, turned half a turn
_TURN = np.arange(SUIT_SIZE[0] * SUIT_SIZE[1]).reshape(SUIT_SIZE[::-1])[::-1, ::-1].ravel()


def _upright_pip(
    pips: GlyphClassifier, vector: NDArray[np.float32], ink: NDArray[np.bool_]
) -> NDArray[np.float32] | None:
    """A pip that may lie either way up (an ace's), turned upright; None when which way up
    it lies is not clear.

    Upright, a pip correlates with its suit's mean pip (:data:`UPRIGHT_PIP` or more); turned
    over it is no suit's shape (an upturned club looks most like a spade, but correlates at
    most 0.76 with it on small tilted aces, where the upright pips correlate at least 0.91).
    The way up that correlates better is taken when it leads the other by
    :data:`UPRIGHT_LEAD`.
    """
    means = pips.means[ink]
    turned = vector[_TURN]
    up, down = float((means @ vector).max()), float((means @ turned).max())
    best, other, view = (up, down, vector) if up >= down else (down, up, turned)
    if best < UPRIGHT_PIP or best - other < UPRIGHT_LEAD:
        return None
    return np.ascontiguousarray(view)


def _whiteness(frame: Image, quad: NDArray[np.float64]) -> float:
    """Share of paper-like pixels in the card's interior (a card back's pattern is not paper)."""
    dst = np.array([[-2, -3], [14, -3], [14, 19], [-2, 19]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    inner = cv2.warpPerspective(frame, m, (12, 16), flags=cv2.INTER_AREA)
    hsv = cv2.cvtColor(inner, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    v_ref = percentile_u8(hsv[:, 2], 90)
    paper = (hsv[:, 1] < 70) & (hsv[:, 2] > 0.7 * v_ref) & (hsv[:, 2] > 70)
    return float(np.count_nonzero(paper)) / len(paper)


_RED = frozenset({int(Suit.HEARTS), int(Suit.DIAMONDS)})
_BLACK = frozenset({int(Suit.CLUBS), int(Suit.SPADES)})


def _table_tone(small: Image) -> tuple[bool, bool]:
    """Whether the frame (shrunk) shows a table as light as paper, and whether a coloured
    one, from the median HSV value and saturation of every eighth pixel. Light: a value of
    at least :data:`LIGHT_TABLE` and a saturation of no more than 80 (light wood, a white
    desk: the paper test may miss cards no brighter than it). Coloured: a saturation above
    80 (felt: paper, colourless, is told from it wherever it lies)."""
    sample = cv2.cvtColor(small[::8, ::8], cv2.COLOR_BGR2HSV).reshape(-1, 3)
    value, saturation = float(np.median(sample[:, 2])), float(np.median(sample[:, 1]))
    return value >= LIGHT_TABLE and saturation <= 80, saturation > 80


def _add_edge_quads(
    small: Image,
    quads: list[NDArray[np.float64]],
    outlines: list[NDArray[np.int32]],
    loose: list[NDArray[np.int32] | None],
    min_area: float,
    factor: int,
    planes: tuple[Image, Image] | None,
    light: bool,
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.int32]], list[NDArray[np.int32] | None]]:
    """The paper test's quads, and on a ``light`` table (:func:`_table_tone`), where the
    paper test found no
    clean card at all (a glare running into the only card), or where it left a blob at
    least as large as every clean card (a court card run into lit grain), the card shapes of
    :func:`edge_quads` whose centres lie in none of its quads or blobs (cards on a table as
    light as paper), each standing for the larger loose quads fitted beyond the frame that
    it lies in; and its blobs, less those that lie inside a card found by its edges (the
    rim of a close card's paper against the table)."""
    if not light and any(o is None for o in loose):
        # paper is brighter than a darker table, paler than felt: its cards were found,
        # unless a blob at least as large as every clean card is left (a court card run
        # into lit grain beside it, where a card's sliver at the frame's edge was clean):
        # deck A's king of clubs on dark wood is read, and under the twelve alterations 10
        # cards more and 1 fewer, none wrong; 13 of the 100 photographs of a dark table
        # with a clean card are searched so, most of them deck B's on black
        largest = max(
            abs(cv2.contourArea(q.astype(np.float32)))
            for q, o in zip(quads, loose, strict=True)
            if o is None
        )
        if all(abs(cv2.contourArea(o)) < largest for o in outlines):
            return quads, outlines, loose
    clean = [q.astype(np.float64) for q, o in zip(quads, loose, strict=True) if o is None]
    # a card too small to read is not looked for by its edges alone (the edges found once:
    # 1.5 ms a light table's frame where they were found again below)
    edges = canny_edges(np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), np.uint8))
    found, parts = edge_shapes(
        small,
        min_area=min_area,
        min_side=MIN_CARD_SIDE / factor,
        known=clean,
        planes=planes,
        edges=edges,
    )
    if not found and not parts:
        return quads, outlines, loose
    taken = [q.astype(np.float32) for q in quads] + [o.astype(np.float32) for o in outlines]
    out, out_loose, added = list(quads), list(loose), []
    blobs = [(t, abs(cv2.contourArea(t))) for t in taken[len(quads) :]]
    near: Image | None = None
    given_way: set[int] = set()  # the loose quads that cards found whole stand for
    h, w = small.shape[:2]
    beyond = [  # the paper test's quads with a corner beyond the frame: no card seen whole
        bool((q < -0.5).any() or (q[:, 0] > w - 0.5).any() or (q[:, 1] > h - 0.5).any())
        for q in quads
    ]

    def outlined(quad: NDArray[np.float64]) -> bool:  # Canny's edges all round it
        nonlocal near
        if near is None:
            near = np.asarray(cv2.dilate(edges, np.ones((5, 5), np.uint8)), np.uint8)
        return _edge_support(quad, near) >= WHOLE_OUTLINE

    for quad in found:
        cx, cy = (float(v) for v in quad.mean(axis=0))
        holders = [
            i
            for i, t in enumerate(taken[: len(quads)])
            if cv2.pointPolygonTest(t, (cx, cy), False) >= 0
        ]
        size = abs(cv2.contourArea(quad.astype(np.float32)))
        # a card found whole inside a larger quad the paper fills loosely, fitted with a
        # corner beyond the frame (the paper test ran a card into a lit stretch of the
        # table's grain that reaches the frame's edge, and fitted the two), stands for that
        # quad: all 318 photographs read one card more (deck A's six of diamonds on dark
        # wood), and under the benchmark's twelve alterations 15 more and none fewer, none
        # wrong. A loose quad inside the frame keeps its place: a court card's framed
        # figure, found whole by its edges, is no card (a webcam's jack of clubs, its index
        # outside the frame; with every loose quad giving way, the alterations read 32 more
        # and 4 fewer)
        if holders and not all(
            loose[i] is not None and beyond[i] and size < abs(cv2.contourArea(taken[i]))
            for i in holders
        ):
            continue
        # a card found whole by its edges inside a paper blob of about its own size (a card
        # a shadow or glare runs into) is that card; a smaller one is left to the blob,
        # unless edges run all round it: a card lying on top, or one whose paper the paper
        # test ran into a pale, textured table
        if any(
            cv2.pointPolygonTest(t, (cx, cy), False) >= 0 and size < WHOLE_BLOB * area
            for t, area in blobs
        ) and not outlined(quad):
            continue
        given_way.update(holders)
        out.append(quad)
        out_loose.append(None)
        added.append(quad.astype(np.float32))
    if given_way:  # the cards found whole in their place
        out = [q for i, q in enumerate(out) if i not in given_way]
        out_loose = [o for i, o in enumerate(out_loose) if i not in given_way]
    kept = [
        o
        for o in outlines
        if not any(
            cv2.pointPolygonTest(q, tuple(float(v) for v in o.reshape(-1, 2).mean(axis=0)), False)
            >= 0
            for q in added
        )
    ]
    # the visible stretches of cards partly under others, where no paper blob lies: at
    # least PART_SHARE of a card's area (the typical card's, where cards were found whole)
    # and at most MAX_PARTS cards' area (more is the table between cards)
    taken += added
    areas = [abs(cv2.contourArea(q.astype(np.float32))) for q in out]
    card = float(np.median(areas)) if areas else 0.0
    for rim in parts:
        size = cv2.contourArea(rim)
        if card and not PART_SHARE * card <= size <= MAX_PARTS * card:
            continue
        centre = tuple(float(v) for v in rim.reshape(-1, 2).mean(axis=0))
        if not any(cv2.pointPolygonTest(t, centre, False) >= 0 for t in taken):
            kept.append(rim)
    return out, kept, out_loose


@dataclass(frozen=True, slots=True)
class Located:
    """The card outlines found on a frame, as :func:`locate` finds them."""

    mask: Image  # the paper mask of the shrunk frame, the stretches found by edges filled in
    scale: NDArray[np.float64]  # frame pixels per shrunk pixel (x, y)
    quads: list[NDArray[np.float64]]  # card quadrilaterals on the shrunk frame
    outlines: list[NDArray[np.int32]]  # other paper blobs (cards overlapping), shrunk frame
    loose: list[NDArray[np.int32] | None]  # per quad: its outline when paper fills it loosely
    full: list[NDArray[np.float64]]  # the quads in frame pixels, edges measured
    measured: list[NDArray[np.bool_]]  # per quad: which sides were measured
    #: the frame as shrunk to look for paper, and by which whole factor (the index search
    #: looks for ink on the frame shrunk alike, and takes this one: the same call's pixels)
    small: Image
    factor: int
    #: the table is coloured (felt, :func:`_table_tone`): the paper test finds every card
    coloured: bool

    def cards(self, *, loose: bool = False) -> list[NDArray[np.float64]]:
        """The clean card outlines in frame pixels (largest first); with ``loose``, also
        those that paper fills loosely (they may hold two cards)."""
        clean = [q for q, o in zip(self.full, self.loose, strict=True) if loose or o is None]
        return sorted(clean, key=lambda q: -abs(cv2.contourArea(q.astype(np.float32))))


#: the brightest share of a frame taken as its white (paper, a glare) when balancing it
WHITE_SHARE = 0.01
#: a white whose channels differ by less than this ratio is grey already
WHITE_CAST = 1.15
#: the most a channel is raised to make that white grey (a camera's white balance gone
#: blue, deck D's on brown wood, made its cards 83 to 132 saturated: no paper at all; its
#: channels needed up to 1.49, and 1.87 with its red dimmed to 0.8 and its blue raised by
#: 1.1, a cooler light: at 1.6 none of its cards was then found, at 2 the standard decks so
#: altered read 765 cards where they read 743, and under a warm cast 771 where 746, none
#: wrong, the photographs as they are, greyed, noised, scaled and the rendered frames
#: reading the same); a brightest more tinted than this is a coloured table's (felt: the
#: rendered coloured felts need 3 to 5.9), not paper under a cast, and is left as it is:
#: balancing an empty felt table read it twice over for nothing
MAX_WHITE_GAIN = 2.0


def white_balanced(frame: Image) -> Image:
    """The frame with its colour cast taken out: each channel raised so that its brightest
    pixels (the top :data:`WHITE_SHARE` by their largest channel: a card's paper, a glare)
    become grey; the frame itself where they are grey already (within :data:`WHITE_CAST`)
    or too coloured for paper under a cast (beyond :data:`MAX_WHITE_GAIN`)."""
    # the brightest channel and the mean of the brightest pixels by OpenCV's calls: the same
    # frames out on the 318 real photographs, each also under four casts and lights, and on
    # frames of one grey and of noise (1,644 frames), 5.1 ms a frame where NumPy's took 22.6
    # (on a frame of one grey every pixel is among the brightest: 28 ms a 1280 x 720 frame)
    b, g, r = cv2.split(frame)
    top = cv2.max(cv2.max(b, g), r)
    level = percentile_u8(top[::2, ::2], 100.0 * (1.0 - WHITE_SHARE))
    bright = np.asarray(top >= level).view(np.uint8)  # 1 where among the brightest
    if not cv2.countNonZero(bright):
        return frame
    white = np.array(cv2.mean(frame, bright)[:3]) + 1.0
    gains = white.max() / white
    if not WHITE_CAST <= gains.max() <= MAX_WHITE_GAIN:
        return frame  # grey already, or a coloured table (felt) whose brightest is no paper
    return np.asarray(np.clip(frame * gains.astype(np.float32), 0, 255), np.uint8)


#: a frame's white (the 99th percentile of its pixels' brightest channel: paper, where
#: cards lie) is brought up to at least this (0-255) before anything is looked for, as a
#: camera's exposure would (:func:`exposed`): the recognizer's tests of paper and ink
#: measure brightness in levels, and an underexposed frame's card is dark grey with faint
#: ink (a phone's photographs of deck J on a dark cloth, white at 27 to 50: none of the
#: four read; all four at any level from 64). On the standard decks 128 reads 6 cards
#: more than leaving frames as they are (4 of them deck J's), none wrong; 100, 4 more.
#: 200 read 7 more, but it brightens the webcam frames too (white about 160), and one of
#: them stretched to 16:9 then read an eight of clubs, its index's club blurred, as a spade
EXPOSED_WHITE = 128.0
#: the most a frame is brightened (a frame all but black stays dark: its noise is not made
#: into ink)
MAX_EXPOSURE_GAIN = 8.0


def _check_bgr(frame: Image) -> None:
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8 or frame.size == 0:
        raise ValueError(f"expected a BGR uint8 image, got {frame.dtype} of shape {frame.shape}")


def exposed(frame: Image) -> Image:
    """``frame`` brightened so that its white reaches :data:`EXPOSED_WHITE` (by at most
    :data:`MAX_EXPOSURE_GAIN`); the frame itself where it is that bright already."""
    _check_bgr(frame)
    h, w = frame.shape[:2]
    # every fourth pixel's brightest channel (OpenCV: a tenth of NumPy's time on a strided
    # view, 0.3 ms against 2.6 on a 1280 x 720 frame), and their 99th percentile
    sample = cv2.resize(frame, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_NEAREST)
    b, g, r = cv2.split(sample)
    brightest = cv2.max(cv2.max(b, g), r)
    if brightest.size < 1 << 24:  # counted by OpenCV, exact in its float32 (0.2 ms less)
        hist = cv2.calcHist([brightest], [0], None, [256], [0, 256])
        counts = hist.ravel().astype(np.int64).cumsum()
    else:
        counts = np.bincount(brightest.ravel(), minlength=256).cumsum()
    white = float(np.searchsorted(counts, 0.99 * counts[-1]))
    if white >= EXPOSED_WHITE:
        return frame
    gain = min(MAX_EXPOSURE_GAIN, EXPOSED_WHITE / max(white, 1.0))
    return np.asarray(cv2.convertScaleAbs(frame, alpha=gain), np.uint8)


def locate(frame: Image) -> Located:
    """Find the card outlines on a frame: shrunk by a whole factor to at most
    :data:`DETECTION_SIZE` pixels (any size of frame, never refused), paper found by
    :func:`paper_and_value` and :func:`find_shapes`, on a light table also by
    :func:`edge_quads`, then each outline's edges measured at full resolution. The
    recognizer and calibration both find cards this way."""
    _check_bgr(frame)
    h, w = frame.shape[:2]
    factor = -(-max(w, h) // DETECTION_SIZE)  # a whole factor: fast, alias-free shrinking
    small = (
        frame
        if factor == 1
        else np.asarray(
            cv2.resize(  # a strip's short side kept (a frame 1 pixel by 5,000 read, not refused)
                frame, (max(1, w // factor), max(1, h // factor)), interpolation=cv2.INTER_AREA
            ),
            np.uint8,
        )
    )
    scale = np.array([w / small.shape[1], h / small.shape[0]])
    min_area = max(200.0, 0.0004 * small.shape[0] * small.shape[1])
    mask, value, low_sat = _paper_value_sat(small)
    quads, outlines, loose = find_shapes(mask, min_area=min_area, value=value)
    quads, loose = _drop_holders(quads, loose)
    blobs = {id(o) for o in outlines}
    light, coloured = _table_tone(small)
    quads, outlines, loose = _add_edge_quads(
        small, quads, outlines, loose, min_area, factor, (low_sat, value), light
    )
    quads, loose = _drop_holders(quads, loose)
    parts = [o.reshape(-1, 1, 2) for o in outlines if id(o) not in blobs]
    if parts:  # the stretches of paper found by their edges are paper too
        mask = np.asarray(cv2.drawContours(mask.copy(), parts, -1, 255, -1), np.uint8)
    # a shrunk pixel's centre, in the frame's pixels; then onto the paper's edges
    full = [(found + 0.5) * scale - 0.5 for found in quads]
    full, measured = measure_quads(frame, full, reach=max(4.0, 3.0 * float(scale.max())))
    return Located(mask, scale, quads, outlines, loose, full, measured, small, factor, coloured)


#: a seven to a ten whose middle shows up to this many pips fewer than its rank is not
#: denied by them: on a real close-up of a nine of clubs the nine pips touched in pairs and
#: read as six
DENY_SHORT = 3

#: one index corner alone (its card's others hidden under another card) names its card to
#: the learned reader with this many times the leads: on the real photographs, with every
#: corner guessed (outline corners and indices found by their ink), the shipped reader
#: reads none wrong at 3 and one at 2.75 (a webcam's eight of clubs read as a spade); the
#: reader before it read none wrong at 3 either, and at 2.5 took two pips in a ten of
#: spades' middle for an ace's index. Since the frame's squash is probed
#: (:data:`SQUASH_TRUSTED`), 3 reads two aces wrong, each at 1.03 of these leads (a
#: blanket's loop over a six's club pip, a king's figure over a spade pip); 3.1 none of
#: them, 7 cards fewer on the standard decks. That eight of clubs, its corner's club
#: blurred into a spade's shape, reads as a spade at 3.5 too
LEARNED_SINGLE = 3.1
#: the ink's redness (:func:`~drivers.camera.reader.ink_redness`) at which a corner's colour
#: is clear enough that its suit need only lead the other suit of that colour
#: (:func:`suit_lead`)
SURE_BLACK = 0.02
SURE_RED = 0.12

#: on a greyscale frame one guessed index corner settles its card with this many times
#: :data:`LEARNED_SINGLE` times the leads, its suit over all three others (no ink colour
#: narrows it to two): on the standard decks' 27 photographs taken grey 2 cards more
#: (42 listed); on all the photographs turned grey 370 cards read where 243 were, none
#: wrong; at 1, 593 and one wrong (a webcam's card read as the ace of hearts); at 2, one
#: card more of the standard decks where 1.5 reads two
GREY_SINGLE = 1.5

#: a corner not looked at, standing for one that shows no index
_NO_CORNER = CornerRead(NO_INDEX, 0.0, 0, 0.0, None)


@dataclass(frozen=True, slots=True)
class _Guess:
    """One guessed index corner read (:meth:`Recognizer._settle_corner`): its card's guessed
    quad and rank glyph's centre, the reader's read (its ink measured where its leads could
    settle a card with the corner opposite), and the card it settles alone (None where it
    settles none) with the confidence."""

    quad: NDArray[np.float64]
    centre: Point
    read: CornerRead
    card: Card | None = None
    conf: float = 0.0
    #: the effective size of the card first guessed there, before any rescaling (what the
    #: frame's cards say its size is, where :attr:`quad` may be rescaled to read better)
    size: float = 0.0
    #: its index corner, where its ink is still to be measured (:meth:`inked`); None where
    #: :attr:`read` has it measured, or needs none
    patch: Image | None = None

    @property
    def share(self) -> float:
        """Its read's :func:`_single_share`."""
        return _single_share(self.read)

    def inked(self) -> _Guess:
        """The guess with its corner's ink measured where it was left for later
        (:meth:`Recognizer._settle_corner`)."""
        if self.patch is None:
            return self
        return replace(self, read=with_ink(self.read, self.patch), patch=None)


def _ink_free(read: CornerRead) -> bool:
    """Whether a corner's :func:`_single_share` is the same whatever its ink shows: its
    rank's lead the weaker, or its suit's lead over the other suit of its colour no more
    than over all three others (:func:`suit_lead`)."""
    return (
        read.colour_lead is None
        or read.colour_lead <= read.suit_lead
        or read.rank_lead / RANK_LEAD <= read.suit_lead / SUIT_LEAD
    )


def _suit_shown(card: Card, size: float) -> bool:
    """Whether one index corner of a card guessed ``size`` pixels large (effective, as the
    frame's cards size it: :attr:`_Guess.size`) may settle its suit: a red suit from
    :data:`INDEX_MIN_SIDE` on (the ink has settled the colour, and a heart and a diamond
    differ in many pixels), a club or a spade from :data:`INDEX_BLACK_SIDE` on."""
    return card.suit in _RED or size >= INDEX_BLACK_SIDE


#: a guess inside a card read from its index is that card's other index corner where its
#: rank glyph lies within this many :data:`INDEX_STEP` of the typical card of where that
#: card's other corners hold their indices (:func:`_at_other_index`)
INDEX_OTHER_REACH = 2.0


def _at_other_index(quad: NDArray[np.float32], centre: Point, reach: float) -> bool:
    """Whether ``centre`` lies within ``reach`` pixels of where the card guessed as
    ``quad`` (its index corner first) holds the rank glyph of another of its index corners:
    the opposite corner's, or either other corner's (decks with indices in four corners).

    A guess anywhere inside a card read from its index is not that card's other corner:
    the cards of a fan lie on one another, and the card read from its index reaches under
    those on it, their indices inside its quad (deck E's ace of spades in a fan of four on
    blue, deck C's fans). Skipping only the guesses at a card's other corners, rather than
    every guess inside it, the standard decks read 13 cards more and 3 fewer (their tries
    taken by the guesses now read); at 1 :data:`INDEX_STEP`, 16 more and 7 fewer."""
    q = quad.astype(np.float64)
    right, down = q[1] - q[0], q[3] - q[0]
    ax, ay = INDEX_RANK_AT
    for u, v in ((1 - ax, 1 - ay), (1 - ax, ay), (ax, 1 - ay)):
        x, y = q[0] + u * right + v * down
        if math.hypot(centre[0] - x, centre[1] - y) <= reach:
            return True
    return False


def _under_each_other(
    a: tuple[Card, float, NDArray[np.float64], Point],
    b: tuple[Card, float, NDArray[np.float64], Point],
    reach: float,
) -> bool:
    """Whether two cards read from their index corners (card, confidence, guessed quad,
    rank glyph's centre) each show their index more than ``reach`` (an index's) inside the
    other: a card lies flat, so where two overlap only the upper one's print shows, and
    each cannot be the upper one at the other's index. One of them is no card there (deck
    C's queen of hearts and a four of spades guessed from the queen's figure over an empty
    desk, named by deck F's calibrated profile and, in noise, by the built-in one: the only
    such pair over the photographs as taken, calibrated, noised and seen in a perspective;
    of the two pairs of cards truly overlapping so, in a perspective, one index of each lay
    at most 5 px inside the other card, where an index's reach was 13)."""
    inside_b = cv2.pointPolygonTest(b[2].astype(np.float32), a[3], True)
    inside_a = cv2.pointPolygonTest(a[2].astype(np.float32), b[3], True)
    return bool(inside_b > reach and inside_a > reach)


def _opposite_corners(a: _Guess, b: _Guess, squash: float) -> bool:
    """Whether two guessed index corners lie at opposite corners of one card: of sizes
    within :data:`PAIR_SIZE` of each other, turned half a turn from each other, the second's
    rank glyph where the first's card's size and direction put it (within
    :data:`PAIR_SIZE` and :data:`PAIR_ANGLE`), in the world's proportions (the frame
    unstretched by ``squash``)."""
    world = np.array([1.0, 1.0 / squash])
    qa, qb = a.quad * world, b.quad * world
    right_a, down_a = qa[1] - qa[0], qa[3] - qa[0]
    right_b, down_b = qb[1] - qb[0], qb[3] - qb[0]
    ha, hb = float(np.hypot(*down_a)), float(np.hypot(*down_b))
    if min(ha, hb) <= 0 or max(ha, hb) > PAIR_SIZE * min(ha, hb):
        return False
    turned = math.cos(math.radians(180.0 - PAIR_ANGLE))
    if float(down_a @ down_b) / (ha * hb) > turned:
        return False
    # from one rank glyph to the other, as each corner's card says
    fx, fy = 1.0 - 2.0 * INDEX_RANK_AT[0], 1.0 - 2.0 * INDEX_RANK_AT[1]
    expected = (fx * right_a + fy * down_a - fx * right_b - fy * down_b) / 2
    seen = (np.array(b.centre) - np.array(a.centre)) * world
    e, d = float(np.hypot(*expected)), float(np.hypot(*seen))
    if e <= 0 or d <= 0 or max(d, e) > PAIR_SIZE * min(d, e):
        return False
    return float(expected @ seen) / (e * d) >= math.cos(math.radians(PAIR_ANGLE))


class Recognizer:
    """Reads cards from frames with one deck profile; assigns zones when given a layout.

    ``recognize`` is pure: the same frame always gives the same result, and nothing is kept
    between frames (stability over time is the capture adapter's job).
    """

    def __init__(
        self,
        profile: Profile | None = None,
        zones: ZoneLayout | None = None,
        *,
        learned: bool = True,
        deck: Deck | None = None,
    ) -> None:
        self.profile = profile if profile is not None else builtin_profile()
        #: the learned index reader, consulted where the profile's glyphs leave a card
        #: unknown (``learned=False``: the profile's glyphs alone)
        self.reader: IndexReader | None = load_index_reader() if learned else None
        self._builtin = profile is None or self.profile is builtin_profile()
        #: the cards that may be read: those of ``deck`` (the game's, where the table deals
        #: the 28-card deck of eights to aces) whose ranks and suits the profile knows (a
        #: profile calibrated on that deck knows those ranks only; one calibrated from
        #: photographs that missed a rank or a suit, all but those); None: any card. A card
        #: of another (the learned reader reads every rank) is reported unknown
        ranks = frozenset(int(r) for r in self.profile.rank.labels.tolist())
        suits = frozenset(int(s) for s in self.profile.suit.labels.tolist())
        cards = deck.cards if deck is not None else STANDARD_52.cards
        held = frozenset(c for c in cards if int(c.rank) in ranks and int(c.suit) in suits)
        self._held = None if len(held) == len(STANDARD_52) else held
        #: the profile lacks a rank or a suit of the deck dealt: its glyphs may take a card
        #: of one for a card of another (they know no better class), so the learned reader
        #: checks each card they read, as it checks the built-in profile's, and they read
        #: no blob's corners alone
        self._partial = len(held) < len(cards)
        self.zones = zones
        self._polygons = [
            (z.id, [(float(x), float(y)) for x, y in z.polygon])
            for z in (zones.zones if zones else [])
        ]
        _, ch = canonical_size(self.profile.aspect)
        self._card_h = float(ch)
        self._origin = patch_origin(self.profile.aspect, self.profile.index_box)
        labels = self.profile.suit.labels
        self._inks = {  # the suits each ink colour allows, as masks over the suit classes
            True: np.isin(labels, list(_RED)),
            False: np.isin(labels, list(_BLACK)),
        }
        pips = self.profile.pip.labels if self.profile.pip is not None else labels
        self._pip_inks = {True: np.isin(pips, list(_RED)), False: np.isin(pips, list(_BLACK))}

    def read_index(
        self, glyphs: Sequence[IndexGlyphs], pair: int = 0, *, small: bool = False
    ) -> IndexRead:
        """Combine one or two views of the same index (opposite corners) into one read;
        ``pair`` says which corners of the outline they are (0 and 2, or 1 and 3).

        ``small``: the card is under :data:`FULL_SUIT_SIDE` pixels wide. Two black corners
        of such a card are then told clubs from spades by the profile's small-card suit
        discriminant (trained on copies degraded to that size), when it has one.
        """
        p = self.profile
        ranks = np.array([g.rank for g in glyphs])
        suits = np.array([g.suit for g in glyphs])
        rank_scores = ranks @ p.rank.weights.T + p.rank.bias  # one row per corner
        suit_scores = suits @ p.suit.weights.T + p.suit.bias
        colours = []
        for g in glyphs:
            if g.redness >= p.red_threshold:
                colours.append(True)
            elif g.redness <= 0.5 * p.red_threshold:
                colours.append(False)
        rank = p.rank.verdict(rank_scores.sum(axis=0), ranks)
        suit_total = suit_scores.sum(axis=0)
        shape = p.suit.verdict(suit_total, suits)
        suit = shape
        fine = None  # the small-card discriminant, when it tells clubs from spades here
        if colours and (all(colours) or not any(colours)):
            # the ink's colour settles red or black; the glyph must tell the two suits apart
            # and must itself look like that colour's suit
            suit = p.suit.verdict(suit_total, suits, self._inks[colours[0]])
            black = not colours[0] and shape.label in _BLACK
            if small and len(glyphs) > 1 and black and p.small_suit is not None:
                fine = p.small_suit
                suit = fine.verdict((suits @ fine.weights.T + fine.bias).sum(axis=0), suits)
                shape = suit  # the small-card discriminant decides which black suit
        is_red = suit.label in (Suit.HEARTS, Suit.DIAMONDS)
        colour_ok = (
            bool(colours) and all(c == is_red for c in colours) and shape.label == suit.label
        )
        dissent = 0.0
        if len(glyphs) > 1:  # a corner read alone must not name another card with a lead
            ink = self._inks[is_red]
            alone_suits = np.where(ink, suit_scores, -np.inf).argmax(axis=1)
            for i in range(len(glyphs)):
                if p.rank.labels[int(rank_scores[i].argmax())] != rank.label:
                    alone = p.rank.verdict(rank_scores[i], ranks[i : i + 1])
                    dissent = max(dissent, alone.margin)
                if fine is not None:
                    alone = fine.verdict(suits[i] @ fine.weights.T + fine.bias, suits[i : i + 1])
                    if alone.label != suit.label:
                        dissent = max(dissent, alone.margin)
                elif p.suit.labels[int(alone_suits[i])] != suit.label:
                    alone = p.suit.verdict(suit_scores[i], suits[i : i + 1], ink)
                    dissent = max(dissent, alone.margin)
        card = Card.of(Rank(rank.label), Suit(suit.label))
        height = sum(g.suit_box[3] for g in glyphs) / len(glyphs)
        return IndexRead(
            card, rank, suit, colour_ok, len(glyphs), dissent, pair, height, fine is not None
        )

    def classify(
        self, frame: Image, quad: NDArray[np.float64]
    ) -> tuple[Status, Card | None, float]:
        """Decide what one card-shaped quad is: a card (with confidence), unknown, or a back."""
        return self._classify(frame, quad)[:3]

    def _classify(
        self, frame: Image, quad: NDArray[np.float64], loose: bool = False
    ) -> tuple[Status, Card | None, float, int]:
        """:meth:`classify`, plus how many index corners agreed on the card (:data:`CONTESTED`
        where the two readers named two cards).

        A ``loose`` outline (paper fills it loosely: it may hold two cards, whose index
        corners could each be one of this outline's, or its edges could not be measured) is
        read with one corner's margins.

        The profile's glyphs read first (a calibrated deck's own glyphs win); a card they
        leave unknown is read by the learned index reader (:meth:`_read_learned`). A card the
        built-in profile reads (:meth:`_cross_check`) is not believed where the learned
        reader's corners refuse it (:func:`_dissent`: the built-in glyphs are rendered ones,
        and on real print they can read a king of clubs as one of spades with a clear
        margin): it is then the learned reader's to settle, or unknown. :meth:`_recognize`
        does the same for a whole frame, its checks read together.
        """
        glyphs = self._classify_glyphs(frame, quad, loose)
        check = self._cross_check(quad, glyphs)
        disputed = check is not None and self._learned_dissents([check])[0]
        look = self._first_looks(frame, [quad], [glyphs], [disputed])[0]
        return self._settle(frame, quad, loose, glyphs, disputed, _colour_of(frame), look)[:4]

    def _cross_check(
        self, quad: NDArray[np.float64], glyphs: _GlyphVerdict
    ) -> tuple[list[Image], Card, float] | None:
        """What the learned reader is to check of a built-in profile's read ``glyphs`` of the
        outline ``quad`` (its first pair of index corners, the card named, the card's size);
        None for a read that stands as it is: no card named, a calibrated profile's (a
        deck's own glyphs), or print of the rendered glyphs' own kind (:data:`OWN_PRINT`).
        A profile that lacks a rank or a suit of the deck dealt has every read checked."""
        if (
            self.reader is None
            or glyphs.status is not Status.CARD
            or glyphs.card is None
            or glyphs.patches is None
        ):
            return None
        if not self._partial and (not self._builtin or glyphs.fit >= OWN_PRINT):
            return None
        return glyphs.patches, glyphs.card, effective_size(quad, self.profile.aspect)

    def _settle(
        self,
        frame: Image,
        quad: NDArray[np.float64],
        loose: bool,
        glyphs: _GlyphVerdict,
        disputed: bool,
        colour: Callable[[], bool],
        looked: _FirstLook | None,
    ) -> tuple[Status, Card | None, float, int, bool]:
        """:meth:`_classify` once the profile's glyphs have read the outline (``glyphs``)
        and the learned reader has or has not ``disputed`` their card; ``colour``: whether
        the frame shows colour (:func:`_colour_of`); ``looked``: the learned reader's first
        look at the outline (:meth:`_first_looks`; None where it does not read it). Last,
        whether the learned reader read the card from the enlarged index box
        (:data:`LEARNED_WIDE`)."""
        read = glyphs.status, glyphs.card, glyphs.confidence, glyphs.agreeing, False
        if self.reader is None or (glyphs.status is Status.CARD and not disputed):
            return read
        sides = _side_lengths(quad.tolist())
        if min(sides) < MIN_CARD_SIDE:
            return read
        first = 0 if sides[1] + sides[3] <= sides[0] + sides[2] else 1
        # a read of the rendered glyphs the learned reader disputes is not believed; the
        # learned reader's own two corners may still settle the card, by its own rules.
        # An outline that may hold two cards is read with stricter leads: its two index
        # corners may be two cards' own, which never name the same card; so is a disputed
        # one (a rendered eight of spades, disputed by two corners leaning to clubs, was
        # then read as the eight of clubs at the leads)
        strict = loose or disputed
        factor = LEARNED_LOOSE if strict else 1.0
        learned = (
            None
            if looked is None  # a card too small for it
            else self._read_learned(frame, quad, first, factor, colour, glyphs.shown, looked)
        )
        if learned is not None:
            return Status.CARD, learned[0], learned[1], 2, learned[2]
        if disputed:
            return Status.UNKNOWN, None, 0.0, CONTESTED, False
        return read

    def _first_looks(
        self,
        frame: Image,
        quads: Sequence[NDArray[np.float64]],
        glyphs: Sequence[_GlyphVerdict],
        disputed: Sequence[bool],
    ) -> list[_FirstLook | None]:
        """For each outline :meth:`_settle` will have the learned reader read
        (:meth:`_read_learned`), its whiteness and, where that shows a face's paper, its
        pair of index corners at the ends of a short side, cut in the index box, and their
        reads; None for the others (read by the glyphs and not disputed, or under
        :data:`LEARNED_MIN_SIDE` pixels: too small for the learned reader). The pairs of
        all the frame's outlines are read in one call (the reader reads each corner alike
        in any batch): a call for each outline took deck F's frame of 21 cards 5 % longer
        (170 -> 162 ms, 16 outlines read so)."""
        out: list[_FirstLook | None] = [None] * len(quads)
        if self.reader is None:
            return out
        p = self.profile
        todo: list[tuple[int, float, list[Image]]] = []
        for i, (quad, g, d) in enumerate(zip(quads, glyphs, disputed, strict=True)):
            if g.status is Status.CARD and not d:
                continue  # as _settle: settled by the glyphs
            sides = _side_lengths(quad.tolist())
            if min(sides) < MIN_CARD_SIDE or effective_size(quad, p.aspect) < LEARNED_MIN_SIDE:
                continue  # not read
            white = g.whiteness if g.whiteness is not None else _whiteness(frame, quad)
            if white < LEARNED_PAPER:
                out[i] = (white, None, None)
                continue
            first = 0 if sides[1] + sides[3] <= sides[0] + sides[2] else 1
            cut = g.shown or {}
            todo.append(
                (
                    i,
                    white,
                    list(cut[first])
                    if first in cut
                    else index_patches(frame, quad, p.aspect, p.index_box, (first, first + 2)),
                )
            )
        reads = iter(self.reader.read([q for _, _, pair in todo for q in pair], ink=False))
        for i, white, pair in todo:
            out[i] = (white, pair, [next(reads) for _ in pair])
        return out

    def _learned_dissents(self, checks: Sequence[tuple[list[Image], Card, float]]) -> list[bool]:
        """For each check (:meth:`_cross_check`: a pair of index corners, the card the
        built-in profile read, the card's size), whether the learned reader's corners refuse
        the card (:func:`_dissent`).

        The network's time grows with each corner it reads and with each call: all the
        checks' corners are read in one call, and under :data:`CROSS_CHECK_SIDE` a second
        corner only where the first does not name the card clearly (:func:`_clearly_agrees`:
        where it had to dissent first, deck F's real two of spades dealt small on felt was
        read as a two of clubs, its first corner naming a club faintly, its second a
        spade), in a second call (``benchmarks/recognizer.py``)."""
        assert self.reader is not None
        whole = [size >= CROSS_CHECK_SIDE for _, _, size in checks]
        asked = [p if w else p[:1] for (p, _, _), w in zip(checks, whole, strict=True)]
        # rank and suit only: the ink is not asked
        flat = iter(self.reader.read([q for p in asked for q in p], ink=False))
        reads = [[next(flat) for _ in p] for p in asked]
        more = [
            i
            for i, ((_, card, _), w) in enumerate(zip(checks, whole, strict=True))
            if not w and not _clearly_agrees(reads[i][0], card)
        ]
        for i, c in zip(
            more, self.reader.read([checks[i][0][1] for i in more], ink=False), strict=True
        ):
            reads[i].append(c)
        return [
            len(r) == 2 and _dissent(r, card, w, size >= LEARNED_MIN_SIDE)
            for r, (_, card, size), w in zip(reads, checks, whole, strict=True)
        ]

    def _outline_glyphs(
        self,
        frame: Image,
        quads: Sequence[NDArray[np.float64]],
        doubtful: Sequence[bool],
    ) -> list[_GlyphVerdict]:
        """Each of a frame's outlines read by the profile's glyphs (:meth:`_classify_glyphs`;
        ``doubtful``: read with one corner's margins). The built-in profile's glyphs are
        rendered ones: where they name no card on the frame's first :data:`GLYPHS_LOOK`
        outlines, the frame is no print of theirs, and its other outlines large enough for
        the learned reader (:data:`LEARNED_MIN_SIDE`) are left to it (:func:`_unread_glyphs`:
        a back told by its whiteness alone)."""
        first = zip(quads[:GLYPHS_LOOK], doubtful[:GLYPHS_LOOK], strict=True)
        out = [self._classify_glyphs(frame, quad, doubt) for quad, doubt in first]
        theirs = (
            not self._builtin or self.reader is None or any(g.status is Status.CARD for g in out)
        )
        for quad, doubt in zip(quads[GLYPHS_LOOK:], doubtful[GLYPHS_LOOK:], strict=True):
            left = (
                not theirs
                and min(_side_lengths(quad.tolist())) >= MIN_CARD_SIDE
                and effective_size(quad, self.profile.aspect) >= LEARNED_MIN_SIDE
            )
            out.append(
                _unread_glyphs(frame, quad) if left else self._classify_glyphs(frame, quad, doubt)
            )
        return out

    def _classify_glyphs(
        self, frame: Image, quad: NDArray[np.float64], loose: bool = False
    ) -> _GlyphVerdict:
        """:meth:`_classify` by the profile's glyphs alone."""
        p = self.profile
        factor = SINGLE_CORNER if loose else 1.0
        sides = _side_lengths(quad.tolist())
        if min(sides) < MIN_CARD_SIDE:
            return _GlyphVerdict(Status.UNKNOWN)  # too few pixels for the index: never guess
        # fewer pixels, less evidence: below FULL_EVIDENCE_SIDE the margin needed grows
        size = effective_size(quad, p.aspect)
        reads = []
        # each pair's corners, for the learned reader to check the pair that named the card
        shown: dict[int, list[Image]] = {}
        # the index lies at the ends of a short side: try the pair of corners starting one
        first = 0 if sides[1] + sides[3] <= sides[0] + sides[2] else 1
        for k in (first, 1 - first):
            patches = index_patches(frame, quad, p.aspect, p.index_box, (k, k + 2))
            shown[k] = patches
            found = (split_index(patches[0], self._card_h, self._origin),
                     split_index(patches[1], self._card_h, self._origin))  # fmt: skip
            pair = [g for g in found if g is not None]
            if pair:
                read = self.read_index(pair, k, small=size < FULL_SUIT_SIDE)
                if read.small_suit and not read.accepted(p, size, factor):
                    read = self.read_index(pair, k)  # as before: the pips may settle it
                if min(read.rank.similarity, read.suit.similarity) >= NOT_AN_INDEX:
                    reads.append(read)
                    if k == first and read.corners == 2:
                        if read.accepted(p, size, factor):
                            break  # two opposite corners agree: the other two hold no index
                        confidence = (
                            None if loose else self._confirm_by_pips(frame, quad, read, size)
                        )
                        if confidence is not None:
                            return _GlyphVerdict(
                                Status.CARD, read.card, confidence, 2, _fit(read), patches, shown
                            )
        accepted = [r for r in reads if r.accepted(p, size, factor)]
        if accepted and len({r.card for r in accepted}) == 1 and len(accepted) == len(reads):
            corners = max(r.corners for r in accepted)
            return _GlyphVerdict(
                Status.CARD,
                accepted[0].card,
                min(r.confidence for r in accepted),
                corners,
                min(_fit(r) for r in accepted),
                shown[accepted[0].pair],
                shown,
            )
        if len(reads) == 1 and reads[0].corners == 2 and not loose:
            confidence = self._confirm_by_pips(frame, quad, reads[0], size)
            if confidence is not None:
                return _GlyphVerdict(
                    Status.CARD,
                    reads[0].card,
                    confidence,
                    2,
                    _fit(reads[0]),
                    shown[reads[0].pair],
                    shown,
                )
        if accepted:
            return _GlyphVerdict(Status.UNKNOWN, shown=shown)
        return _unread_glyphs(frame, quad, shown)

    def _read_learned(
        self,
        frame: Image,
        quad: NDArray[np.float64],
        first: int,
        factor: float,
        colour: Callable[[], bool],
        shown: dict[int, list[Image]] | None,
        looked: _FirstLook,
    ) -> tuple[Card, float, bool] | None:
        """The card and confidence the learned index reader gives an outline the profile's
        glyphs left unknown, and whether it read it from the enlarged box; None when it is
        not sure. ``colour``: whether the frame shows
        colour (:func:`_colour_of`). ``shown``: the outline's pairs of index corners (by
        their first corner), where the profile's glyphs had them cut already
        (:class:`_GlyphVerdict`); ``looked``: its whiteness, and the pair ``first``'s
        corners in the index box and their reads (:meth:`_first_looks`).

        The two opposite index corners at the ends of a short side (the pair ``first``, then
        the other) must both name the same rank and suit, each with ``factor`` times the
        leads :data:`~drivers.camera.reader.RANK_LEAD` and
        :data:`~drivers.camera.reader.SUIT_LEAD` (set from real photographs), in ink of the
        suit's colour where the frame has colour; and the other pair must not agree on
        another card. Where the profile's index box does not settle the card, a box shrunk
        to :data:`LEARNED_ZOOM` is read the same way, then one enlarged to
        :data:`LEARNED_WIDE` (a large index); unless no corner showed an index.
        """
        assert self.reader is not None
        colour_shown = colour()
        if not colour_shown:  # a grey frame: the suit's shape alone, with stricter leads
            factor *= LEARNED_GREY
        whiteness, looked_patches, looked_reads = looked
        if whiteness < LEARNED_PAPER:
            return None  # a back's pattern, not a face's paper
        assert looked_patches is not None and looked_reads is not None
        p = self.profile
        pair, other = (first, first + 2), (1 - first, 3 - first)
        boxes = (p.index_box, _zoomed(p.index_box), _zoomed(p.index_box, LEARNED_WIDE))
        for zoom, box in enumerate(boxes):
            cut = shown if shown is not None and not zoom else {}
            # the other pair is looked at only where the short side's corners show no index
            # (:func:`_learned_card` reads it then alone): half the corners, most of the time
            if not zoom:
                patches, reads = list(looked_patches), looked_reads
            else:
                patches = index_patches(frame, quad, p.aspect, box, pair)
                reads = self.reader.read(patches, ink=False)
            if all(c.rank == NO_INDEX for c in reads):
                patches += (
                    cut[other[0]]
                    if other[0] in cut
                    else index_patches(frame, quad, p.aspect, box, other)
                )
                rest = self.reader.read(patches[2:], ink=False)
            else:
                rest = [_NO_CORNER, _NO_CORNER]
            corners = [_NO_CORNER] * 4
            for k, c in zip((*pair, *other), (*reads, *rest), strict=True):
                corners[k] = c
            if colour_shown:
                _measure_agreeing_ink(corners, dict(zip((*pair, *other), patches, strict=False)))
            read = _learned_card(
                corners,
                first,
                factor,
                colour=colour_shown,
                centre=lambda card, k: self._middle_shows(frame, quad, k, card, colour_shown),
            )
            if read is not None:
                card, confidence, named = read
                # the pips counted from the pair that named it (a frame exported squashed
                # can make a card's long side the shorter, its index on the other pair)
                if self._pips_deny(frame, quad, named, card):
                    return None  # the middle shows another number of pips
                return card, confidence, zoom == len(boxes) - 1
            if all(c.rank == NO_INDEX for c in corners):
                return None  # no index in any corner: a blank or a back, not read again
        return None

    def _middle_shows(
        self, frame: Image, quad: NDArray[np.float64], k: int, card: Card, colour: bool = True
    ) -> bool:
        """Whether the middle of the card, read with corner ``k`` as its top-left, agrees
        with ``card``: a number card's pips (:meth:`_pips_show`), an ace's one large pip
        (:func:`shows_ace`), a court card's framed figure (:func:`shows_figure`). On a
        greyscale frame (``colour`` False) the pips are counted in any ink, and no figure
        is told from print (it is told by its colours)."""
        rank = int(card.rank)
        if 2 <= pip_count(rank) <= 10:
            return self._pips_show(frame, quad, k, card, colour)
        if not colour and pip_count(rank) != 1:
            return False
        _, ch = canonical_size(self.profile.aspect)
        middle = pip_patch(frame, quad, self.profile.aspect, k)
        if pip_count(rank) == 1:
            red = card.suit in _RED if colour else None
            return shows_ace(middle, float(ch), -round(PIP_BOX[1] * ch), red)
        return shows_figure(middle)

    def _middle_pips(self, frame: Image, quad: NDArray[np.float64], k: int) -> Pips | None:
        """The pips in the middle of the card (:data:`PIP_CHECK_BOX`), read with corner
        ``k`` as its top-left, any pip of :data:`PIP_SHARE` of the card's height or more."""
        _, ch = canonical_size(self.profile.aspect)
        middle = pip_patch(frame, quad, self.profile.aspect, k, PIP_CHECK_BOX)
        top = -round(PIP_CHECK_BOX[1] * ch)
        return read_pips(middle, float(ch), PIP_SHARE * ch, top, shapes=False)

    def _pips_show(
        self, frame: Image, quad: NDArray[np.float64], k: int, card: Card, colour: bool = True
    ) -> bool:
        """Whether the middle of the card, read with corner ``k`` as its top-left, shows
        exactly the pips of the number card ``card`` (two to ten) in its suit's colour (in
        any ink on a greyscale frame: ``colour`` False)."""
        expected = pip_count(int(card.rank))
        if not 2 <= expected <= 10:
            return False  # an ace's one pip or a court figure is no count to check
        pips = self._middle_pips(frame, quad, k)
        if pips is None or pips.count != expected:
            return False
        if not colour:
            return True
        if card.suit in _RED:
            return pips.redness >= RED_INK
        return pips.redness < 0.5 * RED_INK

    def _pips_deny(self, frame: Image, quad: NDArray[np.float64], k: int, card: Card) -> bool:
        """Whether the middle of a number card ``card`` (two to ten), read with corner ``k``
        as its top-left, clearly shows another number card's pips: more pips than its rank,
        or fewer than its rank allows (a seven to a ten may show up to
        :data:`DENY_SHORT` fewer, pips run together). A three whose index the reader took
        for a five (a flat-topped 3 in a deck's own font) shows three pips. The middle not
        read at all (no pips found, or not two to ten) denies nothing."""
        expected = pip_count(int(card.rank))
        if not 2 <= expected <= 10:
            return False
        pips = self._middle_pips(frame, quad, k)
        if pips is None or not 2 <= pips.count <= 10:
            return False
        short = DENY_SHORT if expected >= CROWDED_PIPS else 0
        return not expected - short <= pips.count <= expected

    def _shows_three(self, frame: Image, quad: NDArray[np.float64], k: int) -> bool:
        """Whether the middle of the card, read with corner ``k`` as its top-left, shows a
        three's pips: two or three (one may lie beyond the frame's edge), all in the card's
        middle column (within :data:`THREE_COLUMN` of its width from the middle; a five's
        pips off the middle row lie in two columns at about a quarter and three quarters of
        the middle's width)."""
        pips = self._middle_pips(frame, quad, k)
        return (
            pips is not None
            and 2 <= pips.count <= 3
            and all(abs(x - 0.5) <= THREE_COLUMN for x in pips.across)
        )

    def _confirm_by_pips(
        self, frame: Image, quad: NDArray[np.float64], read: IndexRead, size: float
    ) -> float | None:
        """The confidence of a two-corner read whose suit symbols are too small to settle
        the suit, when the card's pips settle it; None when they do not.

        Everything else must hold as for any read: the rank's margin, the colour, glyph-like
        shapes, no corner naming another rank. The card must then show its number of pips
        (a seven to a ten up to :data:`CROWDED_SHORT` fewer: pips that touch under blur run
        into a blob that is not read; a court card :data:`COURT_SYMBOLS`, the suit symbols
        at the ends of its figure), the pips off the middle row (larger than the index's
        suit symbol; an ace's one pip, turned the way up it reads clearly, see
        :func:`_upright_pip`) must name the index's suit in the ink's colour, and their
        margin must clear what :func:`needed_margins` asks of a suit symbol of their size.
        """
        p = self.profile
        pip_classifier = p.pip
        rank_need, _ = needed_margins(p.min_margin, size)
        expected = pip_count(int(read.card.rank)) or COURT_SYMBOLS
        court = not pip_count(int(read.card.rank))
        if (
            pip_classifier is None
            or not read.colour_ok
            or read.dissent >= rank_need
            or read.rank.margin < rank_need
            or min(read.rank.similarity, read.suit.similarity) < p.min_similarity
        ):
            return None
        _, ch = canonical_size(p.aspect)
        middle = pip_patch(frame, quad, p.aspect, read.pair)
        top = -round(PIP_BOX[1] * ch)
        pips = read_pips(middle, float(ch), read.suit_height, top)
        short = CROWDED_SHORT if expected >= CROWDED_PIPS else 0
        if court and (pips is None or pips.count != expected):
            # the figure's colours may be darker than paper: its darkest print alone
            pips = read_pips(middle, float(ch), read.suit_height, top, darkest=True)
        if pips is None or not expected - short <= pips.count <= expected:
            return None
        is_red = read.suit.label in (Suit.HEARTS, Suit.DIAMONDS)
        if (pips.redness >= p.red_threshold) != is_red or (
            not is_red and pips.redness > 0.5 * p.red_threshold
        ):
            return None  # the pips' ink must show the index's colour
        if expected == 1:  # an ace: its one large pip, either way up
            if len(pips.middle) != 1:
                return None
            upright = _upright_pip(pip_classifier, pips.middle[0], self._pip_inks[is_red])
            if upright is None:
                return None
            views = upright[None, :]
        elif len(pips.vectors) < 2:
            return None
        else:
            views = np.stack(pips.vectors)
        scores = (views @ pip_classifier.weights.T + pip_classifier.bias).sum(axis=0)
        suit = pip_classifier.verdict(scores, views, self._pip_inks[is_red])
        # a pip of this height carries the evidence of a suit symbol on a larger card
        pip_size = size * pips.height / max(read.suit_height, 1.0)
        _, suit_need = needed_margins(p.min_margin, pip_size, pips=True)
        if suit.label != read.suit.label or suit.margin < suit_need or suit.similarity < 0.6:
            return None
        return max(0.0, min(1.0, read.rank.margin, suit.margin))

    def zone_of(self, corners: NDArray[np.float64], width: int, height: int) -> str | None:
        """The id of the zone holding the card's centre, if a layout is set."""
        if self.zones is None:
            return None
        # the corners' mean on Python's floats, added in NumPy's order (the same figures):
        # 7 microseconds a call where NumPy's mean took it to 20
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = corners.tolist()
        x, y = (((ax + bx) + cx) + dx) / 4 / width, (((ay + by) + cy) + dy) / 4 / height
        for zone_id, polygon in self._polygons:  # the first zone holding it (even-odd rule)
            inside = False
            x0, y0 = polygon[-1]
            for x1, y1 in polygon:
                if (y1 > y) != (y0 > y) and x < (x0 - x1) * (y - y1) / (y0 - y1) + x1:
                    inside = not inside
                x0, y0 = x1, y1
            if inside:
                return zone_id
        return None

    def recognize(self, frame: Image) -> FrameRecognition:
        """All card-shaped objects on ``frame`` (BGR, uint8), each read, left unknown or a back."""
        frame = exposed(frame)
        found = locate(frame)
        result = self._recognize(frame, found)
        # no card found whole, or none read: perhaps the camera's white balance is off (deck
        # D's blue-cast frame enlarged 1.5 and 4 times showed an outline found whole that
        # read as no card, and no card was read unbalanced; balanced, three of five)
        if not found.quads or not result.cards:
            balanced = white_balanced(frame)
            if balanced is not frame:
                again = locate(balanced)
                if again.quads:
                    other = self._recognize(balanced, again)
                    if len(other.cards) > len(result.cards):
                        return other
        return result

    def _recognize(self, frame: Image, found: Located) -> FrameRecognition:
        """:meth:`recognize` with the outlines ``found`` on ``frame``."""
        h, w = frame.shape[:2]
        quads, outlines, loose, full, measured = (
            found.quads,
            found.outlines,
            found.loose,
            found.full,
            found.measured,
        )
        mask, scale = found.mask, found.scale
        colour = _colour_of(frame)
        out = []
        contested: list[NDArray[np.float32]] = []
        larges: set[tuple[Point, ...]] = set()  # the cards read from the enlarged index box
        blobs: list[tuple[NDArray[np.int32], set[Card]]] = [(b, set()) for b in outlines]
        # an outline that may hold two cards, or whose edges could not all be measured
        # (its index corners may be misplaced), is read with one corner's margins
        doubtful = [o is not None or not s.all() for o, s in zip(loose, measured, strict=True)]
        glyphs = self._outline_glyphs(frame, full, doubtful)
        checks = [self._cross_check(q, g) for q, g in zip(full, glyphs, strict=True)]
        # the learned reader checks the frame's built-in reads together (one call)
        asked = [c for c in checks if c is not None]
        verdicts = iter(self._learned_dissents(asked) if asked else [])
        disputed = [c is not None and next(verdicts) for c in checks]
        looks = self._first_looks(frame, full, glyphs, disputed)
        for quad, outline, doubt, glyph, dispute, look in zip(
            full, loose, doubtful, glyphs, disputed, looks, strict=True
        ):
            status, card, conf, agreeing, wide = self._settle(
                frame, quad, doubt, glyph, dispute, colour, look
            )
            corners = tuple((float(x), float(y)) for x, y in quad)
            if wide:
                larges.add(corners)
            if agreeing == CONTESTED:  # the two readers named two cards: left unknown
                contested.append(quad.astype(np.float32))
            elif outline is not None and not (status is Status.CARD and agreeing == 2):
                # not one clean card: perhaps two, read corner by corner
                blobs.append((outline, set()))
                continue
            out.append(
                Recognition(status, card, conf, corners, self.zone_of(quad, w, h))  # type: ignore[arg-type]
            )
        if blobs:
            own_print = not self._partial and (
                not self._builtin or any(g.fit >= FRAME_OWN_PRINT for g in glyphs)
            )
            clean = [q for q, o in zip(quads, loose, strict=True) if o is None] or quads
            read = [(r.card, np.array(r.corners, np.float32)) for r in out if r.card is not None]
            out += [
                r  # a blob's corner on a card read whole is that card's, not a second one
                for r in self._read_blobs(frame, mask, clean, blobs, scale, own_print)
                if not any(
                    r.card == card and cv2.pointPolygonTest(quad, r.centre, False) >= 0
                    for card, quad in read
                )
            ]
        out = _sized_like_the_deck(self._read_indices(frame, found, out, contested, colour, larges))
        if self._held is not None:  # a deck without some cards: none of them is read
            out = [r if r.card is None or r.card in self._held else _unread(r) for r in out]
        out.sort(key=lambda r: (r.centre[1], r.centre[0]))
        return FrameRecognition(w, h, tuple(out))

    def _read_blobs(
        self,
        frame: Image,
        mask: Image,
        quads: list[NDArray[np.float64]],
        blobs: list[tuple[NDArray[np.int32], set[Card]]],
        scale: NDArray[np.float64],
        own_print: bool,
    ) -> list[Recognition]:
        """Cards in blobs of overlapping paper, read from their visible index corners only,
        by the profile's glyphs, where the frame shows print of their own kind
        (``own_print``: a calibrated profile's, or :data:`FRAME_OWN_PRINT`); the learned
        reader reads such corners in the index search (:meth:`_read_indices`).

        Each blob comes with the cards already read on it. It also yields an ``unknown`` for
        every card its area holds beyond those read, so that no card goes unreported.
        """
        h, w = frame.shape[:2]
        p = self.profile
        if quads:
            sides = np.array([np.hypot(*(q - np.roll(q, 1, 0)).T) for q in quads])
            pairs = np.sort(np.stack([sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]]), 0)
            short, long = float(np.median(pairs[0])) / 2, float(np.median(pairs[1])) / 2
        else:
            short, long = 0.0, 0.0
        out: list[Recognition] = []
        reach = max(4.0, 3.0 * float(scale.max()))
        for contour, known in blobs:
            found: dict[Card, tuple[float, NDArray[np.float64]]] = {}
            if short > 0 and own_print:
                guesses = corner_hypotheses(contour, mask, short, long)
                hyps, measured = measure_quads(
                    frame, [(g + 0.5) * scale - 0.5 for g in guesses], reach
                )
                for quad, sides in zip(hyps, measured, strict=True):
                    if not (sides[3] and sides[0]):
                        continue  # the index corner's own edges must be measured
                    patch = index_patches(frame, quad, p.aspect, p.index_box)[0]
                    size = effective_size(quad, p.aspect)
                    glyphs = split_index(patch, self._card_h, self._origin)
                    settled: tuple[Card, float] | None = None
                    if glyphs is not None:
                        read = self.read_index([glyphs])
                        # one corner of a card of guessed size: a single witness
                        if read.accepted(p, size):
                            settled = read.card, read.confidence
                    if settled is not None and settled[0] not in known:
                        best = found.get(settled[0])
                        if best is None or settled[1] > best[0]:
                            found[settled[0]] = (settled[1], quad)
            area = cv2.contourArea(contour)
            expected = 1 if short <= 0 else int(min(6, max(1, round(area / (short * long)))))
            for card, (conf, quad) in sorted(found.items()):
                corners = tuple((float(x), float(y)) for x, y in quad)
                out.append(
                    Recognition(Status.CARD, card, conf, corners, self.zone_of(quad, w, h))  # type: ignore[arg-type]
                )
            rect = cv2.boxPoints(cv2.minAreaRect(contour)) * scale
            box = tuple((float(x), float(y)) for x, y in _order(rect.astype(np.float64)))
            for _ in range(max(0, expected - len(found) - len(known))):
                out.append(
                    Recognition(Status.UNKNOWN, None, 0.0, box, self.zone_of(rect, w, h))  # type: ignore[arg-type]
                )
        return out

    def _read_indices(
        self,
        frame: Image,
        found: Located,
        out: list[Recognition],
        contested: Sequence[NDArray[np.float32]],
        colour: Callable[[], bool],
        larges: Collection[tuple[Point, ...]] = (),
    ) -> list[Recognition]:
        """``out`` with the cards whose outlines were not found read from their index
        corners alone (:func:`index_hypotheses`: cards fanned or piled, the edges between
        them lost, or an outline left unknown; with tries left, those of
        :func:`beside_edges_hypotheses` too), each by :meth:`_single_corner`; ``found``
        the outlines found (those found whole give the frame's squash, the cards read the
        typical card's size, but those read from the enlarged index box, ``larges``: a
        deck's large index). A card already read on the frame
        is not read again, nor a place where two guesses name two cards; each card read
        takes the place of an ``unknown`` holding its index."""
        if self.reader is None:
            return out
        p = self.profile
        cards = [r.corners for r in out if r.status is Status.CARD]
        taken = [np.array(c, np.float32) for c in cards]
        # the cards read from the enlarged index box (``larges``, LEARNED_WIDE) do not size
        # the search: it guesses each card from an index in the profile's box, and sized by
        # deck G's cards so read, it guessed a card beside its ace of spades (the ace's
        # upper right index, printed in four corners, taken for an upper left one) and read
        # an ace of clubs from that one corner, with leads of 14 to 21 (blurred, darkened)
        sizing = [t for t, c in zip(taken, cards, strict=True) if c not in larges]
        known = {r.card for r in out if r.card is not None}
        # only where paper lies outside every card read (a frame whose cards were all read
        # is not searched): at least INDEX_PAPER of the typical card's area, or of 600
        # shrunk pixels (the least outline's) where none was found whole
        paper = found.mask.copy()
        shrunk = [np.round((t + 0.5) / found.scale - 0.5).astype(np.int32) for t in taken]
        for t in shrunk:
            cv2.fillConvexPoly(paper, t, 0)
        cv2.polylines(paper, shrunk, True, 0, 3)  # the rims of the cards read
        opened = cv2.morphologyEx(paper, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        left = cv2.countNonZero(opened)
        if not found.quads and not found.outlines and _paper_share(frame) >= CLOSE_UP_PAPER:
            # a card close (a crop of it, a camera close over the board): its paper is the
            # frame's own brightness, which the paper test takes for the table's, and its
            # edges may lie beyond the frame; its index corners are looked for on the whole
            # frame
            left = paper.size
        if left == 0:  # nothing left to search (the frame's squash is then not needed)
            return out
        grey = not colour()  # one corner's suit from its shape alone (GREY_SINGLE)
        # the frame's squash from all the clean outlines (from the cards read only, deck C
        # reads 9 cards fewer); the typical card's size, in the world's proportions (as the
        # search measures), from the cards read; where none was, the guesses are not
        # bounded by it (a clean outline may be a keyboard's key: sizing the search by the
        # clean outlines read 28 cards fewer of the standard decks)
        clean = found.cards()
        squash = frame_squash(clean, p.aspect)
        card_h = _typical_height(sizing, squash)
        card_area = card_h * card_h * p.aspect / float(found.scale[0] * found.scale[1])
        if left < INDEX_PAPER * (card_area or 600.0):
            return out
        # nor within the backs found, nor the outlines ``contested`` (the profile's glyphs
        # and the learned reader named two cards there: a third read of one corner would
        # settle what two readers disagree on); an outline left unknown is searched (its
        # own index corners may have been misplaced by an edge not measured, or may be a
        # fan's)
        backs = [np.array(r.corners, np.float32) for r in out if r.status is Status.FACE_DOWN]
        outside = [*taken, *backs, *contested]
        measured = squash
        memo: dict[tuple[Any, ...], Any] = {}  # the ink found on the frame (index_ink)
        memo["small", found.factor] = found.small  # as index_ink shrinks it, made once
        # only round the paper left (the cards read sizing the reach), where it is not most
        # of the frame, and where the paper test finds every card: on a coloured table
        # (felt). On a white desk brightened or darkened, the cards of a pile the search
        # read lay beyond the only paper left, a stretch of the desk: a table not coloured
        # is searched whole. Ink further off is on the cards read or on the felt
        window = (
            _search_window(np.asarray(opened, np.uint8), found.scale, card_h, frame.shape)
            if left < paper.size and found.coloured
            else None
        )
        if len(clean) < SQUASH_TRUSTED:  # too few outlines to trust their squash
            squash = self._probed_squash(frame, squash, sizing, outside, memo, window)
            card_h = _typical_height(sizing, squash)
        hyps = index_hypotheses(
            frame, card_h, squash, outside, p.aspect, p.index_box, memo=memo, window=window
        )
        # the squashes a promising corner is guessed at again (INDEX_SQUASH_DOUBT): the
        # camera's own, the outlines' where the probe chose another, and one probe's step
        # either side (perspective varies the squash across a frame)
        steps = range(1, INDEX_SQUASH_STEPS + 1)
        beside = [squash * SQUASH_STEP**k for k in steps] + [squash / SQUASH_STEP**k for k in steps]
        doubted = [
            other
            for other in dict.fromkeys((1.0, measured, *beside))
            if abs(math.log(squash / other)) > INDEX_SQUASH_DOUBT
        ]
        reads: list[tuple[Card, float, NDArray[np.float64], Point]] = []
        read_quads: list[NDArray[np.float32]] = []
        guessed: list[_Guess] = []  # every corner read, for the pairs of opposite corners
        near = INDEX_STEP * (card_h or 100.0)
        tries = 0
        ahead: dict[int, tuple[Image, CornerRead]] = {}  # corners read before their turn

        def passed(centre: Point) -> bool:
            """Whether a guess's rank glyph centred at ``centre`` lies at another index
            corner of a card read here (not read again; another card's index lying on it,
            as a fan's cards lie on one another, is). Once passed, always: the cards read
            only grow."""
            return any(
                cv2.pointPolygonTest(q, centre, False) >= 0
                and math.hypot(centre[0] - r[3][0], centre[1] - r[3][1]) >= near
                and _at_other_index(q, centre, INDEX_OTHER_REACH * near)
                for q, r in zip(read_quads, reads, strict=True)
            )

        def first_read(i: int) -> tuple[Image, CornerRead]:
            """Hypothesis ``i``'s corner and its read: the reader reads the next
            :data:`INDEX_BATCH` hypotheses' corners together, as far as the tries left,
            but those passed already (:func:`passed`: never read)."""
            assert self.reader is not None
            if i not in ahead:
                end = min(len(hyps), i + INDEX_BATCH, i + MAX_INDEX_TRIES - tries)
                chunk = [i, *(j for j in range(i + 1, end) if not passed(hyps[j][1]))]
                # a corner the squash's probe read already (the same guess: the probe's
                # squash won and the ink was the same) is not cut nor read again (the
                # reader reads each corner alike in any batch); on the webcam frame of 18
                # cards, 16 corners a frame
                for j in chunk:
                    if (known := memo.get(("corner", hyps[j][0].tobytes()))) is not None:
                        ahead[j] = known
                todo = [j for j in chunk if j not in ahead]
                patches = [
                    index_patches(frame, hyps[j][0], p.aspect, p.index_box, (0,))[0] for j in todo
                ]
                reads = self.reader.read(patches, ink=False)
                ahead.update(zip(todo, zip(patches, reads, strict=True), strict=True))
            return ahead.pop(i)

        def short(guess: _Guess) -> bool:
            """Whether a guess is promising, its leads short of settling a card."""
            return guess.card is None and INDEX_PROMISING <= guess.share < 1.0

        def better(guess: _Guess, others: Iterator[_Guess | None]) -> _Guess:
            """``guess`` or the best of ``others`` (read in turn, each a try, until one
            settles a card)."""
            nonlocal tries
            for other in others:
                tries += 1
                if other is not None and other.share > guess.share:
                    guess = other
                if guess.card is not None:
                    break
            return guess

        by_edges = True  # the guesses from ink beside cards' edges are still to come
        # the squash and scale that settled the last card read at a doubted squash
        settled_at: tuple[float, float] | None = None
        i = -1
        while tries < MAX_INDEX_TRIES:
            i += 1
            if i == len(hyps):  # tries left: those from ink beside cards' edges too
                if not by_edges:
                    break
                by_edges = False
                hyps += beside_edges_hypotheses(
                    frame, card_h, squash, outside, p.aspect, p.index_box, hyps, memo, window
                )
                if i == len(hyps):
                    break
            quad, centre = hyps[i]
            if passed(centre):
                continue
            patch, read = first_read(i)
            guess = self._settle_corner(
                frame, quad, centre, patch, read, effective_size(quad, p.aspect), grey
            )
            guess = self._own_glyphs_agree(frame, guess, patch)
            tries += 1
            if guess is None:
                continue
            if short(guess) and settled_at is not None:
                # perspective changes the squash across a frame alike for neighbouring
                # cards: the squash and scale that settled a card at a doubted squash are
                # read first (one corner). Where they do not settle this card they are
                # forgotten, and that read is not counted among the tries (at most one
                # read more for each card settled at a doubted squash; counted, a webcam
                # frame of deck C, its tries all used, read a card fewer). Deck F's frame
                # of about 19 cards: its four court cards, read at the squash a step above
                # the frame's, take 62 corners where they took 89, 84 ms where 95
                alt = restretched(quad, centre, settled_at[0], p.aspect)
                guess = better(guess, self._index_corners(frame, alt, centre, settled_at[1:], grey))
                if guess.card is None:
                    settled_at = None
                    tries -= 1
            if short(guess):  # promising, the leads short: the card smaller and larger
                guess = better(guess, self._index_corners(frame, quad, centre, INDEX_RESCALE, grey))
            for other in doubted:
                if not short(guess):
                    break
                # still short: perhaps the frame's squash is wrong here (measured on
                # outlines cut by the frame's edge, probed wrong, or changed by perspective)
                alt = restretched(quad, centre, other, p.aspect)
                scales = (1.0, *INDEX_RESCALE)
                guess = better(guess, self._index_corners(frame, alt, centre, scales, grey))
                if guess.card is not None:  # settled here: at which of the scales
                    size = effective_size(guess.quad, p.aspect) / effective_size(alt, p.aspect)
                    settled_at = other, min(scales, key=lambda k: abs(k - size))
            if short(guess):  # still short: the best guess so far moved a little each way
                guess = better(guess, self._shifted_corners(frame, guess.quad, guess.centre, grey))
            guessed.append(guess)
            if guess.card is None:
                continue
            reads.append((guess.card, guess.conf, guess.quad, centre))
            read_quads.append(guess.quad.astype(np.float32))
        reads += self._paired_corners(frame, guessed, squash)
        return self._place_indices(reads, known, out, card_h, frame.shape[1], frame.shape[0])

    def _probed_squash(
        self,
        frame: Image,
        measured: float,
        taken: Sequence[NDArray[np.float32]],
        outside: Sequence[NDArray[np.float32]],
        memo: dict[tuple[Any, ...], Any] | None = None,
        window: _Window | None = None,
    ) -> float:
        """The frame's squash as its index corners read best: at ``measured`` (what its
        outlines gave) and at each of :data:`SQUASH_PROBED`, the :data:`SQUASH_PROBE` most
        plausible cards guessed around index pairs (:func:`index_hypotheses`, components
        inside ``outside`` not looked at, the typical card sized from the cards ``taken``)
        have their corners read (those of a squash that can no longer win left unread);
        each squash scores the sum of its corners' :func:`_single_share`, each counted up
        to 1 (a corner settles its card at 1). The best-scoring squash wins; ``measured``
        unless another scores more. ``memo``: :func:`index_ink`'s, for the frame's search
        to use again (with the corners read)."""
        assert self.reader is not None
        p = self.profile
        squashes = sorted({measured, *SQUASH_PROBED})
        ink = index_ink(frame, _typical_height(taken, measured), outside, memo=memo, window=window)
        guesses = [
            [
                quad
                for quad, _ in index_hypotheses(
                    frame,
                    _typical_height(taken, squash),
                    squash,
                    outside,
                    p.aspect,
                    p.index_box,
                    ink,
                    most=SQUASH_PROBE,
                )
            ]
            for squash in squashes
        ]
        # each squash's corners are read in turn, as far as the scores can still change the
        # winner: a corner counts at most 1, so a squash whose score so far and corners
        # left fall short of one scored whole (all its corners read) cannot win, nor tie,
        # and its corners left are not read (the reader reads each corner alike in any
        # batch). First PROBE_FIRST of each squash's corners, then all of the squash
        # scoring best a corner so far and PROBE_MORE more of each other one still in
        # the running, until none is: on the 34 crowded real photographs, 3,602 corners of
        # 4,343 are read, in 5.6 calls a frame where one took (with index_hypotheses'
        # ``most``, 139 ms a frame where they took 146)
        shares: list[list[float]] = [[] for _ in squashes]
        score = [0.0] * len(squashes)
        todo = [(j, i) for j, g in enumerate(guesses) for i in range(min(PROBE_FIRST, len(g)))]
        while todo:
            patches = [
                index_patches(frame, guesses[j][i], p.aspect, p.index_box, (0,))[0] for j, i in todo
            ]
            reads = self.reader.read(patches, ink=False)
            for (j, i), patch, read in zip(todo, patches, reads, strict=True):
                if memo is not None:  # the search's first guesses are often these
                    memo["corner", guesses[j][i].tobytes()] = patch, read
                shares[j].append(0.0 if read.rank == NO_INDEX else min(_single_share(read), 1.0))
            score = [_summed(s) for s in shares]
            whole = [score[j] for j, g in enumerate(guesses) if len(shares[j]) == len(g)]
            least = max(whole) - 1e-9 if whole else -math.inf
            running = [
                j
                for j, g in enumerate(guesses)
                if len(shares[j]) < len(g) and score[j] + len(g) - len(shares[j]) >= least
            ]
            if not running:
                break
            lead = max(running, key=lambda j: score[j] / max(1, len(shares[j])))
            todo = [
                (j, i)
                for j in running
                for i in range(
                    len(shares[j]),
                    len(guesses[j])
                    if j == lead
                    else min(len(guesses[j]), len(shares[j]) + PROBE_MORE),
                )
            ]
        best = int(np.argmax(score))
        return squashes[best] if score[best] > score[squashes.index(measured)] else measured

    def _index_corners(
        self,
        frame: Image,
        quad: NDArray[np.float64],
        centre: Point,
        scales: Sequence[float],
        grey: bool = False,
    ) -> Iterator[_Guess | None]:
        """A guessed card's index corner read at each of ``scales`` in turn, the guess
        scaled about its rank glyph's centre (:meth:`_settle_corner`): the card it names
        alone, if any, or None where it shows no index. The reader reads all of them in one
        call (eight corners of deck F's frame take it 0.22 ms each read in one call, 0.38
        ms each read one by one); each read is settled only when asked for. ``grey``: the
        frame shows no colour (:meth:`_settle_corner`)."""
        pt = np.array(centre)
        quads = [quad if k == 1.0 else pt + k * (quad - pt) for k in scales]
        size = effective_size(quad, self.profile.aspect)
        return self._read_corners(frame, quads, [centre] * len(quads), size, grey)

    def _shifted_corners(
        self, frame: Image, quad: NDArray[np.float64], centre: Point, grey: bool = False
    ) -> Iterator[_Guess | None]:
        """A guessed card's index corner read with the card moved by :data:`INDEX_SHIFT` of
        its width left and right, then of its height up and down (:meth:`_index_corners`,
        one call to the reader)."""
        right, down = quad[1] - quad[0], quad[3] - quad[0]
        moves = [k * v for v in (right, down) for k in (-INDEX_SHIFT, INDEX_SHIFT)]
        quads = [quad + m for m in moves]
        centres = [(centre[0] + float(m[0]), centre[1] + float(m[1])) for m in moves]
        size = effective_size(quad, self.profile.aspect)
        return self._read_corners(frame, quads, centres, size, grey)

    def _read_corners(
        self,
        frame: Image,
        quads: Sequence[NDArray[np.float64]],
        centres: Sequence[Point],
        size: float,
        grey: bool,
    ) -> Iterator[_Guess | None]:
        """Guessed cards' index corners read in one call and settled one by one, when
        asked for (:meth:`_settle_corner`; ``size``: the first guess's)."""
        assert self.reader is not None
        p = self.profile
        patches = [index_patches(frame, q, p.aspect, p.index_box, (0,))[0] for q in quads]
        reads = self.reader.read(patches, ink=False)  # the ink only where the leads show
        for q, c, patch, read in zip(quads, centres, patches, reads, strict=True):
            guess = self._settle_corner(frame, q, c, patch, read, size, grey)
            yield self._own_glyphs_agree(frame, guess, patch)

    def _own_glyphs_agree(self, frame: Image, guess: _Guess | None, patch: Image) -> _Guess | None:
        """``guess`` (:meth:`_settle_corner`'s) settled where a calibrated profile's glyphs
        (the deck's own) read its index corner ``patch`` alone as the card the learned
        reader names with at least :data:`OWN_GLYPHS_AGREE` of one corner's leads: the
        glyphs' read must clear what one corner alone needs (:meth:`IndexRead.accepted`:
        :data:`SINGLE_CORNER` times the margins, growing as the card gets smaller, in ink of
        the suit's colour), and a five's middle must not show a three. Two readers of
        different kinds, one of them taught this deck's print, then name the same card.
        ``guess`` as it is otherwise (the built-in profile's glyphs are rendered ones: its
        guesses stay as they are)."""
        if guess is None or guess.card is not None or self._builtin:
            return guess
        read = guess.read
        if guess.share < OWN_GLYPHS_AGREE:
            return guess
        glyphs = split_index(patch, self._card_h, self._origin)
        if glyphs is None:
            return guess
        own = self.read_index([glyphs])
        if (int(own.card.rank), int(own.card.suit)) != (read.rank, read.suit):
            return guess
        if not own.accepted(self.profile, effective_size(guess.quad, self.profile.aspect)):
            return guess
        if int(own.card.rank) in INDEX_PIPS_CHECKED and self._shows_three(frame, guess.quad, 0):
            return guess
        read = guess.inked().read
        return _Guess(guess.quad, guess.centre, read, own.card, own.confidence, guess.size)

    def _settle_corner(
        self,
        frame: Image,
        quad: NDArray[np.float64],
        centre: Point,
        patch: Image,
        read: CornerRead,
        size: float,
        grey: bool = False,
    ) -> _Guess | None:
        """The guessed card ``quad``'s index corner ``patch`` read (:meth:`_single_corner`), as
        the reader read it (``read``, its ink not measured): the card it names alone, if
        any, or None where it shows no index. Its ink is measured where its leads could
        settle a card with the corner opposite (:data:`PAIR_LEADS`). ``size``: the
        effective size of the card first guessed there (:attr:`_Guess.size`). ``grey``: the
        frame shows no colour, so no ink can say red or black (:meth:`_grey_corner`). With
        a calibrated profile, a corner it leaves short may then be settled by the deck's own
        glyphs agreeing (:meth:`_own_glyphs_agree`, which its callers ask)."""
        if read.rank == NO_INDEX:
            return None
        if grey:
            return self._grey_corner(frame, quad, centre, read, size)
        # the most the leads can show, the colour's ink measured; where its share is short
        # of one corner's whatever the ink shows, the ink is measured only where a pair of
        # corners asks for it (:meth:`_Guess.inked`): most such guesses are read better
        # (deck F's frame of 19 cards: 11 corners' ink of 24, none of them needed)
        later = None
        if _single_share(read, sure=True) * LEARNED_SINGLE >= PAIR_LEADS:
            if _single_share(read) < 1.0 and _ink_free(read):
                later = patch
            else:
                read = with_ink(read, patch)
        guess = _Guess(quad, centre, read, size=size, patch=later)
        if guess.share < 1.0:
            return self._counted_corner(frame, guess, patch)
        settled = self._single_corner(
            patch, effective_size(quad, self.profile.aspect), read, least=INDEX_MIN_SIDE
        )
        if settled is None:
            return guess
        card, conf = settled
        if int(card.rank) in INDEX_PIPS_CHECKED and self._shows_three(frame, quad, 0):
            return guess
        if not _suit_shown(card, size):
            return guess
        if card.suit not in _RED and not self._zoom_agrees(frame, quad, read):
            return guess
        return _Guess(quad, centre, read, card, conf, size)

    def _zoom_agrees(self, frame: Image, quad: NDArray[np.float64], read: CornerRead) -> bool:
        """Whether the guessed card ``quad``'s index corner, read as ``read``, reads the same
        rank and suit from the index box shrunk to :data:`LEARNED_ZOOM` (its glyphs larger
        in the network's input), with :data:`ZOOM_AGREE` of one corner's leads."""
        assert self.reader is not None
        p = self.profile
        box = _zoomed(p.index_box)
        again = self.reader.read(index_patches(frame, quad, p.aspect, box, (0,)), ink=False)[0]
        return (again.rank, again.suit) == (read.rank, read.suit) and _single_share(
            again, sure=True
        ) >= ZOOM_AGREE

    def _grey_corner(
        self, frame: Image, quad: NDArray[np.float64], centre: Point, read: CornerRead, size: float
    ) -> _Guess | None:
        """A guessed index corner on a greyscale frame: the card it names where the reader
        names it with :data:`GREY_SINGLE` times one corner's leads, its suit leading all three
        others by its shape alone, on a card guessed :data:`INDEX_BLACK_SIDE` large (the size
        any suit symbol needs), a five's middle not showing a three; None otherwise (no pairs
        of corners, no pips counted: both need the ink's colour)."""
        lead = min(read.rank_lead / RANK_LEAD, read.suit_lead / SUIT_LEAD)
        if lead < GREY_SINGLE * LEARNED_SINGLE or size < INDEX_BLACK_SIDE:
            return None
        if effective_size(quad, self.profile.aspect) < INDEX_MIN_SIDE:
            return None
        card = Card.of(Rank(read.rank), Suit(read.suit))
        if int(card.rank) in INDEX_PIPS_CHECKED and self._shows_three(frame, quad, 0):
            return None
        conf = min(1.0, lead / (GREY_SINGLE * LEARNED_SINGLE) / 4)
        return _Guess(quad, centre, read, card, conf, size)

    def _counted_corner(self, frame: Image, guess: _Guess, patch: Image) -> _Guess:
        """``guess`` (its read short of one corner's leads) settled as a number card (two to
        ten) where it names it with :data:`COUNTED_RANK` times the rank's lead, one corner's
        suit lead in ink of the suit's colour, and the middle of its guessed card shows
        exactly the rank's pips in that colour (:meth:`_pips_show`): the pips count the
        rank, the suit is the corner's own. ``guess`` as it is otherwise (``patch``: its
        index corner, for the ink)."""
        read = guess.read
        if read.rank == NO_INDEX or not 2 <= pip_count(read.rank) <= 10:
            return guess
        if read.rank_lead < COUNTED_RANK * RANK_LEAD:
            return guess
        if suit_lead(read, sure=True) < LEARNED_SINGLE * SUIT_LEAD:
            return guess
        if effective_size(guess.quad, self.profile.aspect) < INDEX_MIN_SIDE:
            return guess
        if read.redness is None:
            read = with_ink(read, patch)
        if read.red is None or read.red != (read.suit in _RED):
            return guess
        if suit_lead(read) < LEARNED_SINGLE * SUIT_LEAD:
            return guess  # the ink does not show the suit's colour clearly enough
        card = Card.of(Rank(read.rank), Suit(read.suit))
        if not _suit_shown(card, guess.size) or not self._pips_show(frame, guess.quad, 0, card):
            return guess
        conf = min(1.0, _single_share(read) / 4)
        return _Guess(guess.quad, guess.centre, read, card, conf, guess.size)

    def _paired_corners(
        self, frame: Image, guessed: list[_Guess], squash: float
    ) -> list[tuple[Card, float, NDArray[np.float64], Point]]:
        """The cards two guessed corners settle together: at opposite corners of one card
        (:func:`_opposite_corners`), naming it, each with :data:`PAIR_LEADS` times the leads,
        in ink of its suit's colour, guessed at least :data:`INDEX_MIN_SIDE` large (and a
        five's middle must not deny it), as for one corner."""
        p = self.profile
        # the ink measured where it was left for later (_settle_corner), of those that
        # may pair only
        fit = [
            g
            for g in (
                g.inked()
                for g in guessed
                if g.share * LEARNED_SINGLE >= PAIR_LEADS
                and effective_size(g.quad, p.aspect) >= INDEX_MIN_SIDE
            )
            if g.read.red is not None
        ]
        out = []
        for i, a in enumerate(fit):
            for b in fit[i + 1 :]:
                ra, rb = a.read, b.read
                if (ra.rank, ra.suit) != (rb.rank, rb.suit) or _ink_red(ra, rb) != (
                    ra.suit in _RED
                ):
                    continue
                if not _opposite_corners(a, b, squash):
                    continue
                card = Card.of(Rank(ra.rank), Suit(ra.suit))
                if int(card.rank) in INDEX_PIPS_CHECKED and self._shows_three(frame, a.quad, 0):
                    continue
                if not (_suit_shown(card, a.size) and _suit_shown(card, b.size)):
                    continue
                each = min(a.share, b.share) * LEARNED_SINGLE / PAIR_LEADS
                out.append((card, min(1.0, each / 2), a.quad, a.centre))
        return out

    def _place_indices(
        self,
        reads: list[tuple[Card, float, NDArray[np.float64], Point]],
        known: set[Card],
        out: list[Recognition],
        card_h: float,
        width: int,
        height: int,
    ) -> list[Recognition]:
        """The index corners' reads added to ``out``: the best of each card's, none where
        two name different cards within an index's reach of each other, nor where each of
        two cards' index lies inside the other (:func:`_under_each_other`)."""
        near = INDEX_STEP * (card_h or 100.0)
        kept = []
        for card, conf, quad, (x, y) in reads:
            if card in known:
                continue
            if any(
                other != card and math.hypot(x - ox, y - oy) < near
                for other, _, _, (ox, oy) in reads
            ):
                continue  # one index, two cards: neither
            kept.append((card, conf, quad, (x, y)))
        kept = [
            read
            for read in kept
            if not any(
                other[0] != read[0] and _under_each_other(read, other, near) for other in kept
            )
        ]
        best: dict[Card, tuple[float, NDArray[np.float64], Point]] = {}
        for card, conf, quad, centre in kept:
            if card not in best or conf > best[card][0]:
                best[card] = (conf, quad, centre)
        result = list(out)
        for card, (conf, quad, centre) in sorted(best.items()):
            for i, r in enumerate(result):
                if (
                    r.status is Status.UNKNOWN
                    and cv2.pointPolygonTest(np.array(r.corners, np.float32), centre, False) >= 0
                ):
                    del result[i]  # this unknown was the card read here
                    break
            corners = tuple((float(x), float(y)) for x, y in quad)
            result.append(
                Recognition(Status.CARD, card, conf, corners, self.zone_of(quad, width, height))  # type: ignore[arg-type]
            )
        return result

    def _single_corner(
        self,
        patch: Image,
        size: float,
        read: CornerRead | None = None,
        *,
        least: float = LEARNED_MIN_SIDE,
    ) -> tuple[Card, float] | None:
        """The card one index corner names alone (its card's other corners hidden under
        another card), read by the learned reader with :data:`LEARNED_SINGLE` times the
        leads, in ink of the suit's colour; None when it is not that sure, or its card is
        under ``least`` pixels. ``read``: the reader's read of ``patch``, where it was read
        already."""
        if self.reader is None or size < least:
            return None
        return _single_card(read if read is not None else self.reader.read([patch])[0])

    def recognize_many(self, frames: Sequence[Image]) -> list[FrameRecognition]:
        """``recognize`` over several frames."""
        return [self.recognize(f) for f in frames]


def shows_ace(middle: Image, card_height: float, top: float, red: bool | None) -> bool:
    """Whether a card's rectified middle (:func:`pip_patch`) shows an ace: one pip of at
    least :data:`ACE_PIP_SHARE` of the card's height on its middle row, no other pip of an
    index suit's size beside it, in ink of the suit's colour (``red``; None: in any ink,
    as on a greyscale frame)."""
    big = read_pips(middle, card_height, ACE_PIP_SHARE * card_height, top)
    if big is None or big.count != 1 or len(big.middle) != 1:
        return False
    small = read_pips(middle, card_height, PIP_SHARE * card_height, top)
    if small is not None and small.count > 1:
        return False  # a number card's pips
    gray = cv2.cvtColor(middle, cv2.COLOR_BGR2GRAY)
    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = np.sort(stats[1:, cv2.CC_STAT_AREA])
    if areas.size == 0 or areas[:-1].sum() > ACE_ALONE * areas[-1]:
        return False  # other print beside the pip (pips cut by the border, a figure)
    if red is None:
        return True
    if red:
        return big.redness >= RED_INK
    return big.redness < 0.5 * RED_INK


def shows_figure(middle: Image) -> bool:
    """Whether a card's rectified middle (:func:`pip_patch`) shows a court card's figure:
    its print (darker than paper, or coloured) joined into one piece spanning
    :data:`FIGURE_SPAN` of the middle each way and filling :data:`FIGURE_FILL` of that
    box, with :data:`FIGURE_COLOUR` of it in colours other than red (pips are printed in
    one ink; a figure in several)."""
    h, w = middle.shape[:2]
    gray = cv2.cvtColor(middle, cv2.COLOR_BGR2GRAY)
    _, ink = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    paper_mask = cv2.bitwise_not(ink)
    if cv2.countNonZero(paper_mask) < 0.1 * h * w:
        return False  # no paper to measure colour against
    paper = np.array(cv2.mean(middle, paper_mask)[:3]) + 1.0
    balanced = np.clip(middle.astype(np.float32) / paper * 200.0, 0, 255).astype(np.uint8)
    hsv = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)
    hue, sat = hsv[..., 0], hsv[..., 1]
    coloured = sat >= 80
    printed = ((ink > 0) | coloured).astype(np.uint8)
    printed = np.asarray(cv2.dilate(printed, np.ones((3, 3), np.uint8)), np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(printed, connectivity=8)
    if n < 2:
        return False
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh, area = (int(v) for v in stats[i])
    if bw < FIGURE_SPAN * w or bh < FIGURE_SPAN * h or area < FIGURE_FILL * bw * bh:
        return False
    box = (labels[y : y + bh, x : x + bw] == i) & coloured[y : y + bh, x : x + bw]
    not_red = box & (hue[y : y + bh, x : x + bw] >= 12) & (hue[y : y + bh, x : x + bw] <= 160)
    return bool(np.count_nonzero(not_red) >= FIGURE_COLOUR * bw * bh)


def _summed(values: Sequence[float]) -> float:
    """The sum of ``values``, added one by one in their order (the same float whatever
    Python's own ``sum`` does)."""
    total = 0.0
    for v in values:
        total += v
    return total


def _sized_like_the_deck(out: list[Recognition]) -> list[Recognition]:
    """``out`` with each card whose long side lies beyond :data:`DECK_SIZE_SPREAD` of the
    median of the frame's other cards read reported unknown (where at least
    :data:`DECK_SIZE_OTHERS` others were read)."""
    read = [(i, _long_side(r.corners)) for i, r in enumerate(out) if r.status is Status.CARD]
    if len(read) <= DECK_SIZE_OTHERS:
        return out
    result = list(out)
    for i, side in read:
        typical = statistics.median([s for j, s in read if j != i])  # NumPy's: 50 times slower
        if not typical / DECK_SIZE_SPREAD <= side <= typical * DECK_SIZE_SPREAD:
            result[i] = _unread(out[i])
    return result


def _long_side(corners: Sequence[Point]) -> float:
    """A quadrilateral's longer pair of opposite sides, their mean length."""
    s = _side_lengths([list(p) for p in corners])
    return max(s[0] + s[2], s[1] + s[3]) / 2


def _unread(r: Recognition) -> Recognition:
    """``r`` reported unknown: its card is not one the deck dealt holds."""
    return replace(r, status=Status.UNKNOWN, card=None, confidence=0.0)


def _ink_red(a: CornerRead, b: CornerRead) -> bool | None:
    """Whether two corners of one card show red ink: their rednesses' mean at least
    :data:`~drivers.camera.reader.RED_INK` where both were measured (a webcam's pale red
    measured 0.058 and 0.063 on a jack of diamonds' two corners, a glare took one of a
    phone's eight of hearts to 0.044 beside 0.43), else where both say the same; None where
    they do not (one corner without ink)."""
    if a.redness is not None and b.redness is not None:
        return (a.redness + b.redness) / 2 >= RED_INK
    return a.red if a.red == b.red else None


def _measure_agreeing_ink(corners: list[CornerRead], patches: dict[int, Image]) -> None:
    """Measure the ink (:func:`~drivers.camera.reader.with_ink`) of the corners, in place,
    of each pair of opposite corners (0 and 2, 1 and 3) that name the same rank and suit:
    the only corners whose ink :func:`_learned_card` looks at. The ink of an unknown
    outline's corners was measured for all its corners, and took 2.4 ms of the 90 ms of the
    benchmark's real frame; the reads are the same."""
    for k in (0, 1):
        a, b = corners[k], corners[k + 2]
        if a.rank == b.rank != NO_INDEX and a.suit == b.suit:
            corners[k] = with_ink(a, patches[k])
            corners[k + 2] = with_ink(b, patches[k + 2])


def _single_card(c: CornerRead) -> tuple[Card, float] | None:
    """The card one index corner names alone, with its confidence, when the learned reader
    names it with :data:`LEARNED_SINGLE` times the leads in ink of its suit's colour; None
    otherwise (no index, too faint, ink of the other colour or none)."""
    if c.rank == NO_INDEX or c.red is None or c.red != (c.suit in _RED):
        return None
    share = _single_share(c)
    if share < 1.0:
        return None
    return Card.of(Rank(c.rank), Suit(c.suit)), min(1.0, share / 4)


def _single_share(c: CornerRead, *, sure: bool = False) -> float:
    """The weaker of a corner's two leads as a share of what one corner alone needs
    (:data:`LEARNED_SINGLE` times the leads): 1 or more settles it. ``sure``: as if its ink
    clearly showed its suit's colour (:func:`suit_lead`), whether measured or not."""
    return min(c.rank_lead / RANK_LEAD, suit_lead(c, sure=sure) / SUIT_LEAD) / LEARNED_SINGLE


def suit_lead(c: CornerRead, *, sure: bool = False) -> float:
    """The lead a corner's suit has: over the other suit of its colour only (clubs over
    spades, diamonds over hearts) where its ink clearly shows that colour (a redness of at
    most :data:`SURE_BLACK`, or at least :data:`SURE_RED`; ``sure``: as if it did), else
    over all three others."""
    if c.colour_lead is None:
        return c.suit_lead
    red = c.suit in _RED
    clear = sure or (
        c.redness is not None
        and ((red and c.redness >= SURE_RED) or (not red and c.redness <= SURE_BLACK))
    )
    return max(c.suit_lead, c.colour_lead) if clear else c.suit_lead


def _learned_card(
    corners: list[CornerRead],
    first: int,
    need: float,
    *,
    colour: bool = True,
    centre: Callable[[Card, int], bool] | None = None,
) -> tuple[Card, float, int] | None:
    """The card the learned reader's four corners name, with its confidence and the pair
    that named it (its first corner: the card's top-left), when the pair of opposite
    corners ``first`` (or the other pair, where the first shows no index) agree on it with
    ``need`` times the leads, or one of them with :data:`LEARNED_STRONG` times them; None
    otherwise.

    ``colour``: the frame shows colour, so the ink must show the suit's. A greyscale frame's
    card is settled only by both corners clearing ``need`` times the leads (the caller
    raises ``need`` by :data:`LEARNED_GREY`), or by its middle (below), never by one strong
    corner.

    ``centre(card, k)``: whether the middle of the card, read with corner ``k`` as its
    top-left, confirms ``card`` (:meth:`Recognizer._middle_shows`: a number card's pips, an
    ace's one large pip, a court card's figure); it settles a pair of which
    one corner clears :data:`LEARNED_PIPS` times the leads and the other agrees more
    faintly, its suit still with ``need`` times the suit's lead (the middle counts the
    rank, not which suit of its colour; on a greyscale frame, not even the colour)."""
    said = []  # what each pair's two corners agree on (None: they do not)
    for k in (first, 1 - first):
        a, b = corners[k], corners[k + 2]
        red = a.suit in _RED
        agree = (
            a.rank == b.rank != NO_INDEX
            and a.suit == b.suit
            and (_ink_red(a, b) == red or not colour)  # the ink shows the suit's colour
        )
        said.append((a.rank, a.suit) if agree else None)
    if any(c.rank != NO_INDEX for c in (corners[first], corners[first + 2])):
        said[1] = None  # the short side's corners show an index: the others hold none
    for k, card in zip((first, 1 - first), said, strict=True):
        if card is None or any(other not in (None, card) for other in said):
            continue  # no agreement here, or the other pair agrees on another card
        a, b = corners[k], corners[k + 2]
        suits = [(suit_lead(c) if colour else c.suit_lead) / SUIT_LEAD / need for c in (a, b)]
        each = [min(c.rank_lead / RANK_LEAD / need, s) for c, s in zip((a, b), suits, strict=True)]
        named = Card.of(Rank(card[0]), Suit(card[1]))
        if min(each) >= 1.0:
            return named, min(1.0, min(each) / 2), k
        if (
            colour and max(each) >= LEARNED_STRONG
        ):  # one corner clear, the other agreeing more faintly
            return named, min(1.0, max(each) / 4), k
        if (
            centre is not None
            and max(each) >= LEARNED_PIPS
            and min(suits) >= 1.0  # the pips count the rank; the suit is the corners' own
            and centre(named, k)
        ):
            return named, min(1.0, max(each) / 4), k
    return None
