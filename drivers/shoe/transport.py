"""Serial transport for card shoes: owns the port and a read thread, reconnects, never blocks.

It opens any pyserial URL (a device path, ``socket://host:port``, ``rfc2217://…``), feeds
what arrives to a pure codec together with the arrival time, hands every decoded event to a
callback in its own thread, writes back what the codec owes the shoe (acknowledgements),
and when the device goes away reports :class:`~drivers.shoe.events.Disconnected` and retries
with exponential back-off until it returns. Its status is a plain frozen record.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import serial
import serial.serialposix

from drivers.shoe.base import ShoeCodec
from drivers.shoe.events import Connected, CorruptMessage, Disconnected, Noise, ShoeEvent

__all__ = ["SerialTransport", "TransportStatus"]


@dataclass(frozen=True, slots=True)
class TransportStatus:
    """A snapshot of a transport: link state, last frame time and running counts."""

    port: str
    connected: bool = False
    running: bool = False
    connected_since: float | None = None
    last_frame_at: float | None = None
    frames: int = 0
    errors: int = 0
    reconnects: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    last_error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The status as a JSON-ready dict."""
        return {name: getattr(self, name) for name in self.__slots__}


class SerialTransport:
    """Reads a shoe on ``url`` in a thread and delivers decoded events to ``on_event``.

    ``on_event`` runs in the read thread: it may handle the event there (the running table
    journals and applies a card in this thread when it is idle) or wait until it is handled
    elsewhere; acknowledgements are written after it returns, so a shoe only forgets a
    record the consumer has taken. ``on_event`` returning ``False`` says it has not taken
    the event (the table stopped first): nothing that read brought is acknowledged, and the
    shoe sends it again to whoever reads it next. Times in the status are ``time.time()``
    seconds.
    """

    def __init__(
        self,
        url: str,
        codec: ShoeCodec,
        on_event: Callable[[ShoeEvent], bool | None],
        *,
        baudrate: int = 9600,
        reconnect: bool = True,
        backoff: tuple[float, float] = (0.05, 2.0),
        read_timeout: float = 0.05,
    ) -> None:
        self.url = url
        self.codec = codec
        self.on_event = on_event
        self.baudrate = baudrate
        self.reconnect = reconnect
        self.backoff = backoff
        self.read_timeout = read_timeout
        self._port: Any = None
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._status = TransportStatus(port=url)
        self._ever_connected = False
        self.finished = threading.Event()
        """Set when the read thread has ended (stopped, or the link closed without reconnect)."""

    # -- public API ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the read thread (it opens the port, retrying until it can)."""
        if self._thread is not None:
            raise RuntimeError("transport already started")
        self._stop.clear()
        self.finished.clear()
        self._update(running=True)
        self._thread = threading.Thread(target=self._run, name=f"shoe {self.url}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the read thread and close the port."""
        self._stop.set()
        port = self._port
        if port is not None:
            with contextlib.suppress(AttributeError, OSError, serial.SerialException):
                port.cancel_read()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)  # a consumer may stop the transport from its own callback
        self._close()
        self._update(running=False, connected=False)

    def status(self) -> TransportStatus:
        """The current status snapshot."""
        with self._lock:
            return self._status

    def send(self, data: bytes) -> bool:
        """Write ``data`` to the shoe now; ``False`` when the port is not open or fails."""
        port = self._port
        if port is None or not data:
            return False
        try:
            with self._write_lock:
                port.write(data)
        except (OSError, serial.SerialException) as error:
            self._count_error(f"write failed: {error}")
            return False
        self._bump(bytes_out=len(data))
        return True

    def __enter__(self) -> SerialTransport:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the read thread ----------------------------------------------------------------------

    def _update(self, **changes: Any) -> None:
        with self._lock:
            self._status = replace(self._status, **changes)

    def _bump(self, **deltas: int) -> None:
        with self._lock:
            status = self._status
            self._status = replace(status, **{k: getattr(status, k) + v for k, v in deltas.items()})

    def _count_error(self, message: str) -> None:
        with self._lock:
            status = self._status
            self._status = replace(status, errors=status.errors + 1, last_error=message)

    def _deliver(self, event: ShoeEvent) -> bool:
        """Hand ``event`` to the consumer; whether it was taken (see the class)."""
        try:
            return self.on_event(event) is not False
        except Exception as error:  # a consumer bug must not kill the reader
            self._count_error(f"event consumer raised {type(error).__name__}: {error}")
            return False  # nor may it acknowledge what nobody is known to have kept

    def _open(self) -> bool:
        try:
            port = serial.serial_for_url(
                self.url, baudrate=self.baudrate, timeout=self.read_timeout, write_timeout=1.0
            )
        except (OSError, ValueError, serial.SerialException) as error:
            self._update(last_error=f"cannot open {self.url}: {error}")
            return False
        self._port = port
        self._fd = port.fileno() if isinstance(port, serial.serialposix.Serial) else None
        self.codec.reset_link()
        reconnects = 1 if self._ever_connected else 0
        self._ever_connected = True
        with self._lock:
            status = self._status
            self._status = replace(
                status,
                connected=True,
                connected_since=time.time(),
                reconnects=status.reconnects + reconnects,
            )
        self._deliver(Connected(self.url))
        return True

    def _close(self) -> None:
        port, self._port = self._port, None
        self._fd = None
        if port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                port.close()

    def _run(self) -> None:
        delay = self.backoff[0]
        try:
            while not self._stop.is_set():
                if self._port is None:
                    if self._open():
                        delay = self.backoff[0]
                        continue
                    if not self.reconnect and not self._ever_connected:
                        self._deliver(Disconnected(self.url, self._status.last_error))
                        return
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.backoff[1])
                    continue
                if not self._read_once():
                    self._close()
                    self._update(connected=False)
                    if not self.reconnect:
                        return
        finally:
            self._update(running=False)
            self.finished.set()

    def _read_port(self, port: Any) -> bytes:
        """Whatever bytes the port has, waiting at most ``read_timeout`` for the first."""
        fd = self._fd
        if fd is None:  # sockets, RFC 2217 and the like: pyserial does the work
            data: bytes = port.read(max(1, port.in_waiting))
            return data
        # a local serial device or pseudo-terminal: one select and one read, the fast path
        ready, _, _ = select.select([fd], [], [], self.read_timeout)
        if not ready:
            return b""
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return b""
        if not data:
            raise serial.SerialException("the device returned no data (it was unplugged)")
        return data

    def _read_once(self) -> bool:
        """Read what is there and deliver it; ``False`` when the device went away."""
        port = self._port
        if port is None:  # closed by stop() from the consumer's callback
            return True
        try:
            data = self._read_port(port)
        except (OSError, TypeError, ValueError, serial.SerialException) as error:
            if self._stop.is_set():
                return True
            reason = str(error) or type(error).__name__
            self._count_error(reason)
            self._update(connected=False)  # before the consumer hears of it
            self._deliver(Disconnected(self.url, reason))
            return False
        if not data:
            return True
        now = time.monotonic()
        try:
            events = self.codec.feed(data, now)
        except Exception as error:  # a decoder bug must not end the reader in silence
            self.codec.reset_link()
            self.codec.take_output()  # acknowledging nothing of what that read brought
            reason = (
                f"the {type(self.codec).__name__} decoder failed on {len(data)} bytes "
                f"({type(error).__name__}: {error}); expected events or a report of damage"
            )
            self._update(last_error=reason)
            events = [CorruptMessage(reason, data[:40].hex(" "))]
        frames = 0
        errors = 0
        taken = True
        for event in events:
            if isinstance(event, Noise) or event.kind.value == "corrupt":
                errors += 1
            else:
                frames += 1
            taken = self._deliver(event) and taken
        with self._lock:
            status = self._status
            self._status = replace(
                status,
                bytes_in=status.bytes_in + len(data),
                frames=status.frames + frames,
                errors=status.errors + errors,
                last_frame_at=time.time() if frames else status.last_frame_at,
            )
        owed = self.codec.take_output()
        if owed and taken:
            self.send(owed)
        return True
