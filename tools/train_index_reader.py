"""Train the learned index reader from index corners rendered in many fonts and styles.

    python tools/train_index_reader.py [--out MODEL.onnx] [--per-class N] [--seed S]

The corners are drawn as the recognizer rectifies them (the profile's default index box on
a card 120 pixels wide): a rank over its suit symbol, in one of the fonts below, in black,
red or other ink, on paper of any tint, with the table beyond the card's rounded corner,
sometimes a court card's frame or a large pip reaching in, the suit symbol sometimes bold
(its parts run together, as a webcam shows a small club), and corners holding no index at
all (among them two pips one over the other, as a number card's middle shows them). Each is
then degraded as a table camera degrades it: lower resolution, perspective,
blur, sensor noise, contrast and exposure, JPEG, stroke weight and misregistration of the
card's edges, and a scale of the whole corner (an index printed larger or smaller, an outline
a little off). Fonts: DejaVu, Liberation, GNU FreeFont and URW's base 35 (Debian's
fonts-dejavu-core, fonts-liberation, fonts-freefont-ttf, fonts-urw-base35: licences that
allow redistribution; see ``TRUETYPE``) and OpenCV's Hershey fonts. ``HELD_OUT`` fonts are
never trained on (the tests read them). The same seed gives the same corners and the same networks.

Needs Pillow to draw the TrueType glyphs and PyTorch (CPU) to fit the network and write it as
ONNX (both in the ``dev`` extra); the product only loads the ONNX file, with ONNX Runtime.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drivers.camera.profile import DEFAULT_INDEX_BOX
from drivers.camera.reader import (
    INDEX_MODEL,
    INPUT_SIZE,
    NO_INDEX,
    OUTPUTS,
    IndexReader,
    corner_input,
)

FONT_DIR = Path("/usr/share/fonts")
#: the TrueType and OpenType faces trained on, all under licences that allow redistribution;
#: those missing on the machine are skipped. Debian packages: fonts-dejavu-core (DejaVu),
#: fonts-liberation (Liberation: SIL Open Font License), fonts-freefont-ttf (GNU FreeFont:
#: GPL with the font exception), fonts-urw-base35 (URW's Nimbus, C059, P052, Gothic and
#: Bookman: AGPL with the font exception). The shipped model was trained with all four.
TRUETYPE = [
    "truetype/dejavu/DejaVuSans.ttf",
    "truetype/dejavu/DejaVuSans-Bold.ttf",
    "truetype/dejavu/DejaVuSans-Oblique.ttf",
    "truetype/dejavu/DejaVuSans-BoldOblique.ttf",
    "truetype/dejavu/DejaVuSans-ExtraLight.ttf",
    "truetype/dejavu/DejaVuSansCondensed.ttf",
    "truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "truetype/dejavu/DejaVuSansMono.ttf",
    "truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "truetype/dejavu/DejaVuSerif.ttf",
    "truetype/dejavu/DejaVuSerif-Bold.ttf",
    "truetype/dejavu/DejaVuSerif-Italic.ttf",
    "truetype/dejavu/DejaVuSerifCondensed.ttf",
    "truetype/dejavu/DejaVuSerifCondensed-Italic.ttf",
    "truetype/liberation/LiberationSans-Regular.ttf",
    "truetype/liberation/LiberationSans-Bold.ttf",
    "truetype/liberation/LiberationSansNarrow-Regular.ttf",
    "truetype/liberation/LiberationSansNarrow-Bold.ttf",
    "truetype/liberation/LiberationSerif-Regular.ttf",
    "truetype/liberation/LiberationSerif-Bold.ttf",
    "truetype/liberation/LiberationMono-Bold.ttf",
    "truetype/freefont/FreeSans.ttf",
    "truetype/freefont/FreeSansBold.ttf",
    "truetype/freefont/FreeSerif.ttf",
    "truetype/freefont/FreeSerifBold.ttf",
    "truetype/freefont/FreeMonoBold.ttf",
    "opentype/urw-base35/NimbusSans-Regular.otf",
    "opentype/urw-base35/NimbusSans-Bold.otf",
    "opentype/urw-base35/NimbusSansNarrow-Regular.otf",
    "opentype/urw-base35/NimbusSansNarrow-Bold.otf",
    "opentype/urw-base35/NimbusRoman-Regular.otf",
    "opentype/urw-base35/NimbusRoman-Bold.otf",
    "opentype/urw-base35/C059-Roman.otf",
    "opentype/urw-base35/C059-Bold.otf",
    "opentype/urw-base35/P052-Roman.otf",
    "opentype/urw-base35/P052-Bold.otf",
    "opentype/urw-base35/URWGothic-Book.otf",
    "opentype/urw-base35/URWGothic-Demi.otf",
    "opentype/urw-base35/URWBookman-Light.otf",
    "opentype/urw-base35/URWBookman-Demi.otf",
]
HERSHEY = [
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
]
#: fonts never trained on, for the tests: a TrueType face and a Hershey font
HELD_OUT = ["truetype/dejavu/DejaVuSerifCondensed-Bold.ttf", cv2.FONT_HERSHEY_TRIPLEX]
#: faces whose suit symbols are drawn (DejaVu has the four card suits)
SUIT_FACES = [
    "truetype/dejavu/DejaVuSans.ttf",
    "truetype/dejavu/DejaVuSans-Bold.ttf",
    "truetype/dejavu/DejaVuSerif.ttf",
    "truetype/dejavu/DejaVuSansMono.ttf",
]

#: letters and digits that are no rank (a German deck's B and D, a joker's letters, a "1"
#: alone): drawn over a suit symbol, they train the reader to say the corner holds no index
FOREIGN = ["B", "D", "E", "R", "V", "O", "H", "P", "C", "W", "Z", "1", "0", "11", "12", "S"]
#: a three with a flat top, as some decks print it (the letter ezh): a reader that never saw
#: one took a real deck's flat-topped 3 for a 5 on both corners
FLAT_THREE = "\u01b7"
#: the faces that draw the ezh (DejaVu and GNU FreeFont)
EZH_FACES = frozenset(f for f in TRUETYPE if "/dejavu/" in f or "/freefont/" in f)
RANK_TEXT = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUIT_CHAR = {0: "\u2663", 1: "\u2666", 2: "\u2665", 3: "\u2660"}  # Suit values: C D H S
CARD_W, CARD_H = 120, 168  # the canonical card (recognizer.canonical_size)
BOX = DEFAULT_INDEX_BOX
SS = 4  # drawn this many times larger, then shrunk
#: the trainer always computes on this many threads, whatever the machine: a sum split
#: another way rounds otherwise, and the model would not be the same bytes
TRAIN_THREADS = 2


@dataclass(frozen=True)
class Corner:
    """One rendered corner and its labels (rank ``NO_INDEX`` for a corner without index)."""

    image: NDArray[np.uint8]
    rank: int
    suit: int


def _glyph_truetype(text: str, face: str, px: int) -> NDArray[np.uint8]:
    font = ImageFont.truetype(str(FONT_DIR / face), px)
    left, top, right, bottom = font.getbbox(text)
    img = PILImage.new("L", (int(right - left) + 4, int(bottom - top) + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), text, fill=255, font=font)
    return _crop(np.asarray(img, np.uint8))


def _glyph_hershey(text: str, face: int, px: int, thickness: int) -> NDArray[np.uint8]:
    scale = px / 22.0
    (w, h), base = cv2.getTextSize(text, face, scale, thickness)
    img = np.zeros((h + base + 4 * thickness + 4, w + 4 * thickness + 4), np.uint8)
    cv2.putText(img, text, (2 * thickness + 2, h + 2 * thickness + 2), face, scale, 255,
                thickness, cv2.LINE_AA)  # fmt: skip
    return _crop(img)


def _crop(mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    ys, xs = np.nonzero(mask > 32)
    if len(xs) == 0:
        return np.zeros((4, 4), np.uint8)
    return np.ascontiguousarray(mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def _suit_shape(suit: int, px: int, rng: random.Random) -> NDArray[np.uint8]:
    """A suit symbol: a font's, or drawn from circles and polygons in proportions of its own."""
    if rng.random() < 0.6:
        return _glyph_truetype(SUIT_CHAR[suit], rng.choice(SUIT_FACES), px)
    s = 200
    img = np.zeros((s, s), np.uint8)
    r = rng.uniform(0.2, 0.27) * s
    if suit == 1:  # diamond
        w = rng.uniform(0.3, 0.45) * s
        pts = np.array([[s / 2, 5], [s / 2 + w, s / 2], [s / 2, s - 5], [s / 2 - w, s / 2]])
        cv2.fillPoly(img, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    elif suit == 2 or suit == 3:  # heart, or a spade (an upturned heart and a stem)
        cy = s * 0.32
        cv2.circle(img, (round(s / 2 - r * 0.95), round(cy)), round(r), 255, -1, cv2.LINE_AA)
        cv2.circle(img, (round(s / 2 + r * 0.95), round(cy)), round(r), 255, -1, cv2.LINE_AA)
        tip = rng.uniform(0.85, 0.97) * s
        pts = np.array([[s / 2 - r * 1.9, cy + r * 0.3], [s / 2 + r * 1.9, cy + r * 0.3],
                        [s / 2, tip]])  # fmt: skip
        cv2.fillPoly(img, [pts.astype(np.int32)], 255, cv2.LINE_AA)
        if suit == 3:
            img = np.ascontiguousarray(img[::-1])
            stem = np.array([[s / 2, s * 0.6], [s / 2 - r * 0.8, s - 3], [s / 2 + r * 0.8, s - 3]])
            cv2.fillPoly(img, [stem.astype(np.int32)], 255, cv2.LINE_AA)
    else:  # club: three leaves and a stem
        r = rng.uniform(0.18, 0.25) * s
        side = rng.uniform(0.95, 1.2)  # how far the side leaves stand out
        low = rng.uniform(0.45, 0.55) * s  # and how low they sit
        for cx, cy in ((s / 2, r + 4), (s / 2 - r * side, low), (s / 2 + r * side, low)):
            cv2.circle(img, (round(cx), round(cy)), round(r), 255, -1, cv2.LINE_AA)
        foot = rng.uniform(0.5, 0.95) * r
        stem = np.array([[s / 2, s * 0.4], [s / 2 - foot, s - 3], [s / 2 + foot, s - 3]])
        cv2.fillPoly(img, [stem.astype(np.int32)], 255, cv2.LINE_AA)
        cv2.circle(img, (round(s / 2), round(s * 0.5)), round(r * 0.6), 255, -1, cv2.LINE_AA)
    return _crop(img)


def _fit(mask: NDArray[np.uint8], height: float, squeeze: float = 1.0) -> NDArray[np.uint8]:
    h, w = mask.shape
    nh = max(2, round(height))
    nw = max(1, round(w * nh / h * squeeze))
    return np.asarray(cv2.resize(mask, (nw, nh), interpolation=cv2.INTER_AREA), np.uint8)


def _paste(canvas: NDArray[np.float32], mask: NDArray[np.uint8], x: int, y: int,
           ink: NDArray[np.float32]) -> None:  # fmt: skip
    h, w = mask.shape
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y : y1 - y, x0 - x : x1 - x].astype(np.float32)[..., None] / 255.0
    canvas[y0:y1, x0:x1] = canvas[y0:y1, x0:x1] * (1 - a) + ink * a


