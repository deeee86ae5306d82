"""The embedded broker: MQTT 3.1.1 as paho (and a raw socket) sees it."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pytest

from drivers.mqtt.broker import BrokerError
from drivers.mqtt.embedded import EmbeddedBroker, encode_length, topic_matches, valid_filter
from tests.support.mqtt import Probe

Client = Callable[..., Probe]


# ------------------------------------------------------------------ pure helpers


@pytest.mark.parametrize(
    ("topic_filter", "topic", "matches"),
    [
        ("tablectl/T1/state", "tablectl/T1/state", True),
        ("tablectl/+/state", "tablectl/T1/state", True),
        ("tablectl/+/state", "tablectl/T1/seat/3/state", False),
        ("tablectl/+/seat/+/state", "tablectl/T1/seat/3/state", True),
        ("tablectl/#", "tablectl", True),
        ("tablectl/#", "tablectl/T1/seat/3/state", True),
        ("tablectl/T1/#", "tablectl/T10/state", False),
        ("+", "tablectl", True),
        ("+", "tablectl/T1", False),
        ("+/+", "/state", True),  # an empty level is a level
        ("#", "$SYS/broker/uptime", False),
        ("+/broker/uptime", "$SYS/broker/uptime", False),
        ("$SYS/#", "$SYS/broker/uptime", True),
        ("tablectl/T1/state", "tablectl/T1/State", False),
    ],
)
def test_topic_matching(topic_filter: str, topic: str, matches: bool) -> None:
    assert topic_matches(topic_filter, topic) is matches


@pytest.mark.parametrize("topic_filter", ["a/#/b", "a#", "a/b+", "", "a/+b/c"])
def test_invalid_filters(topic_filter: str) -> None:
    assert not valid_filter(topic_filter)


@pytest.mark.parametrize("n", [0, 1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455])
def test_remaining_length_round_trip(n: int) -> None:
    data = encode_length(n)
    value, shift = 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
    assert value == n and len(data) <= 4


# ------------------------------------------------------------------ paho interop


def test_publish_subscribe_qos0_and_qos1(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    display = mqtt_client(embedded_broker)
    assert display.subscribe("tablectl/T1/events", qos=1) == [1]
    assert display.subscribe("tablectl/T1/state", qos=0) == [0]
    controller = mqtt_client(embedded_broker)
    controller.publish("tablectl/T1/events", "e1", qos=1)
    controller.publish("tablectl/T1/state", "s1", qos=1)
    controller.publish("tablectl/T1/events", "e0", qos=0)
    assert display.expect("tablectl/T1/events", "e1").qos == 1
    assert display.expect("tablectl/T1/state", "s1").qos == 0  # the subscription's QoS
    assert display.expect("tablectl/T1/events", "e0").qos == 0


def test_qos2_is_accepted_and_delivered_once_at_qos1(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    display = mqtt_client(embedded_broker)
    assert display.subscribe("tablectl/#", qos=2) == [1]  # granted QoS 1
    controller = mqtt_client(embedded_broker)
    controller.publish("tablectl/T1/events", "exactly once", qos=2)
    controller.publish("tablectl/T1/events", "sentinel", qos=1)
    display.expect("tablectl/T1/events", "sentinel")
    assert [m.payload for m in display.messages()] == [b"exactly once", b"sentinel"]
    assert display.messages()[0].qos == 1


def test_wildcards(embedded_broker: EmbeddedBroker, mqtt_client: Client) -> None:
    seat = mqtt_client(embedded_broker)
    seat.subscribe("tablectl/+/seat/3/#", "tablectl/+/state")
    controller = mqtt_client(embedded_broker)
    for topic in (
        "tablectl/T1/seat/3/state",
        "tablectl/T1/seat/3/reply",
        "tablectl/T1/seat/4/state",
        "tablectl/T2/state",
        "tablectl/T2/seat/3",
        "tablectl/T1/pit/state",
    ):
        controller.publish(topic, topic)
    controller.publish("tablectl/T9/state", "sentinel")
    seat.expect("tablectl/T9/state", "sentinel")
    assert [m.topic for m in seat.messages()] == [
        "tablectl/T1/seat/3/state",
        "tablectl/T1/seat/3/reply",
        "tablectl/T2/state",
        "tablectl/T2/seat/3",  # '#' matches the parent level too
        "tablectl/T9/state",
    ]


def test_overlapping_subscriptions_deliver_once(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/#", "tablectl/+/state", "#")
    controller = mqtt_client(embedded_broker)
    controller.publish("tablectl/T1/state", "once")
    controller.publish("tablectl/T1/events", "sentinel")
    display.expect("tablectl/T1/events", "sentinel")
    assert [m.payload for m in display.messages()] == [b"once", b"sentinel"]


def test_unsubscribe_stops_delivery(embedded_broker: EmbeddedBroker, mqtt_client: Client) -> None:
    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/T1/state", "tablectl/T1/events")
    display.unsubscribe("tablectl/T1/state")
    controller = mqtt_client(embedded_broker)
    controller.publish("tablectl/T1/state", "gone")
    controller.publish("tablectl/T1/events", "sentinel")
    display.expect("tablectl/T1/events", "sentinel")
    assert not display.messages("tablectl/T1/state")


def test_retained_messages(embedded_broker: EmbeddedBroker, mqtt_client: Client) -> None:
    controller = mqtt_client(embedded_broker)
    controller.publish("tablectl/T1/state", "first", retain=True)
    controller.publish("tablectl/T1/state", "second", retain=True)  # replaces
    controller.publish("tablectl/T1/seat/3/state", "private", retain=True)
    controller.publish("tablectl/T2/state", "other table", retain=True)

    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/+/state")
    got = display.expect("tablectl/T1/state")
    assert (got.payload, got.retain, got.qos) == (b"second", True, 1)
    assert display.expect("tablectl/T2/state").retain
    controller.publish("tablectl/T1/events", "live")  # not subscribed: a barrier only
    controller.publish("tablectl/T1/state", "live", retain=True)
    live = display.expect("tablectl/T1/state", "live")
    assert not live.retain  # a live delivery has the retain flag clear
    assert {m.topic for m in display.messages()} == {"tablectl/T1/state", "tablectl/T2/state"}

    controller.publish("tablectl/T1/state", b"", retain=True)  # clears
    assert embedded_broker.retained() == {
        "tablectl/T1/seat/3/state": b"private",
        "tablectl/T2/state": b"other table",
    }


def test_a_new_client_gets_only_its_own_retained_topics(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    """The amqtt 0.12.1 defect: retained topics of other clients' subscriptions."""
    controller = mqtt_client(embedded_broker)
    controller.publish("tablectl/T1/seat/3/state", "private", retain=True)
    controller.publish("tablectl/T1/state", "public", retain=True)
    seat = mqtt_client(embedded_broker)
    seat.subscribe("tablectl/T1/seat/3/state")
    seat.expect("tablectl/T1/seat/3/state")
    seat.close()
    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/T1/state")
    display.expect("tablectl/T1/state")
    controller.publish("tablectl/T1/state", "sentinel")
    display.expect("tablectl/T1/state", "sentinel")
    assert display.topics() == {"tablectl/T1/state"}


