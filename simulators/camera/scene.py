"""Rendered table frames: felt, printed zones, cards face up and down, camera and light effects."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from config.camera import ZoneKind, ZoneLayout
from controller.cards import Card
from simulators.camera.render import (
    CARD_HEIGHT,
    CARD_MASK,
    CARD_WIDTH,
    BackStyle,
    FaceStyle,
    render_back,
    render_face,
)

__all__ = [
    "FELTS",
    "TRAINED_FONTS",
    "CardPlacement",
    "PlacedCard",
    "RenderedFrame",
    "SceneOptions",
    "deal_layout",
    "grid_capacity",
    "random_options",
    "render_felt",
    "render_scene",
    "scatter_cards",
]

Image = NDArray[np.uint8]
Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]

#: felt and table colours (BGR) the renders use: green, blue, red, black, grey, wood
FELTS: dict[str, tuple[int, int, int]] = {
    "green": (45, 110, 30),
    "blue": (120, 60, 20),
    "red": (35, 30, 140),
    "black": (35, 35, 35),
    "grey": (110, 110, 105),
    "wood": (50, 100, 150),
    "teal": (110, 110, 30),
}

#: the index fonts the built-in profile is made from; renders may use others to test it
TRAINED_FONTS = ("simplex", "duplex", "complex", "triplex")


@dataclass(frozen=True, slots=True)
class SceneOptions:
    """Camera, light and table parameters of one rendered frame."""

    width: int = 1280
    height: int = 720
    felt: tuple[int, int, int] = FELTS["green"]
    card_width: float = 0.056  # of the frame width, before the camera tilt
    tilt_deg: float = 0.0  # oblique view: rotation of the table plane away from the camera
    tilt_axis_deg: float = 0.0  # direction of the tilt in the image
    blur: float = 0.0  # Gaussian sigma, pixels
    noise: float = 0.0  # Gaussian sigma, grey levels
    gradient: float = 0.0  # light fall-off across the frame, 0 … 0.6
    glare: float = 0.0  # strength of one specular highlight, 0 … 1
    jpeg: int = 0  # JPEG quality to round-trip through, 0 for none
    draw_zones: ZoneLayout | None = None


@dataclass(frozen=True, slots=True)
class CardPlacement:
    """Where one card lies on the table (normalised top view) and how it looks."""

    card: Card | None  # None: face down
    x: float
    y: float
    angle: float  # degrees, clockwise
    face: FaceStyle = field(default_factory=FaceStyle)
    back: BackStyle = field(default_factory=BackStyle)
    zone: str | None = None


@dataclass(frozen=True, slots=True)
class PlacedCard:
    """Ground truth of one rendered card: code (None if face down), image corners, zone."""

    card: Card | None
    corners: Corners  # card's own top-left, top-right, bottom-right, bottom-left, pixels
    zone: str | None


@dataclass(frozen=True, slots=True)
class RenderedFrame:
    """A rendered frame (BGR) and what is on it."""

    image: Image
    cards: tuple[PlacedCard, ...]
    options: SceneOptions


def _felt(options: SceneOptions, rng: np.random.Generator) -> Image:
    h, w = options.height, options.width
    base = np.array(options.felt, np.float32)
    low = cv2.resize(rng.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h))
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    fine = np.asarray(cv2.GaussianBlur(fine, (0, 0), 0.8), np.float32)
    shade = 1.0 + 0.05 * low + 0.04 * fine
    img = base[None, None, :] * shade[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


def render_felt(options: SceneOptions = SceneOptions(), seed: int = 0) -> Image:
    """The empty felt of ``options`` (its texture), to pass to :func:`render_scene`."""
    return _felt(options, np.random.default_rng(seed))


def _draw_layout(img: Image, layout: ZoneLayout) -> None:
    h, w = img.shape[:2]
    gold = (60, 170, 200)
    for zone in layout.zones:
        pts = np.array([[x * w, y * h] for x, y in zone.polygon], np.float64)
        cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], True, gold, 2, cv2.LINE_AA, 4)


def _camera(options: SceneOptions) -> NDArray[np.float64]:
    """Homography from the top view to the image: a pin-hole camera looking at a tilted table."""
    w, h = options.width, options.height
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    if options.tilt_deg == 0:
        return np.eye(3)
    t = math.radians(options.tilt_deg)
    a = math.radians(options.tilt_axis_deg)
    f = 1.8 * w
    ca, sa = math.cos(a), math.sin(a)
    out = []
    for x, y in src:
        px, py = x - w / 2, y - h / 2
        # rotate into the tilt frame, tilt about the frame's x axis, rotate back
        u, v = ca * px + sa * py, -sa * px + ca * py
        v2, z = v * math.cos(t), v * math.sin(t)
        x2, y2 = ca * u - sa * v2, sa * u + ca * v2
        out.append((f * x2 / (f + z), f * y2 / (f + z)))
    dst = np.array(out, np.float64)
    lo, hi = dst.min(axis=0), dst.max(axis=0)
    scale = min(w / (hi[0] - lo[0]), h / (hi[1] - lo[1]))
    dst = (dst - (lo + hi) / 2) * scale + np.array([w / 2, h / 2])
    return np.asarray(cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)))


def _light(img: Image, options: SceneOptions, rng: np.random.Generator) -> Image:
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    if options.gradient > 0:
        a = rng.uniform(0, 2 * math.pi)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = ((xs - w / 2) * math.cos(a) + (ys - h / 2) * math.sin(a)) / (0.5 * math.hypot(w, h))
        out *= (1.0 + 0.5 * options.gradient * ramp - 0.25 * options.gradient)[:, :, None]
    if options.glare > 0:
        cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        r = rng.uniform(0.06, 0.15) * w
        ys, xs = np.ogrid[0:h, 0:w]
        blob = np.exp(-(((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * r * r))).astype(np.float32)
        out += (90.0 * options.glare) * blob[:, :, None]
    if options.blur > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), options.blur), np.float32)
    if options.noise > 0:
        out += rng.normal(0, options.noise, out.shape).astype(np.float32)
    img8 = np.clip(out, 0, 255).astype(np.uint8)
    if options.jpeg:
        ok, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, options.jpeg])
        if ok:
            img8 = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return img8


def _card_sized(face: Image) -> Image:
    """A face picture at the renderer's card size (shrunk by area, enlarged linearly)."""
    if face.shape[:2] == (CARD_HEIGHT, CARD_WIDTH):
        return face
    shrink = face.shape[0] > CARD_HEIGHT
    interpolation = cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
    return np.asarray(
        cv2.resize(face, (CARD_WIDTH, CARD_HEIGHT), interpolation=interpolation), np.uint8
    )


