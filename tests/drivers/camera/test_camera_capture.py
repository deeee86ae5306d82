import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from config.camera import ZoneLayout
from controller.camera import compare
from drivers.camera.capture import (
    CameraEvent,
    EventKind,
    Frame,
    LatestFrame,
    StableTracker,
    VideoCaptureSource,
    watch,
)
from drivers.camera.recognizer import Recognizer
from drivers.camera.zones import observe
from simulators.camera.scene import RenderedFrame
from simulators.camera.stream import SimulatedCamera, deal_frames


@pytest.fixture(scope="module")
def dealt(layout: ZoneLayout) -> list[RenderedFrame]:
    """A dealt round (seed 4), one frame per card placed; rendered once for the module."""
    return list(deal_frames(layout, seed=4, dealer_down=1))


def write_video(path: Path, frames: list[np.ndarray], fps: float = 10.0) -> None:
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (w, h))
    assert writer.isOpened()
    for frame in frames:
        writer.write(frame)
    writer.release()


def test_latest_frame_slot_drops_instead_of_queueing() -> None:
    slot = LatestFrame()
    image = np.zeros((2, 2, 3), np.uint8)
    for i in range(5):
        slot.put(Frame(i, float(i), image))
    taken = slot.take(0.1)
    assert taken is not None and taken.index == 4
    assert slot.dropped == 4
    assert slot.take(0.01) is None  # nothing newer
    slot.put(Frame(5, 5.0, image))
    got = slot.take(0.1)
    assert got is not None and got.index == 5 and slot.dropped == 4


def test_video_file_frames_are_recognised_and_stable(
    tmp_path: Path, dealt: list[RenderedFrame], recognizer: Recognizer
) -> None:
    rendered = dealt[-1]
    video = tmp_path / "table.avi"
    write_video(video, [rendered.image] * 6)
    events: list[CameraEvent] = []
    with VideoCaptureSource(video) as source:
        frames = list(source.frames(timeout=2.0))
        assert source.stats.ended
    assert len(frames) >= 1
    tracker = StableTracker(frames=3)
    for i in range(4):
        events += tracker.update(recognizer.recognize(frames[-1].image), i)
    truth = {(c.card, c.zone) for c in rendered.cards if c.card is not None}
    stable = {(e.card, e.zone) for e in events if e.kind is EventKind.SEEN}
    read = {(d.card, d.zone) for d in recognizer.recognize(frames[-1].image).cards}
    assert stable == read  # every card read on every frame became stable, nothing else
    assert stable <= truth and len(stable) >= len(truth) - 3  # (MJPEG compression)
    seen = tracker.observation(3, 0.0)
    assert seen.zone("dealer").face_down == 1


def test_reconnects_when_the_source_appears_later(tmp_path: Path) -> None:
    video = tmp_path / "late.avi"
    source = VideoCaptureSource(video, retry_delay=0.02, max_delay=0.05, reconnect_files=True)
    try:
        time.sleep(0.15)
        assert source.read(0.01) is None
        assert source.stats.failures >= 1
        write_video(video, [np.full((48, 64, 3), i * 20, np.uint8) for i in range(5)])
        frame = source.read(3.0)
        assert frame is not None and frame.image.shape == (48, 64, 3)
        deadline = time.monotonic() + 3.0
        while source.stats.reconnects < 1 and time.monotonic() < deadline:
            source.read(0.05)
        assert source.stats.reconnects >= 1  # the file ended and was opened again
    finally:
        source.close()


class FakeCapture:
    """A capture that delivers ``good`` frames, then fails, as an unplugged camera does."""

    opened = 0

    def __init__(self, spec: int | str) -> None:
        FakeCapture.opened += 1
        self.left = 3

    def isOpened(self) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.left == 0:
            return False, None
        self.left -= 1
        return True, np.zeros((4, 4, 3), np.uint8)

    def release(self) -> None:
        pass


def test_a_device_that_stops_is_reopened() -> None:
    FakeCapture.opened = 0
    source = VideoCaptureSource(0, retry_delay=0.01, max_delay=0.02, open_capture=FakeCapture)
    try:
        deadline = time.monotonic() + 3.0
        while FakeCapture.opened < 3 and time.monotonic() < deadline:
            source.read(0.05)
        assert FakeCapture.opened >= 3
        assert source.stats.reconnects >= 2
        assert source.stats.frames >= 6
    finally:
        source.close()