def _text_mask(text: str, font: str | int, px: int, rng: random.Random) -> NDArray[np.uint8]:
    if isinstance(font, str):
        return _glyph_truetype(text, font, px * 2)
    return _glyph_hershey(text, font, px * 2, rng.choice((1, 2, 3, 4)) * 2)


def _rank_mask(rank: int, font: str | int, px: int, rng: random.Random) -> NDArray[np.uint8]:
    """A rank's glyph; a ten is often printed as a narrow "1" and "0" set close together,
    and a three of some decks with a flat top (drawn as the letter ezh, where the face has
    it: :data:`EZH_FACES`)."""
    if RANK_TEXT[rank] == "3" and font in EZH_FACES and rng.random() < 0.35:
        return _text_mask(FLAT_THREE, font, px, rng)
    if RANK_TEXT[rank] != "10" or rng.random() < 0.4:
        return _text_mask(RANK_TEXT[rank], font, px, rng)
    one, zero = _text_mask("1", font, px, rng), _text_mask("0", font, px, rng)
    h = max(one.shape[0], zero.shape[0])
    one = _fit(one, h, rng.uniform(0.6, 1.0))
    zero = _fit(zero, h, rng.uniform(0.45, 0.8))
    gap = max(1, round(rng.uniform(0.03, 0.15) * h))
    out = np.zeros((h, one.shape[1] + gap + zero.shape[1]), np.uint8)
    out[:, : one.shape[1]] = one
    out[:, one.shape[1] + gap :] = zero
    return out


