"""Progress bars: drawn on a terminal only, and fed by the work itself as it advances.

The commands run as processes with standard error on a real pseudo-terminal (a bar is
drawn) or on a pipe (nothing is written there at all); the callbacks are checked where the
work happens (the chain check, the replay, the calibration, the recognition of images).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import controller.journal
import tablectl.commands.cards
import tablectl.runtime
from controller.cards import STANDARD_52
from controller.errors import CalibrationError
from controller.journal import GENESIS, JournalCorrupt, Row, chain, verify, verify_rows
from drivers.camera.calibrate import Sample, calibrate
from drivers.camera.imageio import write_image
from drivers.storage.sqlite_journal import SqliteJournal
from simulators.camera.render import FaceStyle
from simulators.camera.scene import CardPlacement, SceneOptions, render_scene
from tablectl.cli import main
from tablectl.progress import Bars
from tablectl.runtime import TableRunner, replay
from tests.controller.round_script import T0, header, rounds

#: how long a command may take before the test gives up on it (not a timing assertion)
PATIENCE = 60.0
#: variables that make rich treat a pipe as a terminal, or a terminal as a plain file
TERMINAL_OVERRIDES = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR", "CI")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

Calls = list[tuple[int, int]]


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A table's journal of two rounds."""
    path = tmp_path_factory.mktemp("journal") / "t.sqlite"
    runner = TableRunner.create(path, header(), T0 - 60)
    for event, now in rounds(2):
        runner.submit(event, now)
    runner.close()
    return path


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in TERMINAL_OVERRIDES}
    return {**env, "TERM": "xterm-256color", "COLUMNS": "120"}


def _tablectl(*argv: str | Path) -> list[str]:
    return [sys.executable, "-m", "tablectl.cli", *map(str, argv)]


def _on_a_terminal(argv: list[str], stdout: Path) -> tuple[int, str]:
    """Run ``argv`` with standard error on a pseudo-terminal and standard output to a file;
    return its exit status and what the terminal received (control sequences removed)."""
    master, slave = pty.openpty()
    with stdout.open("wb") as out:
        child = subprocess.Popen(argv, stdout=out, stderr=slave, env=_env())
    os.close(slave)
    received = bytearray()
    try:
        while select.select([master], [], [], PATIENCE)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the child and its copies are gone
                break
            if not chunk:
                break
            received += chunk
    finally:
        os.close(master)
        status = child.wait(timeout=PATIENCE)
    return status, ANSI.sub("", received.decode(errors="replace"))


def test_a_bar_is_drawn_on_a_terminal_and_the_output_stays_clean(
    journal: Path, tmp_path: Path
) -> None:
    status, terminal = _on_a_terminal(
        _tablectl("history", "--journal", journal, "--json"), tmp_path / "out"
    )
    assert status == 0, terminal
    assert "checking the chain" in terminal and "replaying the journal" in terminal
    assert re.search(r"replaying the journal\s+\S+\s+100%", terminal), terminal
    assert "rows/s" in terminal
    lines = (tmp_path / "out").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["outcome"] for line in lines] == ["complete", "complete"]


