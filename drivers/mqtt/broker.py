"""Mosquitto as a child process: the shipped config on free loopback ports, for tests and tools.

:class:`MosquittoBroker` derives a config from ``config/mosquitto/mosquitto.conf`` (the one an
operator installs), with the listeners moved to free ports on 127.0.0.1, starts ``mosquitto -c``,
waits until every listener accepts connections, and stops or restarts it on the same ports.
When Mosquitto refuses to start, the error carries the tail of its log.

The same module writes the shipped access-control list (:func:`render_acl`) so the file and
the users it names cannot drift apart: ``python -m drivers.mqtt.broker acl --seats 1-9``.
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from controller.errors import TableError

__all__ = [
    "DEV_SEATS",
    "DEV_USERS",
    "HOST",
    "BrokerError",
    "MosquittoBroker",
    "MosquittoNotFound",
    "dev_password",
    "find_mosquitto",
    "free_port",
    "render_acl",
    "render_config",
    "seat_user",
    "shipped_config_dir",
]

HOST = "127.0.0.1"
"""Every broker this module starts listens on loopback only."""

SBIN_DIRS = ("/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin")
"""Where distributions put the broker when it is not on a user's PATH."""

DEV_SEATS: tuple[str, ...] = tuple(str(n) for n in range(1, 10))
"""The seats the shipped password and ACL files know: seat users ``seat-1`` to ``seat-9``."""

ROLES: tuple[str, ...] = ("controller", "display", "dealer", "pit")
"""The users that are not seats."""


def seat_user(seat: str | int) -> str:
    """The broker user name of a seat.

    >>> seat_user(3)
    'seat-3'
    """
    return f"seat-{seat}"


def dev_password(user: str) -> str:
    """The development password of a shipped user (never use these on a real table).

    >>> dev_password("seat-3")
    'seat-3-dev'
    """
    return f"{user}-dev"


DEV_USERS: dict[str, str] = {
    user: dev_password(user) for user in (*ROLES, *(seat_user(s) for s in DEV_SEATS))
}
"""Every user of the shipped ``passwd`` file with its development-only password."""


class BrokerError(TableError, RuntimeError):
    """A broker that cannot be found, configured, started or stopped; the message says why."""


class MosquittoNotFound(BrokerError, FileNotFoundError):
    """The ``mosquitto`` executable is not installed."""


def shipped_config_dir() -> Path:
    """The directory of the shipped broker config (``mosquitto.conf``, ``passwd``, ``acl``)."""
    return Path(str(importlib.resources.files("config"))) / "mosquitto"


def find_mosquitto(binary: str | os.PathLike[str] | None = None) -> Path:
    """The Mosquitto executable: ``binary`` if given, else ``mosquitto`` on PATH or in an sbin."""
    if binary is not None:
        path = Path(binary)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise MosquittoNotFound(f"mosquitto: {path} is not an executable file")
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path=os.pathsep.join(SBIN_DIRS))
    if found is None:
        raise MosquittoNotFound(
            "mosquitto is not installed (looked on PATH and in "
            + ", ".join(SBIN_DIRS)
            + "): install it with `apt-get install mosquitto` (Debian, Ubuntu) or "
            "`brew install mosquitto` (macOS), or use the embedded broker"
        )
    return Path(found)


