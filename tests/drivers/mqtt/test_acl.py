"""Who may read and write what, proven against a real Mosquitto with the shipped config.

Mosquitto drops a denied PUBLISH silently (MQTT 3.1.1 has no way to say no) and, with an
``acl_file``, grants every SUBSCRIBE and filters on delivery. So a denial is proven by order:
the sender (or the controller, for reads) sends the denied message and then an allowed
sentinel on the same connection; once the sentinel arrives, the denied message would have
arrived before it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from drivers.mqtt.broker import (
    DEV_SEATS,
    DEV_USERS,
    MosquittoBroker,
    render_acl,
    shipped_config_dir,
)
from tests.support.mqtt import Probe

Client = Callable[..., Probe]

PUBLIC = ("status", "state", "events")
# what the controller writes for the pit alone (the journal's head is for the pit to record)
PIT_READ = ("state", "events", "alerts", "reply", "journal")
SEAT_TOPICS = ("state", "events", "reply", "cmd", "presence")
ALL_SUFFIXES = (
    *PUBLIC,
    "rebirth",
    *(f"seat/{n}/{name}" for n in ("3", "4") for name in SEAT_TOPICS),
    *(f"dealer/{name}" for name in ("cmd", "state", "events", "reply")),
    *(f"pit/{name}" for name in ("cmd", "state", "events", "alerts", "reply", "journal")),
)

# What each user receives of everything the controller publishes on a table.
READABLE = {
    "controller": set(ALL_SUFFIXES),
    "display": set(PUBLIC),
    "seat-3": {*PUBLIC, "seat/3/state", "seat/3/events", "seat/3/reply", "seat/3/presence"},
    "seat-4": {*PUBLIC, "seat/4/state", "seat/4/events", "seat/4/reply", "seat/4/presence"},
    "dealer": {*PUBLIC, "dealer/state", "dealer/events", "dealer/reply"},
    "pit": {*PUBLIC, "pit/state", "pit/events", "pit/alerts", "pit/reply", "pit/journal"},
}


def token() -> str:
    return uuid.uuid4().hex


def prove_publish_denied(
    mosquitto: MosquittoBroker, mqtt_client: Client, table: str, user: str, suffix: str
) -> None:
    watcher = mqtt_client(mosquitto, "controller")
    watcher.subscribe("tablectl/#")
    sender = mqtt_client(mosquitto, user)
    denied, sentinel = token(), token()
    sender.publish(f"tablectl/{table}/{suffix}", denied)
    sender.publish(f"tablectl/{table}/rebirth", sentinel)  # every user may write it
    watcher.expect(f"tablectl/{table}/rebirth", sentinel)
    leaked = [m for m in watcher.messages() if m.payload == denied.encode()]
    assert not leaked, f"{user} could publish to {suffix}: {leaked}"


def prove_read_denied(
    mosquitto: MosquittoBroker, mqtt_client: Client, table: str, user: str, suffix: str
) -> None:
    controller = mqtt_client(mosquitto, "controller")
    reader = mqtt_client(mosquitto, user)
    topic = f"tablectl/{table}/{suffix}"
    granted = reader.subscribe(topic, f"tablectl/{table}/events")
    denied, sentinel = token(), token()
    controller.publish(topic, denied)
    controller.publish(f"tablectl/{table}/events", sentinel)  # everyone reads events
    reader.expect(f"tablectl/{table}/events", sentinel)
    assert not reader.messages(topic), f"{user} read {topic} (SUBACK {granted})"


def prove_delivered(
    mosquitto: MosquittoBroker,
    mqtt_client: Client,
    table: str,
    writer: str,
    suffix: str,
    reader: str,
) -> None:
    receiving = mqtt_client(mosquitto, reader)
    assert receiving.subscribe(f"tablectl/{table}/{suffix}") == [1]
    sending = mqtt_client(mosquitto, writer)
    payload = token()
    sending.publish(f"tablectl/{table}/{suffix}", payload)
    receiving.expect(f"tablectl/{table}/{suffix}", payload)


# ------------------------------------------------------------------ denials


@pytest.mark.parametrize(
    ("user", "suffix"),
    [
        # displays write nothing but rebirth requests
        ("display", "state"),
        ("display", "status"),
        ("display", "events"),
        ("display", "seat/3/cmd"),
        ("display", "seat/3/state"),
        ("display", "dealer/cmd"),
        ("display", "pit/cmd"),
        # a seat writes its own commands only
        ("seat-3", "seat/4/cmd"),
        ("seat-3", "seat/3/state"),
        ("seat-3", "seat/3/reply"),
        ("seat-3", "dealer/cmd"),
        ("seat-3", "pit/cmd"),
        ("seat-3", "state"),
        ("seat-3", "status"),
        # the dealer console writes dealer commands only
        ("dealer", "pit/cmd"),
        ("dealer", "seat/3/cmd"),
        ("dealer", "dealer/state"),
        ("dealer", "state"),
        # the pit writes pit commands only
        ("pit", "dealer/cmd"),
        ("pit", "seat/3/cmd"),
        ("pit", "pit/alerts"),
        ("pit", "state"),
    ],
)
def test_publish_is_denied(
    mosquitto: MosquittoBroker, mqtt_client: Client, table_id: str, user: str, suffix: str
) -> None:
    prove_publish_denied(mosquitto, mqtt_client, table_id, user, suffix)


@pytest.mark.parametrize(
    ("user", "suffix"),
    [
        # displays read public topics only
        *(("display", f"seat/3/{name}") for name in SEAT_TOPICS),
        *(("display", f"pit/{name}") for name in PIT_READ),
        ("display", "dealer/state"),
        ("display", "dealer/reply"),
        ("display", "rebirth"),
        # seat 3 never reads seat 4
        *(("seat-3", f"seat/4/{name}") for name in SEAT_TOPICS),
        ("seat-3", "seat/3/cmd"),
        ("seat-3", "pit/state"),
        ("seat-3", "pit/alerts"),
        ("seat-3", "pit/journal"),
        ("seat-3", "dealer/state"),
        ("seat-3", "rebirth"),
        # the dealer never reads the pit (hidden cards, alerts) or a seat
        *(("dealer", f"pit/{name}") for name in PIT_READ),
        ("dealer", "seat/3/state"),
        ("dealer", "dealer/cmd"),
        # the pit reads pit and public topics only
        ("pit", "seat/3/state"),
        ("pit", "dealer/state"),
        ("pit", "pit/cmd"),
    ],
)
def test_read_is_denied(
    mosquitto: MosquittoBroker, mqtt_client: Client, table_id: str, user: str, suffix: str
) -> None:
    prove_read_denied(mosquitto, mqtt_client, table_id, user, suffix)


@pytest.mark.parametrize("user", sorted(READABLE))
def test_subscribing_to_everything_delivers_only_what_the_user_may_read(
    mosquitto: MosquittoBroker, mqtt_client: Client, table_id: str, user: str
) -> None:
    """Retained and live: every topic of a table, read through ``#``."""
    controller = mqtt_client(mosquitto, "controller")
    for suffix in ALL_SUFFIXES:
        controller.publish(f"tablectl/{table_id}/{suffix}", f"retained {suffix}", retain=True)
    reader = mqtt_client(mosquitto, user)
    reader.subscribe("#", "tablectl/#", f"tablectl/{table_id}/+/+/+")
    for suffix in ALL_SUFFIXES:
        controller.publish(f"tablectl/{table_id}/{suffix}", f"live {suffix}")
    sentinel = token()
    controller.publish(f"tablectl/{table_id}/events", sentinel)
    reader.expect(f"tablectl/{table_id}/events", sentinel)

    mine = [m for m in reader.messages() if m.topic.startswith(f"tablectl/{table_id}/")]
    got = {m.topic.removeprefix(f"tablectl/{table_id}/") for m in mine}
    assert got == READABLE[user]
    retained = {m.topic.removeprefix(f"tablectl/{table_id}/") for m in mine if m.retain}
    assert retained == READABLE[user]
    for suffix in ALL_SUFFIXES:  # leave nothing retained on the shared broker
        controller.publish(f"tablectl/{table_id}/{suffix}", b"", retain=True)


