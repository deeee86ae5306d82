"""A simulated overhead camera over a live table: it renders what lies on the layout now.

:class:`TableCamera` is a frame source (like :class:`~drivers.camera.capture.VideoCaptureSource`)
whose frames are drawn from a callable that says which cards lie where, face up or down:
the demo and the tests give it the running table's own cards, so the real recognizer reads
rendered frames of the real round and the cross-check compares them with the shoe. Faults
for tests: :meth:`swap` shows another card at a position than the one dealt there (a misread
shoe, or a dealer's mistake), :meth:`expose` turns a face-down card up, :meth:`blind` stops
the frames (a camera lost).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence

from config.camera import Zone, ZoneLayout
from controller.cards import Card
from drivers.camera.capture import Frame
from simulators.camera.render import FaceStyle
from simulators.camera.scene import CardPlacement, SceneOptions, render_felt, render_scene

__all__ = ["TableCamera", "place_cards"]

#: (position, card, face up) for every card on the layout, in deal order
Layout = Sequence[tuple[str, Card, bool]]


def place_cards(
    layout: ZoneLayout,
    cards: Layout,
    *,
    card_width: float = SceneOptions().card_width,
    face: FaceStyle | None = None,
) -> list[CardPlacement]:
    """Lay each position's cards side by side in the first zone watching it, left to right.

    When a zone is too narrow for its cards they overlap, the later card covering the right
    of the one before and leaving its top-left index corner in view, as a dealer spreads them.
    """
    face = face or FaceStyle()
    zones: dict[str, Zone] = {}
    positions = layout.positions()
    for zone in layout.zones:
        zones.setdefault(positions[zone.id], zone)
    by_position: dict[str, list[tuple[Card, bool]]] = {}
    for position, card, up in cards:
        by_position.setdefault(position, []).append((card, up))
    out: list[CardPlacement] = []
    for position, placed in by_position.items():
        where = zones.get(position)
        if where is None:
            continue
        xs = [p[0] for p in where.polygon]
        ys = [p[1] for p in where.polygon]
        left, width = min(xs), max(xs) - min(xs)
        step = min(width / len(placed), card_width * 1.15)
        start = left + (width - step * (len(placed) - 1)) / 2
        for i, (card, up) in enumerate(placed):
            out.append(
                CardPlacement(
                    card if up else None,
                    start + i * step,
                    (min(ys) + max(ys)) / 2,
                    0.0,
                    face=face,
                    zone=where.id,
                )
            )
    return out


class TableCamera:
    """Frames of the table as ``cards()`` says it lies, at ``fps`` frames a second."""

    def __init__(
        self,
        layout: ZoneLayout,
        cards: Callable[[], Layout],
        *,
        fps: float = 4.0,
        seed: int = 0,
        options: SceneOptions | None = None,
    ) -> None:
        self.layout = layout
        self.cards = cards
        self.interval = 1.0 / fps if fps > 0 else 0.0
        self.options = options or SceneOptions()  # a steady studio light, a clean sensor
        self.rng = random.Random(seed)
        self.felt = render_felt(self.options, seed)  # the table's cloth does not change
        self.index = 0
        self._next = time.monotonic()
        self._swaps: dict[tuple[str, Card], Card] = {}
        self._exposed: set[Card] = set()
        self._blind = threading.Event()
        self._closed = threading.Event()

    # -- faults

    def swap(self, position: str, dealt: Card, shown: Card) -> None:
        """Show ``shown`` where ``dealt`` lies at ``position`` from now on."""
        self._swaps[(position, dealt)] = shown

    def expose(self, card: Card) -> None:
        """Show ``card`` face up even while the table has it face down."""
        self._exposed.add(card)

    def blind(self, blind: bool = True) -> None:
        """Stop delivering frames (the camera is lost) or start again."""
        if blind:
            self._blind.set()
        else:
            self._blind.clear()

    # -- the frame source

    def read(self, timeout: float) -> Frame | None:
        """The next frame when it is due; None if none comes within ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            if self._closed.is_set():
                return None
            now = time.monotonic()
            wait = self._next - now
            if self._blind.is_set():
                wait = 0.05
            elif wait <= 0:
                break
            if now + wait > deadline:
                self._closed.wait(max(0.0, deadline - now))
                return None
            self._closed.wait(wait)
        self._next = max(self._next + self.interval, time.monotonic())
        shown = [
            (p, self._swaps.get((p, c), c), up or c in self._exposed) for p, c, up in self.cards()
        ]
        placements = place_cards(self.layout, shown, card_width=self.options.card_width)
        frame = render_scene(
            placements, self.options, seed=self.rng.randrange(1 << 30), felt=self.felt
        )
        self.index += 1
        return Frame(self.index, time.time(), frame.image)

    def close(self) -> None:
        """End the stream (a waiting :meth:`read` returns None)."""
        self._closed.set()
