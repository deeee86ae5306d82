"""The capture adapter: OpenCV VideoCapture with reconnection, a latest-frame slot, stability.

The reader thread writes every frame into a one-frame slot; the recognizer takes the newest
frame when it is ready, so when it falls behind, frames are dropped (and counted), never
queued. :class:`StableTracker` reports a card only once it has been seen in the same zone
on several consecutive recognised frames, and builds the :class:`CameraObservation` that the
table state machine compares with the shoe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.camera import CameraObservation, ZoneObservation
from controller.cards import Card
from drivers.camera.recognizer import FrameRecognition, Recognizer, Status

__all__ = [
    "CameraEvent",
    "EventKind",
    "Frame",
    "FrameSource",
    "LatestFrame",
    "StableTracker",
    "VideoCaptureSource",
    "watch",
]

Image = NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class Frame:
    """One captured frame: its sequence number from the source, capture time, BGR image."""

    index: int
    time: float
    image: Image


class FrameSource(Protocol):
    """Anything that hands out the newest frame: a camera, a video file, a simulator."""

    def read(self, timeout: float) -> Frame | None:
        """The newest frame not yet read, waiting up to ``timeout`` s; None if none came."""
        ...

    def close(self) -> None:
        """Stop capturing and release the device."""
        ...


class LatestFrame:
    """A one-frame slot: ``put`` overwrites, ``take`` returns the newest unseen frame."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._taken = -1
        self.dropped = 0
        self.closed = False

    def put(self, frame: Frame) -> None:
        """Store ``frame``; a stored frame nobody took is dropped and counted."""
        with self._cond:
            if self._frame is not None and self._frame.index > self._taken:
                self.dropped += 1
            self._frame = frame
            self._cond.notify_all()

    def take(self, timeout: float) -> Frame | None:
        """The newest frame not taken before, waiting up to ``timeout`` s for one."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._frame is None or self._frame.index <= self._taken:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.closed:
                    return None
                self._cond.wait(remaining)
            self._taken = self._frame.index
            return self._frame

    def close(self) -> None:
        """Wake every waiter; later ``take`` calls return what is left, then None."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()


def _video_capture(spec: int | str) -> Any:
    return cv2.VideoCapture(spec)


def _open_spec(spec: int | str) -> int | str:
    if isinstance(spec, str) and spec.isdigit():
        return int(spec)
    return spec


@dataclass
class CaptureStats:
    """Counters of a capture source."""

    frames: int = 0
    dropped: int = 0
    reconnects: int = 0
    failures: int = 0
    last_error: str = ""
    ended: bool = False


