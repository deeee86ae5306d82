"""MosquittoBroker: the derived config, loopback ports, errors that say why, restarts."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from drivers.mqtt.broker import (
    BrokerError,
    MosquittoBroker,
    MosquittoNotFound,
    find_mosquitto,
    render_config,
    shipped_config_dir,
)
from tests.support.mqtt import Probe

Client = Callable[..., Probe]
Factory = Callable[..., MosquittoBroker]

SHIPPED = (shipped_config_dir() / "mosquitto.conf").read_text()


def directives(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


# ------------------------------------------------------------------ the derived config


def test_derived_config_moves_listeners_to_loopback(tmp_path: Path) -> None:
    text = render_config(SHIPPED, port=20001, ws_port=20002, workdir=tmp_path)
    lines = directives(text)
    assert [line for line in lines if line.startswith("listener")] == [
        "listener 20001 127.0.0.1",
        "listener 20002 127.0.0.1",
    ]
    ws = lines.index("listener 20002 127.0.0.1")
    assert "protocol websockets" in lines[ws:]
    assert "socket_domain ipv4" in lines[ws:]
    assert f"password_file {tmp_path / 'passwd'}" in lines
    assert f"acl_file {tmp_path / 'acl'}" in lines
    assert "allow_anonymous false" in lines
    assert "persistence false" in lines
    assert "log_dest stderr" in lines and "log_dest syslog" not in lines
    assert "per_listener_settings false" in lines  # the rest of the shipped file is kept
    assert not any("/etc/" in line or "/var/" in line for line in lines)


def test_open_config_has_no_users(tmp_path: Path) -> None:
    lines = directives(render_config(SHIPPED, port=1, ws_port=2, workdir=tmp_path, auth=False))
    assert "allow_anonymous true" in lines
    assert not any(line.startswith(("password_file", "acl_file")) for line in lines)


def test_derived_config_drops_machine_includes(tmp_path: Path) -> None:
    text = "include_dir /etc/mosquitto/conf.d\nlistener 1883\nlistener 9001\nprotocol websockets\n"
    lines = directives(render_config(text, port=1, ws_port=2, workdir=tmp_path))
    assert not any(line.startswith("include_dir") for line in lines)


def test_shipped_config_needs_both_listeners(tmp_path: Path) -> None:
    with pytest.raises(BrokerError, match="one MQTT and one WebSocket listener"):
        render_config("listener 1883\n", port=1, ws_port=2, workdir=tmp_path)


# ------------------------------------------------------------------ errors that say why


def test_missing_binary_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(MosquittoNotFound, match="is not an executable"):
        find_mosquitto(tmp_path / "mosquitto")
    with pytest.raises(MosquittoNotFound, match="is not an executable"):
        MosquittoBroker(binary=tmp_path / "nothing").start()


def test_not_on_path_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr("drivers.mqtt.broker.SBIN_DIRS", ())
    with pytest.raises(MosquittoNotFound, match="apt-get install mosquitto"):
        find_mosquitto()


def test_a_refused_config_reports_the_broker_log(tmp_path: Path) -> None:
    (tmp_path / "mosquitto.conf").write_text(SHIPPED + "\nno_such_option 1\n")
    for name in ("passwd", "acl"):
        (tmp_path / name).write_bytes((shipped_config_dir() / name).read_bytes())
    broker = MosquittoBroker(config_dir=tmp_path)
    with pytest.raises(BrokerError, match=r"(?s)exited with status.*no_such_option"):
        broker.start()
    assert not broker.running
    broker.close()


def test_a_taken_port_is_reported(mosquitto: MosquittoBroker) -> None:
    broker = MosquittoBroker(port=mosquitto.port)
    with pytest.raises(BrokerError, match=r"(?i)in use"):
        broker.start()
    broker.close()


# ------------------------------------------------------------------ the process


def listening(port: int) -> list[str]:
    """Local addresses listening on ``port`` (IPv4 and IPv6), from /proc/net."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if int(port_hex, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.append(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc/net")
def test_listens_on_loopback_only(mosquitto: MosquittoBroker) -> None:
    loopback = "0100007F"  # 127.0.0.1 as /proc/net/tcp writes it
    assert listening(mosquitto.port) == [loopback]
    assert listening(mosquitto.ws_port) == [loopback]


def test_private_files_are_owner_only(mosquitto: MosquittoBroker) -> None:
    for path in (mosquitto.config_path, mosquitto.workdir / "passwd", mosquitto.workdir / "acl"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert "running" in mosquitto.log()


def test_two_brokers_get_their_own_ports(mosquitto_factory: Factory) -> None:
    one, two = mosquitto_factory(auth=False), mosquitto_factory(auth=False)
    assert len({one.port, one.ws_port, two.port, two.ws_port}) == 4
    assert one.running and two.running


def test_close_removes_its_working_directory() -> None:
    broker = MosquittoBroker(auth=False).start()
    workdir = broker.workdir
    broker.close()
    assert not broker.running and not workdir.exists()


def test_restart_on_the_same_port_and_clients_reconnect(
    mosquitto_factory: Factory, mqtt_client: Client
) -> None:
    broker = mosquitto_factory(auth=False)
    port, ws_port, first_pid = broker.port, broker.ws_port, broker.pid
    display = mqtt_client(broker, reconnect=True)
    display.subscribe("tablectl/T1/state")

    broker.restart()
    assert (broker.port, broker.ws_port) == (port, ws_port) and broker.pid != first_pid
    display.wait_connects(2)

    broker.kill()  # a crash this time
    assert not broker.running
    broker.start()
    display.wait_connects(3)
    assert display.disconnects >= 2

    controller = mqtt_client(broker)
    controller.publish("tablectl/T1/state", "after the restarts")
    display.expect("tablectl/T1/state", "after the restarts")  # subscribed again


def test_retained_state_survives_a_restart_with_persistence(
    mosquitto_factory: Factory, mqtt_client: Client
) -> None:
    broker = mosquitto_factory(auth=False, persistence=True)
    mqtt_client(broker).publish("tablectl/T1/state", "kept", retain=True)
    broker.restart()
    display = mqtt_client(broker)
    display.subscribe("tablectl/T1/state")
    assert display.expect("tablectl/T1/state").payload == b"kept"


def test_start_twice_is_refused(mosquitto: MosquittoBroker) -> None:
    with pytest.raises(BrokerError, match="already running"):
        mosquitto.start()


def test_the_package_names_both_brokers() -> None:
    import drivers.mqtt as mqtt

    assert mqtt.MosquittoBroker is MosquittoBroker and mqtt.BrokerError is BrokerError
    assert all(getattr(mqtt, name) is not None for name in mqtt.__all__)
    with pytest.raises(AttributeError):
        _ = mqtt.NoSuchThing  # type: ignore[attr-defined]
