"""The camera as a running table sees it: stable views of the felt, and the camera's health.

:class:`CameraWatcher` runs on its own thread: it takes the newest frame of a source (frames
that arrive while the recognizer is busy are dropped by the source, never queued), reads it,
debounces what it reads (:class:`~drivers.camera.capture.StableTracker`) and hands each
changed stable view to ``on_observation``; it reports the camera's status to ``on_status``
when it changes: frames flowing, or lost (no frame for ``lost_after`` seconds, or the
recognizer failing). Both callbacks run on the watcher's thread and must be quick (queue the
item and return). The table goes on without a camera: the shoe is its first witness.

Its status also says how long the recognizer takes a frame (``read_ms``, the last frame's,
and ``slowest_ms``, the slowest of the latest :attr:`CameraWatcher.READS_KEPT`): a table
whose frames take 100 ms is read ten times a second, whatever the camera sends (the frames
it sends meanwhile are counted ``dropped``). These figures and the counts are read when
asked (:meth:`CameraWatcher.figures`: the running table asks at each state it sends the
consoles); a change of connection is told to ``on_status``.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from controller.camera import CameraObservation
from drivers.camera.capture import FrameSource, StableTracker
from drivers.camera.recognizer import Recognizer

__all__ = ["CameraWatcher"]


class CameraWatcher:
    """Recognises a source's newest frame again and again; reports views and health."""

    #: how many of the latest frames' reading times the slowest is taken over
    READS_KEPT = 256

    def __init__(
        self,
        source: FrameSource,
        recognizer: Recognizer,
        on_observation: Callable[[CameraObservation], None],
        on_status: Callable[[dict[str, Any]], None],
        *,
        stable_frames: int = 3,
        lost_after: float = 2.0,
        name: str = "camera",
        source_name: str = "",
    ) -> None:
        self.source = source
        self.source_name = source_name  # the device, file or URL, for people to find it
        self.recognizer = recognizer
        self.on_observation = on_observation
        self.on_status = on_status
        self.tracker = StableTracker(stable_frames)
        self.lost_after = lost_after
        self.frames = 0
        self.errors = 0
        self.connected: bool | None = None
        self.last_error = ""
        self.read_ms: deque[float] = deque(maxlen=self.READS_KEPT)  # each frame's, latest last
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and close the source."""
        self._stop.set()
        self.source.close()
        self._thread.join(timeout)

    def status(self) -> dict[str, Any]:
        """The camera's health as published to the dealer and the pit."""
        return {
            "enabled": True,
            "source": self.source_name,
            "connected": bool(self.connected),
            "last_error": self.last_error,
            **self.figures(),
        }

    def figures(self) -> dict[str, int | float]:
        """The counts as they stand (frames read, dropped by the source, failed) and the
        last frame's reading time and the slowest kept, in ms (none before a frame): safe
        to ask from any thread."""
        out: dict[str, int | float] = {
            "frames": self.frames,
            "dropped": int(getattr(getattr(self.source, "stats", None), "dropped", 0)),
            "errors": self.errors,
        }
        times = list(self.read_ms)  # a copy: the watcher's thread appends meanwhile
        if times:
            out |= {"read_ms": round(times[-1], 1), "slowest_ms": round(max(times), 1)}
        return out

    def _health(self, connected: bool, error: str = "") -> None:
        if error:
            self.last_error = error
        if connected != self.connected:
            self.connected = connected
            self.on_status(self.status())

    def _run(self) -> None:
        while not self._stop.is_set():
            frame = self.source.read(self.lost_after)
            if self._stop.is_set():
                return
            if frame is None:
                self._health(False, f"no frame for {self.lost_after:g} s")
                continue
            started = time.monotonic()
            try:
                recognition = self.recognizer.recognize(frame.image)
            except Exception as error:  # a frame the recognizer cannot take is a lost frame
                self.errors += 1
                self._health(False, f"the recognizer failed on frame {frame.index}: {error}")
                self._stop.wait(min(self.lost_after, max(0.1, time.monotonic() - started)))
                continue
            self.read_ms.append((time.monotonic() - started) * 1000)
            self.frames += 1
            self._health(True)
            if self.tracker.update(recognition, frame.index):
                self.on_observation(self.tracker.observation(frame.index, frame.time))