class VideoCaptureSource:
    """Frames from a device index, a video file or a stream URL (RTSP, HTTP), on a thread.

    When the device stops delivering (unplugged camera, network drop) the source releases it
    and reopens it with exponential back-off between ``retry_delay`` and ``max_delay``
    seconds. A video file ends the source at its end unless ``reconnect_files`` is set (then
    it is reopened like a stream, which is how tests replay one).
    """

    def __init__(
        self,
        source: int | str | Path,
        *,
        retry_delay: float = 0.25,
        max_delay: float = 5.0,
        reconnect_files: bool = False,
        open_capture: Callable[[int | str], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = _open_spec(str(source) if isinstance(source, Path) else source)
        self.retry_delay = retry_delay
        self.max_delay = max_delay
        self.is_file = isinstance(self.source, str) and "://" not in self.source
        self.reconnect_files = reconnect_files
        self._open: Callable[[int | str], Any] = open_capture or _video_capture
        self._clock = clock
        self._slot = LatestFrame()
        self._stop = threading.Event()
        self.stats = CaptureStats()
        self._thread = threading.Thread(target=self._run, name="camera-capture", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        delay = self.retry_delay
        index = 0
        first = True
        while not self._stop.is_set():
            cap = self._open(self.source)
            if not cap.isOpened():
                cap.release()
                self.stats.failures += 1
                self.stats.last_error = f"cannot open {self.source!r}"
                if self._stop.wait(delay):
                    break
                delay = min(delay * 2, self.max_delay)
                continue
            if not first:
                self.stats.reconnects += 1
            first = False
            delay = self.retry_delay
            while not self._stop.is_set():
                ok, image = cap.read()
                if not ok or image is None:
                    break
                self._slot.put(Frame(index, self._clock(), np.asarray(image, dtype=np.uint8)))
                index += 1
                self.stats.frames += 1
            cap.release()
            if self.is_file and not self.reconnect_files:
                self.stats.ended = True
                break
            self.stats.last_error = f"{self.source!r} stopped delivering frames"
            if self._stop.wait(delay):
                break
        self._slot.close()

    def read(self, timeout: float) -> Frame | None:
        """The newest frame not yet read, waiting up to ``timeout`` s; None if none came."""
        frame = self._slot.take(timeout)
        self.stats.dropped = self._slot.dropped
        return frame

    def frames(self, timeout: float = 1.0) -> Iterator[Frame]:
        """Frames until the source ends or delivers nothing for ``timeout`` s."""
        while True:
            frame = self.read(timeout)
            if frame is None:
                return
            yield frame

    def close(self) -> None:
        """Stop the reader thread and release the device."""
        self._stop.set()
        self._slot.close()
        self._thread.join(timeout=5)

    def __enter__(self) -> VideoCaptureSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventKind(StrEnum):
    """A change in what the camera confirms."""

    SEEN = "seen"
    GONE = "gone"


@dataclass(frozen=True, slots=True)
class CameraEvent:
    """A card that became stable in a zone (``SEEN``) or stably left it (``GONE``)."""

    kind: EventKind
    card: Card
    zone: str
    frame: int


@dataclass
class _Count:
    present: int = 0
    absent: int = 0
    stable: bool = False


@dataclass
class StableTracker:
    """Debounces recognitions: a card counts once seen in a zone on ``frames`` frames in a row.

    Face-down and unreadable counts per zone are debounced the same way (a count must hold
    for ``frames`` frames). Pure: feed it recognitions in frame order.
    """

    frames: int = 3
    _cards: dict[tuple[Card, str], _Count] = field(default_factory=dict)
    _counts: dict[tuple[str, str], tuple[int, int, int]] = field(default_factory=dict)

    def update(self, result: FrameRecognition, frame: int) -> list[CameraEvent]:
        """Take one frame's recognitions; return the cards that became stable or left."""
        events: list[CameraEvent] = []
        present = {(d.card, d.zone or "") for d in result.cards if d.card is not None}
        for key in present | set(self._cards):
            c = self._cards.setdefault(key, _Count())
            if key in present:
                c.present, c.absent = c.present + 1, 0
                if not c.stable and c.present >= self.frames:
                    c.stable = True
                    events.append(CameraEvent(EventKind.SEEN, key[0], key[1], frame))
            else:
                c.present, c.absent = 0, c.absent + 1
                if c.stable and c.absent >= self.frames:
                    events.append(CameraEvent(EventKind.GONE, key[0], key[1], frame))
                    del self._cards[key]
                elif not c.stable:
                    del self._cards[key]
        zones = {d.zone or "" for d in result.detections} | {z for z, _ in self._counts}
        for zone in zones:
            for kind, status in (("down", Status.FACE_DOWN), ("unknown", Status.UNKNOWN)):
                n = sum(d.status is status and (d.zone or "") == zone for d in result.detections)
                value, run, stable = self._counts.get((zone, kind), (n, 0, 0))
                run = run + 1 if n == value else 1
                if run >= self.frames:
                    stable = n
                self._counts[(zone, kind)] = (n, run, stable)
        return events

    def observation(self, frame: int, at: float) -> CameraObservation:
        """The stable view of the table after the last update."""
        zones: dict[str, set[Card]] = {}
        for (card, zone), c in self._cards.items():
            if c.stable:
                zones.setdefault(zone, set()).add(card)
        ids = set(zones) | {z for z, _ in self._counts}
        out = []
        for zone in sorted(ids):
            down = self._counts.get((zone, "down"), (0, 0, 0))[2]
            unknown = self._counts.get((zone, "unknown"), (0, 0, 0))[2]
            cards = frozenset(zones.get(zone, ()))
            if cards or down or unknown:
                out.append(ZoneObservation(zone, cards, down, unknown))
        return CameraObservation(frame, at, tuple(out))


def watch(
    source: FrameSource,
    recognizer: Recognizer,
    on_events: Callable[[list[CameraEvent], CameraObservation], None],
    *,
    stable_frames: int = 3,
    stop: threading.Event | None = None,
    idle_timeout: float = 1.0,
) -> StableTracker:
    """Recognise the newest frame, again and again, and report stable changes.

    Returns when ``stop`` is set or the source delivers nothing for ``idle_timeout`` s.
    """
    tracker = StableTracker(stable_frames)
    while stop is None or not stop.is_set():
        frame = source.read(idle_timeout)
        if frame is None:
            break
        events = tracker.update(recognizer.recognize(frame.image), frame.index)
        if events:
            on_events(events, tracker.observation(frame.index, frame.time))
    return tracker
