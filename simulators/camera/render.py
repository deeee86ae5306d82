"""Procedural card faces and backs: index glyphs in Hershey fonts, pips, court blocks."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.cards import Card, Rank, Suit

__all__ = [
    "CARD_HEIGHT",
    "CARD_WIDTH",
    "INDEX_FONTS",
    "BackStyle",
    "FaceStyle",
    "draw_suit",
    "render_back",
    "render_face",
]

Image = NDArray[np.uint8]

#: canonical rendering size of a poker-size card (63 x 88 mm), pixels
CARD_WIDTH = 240
CARD_HEIGHT = 336

#: Hershey fonts that resemble common card index fonts, by name
INDEX_FONTS: dict[str, int] = {
    "simplex": cv2.FONT_HERSHEY_SIMPLEX,
    "duplex": cv2.FONT_HERSHEY_DUPLEX,
    "complex": cv2.FONT_HERSHEY_COMPLEX,
    "triplex": cv2.FONT_HERSHEY_TRIPLEX,
    "plain": cv2.FONT_HERSHEY_PLAIN,
    "complex-small": cv2.FONT_HERSHEY_COMPLEX_SMALL,
    "simplex-italic": cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC,
}

_RED = (40, 30, 200)
_BLACK = (30, 30, 30)
_SHIFT = 4  # sub-pixel bits for cv2 drawing calls
_SCALE = 1 << _SHIFT


@dataclass(frozen=True, slots=True)
class FaceStyle:
    """How a deck's faces look: index font and geometry, ink colours, the ten's spelling."""

    font: str = "simplex"
    thickness: int = 3
    rank_height: float = 0.095  # of the card height
    index_x: float = 0.105  # centre of the index column, of the card width
    index_top: float = 0.045  # of the card height
    suit_size: float = 0.075  # of the card height
    gap: float = 0.022  # between rank and suit, of the card height
    red: tuple[int, int, int] = _RED
    black: tuple[int, int, int] = _BLACK
    ten: str = "10"
    paper: tuple[int, int, int] = (245, 247, 248)


@dataclass(frozen=True, slots=True)
class BackStyle:
    """How a deck's backs look: pattern colour, line spacing, white border or not."""

    colour: tuple[int, int, int] = (150, 60, 30)
    border: float = 0.06  # white border, of the card width; 0 for a full-bleed back
    spacing: int = 14


def _poly(img: Image, pts: NDArray[np.float64], colour: tuple[int, int, int]) -> None:
    cv2.fillPoly(img, [np.round(pts * _SCALE).astype(np.int32)], colour, cv2.LINE_AA, _SHIFT)


def _circle(
    img: Image, centre: tuple[float, float], radius: float, colour: tuple[int, int, int]
) -> None:
    c = (round(centre[0] * _SCALE), round(centre[1] * _SCALE))
    cv2.circle(img, c, round(radius * _SCALE), colour, -1, cv2.LINE_AA, _SHIFT)


def draw_suit(
    img: Image,
    suit: Suit,
    centre: tuple[float, float],
    size: float,
    colour: tuple[int, int, int],
    *,
    upside_down: bool = False,
) -> None:
    """Draw one suit symbol of height ``size`` centred at ``centre`` (in place)."""
    cx, cy = centre
    s = size
    flip = -1.0 if upside_down else 1.0

    def pt(x: float, y: float) -> tuple[float, float]:
        return cx + flip * x * s, cy + flip * y * s

    def poly(points: list[tuple[float, float]]) -> None:
        _poly(img, np.array([pt(x, y) for x, y in points], dtype=np.float64), colour)

    if suit is Suit.DIAMONDS:
        poly([(0, -0.5), (0.38, 0), (0, 0.5), (-0.38, 0)])
    elif suit is Suit.HEARTS:
        for x in (-0.24, 0.24):
            _circle(img, pt(x, -0.2), 0.26 * s, colour)
        poly([(-0.49, -0.12), (0.49, -0.12), (0, 0.5)])
    elif suit is Suit.SPADES:
        for x in (-0.24, 0.24):
            _circle(img, pt(x, 0.12), 0.25 * s, colour)
        poly([(-0.48, 0.06), (0.48, 0.06), (0, -0.5)])
        poly([(0, 0.1), (0.16, 0.5), (-0.16, 0.5)])
    else:  # clubs
        _circle(img, pt(0, -0.26), 0.23 * s, colour)
        _circle(img, pt(-0.25, 0.1), 0.23 * s, colour)
        _circle(img, pt(0.25, 0.1), 0.23 * s, colour)
        poly([(-0.06, -0.1), (0.06, -0.1), (0.06, 0.2), (-0.06, 0.2)])
        poly([(0, 0.05), (0.17, 0.5), (-0.17, 0.5)])


