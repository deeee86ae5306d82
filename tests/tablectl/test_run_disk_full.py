"""A journal that cannot be written (its disk full, or failing) stops the table in words,
with nothing applied or answered past the last row written, and the table starts again
from its journal once there is room. The limit is the operating system's own (the process's
file-size limit, RLIMIT_FSIZE: SQLite's writes past it fail as on a full disk), against a
real Mosquitto, commands sent as the pit manager's console sends them."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tests.support.tables import boxes_table

#: bytes the table's files may grow to: the header and a few dozen rows
LIMIT = 200_000


def _table(path: Path, table_id: str, port: int) -> Path:
    path.write_text(
        boxes_table(
            table_id,
            more=f'[broker]\nkind = "mqtt"\nurl = "mqtt://controller@127.0.0.1:{port}"\n'
            'password_env = "TABLECTL_MQTT_PASSWORD"\n',
        )
    )
    return path


def _run(config: Path, limit: int | None) -> subprocess.Popen[str]:
    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", "run", "--config", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limited,
        env={**os.environ, "TABLECTL_MQTT_PASSWORD": "controller-dev", "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip


def test_a_journal_that_cannot_be_written_stops_the_table_in_words_and_loses_nothing(
    mosquitto: Any,
    table_id: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _table(tmp_path / "table.toml", table_id, mosquitto.port)
    journal = tmp_path / "j.db"
    proc = _run(config, LIMIT)
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "pit-dev")
    send = ["send", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "--table", table_id]
    answered = 0
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline() or "{}").get("connected") is True
        for _ in range(200):  # open and close the table until the journal's file is full
            command = "open_table" if answered % 2 == 0 else "close_table"
            if main([*send, "--as", "pit", command, "--timeout", "2", "--retries", "0"]) != 0:
                break
            answered += 1
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    capsys.readouterr()
    assert 0 < answered < 200, "the journal never filled"
    assert proc.returncode == 1
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"tablectl run: the table stopped: {journal}: cannot write row ")
    assert "Nothing after the journal's last row was applied, answered or acknowledged" in err
    assert "free space on the journal's disk" in err

    # every command answered is in the journal, its chain intact; the table starts again
    assert main(["journal", "verify", "--journal", str(journal)]) == 0
    assert main(["history", "--journal", str(journal), "--json"]) == 0
    capsys.readouterr()
    again = _run(config, None)
    try:
        assert again.stdout is not None
        started = json.loads(again.stdout.readline() or "{}")
        assert started.get("connected") is True
        assert started["phase"] == ("open" if answered % 2 else "closed")  # as last answered
    finally:
        again.send_signal(signal.SIGTERM)
        again.communicate(timeout=30)
    assert again.returncode == 0
