"""Hostile publishers against a running table over a real Mosquitto: what the sweep found.

- A command left retained on a command topic (before the table starts, or at any time:
  the broker sends it again at every connection) is refused, never applied.
- A seat flooding its own command topic (as the shipped ACL lets it) does not make the
  broker drop the dealer's commands: they come on a connection of their own.
- A seat's presence sent again and again changes nothing: one journal row for going away,
  one for coming back, and no other audience's state republished for it.
- Seeded random commands from every sender (valid and not, for other seats, replayed ids)
  leave the table running with no fault.
"""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from config.tables import parse_table_text
from controller.inbound import commands_of
from controller.table import Phase
from controller.topics import Sender, Topics
from drivers.mqtt.broker import DEV_USERS
from drivers.mqtt.client import BrokerAddress
from tablectl.running import RunningTable
from tests.support.tables import boxes_table
from tests.tablectl.test_running_hardware import command, wait_for

SEED = 20261125


def started(broker: Any, table_id: str, tmp_path: Path, *, auth: bool) -> RunningTable:
    """A table of seed 001's game (no shoe) on ``broker``, started and connected."""
    user = ("controller", "controller-dev") if auth else (None, None)
    address = BrokerAddress("127.0.0.1", broker.port, *user)
    config = parse_table_text(boxes_table(table_id, tmp_path / "j.db"), "test")
    table = RunningTable(config, tmp_path, address)
    table.start()
    for link in (table.link, table.staff_link):
        assert link.wait_connected(5) and link.wait_subscribed(5)
    return table


def kinds(table: RunningTable) -> list[str]:
    return [str(e.record.get("kind")) for e in table.runner.journal.entries()]