def _rank_glyph(text: str, style: FaceStyle, height: int, colour: tuple[int, int, int]) -> Image:
    """The rank text drawn large and resized to ``height`` rows (width kept, capped)."""
    font = INDEX_FONTS[style.font]
    scale = 3.0
    thick = max(1, round(style.thickness * 2.2))
    (w, h), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 2
    canvas = np.full((h + base + 2 * pad, w + 2 * pad, 3), 255, np.uint8)
    cv2.putText(canvas, text, (pad, pad + h), font, scale, colour, thick, cv2.LINE_AA)
    ink = np.any(canvas < 200, axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    crop = canvas[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    new_w = max(1, round(crop.shape[1] * height / crop.shape[0]))
    new_w = min(new_w, round(height * 1.05))  # condensed, as a two-digit "10" is printed
    return np.asarray(cv2.resize(crop, (new_w, height), interpolation=cv2.INTER_AREA), np.uint8)


def _paste_dark(img: Image, glyph: Image, x: int, y: int) -> None:
    """Paste ``glyph`` (dark ink on white) into ``img`` at (x, y), darkest pixel wins."""
    h, w = glyph.shape[:2]
    region = img[y : y + h, x : x + w]
    np.minimum(region, glyph, out=region)


_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.2), (0.5, 0.8)],
    3: [(0.5, 0.2), (0.5, 0.5), (0.5, 0.8)],
    4: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.8), (0.7, 0.8)],
    5: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.5), (0.3, 0.8), (0.7, 0.8)],
    6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    7: [(0.3, 0.2), (0.7, 0.2), (0.5, 0.35), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    8: [
        (0.3, 0.2), (0.7, 0.2), (0.5, 0.35), (0.3, 0.5), (0.7, 0.5),
        (0.5, 0.65), (0.3, 0.8), (0.7, 0.8),
    ],
    9: [
        (0.3, 0.2), (0.7, 0.2), (0.3, 0.4), (0.7, 0.4), (0.5, 0.5),
        (0.3, 0.6), (0.7, 0.6), (0.3, 0.8), (0.7, 0.8),
    ],
    10: [
        (0.3, 0.2), (0.7, 0.2), (0.5, 0.3), (0.3, 0.4), (0.7, 0.4),
        (0.3, 0.6), (0.7, 0.6), (0.5, 0.7), (0.3, 0.8), (0.7, 0.8),
    ],
}  # fmt: skip


def _rounded_mask(width: int, height: int, radius: int) -> Image:
    mask = np.zeros((height, width), np.uint8)
    cv2.rectangle(mask, (radius, 0), (width - 1 - radius, height - 1), 255, -1)
    cv2.rectangle(mask, (0, radius), (width - 1, height - 1 - radius), 255, -1)
    for x in (radius, width - 1 - radius):
        for y in (radius, height - 1 - radius):
            cv2.circle(mask, (x, y), radius, 255, -1, cv2.LINE_AA)
    return mask


CARD_MASK = _rounded_mask(CARD_WIDTH, CARD_HEIGHT, round(0.05 * CARD_WIDTH))
"""Alpha mask of a card with rounded corners, at the canonical rendering size."""


def render_face(card: Card, style: FaceStyle = FaceStyle()) -> Image:
    """The face of ``card`` at the canonical size (BGR; corners outside the mask are paper)."""
    w, h = CARD_WIDTH, CARD_HEIGHT
    img = np.empty((h, w, 3), np.uint8)
    img[:] = style.paper
    suit, rank = card.suit, card.rank
    colour = style.red if suit in (Suit.HEARTS, Suit.DIAMONDS) else style.black
    # the pips or the court block, kept clear of both index columns
    left, right, top, bottom = 0.24 * w, 0.76 * w, 0.12 * h, 0.88 * h
    if rank >= Rank.JACK and rank != Rank.ACE:
        x0, y0, x1, y1 = round(left), round(top), round(right), round(bottom)
        block = (120, 170, 220) if rank == Rank.JACK else (90, 150, 60)
        if rank == Rank.KING:
            block = (160, 110, 60)
        cv2.rectangle(img, (x0, y0), (x1, y1), block, -1)
        cv2.rectangle(img, (x0, y0), (x1, y1), colour, 3)
        draw_suit(img, suit, (x0 + 0.12 * w, y0 + 0.08 * h), 0.09 * h, colour)
        draw_suit(img, suit, (x1 - 0.12 * w, y1 - 0.08 * h), 0.09 * h, colour, upside_down=True)
    else:
        count = 1 if rank == Rank.ACE else int(rank) + 2
        size = 0.22 * h if rank == Rank.ACE else 0.1 * h
        for fx, fy in _PIPS[count]:
            cx, cy = left + fx * (right - left), top + fy * (bottom - top)
            draw_suit(img, suit, (cx, cy), size, colour, upside_down=fy > 0.55)
    # the index, drawn in the top-left corner and copied upside down to the bottom-right
    text = style.ten if rank == Rank.TEN else rank.char
    rank_h = round(style.rank_height * h)
    glyph = _rank_glyph(text, style, rank_h, colour)
    gx = round(style.index_x * w - glyph.shape[1] / 2)
    gy = round(style.index_top * h)
    _paste_dark(img, glyph, max(1, gx), gy)
    suit_h = style.suit_size * h
    suit_cy = gy + rank_h + style.gap * h + suit_h / 2
    draw_suit(img, suit, (style.index_x * w, suit_cy), suit_h, colour)
    iw, ih = round(0.22 * w), round(0.3 * h)
    img[h - ih :, w - iw :] = np.minimum(img[h - ih :, w - iw :], img[:ih, :iw][::-1, ::-1])
    return img


def render_back(style: BackStyle = BackStyle()) -> Image:
    """A card back at the canonical size: a lattice pattern, with or without a white border."""
    w, h = CARD_WIDTH, CARD_HEIGHT
    img = np.full((h, w, 3), 245, np.uint8)
    b = round(style.border * w)
    inner = img[b : h - b, b : w - b]
    inner[:] = style.colour
    light = tuple(min(255, int(c) + 70) for c in style.colour)
    ih, iw = inner.shape[:2]
    for off in range(-ih, iw + ih, style.spacing):
        cv2.line(inner, (off, 0), (off + ih, ih), light, 2, cv2.LINE_AA)
        cv2.line(inner, (off, ih), (off + ih, 0), light, 2, cv2.LINE_AA)
    cv2.circle(inner, (iw // 2, ih // 2), iw // 4, light, 3, cv2.LINE_AA)
    return img


def rotation_about(angle_deg: float) -> NDArray[np.float64]:
    """2x2 rotation matrix (image coordinates, y down), for placing cards."""
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