def free_port(host: str = HOST) -> int:
    """A TCP port on ``host`` that nothing listens on at the moment of asking."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


# --------------------------------------------------------------------------- ACL


_SEAT_ID = re.compile(r"[A-Za-z0-9_]+")
_PUBLIC = ("status", "state", "events")


def render_acl(seats: Iterable[str | int] = DEV_SEATS) -> str:
    """The Mosquitto ``acl_file`` for the roles and the given seats.

    Seat users are named ``seat-<id>`` while their topics use the bare id
    (``tablectl/<table>/seat/<id>/...``), so ``%u`` patterns cannot express them: each
    seat gets its own block. Anything not granted is denied.

    >>> print(render_acl(["3"]).split("user seat-3", 1)[1].strip())
    topic read tablectl/+/status
    topic read tablectl/+/state
    topic read tablectl/+/events
    topic read tablectl/+/seat/3/state
    topic read tablectl/+/seat/3/events
    topic read tablectl/+/seat/3/reply
    topic write tablectl/+/seat/3/cmd
    topic readwrite tablectl/+/seat/3/presence
    topic write tablectl/+/rebirth
    """
    seat_ids = [str(s) for s in seats]
    for seat in seat_ids:
        if not _SEAT_ID.fullmatch(seat):
            raise BrokerError(f"a seat id is letters, digits and '_' only; got {seat!r}")
    if len(set(seat_ids)) != len(seat_ids):
        raise BrokerError(f"seat ids repeat: {seat_ids}")

    public = [f"topic read tablectl/+/{name}" for name in _PUBLIC]
    rebirth = "topic write tablectl/+/rebirth"
    blocks: list[tuple[str, str, list[str]]] = [
        (
            "controller",
            "The table controller publishes every topic and reads every command.",
            ["topic readwrite tablectl/#"],
        ),
        (
            "display",
            "Player displays read the public topics and may ask for a rebirth.",
            [*public, rebirth],
        ),
        (
            "dealer",
            "The dealer console: public topics, its own state and replies, dealer commands.",
            [
                *public,
                "topic read tablectl/+/dealer/state",
                "topic read tablectl/+/dealer/events",
                "topic read tablectl/+/dealer/reply",
                "topic write tablectl/+/dealer/cmd",
                rebirth,
            ],
        ),
        (
            "pit",
            "The pit manager: public topics, the pit topics (everything, alerts), pit commands.",
            [
                *public,
                *(
                    f"topic read tablectl/+/pit/{name}"
                    for name in ("state", "events", "alerts", "journal")
                ),
                "topic read tablectl/+/pit/reply",
                "topic write tablectl/+/pit/cmd",
                rebirth,
            ],
        ),
    ]
    for seat in seat_ids:
        blocks.append(
            (
                seat_user(seat),
                f"Seat {seat}: public topics, its own private topics, its own commands.",
                [
                    *public,
                    *(
                        f"topic read tablectl/+/seat/{seat}/{name}"
                        for name in ("state", "events", "reply")
                    ),
                    f"topic write tablectl/+/seat/{seat}/cmd",
                    # the seat's client sets it online and its will sets it offline
                    f"topic readwrite tablectl/+/seat/{seat}/presence",
                    rebirth,
                ],
            )
        )
    lines = [
        "# tablectl broker access control (Mosquitto acl_file); docs/broker.md explains it.",
        "# Generated: python -m drivers.mqtt.broker acl --seats "
        + _describe_seats(seat_ids)
        + " > config/mosquitto/acl",
        "# Anything not granted here is denied; anonymous clients are refused by the config.",
    ]
    for user, comment, grants in blocks:
        lines += ["", f"# {comment}", f"user {user}", *grants]
    return "\n".join(lines) + "\n"


def _describe_seats(seats: Sequence[str]) -> str:
    """``1-9`` for a run of numbers from 1, else the ids separated by commas.

    >>> _describe_seats(["1", "2", "3"]), _describe_seats(["2", "a"])
    ('1-3', '2,a')
    """
    if seats and seats == [str(n) for n in range(1, len(seats) + 1)]:
        return f"1-{len(seats)}"
    return ",".join(seats)


def _parse_seats(text: str) -> list[str]:
    """Seat ids from ``1-9`` or ``1,2,vip``.

    >>> _parse_seats("1-3"), _parse_seats("1,5,vip")
    (['1', '2', '3'], ['1', '5', 'vip'])
    """
    if m := re.fullmatch(r"(\d+)-(\d+)", text):
        return [str(n) for n in range(int(m[1]), int(m[2]) + 1)]
    return [s for s in text.split(",") if s]


# ------------------------------------------------------------------------ config


@dataclass(frozen=True)
class _Listener:
    """One ``listener`` block of a Mosquitto config."""

    port: int
    protocol: str  # "mqtt" or "websockets"


def _listeners(text: str) -> list[_Listener]:
    """The listeners of a config text, in order."""
    found: list[_Listener] = []
    for key, args in _directives(text):
        if key == "listener":
            found.append(_Listener(int(args.split()[0]), "mqtt"))
        elif key == "protocol" and found:
            found[-1] = _Listener(found[-1].port, args.strip())
    return found


def _directives(text: str) -> list[tuple[str, str]]:
    """``(key, rest)`` for each non-comment line."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            key, _, rest = line.partition(" ")
            out.append((key, rest.strip()))
    return out


