import json
import os
import socket
import threading
import time
from pathlib import Path

from controller.cards import Card
from drivers.shoe import make_codec
from drivers.shoe.events import CardRead, Connected, Disconnected, ShoeEvent
from drivers.shoe.framed import (
    FrameSplitter,
    MessageType,
    card_payload,
    encode_frame,
    hello_payload,
)
from drivers.shoe.transport import SerialTransport
from tests.drivers.shoe_support import make_pty, wait_for


def of_kind(events: list[ShoeEvent], kind: type) -> list[ShoeEvent]:
    return [e for e in list(events) if isinstance(e, kind)]


def test_reconnects_when_the_device_path_vanishes_and_returns(tmp_path: Path) -> None:
    link = tmp_path / "ttyShoe"
    master = make_pty(link)
    events: list[ShoeEvent] = []
    transport = SerialTransport(str(link), make_codec("uspc"), events.append, backoff=(0.01, 0.05))
    with transport:
        assert wait_for(lambda: of_kind(events, Connected))
        os.write(master, b" [Game]<Card:4S> ")
        assert wait_for(lambda: of_kind(events, CardRead))
        os.unlink(link)  # the cable is pulled
        os.close(master)
        assert wait_for(lambda: of_kind(events, Disconnected))
        assert not transport.status().connected
        time.sleep(0.15)  # the transport keeps retrying while the path is gone
        assert transport.status().reconnects == 0
        master = make_pty(link)  # ... and plugged back in, as a new device
        assert wait_for(lambda: len(of_kind(events, Connected)) == 2)
        os.write(master, b" [Game]<Card:5H> ")
        assert wait_for(lambda: len(of_kind(events, CardRead)) == 2)
        status = transport.status()
    os.close(master)
    assert [e.card for e in of_kind(events, CardRead)] == [Card.parse("4S"), Card.parse("5H")]  # type: ignore[attr-defined]
    assert status.connected and status.reconnects == 1 and status.frames == 2
    assert status.last_frame_at is not None and status.errors >= 1
    assert json.loads(json.dumps(status.to_dict()))["reconnects"] == 1
    assert not transport.status().running


def test_socket_url_decodes_and_acknowledges() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    events: list[ShoeEvent] = []
    transport = SerialTransport(f"socket://127.0.0.1:{port}", make_codec("framed"), events.append)
    with transport:
        server.settimeout(5)
        conn, _ = server.accept()
        conn.settimeout(5)
        assert wait_for(lambda: of_kind(events, Connected))  # opening flushes what came before
        conn.sendall(
            encode_frame(1, MessageType.HELLO, hello_payload(1, 3, "M", "SN1", "1"))
            + encode_frame(2, MessageType.CARD, card_payload(2, Card.parse("JC"), 80))
        )
        assert wait_for(lambda: of_kind(events, CardRead))
        acks = b""
        while len(FrameSplitter().feed(acks)) < 2:
            acks += conn.recv(100)
        frames = FrameSplitter().feed(acks)
        assert [f.payload for f in frames] == [b"\x00\x01", b"\x00\x02"]  # type: ignore[union-attr]
        conn.close()
        assert wait_for(lambda: of_kind(events, Disconnected))
    server.close()


def test_a_failing_consumer_does_not_stop_the_reader(tmp_path: Path) -> None:
    link = tmp_path / "tty"
    master = make_pty(link)
    seen: list[ShoeEvent] = []

    def consumer(event: ShoeEvent) -> None:
        seen.append(event)
        if isinstance(event, CardRead) and event.card == Card.parse("2C"):
            raise RuntimeError("consumer bug")

    transport = SerialTransport(str(link), make_codec("uspc"), consumer)
    with transport:
        assert wait_for(lambda: of_kind(seen, Connected))
        os.write(master, b"<Card:2C><Card:3C>")
        assert wait_for(lambda: len(of_kind(seen, CardRead)) == 2)
        status = transport.status()
    os.close(master)
    assert "consumer bug" in status.last_error and status.errors == 1


def test_without_reconnect_a_missing_device_ends_the_reader(tmp_path: Path) -> None:
    events: list[ShoeEvent] = []
    transport = SerialTransport(
        str(tmp_path / "absent"), make_codec("jsonl"), events.append, reconnect=False
    )
    transport.start()
    assert transport.finished.wait(5)
    transport.stop()
    assert isinstance(events[0], Disconnected) and "absent" in events[0].reason


def test_stop_is_prompt_while_waiting_for_data(tmp_path: Path) -> None:
    link = tmp_path / "tty"
    master = make_pty(link)
    transport = SerialTransport(str(link), make_codec("framed"), lambda e: None)
    transport.start()
    assert wait_for(lambda: transport.status().connected)
    started = time.monotonic()
    transport.stop()
    assert time.monotonic() - started < 1.0
    assert not any(t.name.startswith("shoe ") and t.is_alive() for t in threading.enumerate())
    os.close(master)


def test_the_consumer_may_stop_the_transport_from_its_callback(tmp_path: Path) -> None:
    link = tmp_path / "tty"
    master = make_pty(link)
    holder: list[SerialTransport] = []

    def consumer(event: ShoeEvent) -> None:
        if isinstance(event, CardRead):
            holder[0].stop()

    transport = SerialTransport(str(link), make_codec("uspc"), consumer)
    holder.append(transport)
    transport.start()
    assert wait_for(lambda: transport.status().connected)
    os.write(master, b"<Card:2C>")
    assert transport.finished.wait(5)
    assert not transport.status().running
    os.close(master)
