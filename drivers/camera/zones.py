"""Drawing a zone layout over a frame, for setting up the camera, and zone observations;
and the pictures written for people to look at (:func:`shrunk`, :func:`captioned`)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from config.camera import ZoneKind, ZoneLayout
from controller.camera import CameraObservation, ZoneObservation
from controller.cards import Card
from drivers.camera.recognizer import FrameRecognition, Status

__all__ = ["captioned", "draw_zones", "observe", "shrunk"]

_COLOURS = {
    ZoneKind.BOX: (0, 200, 255),
    ZoneKind.DEALER: (255, 80, 80),
    ZoneKind.BOARD: (80, 255, 80),
    ZoneKind.PLAYER: (255, 80, 255),
}


def draw_zones(
    image: NDArray[np.uint8], layout: ZoneLayout, result: FrameRecognition | None = None
) -> NDArray[np.uint8]:
    """A copy of ``image`` with every zone outlined and named, and recognised cards marked."""
    out = image.copy()
    h, w = out.shape[:2]
    scale = max(0.4, min(w, h) / 1000)
    thick = max(1, round(2 * scale))
    for zone in layout.zones:
        pts = np.array([[x * w, y * h] for x, y in zone.polygon], np.float64)
        colour = _COLOURS[zone.kind]
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        x, y = pts.min(axis=0)
        cv2.putText(
            out,
            zone.id,
            (round(x) + 4, round(y) + round(22 * scale)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.7 * scale,
            colour,
            thick,
            cv2.LINE_AA,
        )
    if result is not None:
        for det in result.detections:
            quad = np.round(np.array(det.corners)).astype(np.int32)
            colour = {Status.CARD: (0, 255, 0), Status.UNKNOWN: (0, 0, 255)}.get(
                det.status, (255, 255, 0)
            )
            cv2.polylines(out, [quad], True, colour, thick, cv2.LINE_AA)
            label = det.card.code if det.card is not None else det.status.value
            cx, cy = (int(v) for v in quad.mean(axis=0))
            cv2.putText(
                out, label, (cx - 10, cy), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, colour, thick
            )
    return out


def shrunk(image: NDArray[np.uint8], width: int) -> tuple[NDArray[np.uint8], float]:
    """``image`` at most ``width`` pixels wide (a copy, never enlarged), and the factor it
    was scaled by."""
    f = min(1.0, width / image.shape[1])
    if f == 1.0:
        return image.copy(), f
    return np.asarray(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)), f


def captioned(image: NDArray[np.uint8], lines: list[str]) -> NDArray[np.uint8]:
    """``image`` with ``lines`` written over its top, each wrapped to the picture's width, on
    a dark band (in place; the image is returned)."""
    wrapped: list[str] = []
    for text in lines:
        line = ""
        for word in text.split():
            if line and len(line) + len(word) > max(20, image.shape[1] // 11):
                wrapped.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        wrapped.append(line)
    height = min(image.shape[0], 22 * len(wrapped) + 8)
    image[:height] = (image[:height] * 0.3).astype(np.uint8)  # a dark band under the words
    for i, text in enumerate(wrapped):
        cv2.putText(
            image, text, (8, 22 + 22 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 255, 255), 1,
            cv2.LINE_AA,
        )  # fmt: skip
    return image


def observe(result: FrameRecognition, frame: int = 0, at: float = 0.0) -> CameraObservation:
    """One frame's recognitions as a :class:`CameraObservation` (no debouncing)."""
    cards: dict[str, set[Card]] = {}
    down: dict[str, int] = {}
    unknown: dict[str, int] = {}
    for det in result.detections:
        zone = det.zone or ""
        if det.status is Status.CARD and det.card is not None:
            cards.setdefault(zone, set()).add(det.card)
        elif det.status is Status.FACE_DOWN:
            down[zone] = down.get(zone, 0) + 1
        else:
            unknown[zone] = unknown.get(zone, 0) + 1
    zones = sorted(set(cards) | set(down) | set(unknown))
    return CameraObservation(
        frame,
        at,
        tuple(
            ZoneObservation(z, frozenset(cards.get(z, ())), down.get(z, 0), unknown.get(z, 0))
            for z in zones
        ),
    )
