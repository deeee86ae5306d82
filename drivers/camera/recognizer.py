"""The pure card recognizer: one BGR frame in, the cards on it (code, confidence, corners, zone)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from config.camera import ZoneLayout
from controller.cards import Card, Rank, Suit
from drivers.camera.classifier import Verdict
from drivers.camera.glyphs import IndexGlyphs, split_index
from drivers.camera.profile import Profile, builtin_profile

__all__ = [
    "CANONICAL_WIDTH",
    "DETECTION_SIZE",
    "FULL_EVIDENCE_SIDE",
    "MIN_CARD_SIDE",
    "FrameRecognition",
    "IndexRead",
    "Quad",
    "Recognition",
    "Recognizer",
    "Status",
    "canonical_size",
    "card_mask",
    "corner_hypotheses",
    "find_quads",
    "find_shapes",
    "index_patches",
    "patch_origin",
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

#: a corner whose glyphs correlate less than this with every class holds no index at all
NOT_AN_INDEX = 0.3

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


@dataclass(frozen=True, slots=True)
class IndexRead:
    """What the visible index corners of one card say, and whether that is accepted."""

    card: Card
    rank: Verdict
    suit: Verdict
    colour_ok: bool
    corners: int  # how many index corners were read (1 or 2)

    @property
    def confidence(self) -> float:
        """The weaker of the rank and suit margins, clipped to 0 … 1."""
        return max(0.0, min(1.0, self.rank.margin, self.suit.margin))

    def accepted(self, profile: Profile, strictness: float = 1.0) -> bool:
        """Whether the read clears the profile's margin (times ``strictness``) and similarity
        and the colour agrees."""
        need = profile.min_margin * strictness
        return (
            self.colour_ok
            and self.rank.margin >= need
            and self.suit.margin >= need
            and self.rank.similarity >= profile.min_similarity
            and self.suit.similarity >= profile.min_similarity
        )


def card_mask(frame: Image) -> Image:
    """Pixels that may belong to a card face or a white card border, as a 0/255 mask.

    Paper is unsaturated and brighter than the surrounding table; the table's own brightness
    and saturation are estimated by a coarse median, so any felt colour, wood and uneven
    light work. Thin printed lines and specks are removed by a morphological opening.
    """
    h, w = frame.shape[:2]
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    s, v = hsv[:, :, 1], hsv[:, :, 2]
    f = 8
    small = cv2.resize(hsv, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    k = max(3, (min(small.shape[:2]) // 2) | 1)
    # the table around each pixel: its typical brightness and saturation (the median over a
    # wide window, or over the whole frame where cards crowd the window)
    small_v = np.ascontiguousarray(small[:, :, 2])
    table_v = np.minimum(cv2.medianBlur(small_v, min(k, 31)), np.median(small_v))
    table_s = cv2.medianBlur(np.ascontiguousarray(small[:, :, 1]), min(k, 31))
    brighter_than = cv2.resize(
        np.clip(table_v.astype(np.float32) * 1.25 + 20, 0, 255).astype(np.uint8),
        (w, h),
        interpolation=cv2.INTER_LINEAR,
    )
    coloured_table = cv2.resize(
        (table_s > 80).astype(np.uint8) * 255, (w, h), interpolation=cv2.INTER_NEAREST
    )
    low_sat = cv2.threshold(s, 70, 255, cv2.THRESH_BINARY_INV)[1]
    lit = cv2.threshold(v, 70, 255, cv2.THRESH_BINARY)[1]
    bright = cv2.bitwise_or(cv2.compare(v, brighter_than, cv2.CMP_GT), coloured_table)
    mask = cv2.bitwise_and(cv2.bitwise_and(low_sat, lit), bright)
    return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)), np.uint8)


def _order(quad: NDArray[np.float64]) -> NDArray[np.float64]:
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    return quad[np.argsort(ang)]


_NEXT = np.array([1, 2, 3, 0])


def _refine(quad: NDArray[np.float64], pts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Corners from straight lines fitted to each side's contour points (not the rounding)."""
    a = quad
    d = quad[_NEXT] - quad  # side i runs from corner i to corner i + 1
    length = np.hypot(d[:, 0], d[:, 1])
    if length.min() < 1:
        return quad
    u = d / length[:, None]
    rel = pts[None, :, :] - a[:, None, :]  # (4, N, 2)
    t = np.einsum("snk,sk->sn", rel, u) / length[:, None]
    dist = np.abs(np.einsum("snk,sk->sn", rel, np.stack([-u[:, 1], u[:, 0]], axis=1)))
    near = (t > 0.15) & (t < 0.85) & (dist < np.maximum(2.0, 0.06 * length)[:, None])
    lines = []
    for i in range(4):
        sel = pts[near[i]]
        if len(sel) < 4:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = np.empty_like(quad)
    for i in range(4):
        (p, r), (q, s) = lines[(i - 1) % 4], lines[i]
        corner = _intersect(p, r, q, s)
        if corner is None:
            return quad
        out[i] = corner
    if np.max(np.hypot(*(out - quad).T)) > 0.3 * length.min():
        return quad
    return out