_DROPPED = {
    # our own choices replace these
    "listener",
    "bind_address",
    "bind_interface",
    "socket_domain",
    "port",
    "protocol",
    "password_file",
    "acl_file",
    "allow_anonymous",
    "persistence",
    "persistence_location",
    "persistence_file",
    "log_dest",
    "log_type",
    "pid_file",
    "user",
    # the machine's own settings must not leak into a test broker
    "include_dir",
}


def render_config(
    shipped: str,
    *,
    port: int,
    ws_port: int,
    workdir: Path,
    auth: bool = True,
    persistence: bool = False,
    run_as_root: bool = False,
) -> str:
    """A config for a local broker derived from the ``shipped`` text.

    Every setting of the shipped file is kept but the listeners (moved to ``port`` and
    ``ws_port`` on 127.0.0.1), the files (``passwd`` and ``acl`` in ``workdir``), persistence
    (off, or in ``workdir``), logging (to standard error) and the user to run as. With
    ``auth=False`` the broker is open: anonymous clients, no ACL.
    """
    listeners = _listeners(shipped)
    kinds = [listener.protocol for listener in listeners]
    if sorted(kinds) != ["mqtt", "websockets"]:
        raise BrokerError(
            "the shipped mosquitto.conf must have one MQTT and one WebSocket listener; "
            f"it has {kinds or 'none'}"
        )
    kept = [f"{key} {rest}".rstrip() for key, rest in _directives(shipped) if key not in _DROPPED]
    lines = [
        "# Derived from the shipped config by drivers.mqtt.broker for a local broker.",
        *kept,
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "log_type information",
        "log_timestamp_format %H:%M:%S",
    ]
    if run_as_root:
        # Mosquitto started as root drops to the user "mosquitto", which cannot read
        # the 0600 copies of the password and ACL files made for this broker.
        lines.append("user root")
    if persistence:
        lines += ["persistence true", f"persistence_location {workdir}/"]
    else:
        lines.append("persistence false")
    if auth:
        lines += [
            "allow_anonymous false",
            f"password_file {workdir / 'passwd'}",
            f"acl_file {workdir / 'acl'}",
        ]
    else:
        lines.append("allow_anonymous true")
    lines += [
        "",
        f"listener {port} {HOST}",
        "protocol mqtt",
        "",
        f"listener {ws_port} {HOST}",
        # without it the WebSocket listener of Mosquitto 2.0 binds every interface
        "socket_domain ipv4",
        "protocol websockets",
    ]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------- process


