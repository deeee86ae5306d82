"""No seat can stop the table: hostile commands over a real Mosquitto, with the shipped ACL.

A seat (logged in as ``seat-1``, allowed to write only its own command topic) sends payloads
of every hostile kind in ``tests/support/hostile.py`` to a running table in its betting
phase. Every payload is answered with a refusal that gives a reason, the table's state is
the same after them all, its thread is alive, and a well-formed bet afterwards is taken.
``make test`` sends 1,000 (every kind dozens of times), ``make test-full`` 20,000.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.table import Phase
from controller.topics import Sender, Topics
from drivers.mqtt.client import BrokerAddress
from tablectl.running import RunningTable
from tests.support.hostile import KINDS, hostile_payloads
from tests.tablectl.test_running_hardware import command, table_file

SEED = 20261124


@pytest.mark.parametrize(
    "count",
    [pytest.param(1000, id="1000"), pytest.param(20_000, id="20000", marks=pytest.mark.full)],
)
def test_hostile_commands_are_all_refused_and_change_nothing(
    mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path, count: int
) -> None:
    assert len(KINDS) >= 20
    # every payload reaches the table's own checks: no seat's commands are refused for
    # coming fast here (test_seat_flood.py checks that refusal)
    text = table_file(table_id, tmp_path / "j.db", "enabled = false").replace(
        "[shoe]", "seat_commands_per_second = 10000\nseat_command_burst = 100000\n[shoe]", 1
    )
    config = parse_table_text(text, "test")
    table = RunningTable(
        config, tmp_path, BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    )
    table.start()
    topics = Topics(table_id).seat("1")
    try:
        service = table.service
        service.submit(command(Sender("pit"), {"command": "open_table", "by": "test"}))
        service.submit(command(Sender("dealer"), {"command": "start_round"}))
        service.sync()
        before = service.state
        assert before.phase is Phase.BETTING
        seat = mqtt_client(mosquitto, "seat-1")
        seat.subscribe(topics.reply)
        sent: Counter[str] = Counter()
        payloads = list(hostile_payloads(SEED, count))
        for start in range(0, count, 250):  # 250 at a time: within the broker's queue
            for kind, payload in payloads[start : start + 250]:
                seat.publish(topics.cmd, payload)
                sent[kind] += 1
            seat.wait_messages(topics.reply, sum(sent.values()), timeout=60.0)
        replies = [json.loads(m.payload) for m in seat.messages(topics.reply)]
        assert len(replies) == count
        accepted = [r for r in replies if r["ok"] or not r.get("reason")]
        assert not accepted, f"accepted or refused without a reason: {accepted[:3]}"
        assert set(sent) == set(KINDS)
        service.sync()
        assert service.state == before  # not one hostile payload changed the table
        assert service.error is None
        assert service._thread is not None and service._thread.is_alive()
        # the table still serves its players
        bet = {"v": 1, "id": "ok-1", "command": "place_bet", "hand": "box 1", "spot": "ante"}
        seat.publish(topics.cmd, json.dumps({**bet, "amount": "100"}))
        seat.wait_messages(topics.reply, count + 1, timeout=60.0)
        last = json.loads(seat.messages(topics.reply)[-1].payload)
        assert last["id"] == "ok-1" and last["ok"], last
    finally:
        table.stop()