def _intersect(
    p: NDArray[np.float64], r: NDArray[np.float64], q: NDArray[np.float64], s: NDArray[np.float64]
) -> NDArray[np.float64] | None:
    den = r[0] * s[1] - r[1] * s[0]
    if abs(den) < 1e-9:
        return None
    k = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / den
    corner: NDArray[np.float64] = p + k * r
    return corner


def _hull_quad(hull: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The card's quadrilateral from its convex hull: the lines of the four longest edges.

    Ink at the card's edge (an index printed close to it) or a worn corner cuts corners off
    the paper's outline; extending the four longest edges restores them.
    """
    peri = cv2.arcLength(hull.astype(np.float32), True)
    approx = cv2.approxPolyDP(hull.astype(np.float32), 0.015 * peri, True).reshape(-1, 2)
    pts = approx.astype(np.float64)
    n = len(pts)
    if n < 4:
        return None
    if n == 4:
        return pts
    edges = np.roll(pts, -1, axis=0) - pts
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = sorted(np.argsort(lengths)[-4:].tolist())
    if lengths[keep].min() < 0.08 * peri:
        return None
    out = []
    for j in range(4):
        a, b = keep[j], keep[(j + 1) % 4]
        corner = _intersect(pts[a], edges[a], pts[b], edges[b])
        if corner is None:
            return None
        out.append(corner)
    return np.array(out)


def find_shapes(
    mask: Image, *, min_area: float = 600.0
) -> tuple[list[NDArray[np.float64]], list[NDArray[np.int32]], list[NDArray[np.int32] | None]]:
    """Card-shaped convex quadrilaterals (corners clockwise on screen) in a card mask, the
    outlines of the other paper blobs (cards overlapping one another, a card and glare), and
    for each quadrilateral its outline when paper fills it loosely (it may be two cards)."""
    h, w = mask.shape[:2]
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    quads = []
    blobs = []
    loose: list[NDArray[np.int32] | None] = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area or area > 0.95 * w * h:
            continue
        hull = cv2.convexHull(contour)
        found = _hull_quad(hull.reshape(-1, 2).astype(np.float64))
        quad = _order(found) if found is not None else None
        quad_area = cv2.contourArea(quad.astype(np.float32)) if quad is not None else 0.0
        if quad is None or quad_area <= 0 or area / quad_area < 0.8:
            blobs.append(np.asarray(contour, np.int32))
            continue
        sides = np.hypot(*(quad - np.roll(quad, 1, 0)).T)
        a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
        if min(a, b) / max(a, b) < 0.35 or sides.min() < 10:
            blobs.append(np.asarray(contour, np.int32))
            continue
        refined = _order(_refine(quad, contour.reshape(-1, 2).astype(np.float64)))
        quads.append(refined)
        fit = _overlap(np.asarray(contour, np.int32), refined)
        loose.append(np.asarray(contour, np.int32) if fit < 0.93 else None)
    return quads, blobs, loose


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


def find_quads(mask: Image, *, min_area: float = 600.0) -> list[NDArray[np.float64]]:
    """Card-shaped convex quadrilaterals in a card mask, corners clockwise on screen."""
    return find_shapes(mask, min_area=min_area)[0]


def _fit_corner(
    pts: NDArray[np.float64],
    p: NDArray[np.float64],
    e1: NDArray[np.float64],
    e2: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None:
    """The corner and its two edge vectors re-fitted to the outline's own points."""
    lines = []
    for e in (e1, e2):
        length = float(np.hypot(*e))
        u = e / length
        rel = pts - p
        t = rel @ u / length
        dist = np.abs(rel @ np.array([-u[1], u[0]]))
        sel = pts[(t > 0.15) & (t < 0.85) & (dist < max(2.0, 0.05 * length))]
        if len(sel) < 4:
            return None
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        direction = np.array([vx, vy], np.float64)
        if direction @ u < 0:
            direction = -direction
        lines.append((np.array([x0, y0], np.float64), direction))
    corner = _intersect(lines[0][0], lines[0][1], lines[1][0], lines[1][1])
    if corner is None or float(np.hypot(*(corner - p))) > 0.2 * min(
        float(np.hypot(*e1)), float(np.hypot(*e2))
    ):
        return None
    return corner, lines[0][1] * float(np.hypot(*e1)), lines[1][1] * float(np.hypot(*e2))


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
    for i in range(n):
        p = poly[i]
        e1, e2 = poly[i - 1] - p, poly[(i + 1) % n] - p
        l1, l2 = float(np.hypot(*e1)), float(np.hypot(*e2))
        if min(l1, l2) < 0.25 * short:
            continue
        fitted = _fit_corner(pts, p, e1, e2)
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
        box = np.zeros_like(mask)
        cv2.fillConvexPoly(box, np.round(quad).astype(np.int32), 255)
        inside = cv2.countNonZero(cv2.bitwise_and(box, mask))
        if inside >= 0.8 * max(1, cv2.countNonZero(box)):
            out.append(quad)
    return out


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
    cw, ch = canonical_size(aspect)
    x0, y0, x1, y1 = index_box
    bx, by = round(x0 * cw), round(y0 * ch)
    size = (round(x1 * cw) - bx, round(y1 * ch) - by)
    dst = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    shift = np.array([[1, 0, -bx], [0, 1, -by], [0, 0, 1]], np.float64)
    out = []
    for k in corners:
        src = np.roll(quad, -k, axis=0).astype(np.float32)
        m = shift @ cv2.getPerspectiveTransform(src, dst)
        patch = cv2.warpPerspective(
            frame, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        out.append(np.asarray(patch, np.uint8))
    return out


def patch_origin(aspect: float, index_box: tuple[float, float, float, float]) -> tuple[int, int]:
    """Where the card's own corner lies in an index patch (pixels from the patch's corner)."""
    cw, ch = canonical_size(aspect)
    return max(0, -round(index_box[0] * cw)), max(0, -round(index_box[1] * ch))


def _whiteness(frame: Image, quad: NDArray[np.float64]) -> float:
    """Share of paper-like pixels in the card's interior (a card back's pattern is not paper)."""
    dst = np.array([[-2, -3], [14, -3], [14, 19], [-2, 19]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    inner = cv2.warpPerspective(frame, m, (12, 16), flags=cv2.INTER_AREA)
    hsv = cv2.cvtColor(inner, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    v_ref = float(np.percentile(hsv[:, 2], 90))
    paper = (hsv[:, 1] < 70) & (hsv[:, 2] > 0.7 * v_ref) & (hsv[:, 2] > 70)
    return float(np.count_nonzero(paper)) / len(paper)


_RED = frozenset({int(Suit.HEARTS), int(Suit.DIAMONDS)})
_BLACK = frozenset({int(Suit.CLUBS), int(Suit.SPADES)})


class Recognizer:
    """Reads cards from frames with one deck profile; assigns zones when given a layout.

    ``recognize`` is pure: the same frame always gives the same result, and nothing is kept
    between frames (stability over time is the capture adapter's job).
    """

    def __init__(self, profile: Profile | None = None, zones: ZoneLayout | None = None) -> None:
        self.profile = profile if profile is not None else builtin_profile()
        self.zones = zones
        _, ch = canonical_size(self.profile.aspect)
        self._card_h = float(ch)
        self._origin = patch_origin(self.profile.aspect, self.profile.index_box)

    def read_index(self, glyphs: Sequence[IndexGlyphs]) -> IndexRead:
        """Combine one or two views of the same index (opposite corners) into one read."""
        p = self.profile
        ranks = [g.rank for g in glyphs]
        suits = [g.suit for g in glyphs]
        colours = []
        for g in glyphs:
            if g.redness >= p.red_threshold:
                colours.append(True)
            elif g.redness <= 0.5 * p.red_threshold:
                colours.append(False)
        rank = p.rank.decide(np.sum([p.rank.scores(v) for v in ranks], axis=0), ranks)
        suit_scores = np.sum([p.suit.scores(v) for v in suits], axis=0)
        shape = p.suit.decide(suit_scores, suits)
        suit = shape
        if colours and (all(colours) or not any(colours)):
            # the ink's colour settles red or black; the glyph must tell the two suits apart
            # and must itself look like that colour's suit
            suit = p.suit.decide(suit_scores, suits, _RED if colours[0] else _BLACK)
        is_red = suit.label in (Suit.HEARTS, Suit.DIAMONDS)
        colour_ok = (
            bool(colours) and all(c == is_red for c in colours) and shape.label == suit.label
        )
        card = Card.of(Rank(rank.label), Suit(suit.label))
        return IndexRead(card, rank, suit, colour_ok, len(glyphs))

    def classify(
        self, frame: Image, quad: NDArray[np.float64]
    ) -> tuple[Status, Card | None, float]:
        """Decide what one card-shaped quad is: a card (with confidence), unknown, or a back."""
        return self._classify(frame, quad)[:3]

    def _classify(
        self, frame: Image, quad: NDArray[np.float64]
    ) -> tuple[Status, Card | None, float, int]:
        """:meth:`classify`, plus how many index corners agreed on the card."""
        p = self.profile
        sides = np.hypot(*(quad - np.roll(quad, 1, 0)).T)
        if sides.min() < MIN_CARD_SIDE:
            return Status.UNKNOWN, None, 0.0, 0  # too few pixels for the index: never guess
        # fewer pixels, less evidence: below FULL_EVIDENCE_SIDE the margin needed grows
        strictness = max(1.0, FULL_EVIDENCE_SIDE / float(sides.min()))
        reads = []
        for k in (0, 1):
            patches = index_patches(frame, quad, p.aspect, p.index_box, (k, k + 2))
            found = (split_index(patches[0], self._card_h, self._origin),
                     split_index(patches[1], self._card_h, self._origin))  # fmt: skip
            pair = [g for g in found if g is not None]
            if pair:
                read = self.read_index(pair)
                if min(read.rank.similarity, read.suit.similarity) >= NOT_AN_INDEX:
                    reads.append(read)
                    if k == 0 and read.corners == 2 and read.accepted(p, strictness):
                        break  # two opposite corners agree: the other two hold no index
        accepted = [r for r in reads if r.accepted(p, strictness)]
        if accepted and len({r.card for r in accepted}) == 1 and len(accepted) == len(reads):
            corners = max(r.corners for r in accepted)
            return Status.CARD, accepted[0].card, min(r.confidence for r in accepted), corners
        if not reads and _whiteness(frame, quad) < 0.25:
            return Status.FACE_DOWN, None, 0.0, 0
        if reads and not accepted and _whiteness(frame, quad) < 0.12:
            return Status.FACE_DOWN, None, 0.0, 0  # a back's pattern can look like an index
        return Status.UNKNOWN, None, 0.0, 0

    def zone_of(self, corners: NDArray[np.float64], width: int, height: int) -> str | None:
        """The id of the zone holding the card's centre, if a layout is set."""
        if self.zones is None:
            return None
        cx, cy = corners.mean(axis=0)
        zone = self.zones.zone_at(float(cx) / width, float(cy) / height)
        return zone.id if zone is not None else None

    def recognize(self, frame: Image) -> FrameRecognition:
        """All card-shaped objects on ``frame`` (BGR, uint8), each read, left unknown or a back."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(
                f"expected a BGR uint8 image, got {frame.dtype} of shape {frame.shape}"
            )
        h, w = frame.shape[:2]
        factor = -(-max(w, h) // DETECTION_SIZE)  # a whole factor: fast, alias-free shrinking
        small = (
            frame
            if factor == 1
            else np.asarray(
                cv2.resize(frame, (w // factor, h // factor), interpolation=cv2.INTER_AREA),
                np.uint8,
            )
        )
        scale = np.array([w / small.shape[1], h / small.shape[0]])
        min_area = max(200.0, 0.0004 * small.shape[0] * small.shape[1])
        out = []
        mask = card_mask(small)
        quads, outlines, loose = find_shapes(mask, min_area=min_area)
        blobs: list[tuple[NDArray[np.int32], set[Card]]] = [(b, set()) for b in outlines]
        for found, outline in zip(quads, loose, strict=True):
            # contour pixels lie inside the paper's edge: push the corners out by one pixel
            centre = found.mean(axis=0)
            radial = found - centre
            found = found + radial / np.hypot(radial[:, :1], radial[:, 1:])
            quad = found * scale
            status, card, conf, agreeing = self._classify(frame, quad)
            if outline is not None and not (status is Status.CARD and agreeing == 2):
                # not one clean card: perhaps two, read corner by corner
                blobs.append((outline, set()))
                continue
            corners = tuple((float(x), float(y)) for x, y in quad)
            out.append(
                Recognition(status, card, conf, corners, self.zone_of(quad, w, h))  # type: ignore[arg-type]
            )
        if blobs:
            clean = [q for q, o in zip(quads, loose, strict=True) if o is None] or quads
            out += self._read_blobs(frame, mask, clean, blobs, scale)
        out.sort(key=lambda r: (r.centre[1], r.centre[0]))
        return FrameRecognition(w, h, tuple(out))

    def _read_blobs(
        self,
        frame: Image,
        mask: Image,
        quads: list[NDArray[np.float64]],
        blobs: list[tuple[NDArray[np.int32], set[Card]]],
        scale: NDArray[np.float64],
    ) -> list[Recognition]:
        """Cards in blobs of overlapping paper, read from their visible index corners only.

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
        for contour, known in blobs:
            found: dict[Card, tuple[float, NDArray[np.float64]]] = {}
            if short > 0:
                for hyp in corner_hypotheses(contour, mask, short, long):
                    quad = hyp * scale
                    side = min(short, long) * float(scale.min())
                    patch = index_patches(frame, quad, p.aspect, p.index_box)[0]
                    glyphs = split_index(patch, self._card_h, self._origin)
                    if glyphs is None:
                        continue
                    read = self.read_index([glyphs])
                    # one corner of a card of guessed size: ask for a far clearer lead
                    strictness = 1.5 * max(1.0, FULL_EVIDENCE_SIDE / side)
                    shapely = min(read.rank.similarity, read.suit.similarity) >= 0.6
                    if shapely and read.accepted(p, strictness) and read.card not in known:
                        best = found.get(read.card)
                        if best is None or read.confidence > best[0]:
                            found[read.card] = (read.confidence, quad)
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

    def recognize_many(self, frames: Sequence[Image]) -> list[FrameRecognition]:
        """``recognize`` over several frames."""
        return [self.recognize(f) for f in frames]