class MosquittoBroker:
    """A Mosquitto child process on free 127.0.0.1 ports, with the shipped config or open.

    ``auth=True`` (the default) uses the shipped password and ACL files (users in
    :data:`DEV_USERS`); ``auth=False`` lets anonymous clients do anything. Ports left at 0
    are chosen at :meth:`start` and kept, so :meth:`restart` (or :meth:`stop` then
    :meth:`start`) comes back on the same ports, as a broker restarting in production would.

    >>> broker = MosquittoBroker(auth=False)
    >>> broker.running
    False
    """

    def __init__(
        self,
        *,
        auth: bool = True,
        port: int = 0,
        ws_port: int = 0,
        config_dir: str | os.PathLike[str] | None = None,
        workdir: str | os.PathLike[str] | None = None,
        persistence: bool = False,
        binary: str | os.PathLike[str] | None = None,
        start_timeout: float = 10.0,
    ) -> None:
        self.auth = auth
        self.persistence = persistence
        self.start_timeout = start_timeout
        self.config_dir = Path(config_dir) if config_dir is not None else shipped_config_dir()
        self._binary = binary
        self._port = port
        self._ws_port = ws_port
        self._given_workdir = Path(workdir) if workdir is not None else None
        self._workdir: Path | None = None
        self._owned_workdir: tempfile.TemporaryDirectory[str] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log_offset = 0
        self._finalizer: weakref.finalize[..., MosquittoBroker] | None = None

    # -- what a client needs

    @property
    def host(self) -> str:
        """The address every listener binds: 127.0.0.1."""
        return HOST

    @property
    def port(self) -> int:
        """The MQTT (TCP) port; 0 until the first start chose one."""
        return self._port

    @property
    def ws_port(self) -> int:
        """The MQTT-over-WebSocket port; 0 until the first start chose one."""
        return self._ws_port

    @property
    def url(self) -> str:
        """``mqtt://127.0.0.1:PORT``, the form ``--broker`` takes."""
        return f"mqtt://{HOST}:{self._port}"

    @property
    def ws_url(self) -> str:
        """``ws://127.0.0.1:PORT``, where browser displays connect."""
        return f"ws://{HOST}:{self._ws_port}"

    @property
    def running(self) -> bool:
        """True while the Mosquitto process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id of the running broker."""
        return self._process.pid if self.running and self._process else None

    @property
    def workdir(self) -> Path:
        """Where the derived config, the file copies and the log live."""
        if self._workdir is None:
            if self._given_workdir is not None:
                self._workdir = self._given_workdir
                self._workdir.mkdir(parents=True, exist_ok=True)
            else:
                self._owned_workdir = tempfile.TemporaryDirectory(prefix="tablectl-mosquitto-")
                self._workdir = Path(self._owned_workdir.name)
        return self._workdir

    @property
    def config_path(self) -> Path:
        """The derived config file passed to ``mosquitto -c``."""
        return self.workdir / "mosquitto.conf"

    @property
    def log_path(self) -> Path:
        """The broker's log (its standard error), appended to across restarts."""
        return self.workdir / "mosquitto.log"

    def log(self) -> str:
        """The log of the current (or last) run."""
        try:
            with self.log_path.open("rb") as f:
                f.seek(self._log_offset)
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    # -- life cycle

    def start(self) -> Self:
        """Start the broker and return when every listener accepts connections."""
        if self.running:
            raise BrokerError(f"mosquitto is already running (pid {self.pid}) on port {self.port}")
        binary = find_mosquitto(self._binary)
        # A port chosen here can be taken by someone else between asking and binding:
        # then try other ones. A port the caller gave is tried once.
        choose_port, choose_ws = self._port == 0, self._ws_port == 0
        attempts = 3 if choose_port and choose_ws else 1
        for attempt in range(attempts):
            if choose_port:
                self._port = free_port()
            if choose_ws:
                self._ws_port = free_port()
            try:
                self._launch(binary)
                return self
            except BrokerError:
                if attempt == attempts - 1 or "in use" not in self.log():
                    if choose_port:
                        self._port = 0
                    if choose_ws:
                        self._ws_port = 0
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the broker cleanly (SIGTERM, SIGKILL after ``timeout``); the ports are kept."""
        process, self._process = self._process, None
        if process is not None:
            _terminate(process, timeout)

    def kill(self) -> None:
        """Kill the broker with SIGKILL, as a crash or a power cut would."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def restart(self) -> Self:
        """Stop and start again on the same ports."""
        self.stop()
        return self.start()

    def close(self) -> None:
        """Stop the broker and remove the working directory this object created."""
        self.stop()
        if self._finalizer is not None:
            self._finalizer.detach()
        if self._owned_workdir is not None:
            self._owned_workdir.cleanup()
            self._owned_workdir = None
            self._workdir = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"running pid {self.pid}" if self.running else "stopped"
        return f"MosquittoBroker({self.url}, ws {self._ws_port}, auth={self.auth}, {state})"

    # -- internals

    def _write_files(self) -> None:
        """The derived config and private copies of the password and ACL files."""
        shipped = self.config_dir / "mosquitto.conf"
        try:
            text = shipped.read_text()
        except OSError as error:
            raise BrokerError(f"cannot read the broker config {shipped}: {error}") from None
        workdir = self.workdir
        if self.auth:
            for name in ("passwd", "acl"):
                source = self.config_dir / name
                target = workdir / name
                try:
                    data = source.read_bytes()
                except OSError as error:
                    raise BrokerError(f"cannot read {source}: {error}") from None
                _write_private(target, data)
        config = render_config(
            text,
            port=self._port,
            ws_port=self._ws_port,
            workdir=workdir,
            auth=self.auth,
            persistence=self.persistence,
            run_as_root=hasattr(os, "geteuid") and os.geteuid() == 0,
        )
        _write_private(self.config_path, config.encode())

    def _launch(self, binary: Path) -> None:
        self._write_files()
        with self.log_path.open("ab") as log:
            self._log_offset = log.tell()
            self._process = subprocess.Popen(
                [str(binary), "-c", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
            )
        if self._finalizer is not None:
            self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _terminate, self._process, 2.0)
        try:
            self._wait_ready()
        except BrokerError:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        """Return once both listeners accept connections; raise with the log if Mosquitto quits."""
        assert self._process is not None
        deadline = time.monotonic() + self.start_timeout
        waiting = [self._port, self._ws_port]
        while True:
            code = self._process.poll()
            if code is not None:
                raise BrokerError(
                    f"mosquitto exited with status {code} while starting on ports "
                    f"{self._port} and {self._ws_port}:\n{self.log().strip() or '(no log)'}"
                )
            waiting = [port for port in waiting if not _accepts(port)]
            if not waiting:
                return
            if time.monotonic() > deadline:
                raise BrokerError(
                    f"mosquitto did not listen on port(s) {waiting} within "
                    f"{self.start_timeout:g} s:\n{self.log().strip() or '(no log)'}"
                )
            time.sleep(0.01)