def test_journal_verify_draws_its_bar_on_a_terminal(journal: Path, tmp_path: Path) -> None:
    status, terminal = _on_a_terminal(
        _tablectl("journal", "verify", "--journal", journal), tmp_path / "out"
    )
    assert status == 0, terminal
    assert re.search(r"checking the chain\s+\S+\s+100%", terminal), terminal
    assert "chain intact" in (tmp_path / "out").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "argv",
    [("history", "--json"), ("journal", "verify")],
    ids=["history --json", "journal verify"],
)
def test_nothing_is_drawn_on_a_pipe(journal: Path, argv: tuple[str, ...]) -> None:
    done = subprocess.run(
        _tablectl(*argv, "--journal", journal),
        capture_output=True, text=True, env=_env(), timeout=PATIENCE, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.strip()


def _rows(n: int) -> list[Row]:
    rows: list[Row] = []
    prev = GENESIS
    for seq in range(n):
        entry = chain(prev, seq, T0 + seq, {"kind": "open_table", "actor": f"pit:{seq % 3}"})
        rows.append((seq, entry.at, entry.text or "", entry.prev, entry.digest))
        prev = entry.digest
    return rows


def _advancing_to(calls: Calls, total: int) -> None:
    """The calls start at nothing done, never go back, and end with everything done."""
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    assert all(t == total for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_the_chain_check_reports_every_run_of_rows_and_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(controller.journal, "PROGRESS_ROWS", 4)
    rows = _rows(10)
    calls: Calls = []
    verify_rows(rows, lambda done, total: calls.append((done, total)))
    assert calls == [(0, 10), (4, 10), (8, 10), (10, 10)]
    calls.clear()  # entries one at a time, their number not known beforehand
    entries = (chain(r[3], r[0], r[1], json.loads(r[2])) for r in rows)
    verify(entries, lambda done, total: calls.append((done, total)))
    assert calls == [(0, 10), (4, 10), (8, 10), (10, 10)]


def test_a_break_in_a_later_run_of_rows_is_still_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller.journal, "PROGRESS_ROWS", 4)
    rows = _rows(10)
    calls: Calls = []
    with pytest.raises(JournalCorrupt, match="row 6: expected row 5"):
        verify_rows(rows[:5] + rows[6:], lambda done, total: calls.append((done, total)))
    assert calls == [(0, 9), (4, 9)]
    changed = list(rows)
    changed[7] = (7, rows[7][1] + 1, *rows[7][2:])
    with pytest.raises(JournalCorrupt, match="row 7: its digest does not match"):
        verify_rows(changed, lambda done, total: None)


def test_a_replay_reports_its_check_and_its_rows(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(controller.journal, "PROGRESS_ROWS", 16)
    monkeypatch.setattr(tablectl.runtime, "PROGRESS_ROWS", 16)
    stored = SqliteJournal(journal)
    try:
        total = len(stored.rows())
        checked: Calls = []
        replayed: Calls = []
        steps = list(
            replay(
                stored,
                progress=lambda d, t: replayed.append((d, t)),
                check_progress=lambda d, t: checked.append((d, t)),
            )
        )
        assert [s.state for s in steps] == [s.state for s in replay(stored)]
    finally:
        stored.close()
    _advancing_to(checked, total)
    assert replayed[0] == (1, total) and replayed[-1] == (total, total)
    assert [d for d, _ in replayed[1:-1]] == list(range(16, total, 16))


def _card_photographs(count: int) -> list[Sample]:
    options = SceneOptions(width=330, height=330, card_width=0.45)
    return [
        Sample(
            render_scene([CardPlacement(card, 0.5, 0.5, 0.0, FaceStyle())], options).image,
            card,
            card.code,
        )
        for card in STANDARD_52.cards[:count]
    ]


def test_a_calibration_reports_each_photograph(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Calls = []
    # three photographs are too few for a profile: the progress is told all the same
    with pytest.raises(CalibrationError, match="lack"):
        calibrate(
            _card_photographs(3), name="x", source="x", augment=0,
            progress=lambda done, total: calls.append((done, total)),
        )  # fmt: skip
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]


class RecordingBars:
    """Stands in for :class:`tablectl.progress.Bars`, keeping what each bar is told."""

    bars: dict[str, Calls]

    def __init__(self) -> None:
        RecordingBars.bars = {}

    def __enter__(self) -> RecordingBars:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def bar(self, label: str, unit: str = "") -> Callable[[int, int], None]:
        calls = RecordingBars.bars.setdefault(f"{label} ({unit})", [])
        return lambda done, total: calls.append((done, total))


def test_recognizing_many_images_advances_one_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    images = []
    for sample in _card_photographs(3):
        images.append(tmp_path / f"{sample.name}.png")
        write_image(images[-1], sample.image)
    monkeypatch.setattr(tablectl.commands.cards, "Bars", RecordingBars)
    assert main(["cards", "recognize", *map(str, images), "--json"]) == 0
    assert RecordingBars.bars == {"recognising (images)": [(0, 3), (1, 3), (2, 3), (3, 3)]}
    assert len(capsys.readouterr().out.splitlines()) == 3
    assert main(["cards", "recognize", str(images[0]), "--json"]) == 0
    assert RecordingBars.bars == {}  # one image: no bar


def test_bars_write_nothing_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with Bars() as bars:
        assert not bars.enabled
        report = bars.bar("counting", "things")
        for done in range(0, 11):
            report(done, 10)
    assert capsys.readouterr() == ("", "")