def render_corner(rank: int, suit: int, rng: random.Random, fonts: list[str | int]) -> Corner:
    """One index corner, clean, at :data:`SS` times the canonical patch's size."""
    bx, by = round(BOX[0] * CARD_W), round(BOX[1] * CARD_H)
    pw, ph = round(BOX[2] * CARD_W) - bx, round(BOX[3] * CARD_H) - by
    W, H = pw * SS, ph * SS
    ox, oy = -bx * SS + rng.randint(-5, 5), -by * SS + rng.randint(-5, 5)
    dark_card = rng.random() < 0.06
    table = np.array([rng.uniform(0, 255) for _ in range(3)], np.float32)
    if rng.random() < 0.5:
        table *= rng.uniform(0.1, 0.6)
    paper_level = rng.uniform(150, 255)
    tint = np.array([rng.uniform(0.85, 1.0) for _ in range(3)], np.float32)
    paper = paper_level * tint
    if dark_card:
        paper = np.array([rng.uniform(10, 50)] * 3, np.float32)
    canvas = np.empty((H, W, 3), np.float32)
    canvas[:] = table
    card = np.zeros((H, W), np.uint8)
    radius = rng.randint(3, 10) * SS
    cv2.rectangle(card, (ox + radius, oy), (W + 10, H + 10), 255, -1)
    cv2.rectangle(card, (ox, oy + radius), (W + 10, H + 10), 255, -1)
    cv2.circle(card, (ox + radius, oy + radius), radius, 255, -1, cv2.LINE_AA)
    _paste(canvas, card, 0, 0, paper)
    if rng.random() < 0.3:  # the light falls unevenly across the card
        gx = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(0.75, 1.0), W, dtype=np.float32)
        canvas *= gx[None, :, None]
    # the ink: black, dark grey, red, sometimes blue; gold or silver on a dark card
    red = suit in (1, 2)
    if dark_card:
        ink = np.array([rng.uniform(120, 230)] * 3, np.float32)
        if red:
            ink = np.array([rng.uniform(40, 110), rng.uniform(130, 200), rng.uniform(180, 240)])
    elif red:
        ink = np.array([rng.uniform(0, 80), rng.uniform(0, 70), rng.uniform(140, 235)])
    else:
        v = rng.uniform(0, 70)
        ink = np.array([v + rng.uniform(0, 40), v, v], np.float32)
    ink = ink.astype(np.float32)
    # clutter: a court card's frame or a large pip reaching into the corner
    card_scale = CARD_W * SS / 120
    court = RANK_TEXT[rank] in ("J", "Q", "K") if rank != NO_INDEX else rng.random() < 0.35
    if court and rng.random() < 0.85:  # a court card's frame and figure, right of the index
        fx = ox + round(rng.uniform(0.17, 0.24) * CARD_W * SS)
        fy = oy + round(rng.uniform(0.08, 0.14) * CARD_H * SS)
        colour = ink if rng.random() < 0.5 else np.array([rng.uniform(0, 255) for _ in range(3)])
        cv2.rectangle(canvas, (fx, fy), (W + 50, H + 50), colour.tolist(), rng.randint(2, 8))
        for _ in range(rng.randint(0, 4)):  # the figure's coloured print inside the frame
            print_colour = [rng.uniform(0, 255) for _ in range(3)]
            cx, cy = fx + rng.randint(0, 60), fy + rng.randint(0, 120)
            axes = (rng.randint(5, 40), rng.randint(5, 40))
            cv2.ellipse(canvas, (cx, cy), axes, rng.uniform(0, 180), 0, 360, print_colour, -1)
        if rng.random() < 0.5:
            pip_suit = rng.randrange(4)
            fig = _suit_shape(pip_suit, round(30 * card_scale), rng)
            fig = _fit(fig, rng.uniform(0.1, 0.2) * CARD_H * SS)
            _paste(canvas, fig, fx + rng.randint(0, 20), fy + rng.randint(0, 30), ink)
    if not court and rng.random() < 0.5:  # a large pip reaching into the corner
        pip = _fit(_suit_shape(suit, 120, rng), rng.uniform(0.12, 0.2) * CARD_H * SS)
        px = ox + round(rng.uniform(0.17, 0.3) * CARD_W * SS)
        py = oy + round(rng.uniform(0.12, 0.3) * CARD_H * SS)
        _paste(canvas, pip, px, py, ink)
    roll = rng.random()
    foreign = rank == NO_INDEX and roll < 0.4
    # a number card's middle, pip over pip: guessed as an index, two pips of a ten of spades
    # were read as an ace of spades by a reader that never saw them as "no index"
    pips = rank == NO_INDEX and 0.4 <= roll < 0.65
    if pips:
        size = rng.uniform(0.1, 0.2) * CARD_H * SS
        upper = _fit(_suit_shape(suit, 120, rng), size)
        lower = _fit(_suit_shape(suit, 120, rng), size * rng.uniform(0.8, 1.05))
        if rng.random() < 0.5:
            lower = np.ascontiguousarray(lower[::-1, ::-1])  # printed upside down
        if rng.random() < 0.3:
            upper = np.ascontiguousarray(upper[::-1, ::-1])
        x = ox + round(rng.uniform(0.0, 0.12) * CARD_W * SS)
        y = oy + round(rng.uniform(-0.05, 0.08) * CARD_H * SS)
        _paste(canvas, upper, x, y, ink)
        gap = round(rng.uniform(0.0, 0.25) * size)
        _paste(canvas, lower, x + rng.randint(-4, 4) * SS, y + upper.shape[0] + gap, ink)
    elif rank != NO_INDEX or foreign:
        font = rng.choice(fonts)
        jumbo = rng.random() < 0.15
        rh = rng.uniform(0.12, 0.17) if jumbo else rng.uniform(0.065, 0.12)
        rank_h = rh * CARD_H * SS
        squeeze = rng.uniform(0.6, 0.95) if rank == 8 else rng.uniform(0.65, 1.2)
        if foreign:  # no rank of this deck: another letter or digit over a suit symbol
            rmask = _fit(_text_mask(rng.choice(FOREIGN), font, 64, rng), rank_h, squeeze)
        else:
            rmask = _fit(_rank_mask(rank, font, 64, rng), rank_h, squeeze)
        shape = _suit_shape(suit, 96, rng)
        bold = rng.random()
        # a bold suit symbol, or one the lens has run together: its parts merge (a reader
        # that saw only clubs with clear leaves read a webcam's small clubs as spades)
        if bold < 0.3:
            k = rng.randint(3, 9)
            shape = np.asarray(cv2.dilate(np.pad(shape, k), np.ones((k, k), np.uint8)), np.uint8)
        elif bold < 0.4:
            shape = np.asarray(cv2.erode(shape, np.ones((3, 3), np.uint8)), np.uint8)
        smask = _fit(shape, rank_h * rng.uniform(0.5, 0.85))
        centre = ox + rng.uniform(0.065, 0.11) * CARD_W * SS
        if jumbo:
            centre += 0.02 * CARD_W * SS
        rx = round(centre - rmask.shape[1] / 2)
        ry = oy + round(rng.uniform(0.025, 0.07) * CARD_H * SS)
        sx = round(centre - smask.shape[1] / 2 + rng.uniform(-0.1, 0.1) * smask.shape[1])
        sy = ry + rmask.shape[0] + round(rng.uniform(0.0, 0.3) * rank_h)
        thick = rng.random()
        if thick < 0.2:
            rmask = np.asarray(cv2.dilate(rmask, np.ones((3, 3), np.uint8)), np.uint8)
        elif thick < 0.35:
            rmask = np.asarray(cv2.erode(rmask, np.ones((3, 3), np.uint8)), np.uint8)
        _paste(canvas, rmask, rx, ry, ink)
        _paste(canvas, smask, sx, sy, ink)
    elif rng.random() < 0.3:  # a corner of a card back, or the table's own texture
        for _ in range(rng.randint(3, 12)):
            line_colour = [rng.uniform(0, 255) for _ in range(3)]
            p0 = (rng.randint(0, W), rng.randint(0, H))
            p1 = (rng.randint(0, W), rng.randint(0, H))
            cv2.line(canvas, p0, p1, line_colour, rng.randint(2, 12))
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    return Corner(image, rank, suit)