def render_scene(
    placements: Sequence[CardPlacement],
    options: SceneOptions = SceneOptions(),
    seed: int = 0,
    *,
    felt: Image | None = None,
    faces: Mapping[Card, Image] | None = None,
) -> RenderedFrame:
    """Render the cards on the felt as the camera sees them; deterministic from ``seed``.

    ``felt`` is a top view of the empty felt to reuse (:func:`render_felt`); a frame stream
    of one table draws it once instead of every frame. ``faces``: a card's face as a picture
    (BGR, upright, its index at the top left; resized to the renderer's card) to lay in
    place of the rendered one (a real card's print cut out of a photograph:
    :func:`~simulators.camera.alter.real_faces`).
    """
    rng = np.random.default_rng(seed)
    w, h = options.width, options.height
    top = _felt(options, rng) if felt is None else felt.copy()
    if options.draw_zones is not None:
        _draw_layout(top, options.draw_zones)
    cam = _camera(options)
    img = (
        top
        if options.tilt_deg == 0
        else np.asarray(
            cv2.warpPerspective(top, cam, (w, h), borderMode=cv2.BORDER_REFLECT), np.uint8
        )
    )
    card_px = options.card_width * w
    s = card_px / CARD_WIDTH
    canon = np.array(
        [[0, 0], [CARD_WIDTH, 0], [CARD_WIDTH, CARD_HEIGHT], [0, CARD_HEIGHT]], np.float64
    )
    placed: list[PlacedCard] = []
    for p in placements:
        a = math.radians(p.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * s
        centre = np.array([p.x * w, p.y * h])
        affine = np.eye(3)
        affine[:2, :2] = rot
        affine[:2, 2] = centre - rot @ np.array([CARD_WIDTH / 2, CARD_HEIGHT / 2])
        m = cam @ affine
        pts = cv2.perspectiveTransform(canon[None].astype(np.float64), m)[0]
        x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 <= x0 or y1 <= y0:
            continue
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
        if p.card is None:
            face = render_back(p.back)
        elif faces is not None and p.card in faces:
            face = _card_sized(faces[p.card])
        else:
            face = render_face(p.card, p.face)
        size = (int(x1 - x0), int(y1 - y0))
        patch = cv2.warpPerspective(face, shift @ m, size, flags=cv2.INTER_AREA)
        alpha = cv2.warpPerspective(CARD_MASK, shift @ m, size, flags=cv2.INTER_LINEAR)
        roi = img[y0:y1, x0:x1]
        al = (alpha.astype(np.float32) / 255.0)[:, :, None]
        roi[:] = (patch * al + roi * (1.0 - al)).astype(np.uint8)
        corners = tuple((float(x), float(y)) for x, y in pts)
        placed.append(PlacedCard(p.card, corners, p.zone))  # type: ignore[arg-type]
    return RenderedFrame(_light(img, options, rng), tuple(placed), options)


def random_options(rng: random.Random, **fixed: object) -> SceneOptions:
    """Scene options drawn at random over every augmentation (felt, tilt, light, blur, noise)."""
    tilt = rng.choice([0.0, rng.uniform(0, 25), rng.uniform(25, 45)])
    opts = SceneOptions(
        felt=FELTS[rng.choice(sorted(FELTS))],
        # an oblique camera is zoomed in so that cards keep about the same pixel count
        card_width=min(0.12, rng.uniform(0.06, 0.09) / math.cos(math.radians(tilt))),
        tilt_deg=tilt,
        tilt_axis_deg=rng.uniform(0, 360),
        blur=rng.choice([0.0, rng.uniform(0.3, 1.0)]),
        noise=rng.choice([0.0, rng.uniform(2, 8)]),
        gradient=rng.choice([0.0, rng.uniform(0.2, 0.6)]),
        glare=rng.choice([0.0, rng.uniform(0.3, 0.8)]),
        jpeg=rng.choice([0, 0, 85]),
    )
    return replace(opts, **fixed)  # type: ignore[arg-type]


def random_face(rng: random.Random, fonts: Sequence[str] = TRAINED_FONTS) -> FaceStyle:
    """A face style drawn at random: font, stroke, index size and position, ink colours."""
    return FaceStyle(
        font=rng.choice(list(fonts)),
        thickness=rng.choice([2, 3, 4]),
        rank_height=rng.uniform(0.088, 0.105),
        index_x=rng.uniform(0.095, 0.115),
        index_top=rng.uniform(0.035, 0.055),
        suit_size=rng.uniform(0.068, 0.082),
        gap=rng.uniform(0.015, 0.03),
        red=(rng.randint(20, 60), rng.randint(10, 50), rng.randint(170, 220)),
        black=(grey := rng.randint(10, 40), grey, grey),
    )


def grid_capacity(options: SceneOptions) -> int:
    """How many cards :func:`scatter_cards` can place on a frame without overlap."""
    w, h = options.width, options.height
    diag = options.card_width * w * math.hypot(1, CARD_HEIGHT / CARD_WIDTH) * 1.05
    return max(1, int(w / diag)) * max(1, int(h / diag))


def scatter_cards(
    cards: Sequence[Card | None],
    rng: random.Random,
    *,
    options: SceneOptions,
    face: FaceStyle | None = None,
    fonts: Sequence[str] = TRAINED_FONTS,
) -> list[CardPlacement]:
    """Place cards at random angles on a jittered grid so that none overlaps another."""
    w, h = options.width, options.height
    diag = options.card_width * w * math.hypot(1, CARD_HEIGHT / CARD_WIDTH) * 1.05
    cols, rows = max(1, int(w / diag)), max(1, int(h / diag))
    cells = [(c, r) for c in range(cols) for r in range(rows)]
    rng.shuffle(cells)
    if len(cards) > len(cells):
        raise ValueError(f"{len(cards)} cards do not fit on a {cols}x{rows} grid")
    out = []
    for card, (c, r) in zip(cards, cells, strict=False):
        jx = (w / cols - diag) * (rng.random() - 0.5)
        jy = (h / rows - diag) * (rng.random() - 0.5)
        x = ((c + 0.5) * w / cols + jx) / w
        y = ((r + 0.5) * h / rows + jy) / h
        out.append(CardPlacement(card, x, y, rng.uniform(0, 360), face or random_face(rng, fonts)))
    return out


def deal_layout(
    layout: ZoneLayout,
    cards: Sequence[Card],
    rng: random.Random,
    *,
    face: FaceStyle | None = None,
    dealer_down: int = 0,
    jitter_deg: float = 6.0,
    overlap: bool = False,
    card_width: float = SceneOptions().card_width,
    aspect: float = 16 / 9,
) -> list[CardPlacement]:
    """Place cards as dealt: two per box, two for the dealer, the rest on the board.

    The first ``dealer_down`` dealer cards lie face down. Cards sit side by side inside their
    zone's bounding box (the zone polygons of the shipped layouts are rectangles); with
    ``overlap`` a box's second card lies over the first, leaving its top-left index corner
    in view, as dealers often place them (``card_width`` and the frame ``aspect`` size it).
    """
    face = face or FaceStyle()
    out: list[CardPlacement] = []
    it = iter(cards)
    order = [z for z in layout.zones if z.kind is ZoneKind.BOX]
    order += [z for z in layout.zones if z.kind in (ZoneKind.PLAYER, ZoneKind.DEALER)]
    boards = [z for z in layout.zones if z.kind is ZoneKind.BOARD]
    for zone in order:
        xs = [p[0] for p in zone.polygon]
        ys = [p[1] for p in zone.polygon]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        dx = (max(xs) - min(xs)) / 4
        angle = rng.uniform(-jitter_deg, jitter_deg) if overlap else 0.0
        for i in range(2):
            card = next(it, None)
            if card is None:
                return out
            down = zone.kind is ZoneKind.DEALER and i < dealer_down
            x, y = cx + (i - 0.5) * 2 * dx, cy + rng.uniform(-0.01, 0.01)
            if overlap and zone.kind is ZoneKind.BOX:
                # the second card 45% of a width right and 25% of a height down of the first
                a = math.radians(angle)
                ox, oy = 0.45 * card_width, 0.25 * card_width * CARD_HEIGHT / CARD_WIDTH * aspect
                dxn = (i - 0.5) * (ox * math.cos(a) - oy / aspect * math.sin(a))
                dyn = (i - 0.5) * (ox * aspect * math.sin(a) + oy * math.cos(a))
                x, y = cx + dxn, cy + dyn
            out.append(
                CardPlacement(
                    None if down else card,
                    x,
                    y,
                    angle if overlap else rng.uniform(-jitter_deg, jitter_deg),
                    face,
                    zone=zone.id,
                )
            )
    for zone in boards:
        xs = [p[0] for p in zone.polygon]
        ys = [p[1] for p in zone.polygon]
        cy = (min(ys) + max(ys)) / 2
        step = (max(xs) - min(xs)) / 5
        for i in range(5):
            card = next(it, None)
            if card is None:
                return out
            x = min(xs) + (i + 0.5) * step
            out.append(
                CardPlacement(card, x, cy, rng.uniform(-jitter_deg, jitter_deg), face, zone=zone.id)
            )
    return out
