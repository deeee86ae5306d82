"""A seat that sends too fast, or a seat id the table does not have, over a real Mosquitto
with the shipped users and ACL.

- A seat's flood of well-formed commands no longer grows the journal by a row a command:
  past its burst (20) and rate (5 a second) they are refused unread, each answered in
  words; the pit hears once that the flood started and once that it ended, with the count.
- A flood of malformed commands no longer puts one event a command on the pit's console.
- A studio table with a list of seats ignores the commands and presence of any other seat
  id (here seat 9, a user the broker knows): no reply, no journal row, no state for it;
  the pit is told once, in words.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.topics import Topics
from tablectl.running import RunningTable
from tests.tablectl.test_running_hardware import wait_for
from tests.tablectl.test_service_mqtt import controller_at, table_file

FLOOD = 300


@dataclass
class Studio:
    """A studio table of seats 1 and 2 (closed), and the pit listening to it."""

    table: RunningTable
    t: Topics
    pit: Any


@pytest.fixture
def studio(mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path) -> Iterator[Studio]:
    config = parse_table_text(table_file(table_id, tmp_path / "j.db"), "test")
    table = RunningTable(config, tmp_path, controller_at(mosquitto.port))
    table.start()
    try:
        for link in (table.link, table.staff_link):
            assert link.wait_connected(5) and link.wait_subscribed(5)
        t = Topics(table_id)
        pit = mqtt_client(mosquitto, "pit")
        pit.subscribe(t.pit.alerts, t.pit.events)
        yield Studio(table, t, pit)
    finally:
        table.stop()


def bet(n: int) -> bytes:
    doc = {"v": 1, "id": f"b{n}", "command": "place_bet", "hand": "player", "spot": "ante"}
    return json.dumps({**doc, "amount": "5"}).encode()


def alerts(pit: Any, topic: str) -> list[str]:
    return [json.loads(m.payload)["data"]["message"] for m in pit.messages(topic)]


def test_a_seats_flood_is_refused_unread_and_the_pit_told_once_each_way(
    studio: Studio, mosquitto: Any, mqtt_client: Any
) -> None:
    table, t, pit = studio.table, studio.t, studio.pit
    seat = mqtt_client(mosquitto, "seat-1")
    seat.subscribe(t.seat("1").reply)
    rows = len(table.runner.journal)
    start = time.monotonic()
    for n in range(FLOOD):  # the table is closed: each bet is a refusal the table journals
        seat.publish(t.seat("1").cmd, bet(n))
    replies = [json.loads(m.payload) for m in seat.wait_messages(t.seat("1").reply, FLOOD, 30)]
    elapsed = time.monotonic() - start
    table.service.sync()
    assert len(replies) == FLOOD and not any(r["ok"] for r in replies)
    fast = [r for r in replies if r["reason"].startswith("expected at most 20 commands")]
    assert fast and all("was not looked at and changed nothing" in r["reason"] for r in fast)
    journaled = len(table.runner.journal) - rows
    # before: one row a command (300); now the burst and the rate's worth at most
    assert journaled <= 20 + 5 * elapsed + 1, (journaled, elapsed)
    assert journaled + len(fast) == FLOOD
    wait_for(lambda: alerts(pit, t.pit.alerts))
    started_alerts = [a for a in alerts(pit, t.pit.alerts) if "faster than 5 a second" in a]
    assert len(started_alerts) == 1, alerts(pit, t.pit.alerts)
    # paused for its burst to come back (20 at 5 a second): the flood is over, the
    # next command is the table's again, and the pit hears the count
    time.sleep(4.2)
    seat.publish(t.seat("1").cmd, bet(FLOOD))
    last = json.loads(seat.wait_messages(t.seat("1").reply, FLOOD + 1, 10)[-1].payload)
    assert last["id"] == f"b{FLOOD}" and "closed" in last["reason"], last
    wait_for(lambda: any("slowed down" in a for a in alerts(pit, t.pit.alerts)))
    ended = [a for a in alerts(pit, t.pit.alerts) if "slowed down" in a]
    assert ended == [
        f"seat:1 slowed down: {len(fast)} of its commands were refused unread over "
        + ended[0].split(" over ")[1]
    ]
    status = table.service.hardware()["broker"]
    assert status["seat_commands_refused_too_fast"] == len(fast)


def test_a_flood_of_malformed_commands_does_not_bury_the_pits_events(
    studio: Studio, mosquitto: Any, mqtt_client: Any
) -> None:
    table, t, pit = studio.table, studio.t, studio.pit
    seat = mqtt_client(mosquitto, "seat-1")
    seat.subscribe(t.seat("1").reply)
    for n in range(FLOOD):
        seat.publish(t.seat("1").cmd, b"{not json %d" % n)
    replies = seat.wait_messages(t.seat("1").reply, FLOOD, 30)
    assert all("expected a JSON object" in json.loads(m.payload)["reason"] for m in replies)
    table.service.sync()
    time.sleep(0.3)  # what the table published has reached the pit
    rejected = [
        m
        for m in pit.messages(t.pit.events)
        if json.loads(m.payload)["event"] == "command_rejected"
    ]
    # before: one event a command (300); now the burst's and the rate's, and the flood
    assert 0 < len(rejected) <= 40, len(rejected)


def test_a_seat_the_table_does_not_have_is_ignored_and_the_pit_told(
    studio: Studio, mosquitto: Any, mqtt_client: Any
) -> None:
    table, t, pit = studio.table, studio.t, studio.pit
    stranger = mqtt_client(mosquitto, "seat-9")  # a user the broker knows: no seat here
    stranger.subscribe(t.seat("9").reply, t.seat("9").state)
    rows = len(table.runner.journal)
    for presence in (b"offline", b"online"):
        stranger.publish(t.seat("9").presence, presence)
    for n in range(5):
        stranger.publish(t.seat("9").cmd, bet(n))
    table.service.sync()
    wait_for(lambda: alerts(pit, t.pit.alerts))
    time.sleep(0.3)  # anything the table sent seat 9 has arrived
    assert stranger.messages() == []
    assert len(table.runner.journal) == rows
    said = alerts(pit, t.pit.alerts)
    assert len(said) == 1 and "messages from seat '9', which this table does not have" in said[0]
    assert "(its seats: 1, 2)" in said[0]
    assert table.service.hardware()["broker"]["unknown_seat_messages"] == 7
    # a seat of the table's is heard as ever
    seat = mqtt_client(mosquitto, "seat-1")
    seat.subscribe(t.seat("1").reply)
    seat.publish(t.seat("1").cmd, bet(99))
    assert "closed" in json.loads(seat.expect(t.seat("1").reply).payload)["reason"]