def _accepts(port: int) -> bool:
    """True if a TCP connection to 127.0.0.1:``port`` is accepted."""
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def _write_private(path: Path, data: bytes) -> None:
    """Write a file readable by its owner only (Mosquitto 2 warns about, then refuses, others)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(path, 0o600)


def _terminate(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM, then SIGKILL if the process outlives ``timeout``."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    """``acl``: print the ACL file; ``run``: run a local broker until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m drivers.mqtt.broker", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    acl = commands.add_parser("acl", help="print the ACL file for the given seats")
    acl.add_argument("--seats", default=_describe_seats(list(DEV_SEATS)), help="1-9 or 1,2,vip")
    run = commands.add_parser("run", help="run Mosquitto with the shipped config on local ports")
    run.add_argument("--open", action="store_true", help="anonymous clients, no ACL")
    run.add_argument("--port", type=int, default=0)
    run.add_argument("--ws-port", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "acl":
        sys.stdout.write(render_acl(_parse_seats(args.seats)))
        return 0
    with MosquittoBroker(auth=not args.open, port=args.port, ws_port=args.ws_port) as broker:
        print(f"mosquitto on {broker.url} and {broker.ws_url}; Ctrl-C stops it", flush=True)
        try:
            while broker.running:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        if not broker.running:
            print(broker.log(), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