def test_a_slow_recognizer_gets_the_newest_frame_and_frames_are_dropped() -> None:
    slot = LatestFrame()
    image = np.zeros((2, 2, 3), np.uint8)

    def produce() -> None:
        for i in range(50):
            slot.put(Frame(i, float(i), image))
            time.sleep(0.002)

    thread = threading.Thread(target=produce)
    thread.start()
    seen = []
    while thread.is_alive() or not seen:
        frame = slot.take(0.2)
        if frame is None:
            break
        seen.append(frame.index)
        time.sleep(0.02)  # a recognizer slower than the camera
    thread.join()
    assert seen == sorted(seen) and len(seen) < 50
    assert slot.dropped > 0


def test_watching_a_dealt_round_reports_each_card_once(
    layout: ZoneLayout, dealt: list[RenderedFrame]
) -> None:
    frames = [*dealt[::6], dealt[-1]]
    camera = SimulatedCamera(frames, repeat=3)
    reports: list[CameraEvent] = []
    last = []

    def on_events(events: list[CameraEvent], observation: object) -> None:
        reports.extend(events)
        last.append(observation)

    watch(camera, Recognizer(zones=layout), on_events, stable_frames=3, idle_timeout=0.01)
    final = frames[-1]
    truth = {(c.card, c.zone) for c in final.cards if c.card is not None}
    seen = [(e.card, e.zone) for e in reports if e.kind is EventKind.SEEN]
    assert len(seen) == len(set(seen))
    assert set(seen) <= truth and len(set(seen)) >= len(truth) - 3
    assert not [e for e in reports if e.kind is EventKind.GONE]


def test_tracker_needs_consecutive_frames_and_reports_removal(
    dealt: list[RenderedFrame], recognizer: Recognizer
) -> None:
    frames = dealt
    full = recognizer.recognize(frames[-1].image)
    fewer = recognizer.recognize(frames[-2].image)
    tracker = StableTracker(frames=2)
    assert tracker.update(full, 0) == []
    assert len(tracker.update(full, 1)) == len(full.cards)
    assert tracker.update(fewer, 2) == []
    gone = tracker.update(fewer, 3)
    assert [e.kind for e in gone] == [EventKind.GONE]
    assert gone[0].card not in {d.card for d in fewer.cards}


def test_observation_of_one_frame_feeds_the_comparison(
    dealt: list[RenderedFrame], recognizer: Recognizer
) -> None:
    from controller.camera import DiscrepancyKind, ExpectedZone

    rendered = dealt[-1]
    seen = observe(recognizer.recognize(rendered.image))
    expected: dict[str, ExpectedZone] = {}
    for c in rendered.cards:
        zone = expected.setdefault(c.zone or "", ExpectedZone())
        if c.card is not None:
            expected[c.zone or ""] = ExpectedZone(zone.face_up | {c.card}, zone.face_down)
    # the simulator does not say which card lies face down; the shoe would
    from controller.cards import Card

    hole = Card.parse("2C") if Card.parse("2C") not in seen.zone("dealer").cards else None
    if hole is not None:
        d = expected["dealer"]
        expected["dealer"] = ExpectedZone(d.face_up, d.face_down | {hole})
        # the camera may fail to confirm a card, never contradict the shoe
        cannot_confirm = {DiscrepancyKind.MISSING, DiscrepancyKind.UNREADABLE}
        assert {d.kind for d in compare(seen, expected)} <= cannot_confirm
    moved = dict(expected)
    box1 = expected["box1"]
    card = sorted(box1.face_up & seen.zone("box1").cards)[0]
    moved["box1"] = ExpectedZone(box1.face_up - {card})
    moved["box2"] = ExpectedZone(expected["box2"].face_up | {card})
    kinds = {d.kind for d in compare(seen, moved)}
    assert DiscrepancyKind.WRONG_ZONE in kinds


def test_simulated_camera_paces_and_drops(dealt: list[RenderedFrame]) -> None:
    camera = SimulatedCamera(dealt[:3], fps=1000.0)
    time.sleep(0.01)
    frame = camera.read(0.0)
    assert frame is None or frame.index >= 0
    assert camera.dropped >= 1 or frame is None