def degrade(image: NDArray[np.uint8], rng: random.Random) -> NDArray[np.uint8]:
    """The corner as a table camera shows it, shrunk to the canonical patch's size."""
    H, W = image.shape[:2]
    pw, ph = W // SS, H // SS
    # perspective and misregistration: the four corners moved a little
    d = 0.06 * W
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    zoom = rng.uniform(0.8, 1.3)  # the index larger or smaller than drawn, about its corner
    dst = src * zoom
    # the outline a little off the card's edges: the whole corner shifted
    dst += np.array([rng.uniform(-0.06, 0.06) * W, rng.uniform(-0.04, 0.04) * H], np.float32)
    dst += np.array([[rng.uniform(-d, d), rng.uniform(-d, d)] for _ in range(4)], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    image = np.asarray(
        cv2.warpPerspective(image, m, (W, H), borderMode=cv2.BORDER_REPLICATE), np.uint8
    )
    # resolution: a card 35 to 200 pixels wide in the frame, then rectified to 120
    res = rng.uniform(0.35, 1.3)
    small = cv2.resize(image, (max(4, round(pw * res)), max(4, round(ph * res))),
                       interpolation=cv2.INTER_AREA)  # fmt: skip
    if rng.random() < 0.6:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.0))
    out = cv2.resize(small, (pw, ph), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    # exposure, contrast, a colour cast, noise
    out = out * rng.uniform(0.5, 1.2) + rng.uniform(-30, 30)
    out *= np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32)
    out += np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(0, 10), out.shape)
    img = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.15:  # a greyscale camera
        img = np.asarray(
            cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR), np.uint8
        )
    if rng.random() < 0.5:
        _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(30, 90)])
        img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return np.asarray(img, np.uint8)


