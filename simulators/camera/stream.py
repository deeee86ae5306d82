"""A simulated camera: a deterministic stream of rendered table frames, as a frame source."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace

from config.camera import ZoneLayout
from controller.cards import STANDARD_52, Card
from drivers.camera.capture import Frame
from simulators.camera.render import FaceStyle
from simulators.camera.scene import RenderedFrame, SceneOptions, deal_layout, render_scene

__all__ = ["SimulatedCamera", "deal_frames"]


def deal_frames(
    layout: ZoneLayout,
    seed: int,
    *,
    options: SceneOptions | None = None,
    face: FaceStyle | None = None,
    cards: Sequence[Card] | None = None,
    dealer_down: int = 1,
    counts: Sequence[int] | None = None,
) -> Iterator[RenderedFrame]:
    """Frames of a round being dealt: one more card on the table per frame, then it rests.

    ``counts`` picks frames by how many cards they show (default: 0, 1, … all). Lighting
    noise differs per frame (a new seed each), as a real sensor's does.
    """
    options = options or SceneOptions()
    rng = random.Random(seed)
    order = list(cards) if cards is not None else STANDARD_52.shuffled(rng)
    zones = len([z for z in layout.zones if z.kind.value != "board"])
    placements = deal_layout(
        layout, order[: 2 * zones + 5], rng, face=face, dealer_down=dealer_down
    )
    options = replace(options, draw_zones=options.draw_zones or layout)
    for i in range(len(placements) + 1) if counts is None else counts:
        yield render_scene(placements[:i], options, seed=seed * 7919 + i)


class SimulatedCamera:
    """A :class:`~drivers.camera.capture.FrameSource` over rendered frames.

    ``fps`` 0 hands frames out as fast as they are read (tests); a positive ``fps`` paces
    them in real time and drops frames the reader did not take in time (demos).
    """

    def __init__(self, frames: Sequence[RenderedFrame], *, fps: float = 0.0, repeat: int = 1):
        self._frames = [f for f in frames for _ in range(repeat)]
        self._next = 0
        self._fps = fps
        self._start = time.monotonic()
        self.dropped = 0

    def read(self, timeout: float) -> Frame | None:
        """The next frame (paced at ``fps`` if set); None at the end of the stream."""
        if self._fps > 0:
            due = int((time.monotonic() - self._start) * self._fps)
            if due > self._next:
                self.dropped += due - self._next
                self._next = due
        if self._next >= len(self._frames):
            return None
        frame = self._frames[self._next]
        self._next += 1
        return Frame(self._next - 1, self._next / (self._fps or 25.0), frame.image)

    def close(self) -> None:
        """Nothing to release."""
