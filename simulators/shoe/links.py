"""The simulated shoe's end of the wire: a real pseudo-terminal or a loopback TCP port.

Each link can vanish and return (the USB cable pulled and plugged back), knows whether a
host is attached, and never blocks for long.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import shutil
import socket
import sys
import tempfile
import termios
import time
import tty
from typing import Protocol

from controller.errors import DeviceError, InvalidSpec

__all__ = ["Link", "PtyLink", "TcpLink", "make_link"]


class Link(Protocol):
    """The simulator's side of a serial line."""

    @property
    def device(self) -> str:
        """What the host opens: a device path or a ``socket://`` URL."""
        ...

    def open(self) -> None:
        """Create the device."""
        ...

    def attached(self) -> bool:
        """Whether a host has the device open."""
        ...

    def read(self, timeout: float) -> bytes:
        """Bytes from the host, waiting at most ``timeout`` seconds; empty when none."""
        ...

    def write(self, data: bytes) -> bool:
        """Send ``data``; ``False`` when no host took it."""
        ...

    def drain(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until the host has read what was sent."""
        ...

    def vanish(self) -> None:
        """Make the device disappear (the host's reads fail, its path is gone)."""
        ...

    def close(self) -> None:
        """Remove the device for good."""
        ...


def _terminal_link(path: str) -> bool:
    """Whether ``path`` is a symlink into ``/dev`` (to a pseudo-terminal a simulator made)."""
    return os.path.islink(path) and os.readlink(path).startswith("/dev/")


class PtyLink:
    """A pseudo-terminal in raw mode, reached through a stable symlink."""

    def __init__(self, path: str | None = None) -> None:
        self._own_dir: str | None = None
        if path is None:
            self._own_dir = tempfile.mkdtemp(prefix="tablectl-shoe-")
            path = os.path.join(self._own_dir, "ttyShoe0")
        self.path = path
        self._master: int | None = None
        self.tty_name = ""

    @property
    def device(self) -> str:
        """The symlink to the current pseudo-terminal."""
        return self.path

    def open(self) -> None:
        """Create a raw pseudo-terminal and point the symlink at it."""
        master, slave = os.openpty()
        tty.setraw(slave)
        self.tty_name = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(master, False)
        fcntl.fcntl(master, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
        self._master = master
        if os.path.lexists(self.path) and not _terminal_link(self.path):
            # a file, a folder or another link there is someone's: never replaced (and
            # removed at the end), as a file given by mistake once was
            os.close(master)
            self._master = None
            kind = "a folder" if os.path.isdir(self.path) else "a file that is no terminal's link"
            raise DeviceError(
                f"cannot create the shoe device {self.path}: expected a new name (or the link "
                f"to a terminal a simulator made there before); got {kind}, left as it is"
            )
        temporary = f"{self.path}.{os.getpid()}.new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        try:
            os.symlink(self.tty_name, temporary)
            os.replace(temporary, self.path)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise DeviceError(f"cannot create the shoe device {self.path}: {error}") from None

    def attached(self) -> bool:
        """A host holds the terminal open (no hang-up on the master side)."""
        if self._master is None:
            return False
        poller = select.poll()
        poller.register(self._master, select.POLLHUP)
        return not any(mask & select.POLLHUP for _, mask in poller.poll(0))

    def read(self, timeout: float) -> bytes:
        """Read what the host wrote."""
        master = self._master
        if master is None:
            time.sleep(timeout)
            return b""
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(master, 4096)
        except OSError as error:
            if error.errno in (errno.EIO, errno.EAGAIN):  # no host attached
                time.sleep(min(timeout, 0.01))
                return b""
            raise

    def write(self, data: bytes) -> bool:
        """Write to the terminal; bytes the buffer cannot take within a second are lost."""
        master = self._master
        if master is None:
            return False
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view:
            try:
                sent = os.write(master, view)
            except BlockingIOError:
                sent = 0
            except OSError:
                return False
            view = view[sent:]
            if view:
                if time.monotonic() > deadline:
                    return False
                select.select([], [master], [], 0.05)
        return True

    def drain(self, timeout: float) -> None:
        """Wait until the host's side of the terminal holds no unread byte."""
        if self._master is None or not self.tty_name:
            return
        try:
            slave = os.open(self.tty_name, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            deadline = time.monotonic() + timeout
            empty = 0
            while time.monotonic() < deadline and empty < 3:
                time.sleep(0.005)  # bytes pass the terminal's flip buffer before they count
                unread = fcntl.ioctl(slave, termios.TIOCINQ, b"\0\0\0\0")
                empty = empty + 1 if int.from_bytes(unread, sys.byteorder) == 0 else 0
        finally:
            os.close(slave)

    def vanish(self) -> None:
        """Close the terminal and remove the symlink (only a link to a terminal)."""
        if _terminal_link(self.path):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
        if self._master is not None:
            os.close(self._master)
            self._master = None

    def close(self) -> None:
        """Vanish and clean up the temporary directory."""
        self.vanish()
        if self._own_dir is not None:
            shutil.rmtree(self._own_dir, ignore_errors=True)


class TcpLink:
    """A TCP port on 127.0.0.1 that accepts one host at a time (``socket://`` for pyserial)."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._listener: socket.socket | None = None
        self._conn: socket.socket | None = None

    @property
    def device(self) -> str:
        """The pyserial URL of the port."""
        return f"socket://127.0.0.1:{self.port}"

    def open(self) -> None:
        """Listen on the loopback interface."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", self.port))
        except OSError as error:
            listener.close()
            raise DeviceError(f"cannot listen on 127.0.0.1:{self.port}: {error}") from None
        listener.listen(1)
        listener.setblocking(False)
        self.port = listener.getsockname()[1]
        self._listener = listener

    def attached(self) -> bool:
        """Accept a waiting host; whether one is connected."""
        if self._conn is None and self._listener is not None:
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, OSError):
                return False
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.settimeout(1.0)
            self._conn = conn
        return self._conn is not None

    def read(self, timeout: float) -> bytes:
        """Read what the host wrote."""
        conn = self._conn
        if conn is None:
            time.sleep(timeout)
            return b""
        ready, _, _ = select.select([conn], [], [], timeout)
        if not ready:
            return b""
        try:
            data = conn.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._drop_conn()
        return data

    def write(self, data: bytes) -> bool:
        """Send to the host."""
        if self._conn is None:
            return False
        try:
            self._conn.sendall(data)
        except OSError:
            self._drop_conn()
            return False
        return True

    def _drop_conn(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def drain(self, timeout: float) -> None:
        """Nothing to wait for: TCP delivers what was sent before the connection closes."""

    def vanish(self) -> None:
        """Close the connection and stop listening."""
        self._drop_conn()
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def close(self) -> None:
        """Stop for good."""
        self.vanish()


def make_link(spec: str) -> PtyLink | TcpLink:
    """A link from its spec: ``pty``, ``pty:PATH`` (symlink to create) or ``tcp:PORT``."""
    kind, _, arg = spec.partition(":")
    if kind == "pty":
        return PtyLink(arg or None)
    if kind == "tcp":
        try:
            port = int(arg or "0")
        except ValueError:
            port = -1
        if not 0 <= port <= 65535:
            raise InvalidSpec(f"link {spec!r}: expected tcp:PORT with PORT from 0 to 65535")
        return TcpLink(port)
    raise InvalidSpec(f"link {spec!r}: expected pty, pty:PATH or tcp:PORT")
