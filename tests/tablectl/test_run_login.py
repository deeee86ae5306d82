"""Logging in to a real Mosquitto: ``run`` takes the password its table file names whatever
``--broker`` says, a refused login ends ``run`` at once with the broker's reason (exit 2),
and ``send`` says a refusal at once instead of waiting for a reply."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from controller.topics import Topics
from tablectl.cli import build_parser, main
from tests.support.tables import boxes_table

#: the controller link's first reconnect delay (drivers.mqtt.client.MqttLink's backoff)
RECONNECT_SECONDS = 1.0


def table_file(tmp_path: Path, table_id: str, port: int) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        boxes_table(
            table_id,
            more=f"""
[broker]
kind = "mqtt"
url = "mqtt://controller@127.0.0.1:{port}"
password_env = "TABLE_BROKER_PASSWORD"
""",
        )
    )
    return path


def run(config: Path, broker: str | None, password: str | None) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "TABLE_BROKER_PASSWORD"}
    if password is not None:
        env["TABLE_BROKER_PASSWORD"] = password
    argv = [sys.executable, "-m", "tablectl.cli", "run", "--config", str(config)]
    return subprocess.Popen(
        [*argv, *(["--broker", broker] if broker else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "PYTHONUNBUFFERED": "1"},
    )


def test_a_refused_login_ends_run_at_once_with_the_brokers_reason(
    mosquitto: Any, table_id: str, tmp_path: Path
) -> None:
    config = table_file(tmp_path, table_id, mosquitto.port)
    proc = run(config, None, "not-the-password")
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 2, (out, err)
    assert out == ""  # it never said it was running
    line = err.strip()
    assert line.startswith("tablectl run: error: the broker at mqtt://controller@127.0.0.1:")
    assert "refused the controller's login: Not authorized" in line
    assert "$TABLE_BROKER_PASSWORD" in line and "password file" in line
    assert len(err.splitlines()) == 1  # one line, no traceback


def test_run_takes_the_table_files_password_whatever_broker_says(
    mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    config = table_file(tmp_path, table_id, 1)  # the file's broker is elsewhere
    display = mqtt_client(mosquitto, "display")
    display.subscribe(Topics(table_id).status)
    proc = run(config, f"mqtt://controller@127.0.0.1:{mosquitto.port}", "controller-dev")
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline() or "{}")
        assert started.get("connected") is True, proc.stderr and proc.stderr.read()
        assert started["broker"] == f"mqtt://controller@127.0.0.1:{mosquitto.port}"
        display.expect(Topics(table_id).status, "online", timeout=10)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    # and a --broker without a user logs in as the table file's user
    proc = run(config, f"mqtt://127.0.0.1:{mosquitto.port}", "controller-dev")
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline() or "{}").get("connected") is True
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert proc.returncode == 0


def test_a_password_variable_that_is_not_set_is_named_before_anything_starts(
    table_id: str, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.delenv("TABLE_BROKER_PASSWORD", raising=False)
    config = table_file(tmp_path, table_id, 1)
    assert main(["run", "--config", str(config), "--broker", "mqtt://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert "[broker] password_env = 'TABLE_BROKER_PASSWORD'" in err
    assert "it is not set" in err
    assert not (tmp_path / "j.db").exists()  # nothing was opened


def test_send_with_a_wrong_password_fails_well_under_the_reconnect_delay(
    mosquitto: Any, table_id: str, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "not-the-password")
    argv = ["send", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "--table", table_id]
    build_parser()  # the commands' modules imported first: only the login is timed
    started = time.monotonic()
    assert main([*argv, "--as", "pit", "open_table", "--timeout", "5"]) == 2
    took = time.monotonic() - started
    assert took < RECONNECT_SECONDS / 2, f"send took {took:.3f} s to report the refusal"
    err = capsys.readouterr().err
    assert "could not log in to mqtt://pit@127.0.0.1" in err
    assert "broker refused the connection: Not authorized" in err
    assert "$TABLECTL_MQTT_PASSWORD" in err


def test_a_login_refused_after_a_broker_restart_ends_run_too(
    mosquitto_factory: Any, table_id: str, tmp_path: Path
) -> None:
    """The broker comes back with a password file that no longer takes the controller's
    password: ``run`` stops at once with the reason instead of retrying unseen."""
    shipped = Path(__file__).resolve().parents[2] / "config" / "mosquitto"
    ours = tmp_path / "mosquitto"
    shutil.copytree(shipped, ours)
    broker = mosquitto_factory(auth=True, config_dir=ours)
    config = table_file(tmp_path, table_id, broker.port)
    proc = run(config, None, "controller-dev")
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline() or "{}").get("connected") is True
        passwd = ours / "passwd"
        lines = passwd.read_text().splitlines(keepends=True)
        passwd.write_text("".join(x for x in lines if not x.startswith("controller:")))
        broker.restart()
        _, err = proc.communicate(timeout=30)  # the link retries within seconds, once
    finally:
        proc.kill()
    assert proc.returncode == 2, err
    assert "refused the controller's login: Not authorized" in err