# ------------------------------------------------------------------ allowed paths


@pytest.mark.parametrize(
    ("writer", "suffix", "reader"),
    [
        *(("controller", name, user) for name in PUBLIC for user in READABLE),
        *(("controller", f"seat/3/{name}", "seat-3") for name in ("state", "events", "reply")),
        ("controller", "dealer/state", "dealer"),
        ("controller", "dealer/reply", "dealer"),
        *(("controller", f"pit/{n}", "pit") for n in PIT_READ),
        ("seat-3", "seat/3/cmd", "controller"),
        ("seat-9", "seat/9/cmd", "controller"),
        ("dealer", "dealer/cmd", "controller"),
        ("pit", "pit/cmd", "controller"),
        *((user, "rebirth", "controller") for user in ("display", "seat-3", "dealer", "pit")),
    ],
)
def test_allowed_path_delivers(
    mosquitto: MosquittoBroker,
    mqtt_client: Client,
    table_id: str,
    writer: str,
    suffix: str,
    reader: str,
) -> None:
    prove_delivered(mosquitto, mqtt_client, table_id, writer, suffix, reader)


def test_the_controller_status_will_reaches_displays(
    mosquitto: MosquittoBroker, mqtt_client: Client, table_id: str
) -> None:
    status = f"tablectl/{table_id}/status"
    display = mqtt_client(mosquitto, "display")
    display.subscribe(status)
    controller = mqtt_client(mosquitto, "controller", will=(status, b"offline", 1, True))
    controller.publish(status, "online", retain=True)
    display.expect(status, "online")
    controller.drop()
    display.expect(status, "offline")
    late = mqtt_client(mosquitto, "display")
    late.subscribe(status)
    assert late.expect(status).payload == b"offline"
    mqtt_client(mosquitto, "controller").publish(status, b"", retain=True)