def test_a_command_left_retained_is_refused_not_applied(
    open_mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    t = Topics(table_id)
    evil = mqtt_client(open_mosquitto)
    opening = {"v": 1, "id": "r1", "command": "open_table", "by": "mallory"}
    evil.publish(t.pit.cmd, json.dumps(opening), retain=True)
    evil.publish(t.seat("5").presence, b"offline", retain=True)  # kept by design: applies
    pit = mqtt_client(open_mosquitto)
    pit.subscribe(t.pit.reply)
    table = started(open_mosquitto, table_id, tmp_path, auth=False)
    try:
        reply = json.loads(pit.expect(t.pit.reply, timeout=5).payload)
        assert reply["id"] == "r1" and reply["command"] == "open_table"
        assert not reply["ok"] and "expected a command sent live" in reply["reason"]
        assert "kept (published with retain)" in reply["reason"]
        table.service.sync()
        assert table.service.state.phase is Phase.CLOSED  # the kept command changed nothing
        assert kinds(table) == ["table_configured", "seat_disconnected"]
        # a live command is taken as ever
        pit.publish(t.pit.cmd, json.dumps({**opening, "id": "r2"}))
        wait_for(lambda: table.service.state.phase is Phase.IDLE)
    finally:
        table.stop()
        evil.publish(t.pit.cmd, b"", retain=True)
        evil.publish(t.seat("5").presence, b"", retain=True)


def test_a_seats_flood_does_not_make_the_broker_drop_the_dealers_commands(
    mosquitto_factory: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    """The shipped broker queues at most 1,000 messages for a connection and drops the
    rest: seat 1 floods its own command topic faster than the table reads it."""
    broker = mosquitto_factory(auth=True)
    t = Topics(table_id)
    table = started(broker, table_id, tmp_path, auth=True)
    flooder = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    flooder.username_pw_set("seat-1", DEV_USERS["seat-1"])
    flooder.max_inflight_messages_set(0)
    flooder.connect("127.0.0.1", broker.port)
    flooder.loop_start()
    dealer = mqtt_client(broker, "dealer")
    dealer.subscribe(t.dealer.reply)
    flooding = threading.Event()
    flooding.set()

    def flood() -> None:
        n = 0
        while flooding.is_set() and n < 200_000:
            flooder.publish(t.seat("1").cmd, b"garbage %d" % n, qos=1)
            n += 1
            if n % 2000 == 0:
                time.sleep(0.02)  # the broker's queue for the table stays full

    thread = threading.Thread(target=flood, daemon=True)
    try:
        thread.start()
        time.sleep(0.5)
        sent = [f"d{k}" for k in range(8)]
        for cid in sent:
            dealer.publish(t.dealer.cmd, json.dumps({"v": 1, "id": cid, "command": "no_more_bets"}))
            time.sleep(0.25)
        flooding.clear()
        thread.join(10)

        def answered() -> set[str]:
            return {json.loads(m.payload)["id"] for m in dealer.messages(t.dealer.reply)}

        deadline = time.monotonic() + 10
        while answered() != set(sent) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert answered() == set(sent), f"unanswered: {sorted(set(sent) - answered())}"
        assert table.service.error is None and table.service.running
    finally:
        flooding.clear()
        flooder.loop_stop()
        flooder.disconnect()
        table.stop()


def test_a_seats_presence_repeated_changes_nothing_more(
    open_mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    t = Topics(table_id)
    table = started(open_mosquitto, table_id, tmp_path, auth=False)
    display = mqtt_client(open_mosquitto)
    display.subscribe(t.state, t.pit.state)
    seat = mqtt_client(open_mosquitto)
    try:
        display.expect(t.state)
        display.expect(t.pit.state)
        for presence in (b"offline", b"online"):
            for _ in range(100):
                seat.publish(t.seat("1").presence, presence)
            table.service.sync()
        assert kinds(table) == ["table_configured", "seat_disconnected", "seat_returned"]
        table.service.sync()
        time.sleep(0.3)  # what the table published has reached the display
        # the states after the seat went away and after it came back, and no more
        assert len(display.messages(t.state)) <= 3
        assert len(display.messages(t.pit.state)) <= 3
    finally:
        table.stop()


def test_seeded_random_commands_from_every_sender_leave_the_table_well(
    open_mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    t = Topics(table_id)
    table = started(open_mosquitto, table_id, tmp_path, auth=False)
    service = table.service
    service.submit(command(Sender("pit"), {"command": "open_table", "by": "test"}))
    service.submit(command(Sender("dealer"), {"command": "start_round"}))
    watcher = mqtt_client(open_mosquitto)
    watcher.subscribe(f"{t.base}/seat/+/reply", t.dealer.reply, t.pit.reply)
    sender = mqtt_client(open_mosquitto)
    values: list[Any] = ["box 1", "box 2", "ante", "bonus", "10", "-1", "1e9", 0.5, None, [], {}]
    fields = ["hand", "spot", "amount", "seat", "option", "reason", "by", "card", "index"]
    topics = [t.seat("1").cmd, t.seat("2").cmd, t.dealer.cmd, t.pit.cmd]
    count = 300
    try:
        for n in range(count):
            topic = rng.choice(topics)
            role = "seat" if "/seat/" in topic else topic.rsplit("/", 2)[-2]
            doc: dict[str, Any] = {"v": 1, "id": f"c{rng.randrange(40)}", "command": ""}
            doc["command"] = rng.choice([*commands_of(role), "card_drawn", "void_round"])
            doc.update({f: rng.choice(values) for f in rng.sample(fields, rng.randrange(4))})
            sender.client.publish(topic, json.dumps(doc), qos=1)
            if n % 50 == 49:
                watcher.wait_messages("#", n + 1, timeout=20)
        replies = watcher.wait_messages("#", count, timeout=20)
        for message in replies:
            reply = json.loads(message.payload)
            assert reply["ok"] or reply["reason"], reply
            me = message.topic.split("/")[3] if "/seat/" in message.topic else None
            if me is not None:  # a seat hears of no other seat's money
                assert "balance" not in reply["reason"] or f"seat:{me}" in reply["reason"]
        service.sync()
        assert service.faults == 0 and service.error is None and service.running
    finally:
        table.stop()
