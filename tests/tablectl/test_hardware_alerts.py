"""A lost shoe or camera, and its return, are alerts on the pit's topic in words.

The shoe is the simulator on a real pseudo-terminal whose other end closes (the cable
pulled) and opens again; the camera is the simulated one, blinded and given its sight back;
the alerts are read from a real Mosquitto as the pit manager's console reads them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.table import Phase
from controller.topics import Sender, Topics
from drivers.mqtt.client import BrokerAddress
from tablectl.running import RunningTable
from tests.tablectl.test_running_hardware import (
    board,
    command,
    open_and_bet,
    table_file,
    wait_for,
)

CLOCK = r"\d\d:\d\d:\d\d"


def alerts(pit: Any, table_id: str) -> list[dict[str, Any]]:
    """What reached the pit's alerts topic so far: (event, data) of each message."""
    return [json.loads(m.payload) for m in pit.messages(Topics(table_id).pit.alerts)]


def said(pit: Any, table_id: str, pattern: str) -> dict[str, Any] | None:
    """The first alert or halt whose words match ``pattern``."""
    for doc in alerts(pit, table_id):
        words = doc["data"].get("message") or doc["data"].get("reason") or ""
        if re.search(pattern, words):
            return doc
    return None


@pytest.mark.parametrize(("dialect", "halts"), [("framed", False), ("uspc", True)])
def test_a_lost_shoe_and_its_return_are_alerts_to_the_pit(
    dialect: str, halts: bool, mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    text = table_file(table_id, tmp_path / "j.db", "enabled = false").replace(
        "seed = 3", f'seed = 3\ndialect = "{dialect}"\nfaults = "disconnect@3"'
    )
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    table = RunningTable(parse_table_text(text, "test"), tmp_path, address)
    pit = mqtt_client(mosquitto, "pit")
    pit.subscribe(Topics(table_id).pit.alerts)
    table.start()
    try:
        assert table.link.wait_connected(5)
        port = table.transport.url
        open_and_bet(table)
        back = rf"^shoe back: the card shoe on {re.escape(port)} answers again at {CLOCK}; "
        wait_for(lambda: said(pit, table_id, back) is not None, table=table)
        journal = [e.record for e in table.runner.journal.entries()]
        halts_journaled = [r for r in journal if r.get("kind") == "halt"]
        if halts:  # mid-round, a shoe without record numbers halts: the halt is the alert
            lost = said(pit, table_id, "the shoe was disconnected")
            assert lost is not None and lost["event"] == "halted"
            reason = lost["data"]["reason"]
            assert re.match(
                rf"the shoe was disconnected at {CLOCK}: the card shoe on {re.escape(port)} "
                r"stopped answering \(.+\) and a card may have been read while it was away; "
                r"check its cable and power, then the layout against the round's cards$",
                reason,
            ), reason
            assert [r["reason"] for r in halts_journaled] == [reason]  # journaled as said
            message = said(pit, table_id, back)
            assert message is not None
            assert message["data"]["message"].endswith(
                "the table stays halted until the layout is checked and the round resumed or voided"
            )
            resume = {"command": "resume", "by": "pit", "note": "layout checked"}
            table.service.submit(command(Sender("pit"), resume))
        else:  # the framed shoe's records show what was missed: dealing waits for it
            lost = said(pit, table_id, "^shoe lost")
            assert lost is not None and lost["event"] == "alert"
            assert lost["data"]["level"] == "error"
            assert re.match(
                rf"shoe lost: the card shoe on {re.escape(port)} stopped answering at {CLOCK} "
                r"\(.+\); dealing is held until it is back: check its cable and power$",
                lost["data"]["message"],
            ), lost
            message = said(pit, table_id, back)
            assert message is not None and message["data"]["message"].endswith("dealing goes on")
            assert halts_journaled == []
        order = [d["data"].get("message") or d["data"].get("reason") for d in alerts(pit, table_id)]
        assert order.index(lost["data"].get("message") or lost["data"]["reason"]) < order.index(
            message["data"]["message"]
        )  # lost, then back
        wait_for(lambda: table.service.state.phase is Phase.DECIDING, table=table)
        assert len(board(table)) == 3
    finally:
        table.stop()


@pytest.fixture
def camera_table(mosquitto: Any, table_id: str, tmp_path: Path) -> Any:
    camera = 'enabled = true\nsource = "simulated"\nfps = 8\nstable_frames = 2'
    config = parse_table_text(table_file(table_id, tmp_path / "j.db", camera), "test")
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    running = RunningTable(config, tmp_path, address)
    running.start()
    yield running
    running.stop()


def test_a_lost_camera_and_its_return_are_alerts_to_the_pit(
    camera_table: RunningTable, mqtt_client: Any, mosquitto: Any, table_id: str
) -> None:
    table = camera_table
    pit = mqtt_client(mosquitto, "pit")
    pit.subscribe(Topics(table_id).pit.alerts)
    assert table.camera is not None
    wait_for(lambda: table.service.hardware()["camera"].get("connected") is True)
    assert table.service.hardware()["camera"]["source"] == "simulated"
    table.camera.blind()
    wait_for(lambda: said(pit, table_id, "^camera lost") is not None)
    lost = said(pit, table_id, "^camera lost")
    assert lost is not None and lost["data"]["level"] == "warning"
    assert re.match(
        rf"camera lost: the overhead camera \(simulated\) stopped sending frames at {CLOCK} "
        r"\(no frame for [\d.]+ s\); the shoe alone deals on, with nothing to cross-check its "
        r"cards: check the camera's cable, power and view of the felt$",
        lost["data"]["message"],
    ), lost
    table.camera.blind(False)
    wait_for(lambda: said(pit, table_id, "^camera back") is not None)
    back = said(pit, table_id, "^camera back")
    assert back is not None and back["data"]["level"] == "info"
    assert re.match(
        rf"camera back: the overhead camera \(simulated\) sends frames again at {CLOCK}; it "
        r"cross-checks the shoe's cards again$",
        back["data"]["message"],
    ), back
    journal = [e.record for e in table.runner.journal.entries()]
    assert [r for r in journal if r.get("kind") == "halt"] == []  # reported, not halted