def corners(per_class: int, seed: int, fonts: list[str | int]) -> list[Corner]:
    """``per_class`` degraded corners of every rank (suits drawn in turn) and of no index."""
    rng = random.Random(seed)
    out = []
    for i in range(per_class):
        for rank in range(NO_INDEX + 1):
            suit = (i + rank) % 4
            c = render_corner(rank, suit, rng, fonts)
            out.append(Corner(degrade(c.image, rng), c.rank, c.suit))
    return out


def training_fonts() -> list[str | int]:
    """The TrueType faces present on this machine and the Hershey fonts, held-out ones aside."""
    faces: list[str | int] = [f for f in TRUETYPE if (FONT_DIR / f).is_file()]
    if not faces:
        raise SystemExit(f"no fonts in {FONT_DIR}: install fonts-dejavu-core (at least)")
    return faces + list(HERSHEY)


def network(torch: ModuleType) -> Any:
    """The reader's network: three 3 x 3 convolutions (16, 32, 64 channels), each with batch
    normalisation, ReLU and 2 x 2 max pooling, then 128 hidden units and the
    :data:`~drivers.camera.reader.OUTPUTS` logits (ranks and no index, then suits)."""
    nn = torch.nn
    layers: list[Any] = []
    channels = 1
    for width in (16, 32, 64):
        layers += [nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
                   nn.MaxPool2d(2)]  # fmt: skip
        channels = width
    w, h = INPUT_SIZE
    return nn.Sequential(
        *layers,
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(channels * (h // 8) * (w // 8), 128),
        nn.ReLU(),
        nn.Dropout(0.3),
        nn.Linear(128, OUTPUTS),
    )


def train(samples: list[Corner], seed: int, *, epochs: int = 24, batch: int = 128) -> IndexReader:
    """Fit the network on the corners (cross-entropy of the rank, and of the suit on corners
    that hold an index; AdamW, cosine learning rate, each batch shifted by up to two pixels),
    on :data:`TRAIN_THREADS` threads: the same corners and seed give the same ONNX file, byte
    for byte."""
    import torch  # only the trainer needs it (the ``train`` extra)

    torch.manual_seed(seed)
    torch.set_num_threads(TRAIN_THREADS)
    torch.use_deterministic_algorithms(True)
    x = torch.from_numpy(np.stack([corner_input(c.image) for c in samples])[:, None])
    ranks = torch.tensor([c.rank for c in samples], dtype=torch.int64)
    suits = torch.tensor([c.suit for c in samples], dtype=torch.int64)
    with_index = ranks != NO_INDEX
    model = network(torch)
    steps = epochs * (-(-len(samples) // batch))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    order = torch.Generator().manual_seed(seed)
    cross = torch.nn.functional.cross_entropy
    model.train()
    for _ in range(epochs):
        for idx in torch.randperm(len(samples), generator=order).split(batch):
            dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=order))
            xb = torch.roll(x[idx], shifts=(dy, dx), dims=(2, 3))
            out = model(xb)
            loss = cross(out[:, : NO_INDEX + 1], ranks[idx])
            keep = with_index[idx]
            if bool(keep.any()):
                loss = loss + cross(out[keep, NO_INDEX + 1 :], suits[idx][keep])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()
    out = io.BytesIO()
    w, h = INPUT_SIZE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(model, torch.zeros(1, 1, h, w), out, dynamo=False,
                          input_names=["corner"], output_names=["logits"],
                          dynamic_axes={"corner": {0: "n"}, "logits": {0: "n"}})  # fmt: skip
    return IndexReader(out.getvalue())


def main() -> int:
    """Render, train and write the model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", default=str(INDEX_MODEL), help="model file (.onnx)")
    parser.add_argument("--per-class", type=int, default=3000, help="corners per class")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    start = time.perf_counter()
    fonts = training_fonts()
    samples = corners(args.per_class, args.seed, fonts)
    rendered = time.perf_counter()
    reader = train(samples, args.seed)
    reader.save(args.out)
    print(
        f"{len(samples)} corners in {len(fonts)} fonts rendered in {rendered - start:.0f} s, "
        f"trained in {time.perf_counter() - rendered:.0f} s: {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
