"""Many player displays in one thread: a casino floor of screens for load tests.

A real floor has hundreds of displays on one table's public topics. :class:`DisplaySwarm`
opens ``count`` MQTT 3.1.1 connections over plain sockets (no thread per client, as paho
would need), subscribes each to the same topics at QoS 1, acknowledges every message as a
display must, and reports each delivery with the time it was read off the socket. Wait
and loop bounds are explicit: a connection the broker does not accept in time is an error
that says which one and what arrived.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import struct
import threading
import time
from collections.abc import Callable, Sequence

from drivers.mqtt.embedded import encode_length

__all__ = ["DisplaySwarm", "SwarmError"]

_CONNACK, _PUBLISH, _PUBACK, _SUBACK = 2, 3, 4, 9

#: on_message(display index, topic, payload, arrival time in time.monotonic_ns())
OnMessage = Callable[[int, str, bytes, int], None]


class SwarmError(RuntimeError):
    """A display that could not connect or subscribe; the message says which and why."""


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def connect_packet(client_id: str, username: str | None, password: str | None) -> bytes:
    """CONNECT (MQTT 3.1.1, clean session, keep-alive off: the swarm lives for one run)."""
    flags = 0x02
    payload = _string(client_id)
    if username is not None:
        flags |= 0x80
        payload += _string(username)
        if password is not None:
            flags |= 0x40
            payload += _string(password)
    body = _string("MQTT") + bytes((4, flags)) + struct.pack(">H", 0) + payload
    return bytes((0x10,)) + encode_length(len(body)) + body


def subscribe_packet(packet_id: int, filters: Sequence[str], qos: int = 1) -> bytes:
    """SUBSCRIBE to ``filters`` at ``qos``."""
    body = struct.pack(">H", packet_id) + b"".join(_string(f) + bytes((qos,)) for f in filters)
    return bytes((0x82,)) + encode_length(len(body)) + body


def split_packets(buffer: bytearray) -> list[tuple[int, int, bytes]]:
    """Take every complete packet off the front of ``buffer``: (type, flags, body) each.

    >>> buffer = bytearray(b"\\x20\\x02\\x00\\x00\\x90")
    >>> split_packets(buffer), bytes(buffer)
    ([(2, 0, b'\\x00\\x00')], b'\\x90')
    """
    packets = []
    while len(buffer) >= 2:
        length, multiplier, at = 0, 1, 1
        while True:
            if at >= len(buffer):
                return packets
            byte = buffer[at]
            length += (byte & 0x7F) * multiplier
            multiplier *= 128
            at += 1
            if not byte & 0x80:
                break
            if at > 4:
                raise SwarmError("malformed remaining length from the broker")
        if len(buffer) < at + length:
            return packets
        first = buffer[0]
        packets.append((first >> 4, first & 0x0F, bytes(buffer[at : at + length])))
        del buffer[: at + length]
    return packets


class _Display:
    __slots__ = ("buffer", "index", "sock")

    def __init__(self, index: int, sock: socket.socket) -> None:
        self.index = index
        self.sock = sock
        self.buffer = bytearray()


class DisplaySwarm:
    """``count`` displays subscribed to ``filters``; each message goes to ``on_message``."""

    def __init__(
        self,
        host: str,
        port: int,
        count: int,
        filters: Sequence[str],
        on_message: OnMessage,
        *,
        username: str | None = None,
        password: str | None = None,
        prefix: str = "swarm",
    ) -> None:
        if count < 1:
            raise ValueError(f"a swarm needs at least one display, got {count}")
        self.host, self.port, self.count = host, port, count
        self.filters = list(filters)
        self.on_message = on_message
        self.username, self.password, self.prefix = username, password, prefix
        self.received = 0
        self._displays: list[_Display] = []
        self._selector = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Connect and subscribe every display, then read in one background thread."""
        deadline = time.monotonic() + timeout
        for index in range(self.count):
            sock = socket.create_connection((self.host, self.port), timeout=timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            display = _Display(index, sock)
            self._displays.append(display)
            sock.sendall(connect_packet(f"{self.prefix}-{index}", self.username, self.password))
            self._expect(display, _CONNACK, deadline)
            sock.sendall(subscribe_packet(1, self.filters))
            self._expect(display, _SUBACK, deadline)
            sock.settimeout(None)  # blocking: recv follows select, sendall writes every ack whole
            self._selector.register(sock, selectors.EVENT_READ, display)
        self._thread = threading.Thread(target=self._run, name="display swarm", daemon=True)
        self._thread.start()

    def _expect(self, display: _Display, kind: int, deadline: float) -> None:
        """Read until a packet of ``kind`` arrives; every other packet is delivered as usual."""
        while True:
            found = False
            for got, flags, body in split_packets(display.buffer):
                if got == kind and not found:
                    found = True
                    self._check_answer(display, kind, body)
                    continue
                ack = self._handle(display, got, flags, body, time.monotonic_ns())
                if ack:
                    display.sock.sendall(ack)
            if found:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise SwarmError(f"display {display.index}: no {kind=} packet from the broker")
            display.sock.settimeout(left)
            data = display.sock.recv(65536)
            if not data:
                raise SwarmError(f"display {display.index}: the broker closed the connection")
            display.buffer += data

    def _check_answer(self, display: _Display, kind: int, body: bytes) -> None:
        if kind == _CONNACK and body[1:2] != b"\x00":
            raise SwarmError(
                f"display {display.index}: the broker refused the connection "
                f"(CONNACK return code {body[1]}; expected 0)"
            )
        if kind == _SUBACK and 0x80 in body[2:]:
            raise SwarmError(f"display {display.index}: subscription to {self.filters} refused")

    def _handle(self, display: _Display, kind: int, flags: int, body: bytes, at: int) -> bytes:
        """Deliver one packet; the PUBACK it needs (empty if none)."""
        if kind != _PUBLISH:
            return b""
        size = struct.unpack_from(">H", body)[0]
        topic = body[2 : 2 + size].decode()
        start = 2 + size
        ack = b""
        if flags & 0x06:  # QoS 1: acknowledge, as a display does
            ack = b"\x40\x02" + body[start : start + 2]
            start += 2
        self.received += 1
        self.on_message(display.index, topic, body[start:], at)
        return ack

    def _run(self) -> None:
        while not self._stop.is_set():
            ready = self._selector.select(0.05)
            at = time.monotonic_ns()  # data ready now was there when select returned
            for key, _ in ready:
                display: _Display = key.data
                try:
                    data = display.sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._selector.unregister(display.sock)
                    continue
                display.buffer += data
                acks = b"".join(
                    self._handle(display, kind, flags, body, at)
                    for kind, flags, body in split_packets(display.buffer)
                )
                if acks:
                    with contextlib.suppress(OSError):  # a closed socket: nothing to acknowledge
                        display.sock.sendall(acks)

    def stop(self) -> None:
        """Disconnect every display and stop the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
        for display in self._displays:
            with contextlib.suppress(OSError):
                display.sock.sendall(b"\xe0\x00")  # DISCONNECT
            display.sock.close()
        self._selector.close()
