"""A table whose broker does not answer runs on, and ``run`` says so on the standard error,
once for each change and in words: that the broker cannot be reached and why, when it
answers, when it is lost. Against a real Mosquitto stopped and started on its own port."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from drivers.mqtt.broker import MosquittoBroker
from tests.support.tables import boxes_table

WAIT = 30.0


def _lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line.rstrip("\n"))


def _next(lines: queue.Queue[str], seen: list[str]) -> str:
    try:
        line = lines.get(timeout=WAIT)
    except queue.Empty:
        raise AssertionError(f"run said nothing more on its standard error: {seen}") from None
    seen.append(line)
    return line


def test_run_tells_the_broker_unreachable_reached_and_lost_in_words(
    mosquitto_factory: Callable[..., MosquittoBroker], table_id: str, tmp_path: Path
) -> None:
    broker = mosquitto_factory(auth=True)
    broker.kill()  # its port is free: nothing answers there yet
    url = f"mqtt://controller@127.0.0.1:{broker.port}"
    config = tmp_path / "table.toml"
    config.write_text(
        boxes_table(
            table_id,
            more=f'[broker]\nkind = "mqtt"\nurl = "{url}"\n'
            'password_env = "TABLECTL_MQTT_PASSWORD"\n',
        )
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", "run", "--config", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TABLECTL_MQTT_PASSWORD": "controller-dev", "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    errors: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stderr, errors), daemon=True).start()
    seen: list[str] = []
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline() or "{}")
        assert started.get("connected") is False, seen
        assert started.get("phase") == "closed"  # the table is up, its journal open

        line = _next(errors, seen)
        assert line.startswith(f"tablectl run: cannot reach the broker at {url} (")
        assert "(Connection refused)" in line  # the system's own reason
        assert "the table runs on and journals every event" in line
        assert "no console, display or seat hears it" in line
        assert "tried again every 1 to 5 s" in line

        broker.start()  # on the same port: the table's next try reaches it
        heard = f"tablectl run: the broker at {url} answers: the table is heard again"
        assert _next(errors, seen) == heard

        broker.kill()
        line = _next(errors, seen)
        assert line.startswith(f"tablectl run: lost the broker at {url} (its connection closed)")
        assert "tried again every 1 to 5 s" in line

        broker.start()
        assert _next(errors, seen) == heard

        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, seen
        assert json.loads(out.strip().splitlines()[-1])["stopped"] is True
        assert not any("Traceback" in s for s in seen), seen
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=WAIT)


def test_a_broker_url_with_port_zero_is_refused_not_taken_for_1883() -> None:
    import pytest

    from controller.errors import ConfigError
    from drivers.mqtt.client import parse_broker_url

    with pytest.raises(ConfigError, match="expected a port from 1 to 65535, got 0"):
        parse_broker_url("mqtt://127.0.0.1:0")
    assert parse_broker_url("mqtt://127.0.0.1").port == 1883
    assert parse_broker_url("ws://127.0.0.1").port == 80
