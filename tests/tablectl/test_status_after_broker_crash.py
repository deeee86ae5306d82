"""A broker with persistence, killed with SIGKILL, comes back with the table's retained
``online`` while the controller is still away: displays must not show the table online until
the controller itself speaks again.

The controller is ``tablectl run`` in its own process; it is held (SIGSTOP) while the broker
is killed and restarted, so the window in which only the broker's kept ``online`` exists is
as long as the test needs, then let go (SIGCONT) to reconnect as it would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.topics import Topics
from drivers.mqtt.broker import MosquittoBroker
from drivers.mqtt.client import BrokerAddress
from simulators.display.live import LiveDisplay
from tests.support.tables import boxes_table

WAIT = 20.0  # the longest any step may take (reconnect delays of a few seconds included)


def wait_for(ready: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"{what} within {timeout:g} s"
        time.sleep(0.02)


def save_retained(broker: MosquittoBroker) -> None:
    """Have Mosquitto write its persistence file now (SIGUSR1), as its autosave would, and
    wait until the file is in place."""
    db, new = broker.workdir / "mosquitto.db", broker.workdir / "mosquitto.db.new"
    assert broker.pid is not None and not db.exists()
    os.kill(broker.pid, signal.SIGUSR1)
    wait_for(lambda: db.exists() and not new.exists(), "no persistence file written")


def display(broker: MosquittoBroker, table_id: str, name: str) -> LiveDisplay:
    address = BrokerAddress("127.0.0.1", broker.port, "display", "display-dev")
    screen = LiveDisplay(address, table_id, quiet=True, client_id=f"{name}-{table_id}")
    assert screen.start()
    return screen


def test_displays_do_not_show_the_table_online_while_its_controller_reconnects(
    mosquitto_factory: Callable[..., MosquittoBroker],
    mqtt_client: Any,
    table_id: str,
    tmp_path: Path,
) -> None:
    broker = mosquitto_factory(auth=True, persistence=True)
    config = tmp_path / "table.toml"
    config.write_text(
        boxes_table(
            table_id,
            more="""
[broker]
kind = "mqtt"
url = "mqtt://controller@127.0.0.1:1883"
password_env = "TABLECTL_MQTT_PASSWORD"
""",
        )
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", "run", "--config", str(config),
         "--broker", f"mqtt://controller@127.0.0.1:{broker.port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TABLECTL_MQTT_PASSWORD": "controller-dev", "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    screens: list[LiveDisplay] = []
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline() or "{}")
        assert started.get("connected") is True, proc.stderr and proc.stderr.read()
        before = mqtt_client(broker, "display")
        before.subscribe(Topics(table_id).status)
        before.expect(Topics(table_id).status, "online")  # the broker keeps it from here on

        # a display that joins a running table sees the broker's kept "online" first and
        # shows it once the controller answers its rebirth request: at once, same birth
        stays = display(broker, table_id, "stays")
        screens.append(stays)
        wait_for(lambda: stays.checker.status == "online", "the display never showed online")
        assert stays.checker.statuses[0] == ("online", True)  # the kept copy came first
        assert stays.checker.state is not None
        birth = stays.checker.state["birth"]

        save_retained(broker)  # the broker's file now holds the table's "online"
        heard = len(stays.checker.statuses)  # the kept copy and the controller's live answer
        proc.send_signal(signal.SIGSTOP)  # the controller cannot reconnect until let go
        broker.kill()
        broker.start()

        # the broker restored "online" from its file, with no controller behind it
        probe = mqtt_client(broker, "display")
        probe.subscribe(Topics(table_id).status)
        kept = probe.expect(Topics(table_id).status)
        assert (kept.payload, kept.retain) == (b"online", True)

        joins = display(broker, table_id, "joins")  # a display that joins during the outage
        screens.append(joins)
        wait_for(lambda: joins.checker.statuses != [], "the joining display got no status")
        wait_for(
            lambda: stays.link.connects >= 2 and len(stays.checker.statuses) > heard,
            "the staying display did not come back to the broker",
        )
        for screen in (joins, stays):
            assert screen.checker.statuses[-1] == ("online", True)
            assert screen.checker.status == "connecting", screen.checker.report()
            assert screen.checker.rebirths_requested >= 1  # it asked; nobody could answer

        proc.send_signal(signal.SIGCONT)  # the controller reconnects: a new birth, live
        for screen in (joins, stays):
            wait_for(lambda s=screen: s.checker.status == "online", "not online again")  # type: ignore[misc]
            assert screen.checker.statuses[-1] == ("online", False)
            # the live "online" comes first; the new birth's state follows it on its topic
            wait_for(
                lambda s=screen: (s.checker.state or {}).get("birth", birth) > birth,  # type: ignore[misc]
                "no state of the new birth after the controller came back",
            )
        assert [f for f in stays.checker.findings if f.kind != "gap"] == []

        proc.send_signal(signal.SIGTERM)  # a clean stop: the controller says "offline"
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        for screen in (joins, stays):
            wait_for(lambda s=screen: s.checker.status == "offline", "not offline")  # type: ignore[misc]
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)
            proc.kill()
            proc.communicate(timeout=20)
        for screen in screens:
            screen.stop()


def test_watch_marks_a_kept_online_as_not_yet_confirmed(
    mosquitto: MosquittoBroker, mqtt_client: Any, table_id: str, capsys: Any, monkeypatch: Any
) -> None:
    from tablectl.cli import main

    status = Topics(table_id).status
    mqtt_client(mosquitto, "controller").publish(status, "online", retain=True)
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "display-dev")
    argv = ["watch", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "--table", table_id]
    assert main([*argv, "--as", "display", "--seconds", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "status: online (kept by the broker; not yet confirmed live)" in out.splitlines()
    assert main([*argv, "--as", "display", "--seconds", "0.5", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"topic": status, "message": {"type": "status", "status": "online"},
            "retained": True} in lines  # fmt: skip