def test_will_on_lost_connection_not_on_clean_disconnect(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    status = "tablectl/T1/status"
    display = mqtt_client(embedded_broker)
    display.subscribe(status)
    polite = mqtt_client(embedded_broker, will=(status, b"polite offline", 1, True))
    polite.close()
    controller = mqtt_client(embedded_broker, will=(status, b"offline", 1, True))
    controller.publish(status, "online", retain=True)
    display.expect(status, "online")
    controller.drop()
    assert display.expect(status, "offline").qos == 1
    assert embedded_broker.retained()[status] == b"offline"  # the will was retained
    assert [m.payload for m in display.messages()] == [b"online", b"offline"]


def test_pings_keep_a_quiet_client(embedded_broker: EmbeddedBroker) -> None:
    with socket.create_connection((embedded_broker.host, embedded_broker.port), timeout=3) as raw:
        raw.sendall(connect_packet("quiet", keepalive=1))
        assert raw.recv(4) == bytes([0x20, 2, 0, 0])
        for _ in range(4):  # 2 s in all, over the 1.5 s a silent client is given
            time.sleep(0.5)
            raw.sendall(bytes([0xC0, 0]))  # PINGREQ
            assert raw.recv(2) == bytes([0xD0, 0])  # PINGRESP
        assert "quiet" in embedded_broker.clients()


def test_a_silent_client_is_dropped_and_its_will_published(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/T1/status")
    with socket.create_connection((embedded_broker.host, embedded_broker.port)) as raw:
        raw.sendall(connect_packet("silent", keepalive=1, will=("tablectl/T1/status", b"gone")))
        assert raw.recv(4) == bytes([0x20, 2, 0, 0])
        display.expect("tablectl/T1/status", "gone", timeout=3.0)  # after 1.5 s of silence
        assert raw.recv(1) == b""  # the broker closed the socket


def test_persistent_session_keeps_subscriptions_and_queues_qos1(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    seat = mqtt_client(embedded_broker, client_id="seat-3", clean_session=False)
    seat.subscribe("tablectl/T1/seat/3/reply")
    seat.close()
    controller = mqtt_client(embedded_broker)
    controller.publish("tablectl/T1/seat/3/reply", "while away", qos=1)
    controller.publish("tablectl/T1/seat/3/reply", "dropped at qos 0", qos=0)

    back = mqtt_client(embedded_broker, client_id="seat-3", clean_session=False)
    assert back.session_present == [True]
    back.expect("tablectl/T1/seat/3/reply", "while away")
    controller.publish("tablectl/T1/seat/3/reply", "live")  # still subscribed
    back.expect("tablectl/T1/seat/3/reply", "live")
    assert b"dropped at qos 0" not in [m.payload for m in back.messages()]

    back.close()
    fresh = mqtt_client(embedded_broker, client_id="seat-3", clean_session=True)
    assert fresh.session_present == [False]


def test_same_client_id_takes_over(embedded_broker: EmbeddedBroker, mqtt_client: Client) -> None:
    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/T1/status")
    first = mqtt_client(
        embedded_broker, client_id="console", will=("tablectl/T1/status", b"lost", 0, False)
    )
    mqtt_client(embedded_broker, client_id="console")
    display.expect("tablectl/T1/status", "lost")  # the old connection's will
    first.wait_connects(1)
    assert embedded_broker.clients().count("console") == 1


def test_many_messages_arrive_in_order(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/T1/events")
    controller = mqtt_client(embedded_broker, connect=False)
    controller.client.max_inflight_messages_set(1000)  # else paho itself sends QoS 0 first
    controller.connect()
    for i in range(500):  # more than the in-flight window of 100, QoS 0 and 1 mixed
        controller.client.publish("tablectl/T1/events", str(i), qos=i % 2)
    controller.publish("tablectl/T1/events", "end")
    display.expect("tablectl/T1/events", "end")
    assert [m.payload for m in display.messages()] == [str(i).encode() for i in range(500)] + [
        b"end"
    ]


def test_users_when_given() -> None:
    with EmbeddedBroker(users={"display": "secret"}) as broker:
        good = Probe(broker.port, "display", "secret")
        assert good.connect() == 0
        good.close()
        for user, password in (("display", "wrong"), ("nobody", "secret"), (None, None)):
            probe = Probe(broker.port, user, password)
            assert probe.connect().is_failure
            probe.close()


# ------------------------------------------------------------------ protocol errors


def connect_packet(
    client_id: str,
    *,
    keepalive: int = 60,
    level: int = 4,
    will: tuple[str, bytes] | None = None,
) -> bytes:
    def string(data: bytes) -> bytes:
        return len(data).to_bytes(2, "big") + data

    flags = 0x02 | (0x04 if will else 0)
    body = string(b"MQTT") + bytes([level, flags]) + keepalive.to_bytes(2, "big")
    body += string(client_id.encode())
    if will:
        body += string(will[0].encode()) + string(will[1])
    return bytes([0x10]) + encode_length(len(body)) + body


def test_other_protocol_levels_are_refused(embedded_broker: EmbeddedBroker) -> None:
    with socket.create_connection((embedded_broker.host, embedded_broker.port), timeout=3) as raw:
        raw.sendall(connect_packet("mqtt5", level=5))
        assert raw.recv(4) == bytes([0x20, 2, 0, 1])  # unacceptable protocol version


def test_a_malformed_packet_closes_the_connection_and_publishes_the_will(
    embedded_broker: EmbeddedBroker, mqtt_client: Client
) -> None:
    display = mqtt_client(embedded_broker)
    display.subscribe("tablectl/T1/status")
    with socket.create_connection((embedded_broker.host, embedded_broker.port), timeout=3) as raw:
        raw.sendall(connect_packet("broken", will=("tablectl/T1/status", b"broken")))
        assert raw.recv(4) == bytes([0x20, 2, 0, 0])
        raw.sendall(bytes([0x30, 3, 0, 1]) + b"+")  # PUBLISH to the "topic" '+'
        assert raw.recv(1) == b""
    display.expect("tablectl/T1/status", "broken")


def test_first_packet_must_be_connect(embedded_broker: EmbeddedBroker) -> None:
    with socket.create_connection((embedded_broker.host, embedded_broker.port), timeout=3) as raw:
        raw.sendall(bytes([0xC0, 0]))  # PINGREQ
        assert raw.recv(1) == b""


def test_an_invalid_filter_is_refused_in_the_suback(embedded_broker: EmbeddedBroker) -> None:
    def string(text: str) -> bytes:
        return len(text).to_bytes(2, "big") + text.encode()

    body = (7).to_bytes(2, "big") + string("tablectl/#/state") + b"\x01"
    body += string("tablectl/+/state") + b"\x01"
    with socket.create_connection((embedded_broker.host, embedded_broker.port), timeout=3) as raw:
        raw.sendall(connect_packet("raw"))
        assert raw.recv(4) == bytes([0x20, 2, 0, 0])
        raw.sendall(bytes([0x82]) + encode_length(len(body)) + body)
        assert raw.recv(6) == bytes([0x90, 4, 0, 7, 0x80, 1])  # refused, then QoS 1


# ------------------------------------------------------------------ life cycle


def test_restart_on_the_same_port_and_clients_reconnect(mqtt_client: Client) -> None:
    with EmbeddedBroker() as broker:
        port = broker.port
        display = mqtt_client(broker, reconnect=True)
        display.subscribe("tablectl/T1/state")
        broker.stop()
        assert not broker.running
        broker.start()
        assert broker.port == port
        display.wait_connects(2)
        mqtt_client(broker).publish("tablectl/T1/state", "back")
        display.expect("tablectl/T1/state", "back")


def test_a_taken_port_is_reported(embedded_broker: EmbeddedBroker) -> None:
    with pytest.raises(BrokerError, match="cannot listen"):
        EmbeddedBroker(port=embedded_broker.port).start()


def test_not_running_cannot_be_inspected() -> None:
    broker = EmbeddedBroker()
    with pytest.raises(BrokerError, match="not running"):
        broker.retained()
    broker.stop()  # stopping a stopped broker is harmless