# ------------------------------------------------------------------ logging in


@pytest.mark.parametrize(
    ("user", "password"),
    [
        ("display", "wrong"),
        ("controller", "display-dev"),  # another user's password
        ("seat-3", ""),
        ("nobody", "nobody-dev"),
        (None, None),  # anonymous
    ],
)
def test_login_is_refused(
    mosquitto: MosquittoBroker, mqtt_client: Client, user: str | None, password: str | None
) -> None:
    probe = mqtt_client(mosquitto, user, password=password, connect=False)
    rc = probe.connect()
    assert rc.is_failure
    assert rc.getName() in ("Not authorized", "Bad user name or password")


def test_every_shipped_user_logs_in(mosquitto: MosquittoBroker, mqtt_client: Client) -> None:
    for user in DEV_USERS:
        mqtt_client(mosquitto, user).close()


# ------------------------------------------------------------------ WebSockets


def test_websocket_display_receives_public_state_only(
    mosquitto: MosquittoBroker, mqtt_client: Client, table_id: str
) -> None:
    display = mqtt_client(mosquitto, "display", transport="websockets")
    display.subscribe(f"tablectl/{table_id}/#")
    controller = mqtt_client(mosquitto, "controller")
    controller.publish(f"tablectl/{table_id}/seat/3/state", "private")
    controller.publish(f"tablectl/{table_id}/state", "public")
    assert display.expect(f"tablectl/{table_id}/state").payload == b"public"
    assert display.topics() == {f"tablectl/{table_id}/state"}
    display.publish(f"tablectl/{table_id}/rebirth", "please")  # QoS 1 acknowledged over ws


def test_websocket_listener_refuses_anonymous(
    mosquitto: MosquittoBroker, mqtt_client: Client
) -> None:
    probe = mqtt_client(mosquitto, None, transport="websockets", connect=False)
    assert probe.connect().is_failure


# ------------------------------------------------------------------ the files


def test_shipped_acl_is_the_generated_one() -> None:
    shipped = (shipped_config_dir() / "acl").read_text()
    assert shipped == render_acl(DEV_SEATS), (
        "run: python -m drivers.mqtt.broker acl > config/mosquitto/acl"
    )


def test_shipped_passwd_has_exactly_the_documented_users() -> None:
    lines = (shipped_config_dir() / "passwd").read_text().splitlines()
    users = [line.split(":", 1)[0] for line in lines if line]
    assert users == list(DEV_USERS)
    assert all(line.split(":", 1)[1].startswith("$7$") for line in lines if line)  # hashed


def test_seat_ids_must_be_simple_names() -> None:
    from drivers.mqtt.broker import BrokerError

    with pytest.raises(BrokerError, match="letters, digits"):
        render_acl(["3/#"])
    with pytest.raises(BrokerError, match="repeat"):
        render_acl(["3", "3"])
