"""Wiring one table from its configuration file: journal, shoe, MQTT link, service.

:class:`RunningTable` is what ``tablectl run`` and ``tablectl demo`` start: it recovers the
table from its journal (or starts a new journal), opens the shoe (a serial port, or the
simulator on a pseudo-terminal), connects to the broker with a retained will (and once more
for the dealer's and the pit's commands alone), and runs the
:class:`~tablectl.service.TableService` until it is stopped.
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any

from config.camera import ZoneLayout, is_shipped_zones, table_layout
from config.tables import NoShoe, SerialShoe, SimulatedShoe, TableFile
from controller.crosscheck import CrossCheck, card_faces
from controller.errors import ConfigError, ProfileError
from controller.games import Seating
from controller.rate import CommandRate
from controller.topics import Topics
from controller.views import Projector
from drivers.camera.capture import VideoCaptureSource
from drivers.camera.profile import Profile, load_profile
from drivers.camera.recognizer import Recognizer
from drivers.camera.watcher import CameraWatcher
from drivers.mqtt.client import BrokerAddress, MqttLink
from drivers.shoe import load_deck_map, make_codec
from drivers.shoe.events import Connected, Disconnected, DuplicateDropped
from drivers.shoe.framed import FramedHostCodec, MessageType
from drivers.shoe.transport import SerialTransport
from drivers.storage.births import BirthCounter
from drivers.storage.sqlite_journal import SqliteJournal
from simulators.camera.live import TableCamera
from simulators.shoe.shoe import ShoeSimulator
from tablectl.runtime import TableRunner, config_from_header, header_record
from tablectl.service import Inbound, TableService

__all__ = ["RunningTable"]


class RunningTable:
    """One configured table, started and stopped as a whole."""

    def __init__(
        self,
        config: TableFile,
        base: Path,
        address: BrokerAddress,
        *,
        client_id: str | None = None,
        clock: Any = None,
    ) -> None:
        self.config = config
        t = config.table
        # everything that can be refused is checked before a file is opened
        self.base = base
        self.layout = self._zones() if config.camera.enabled else None
        self.profile = self._profile() if config.camera.enabled else None
        journal_key = t.journal_key(base)
        self.journal_path = Path(self._from_config(t.journal))
        self.journal_path.parent.mkdir(parents=True, exist_ok=True)
        self.topics = Topics(t.id)
        # the projector remembers what its views need (the last round, the settlements) from
        # the same single replay that rebuilds the table
        projector = Projector(self.topics)
        self.runner = self._open_journal(projector, journal_key)
        self.births = BirthCounter(self.journal_path)
        kwargs: dict[str, Any] = {
            "gate": self._gate,
            "births": self.births.next,
            "hardware_every": t.hardware_refresh_seconds,
        }
        if clock is not None:
            kwargs["clock"] = clock
        self.simulator: Any = None
        self.transport: Any = None
        self.codec: Any = None
        shoe = config.shoe
        kwargs["halts_on_shoe_loss"] = (
            not isinstance(shoe, NoShoe) and getattr(shoe, "dialect", "framed") != "framed"
        )
        kwargs["seat_rate"] = CommandRate(t.seat_commands_per_second, t.seat_command_burst)
        kwargs["seats"] = t.seats or None
        self.service = TableService(self.runner, projector=projector, **kwargs)
        projector.hardware = self.service.hardware
        self.service.projector.yellow_seconds = t.yellow_seconds
        self.service.status["camera"] = {"enabled": config.camera.enabled}
        self.camera: TableCamera | None = None  # the simulated camera, when configured
        self.watcher: CameraWatcher | None = None
        if self.layout is not None:
            self.service.crosscheck = CrossCheck(self.layout.positions())
        client_id = client_id or f"tablectl-{t.id}"
        self.link = MqttLink(
            address,
            client_id,
            subscriptions=self.topics.seat_subscriptions,
            will=(self.topics.status, b"offline"),
            on_connected=self.service.on_connected,
            on_disconnected=self.service.on_disconnected,
            on_message=self.service.on_message,
            on_retained=self.service.on_retained,
        )
        # the dealer's and the pit's commands on a connection of their own: the broker drops
        # what comes past a connection's queue, and a seat's flood fills the link's queue
        self.staff_link = MqttLink(
            address,
            f"{client_id}-staff",
            subscriptions=self.topics.staff_subscriptions,
            on_message=self.service.on_message,
            on_retained=self.service.on_retained,
        )
        self.service.publisher = self.link

    def _open_journal(self, projector: Projector, key: bytes | None) -> TableRunner:
        """The table's journal, replayed (or started), its head sealed with ``key``."""
        t = self.config.table
        path = self.journal_path
        if path.exists() and _rows(path):
            runner = TableRunner.recover(
                path, sync=t.journal_sync, observe=projector.observe, key=key
            )
            header = next(iter(runner.journal.entries())).record
            have = (header.get("table_id"), header.get("game"))
            if have != (t.id, t.game.value):
                runner.close()
                raise ConfigError(
                    f"{path}: the journal is of table {have[0]} playing {have[1]}, but the "
                    f"config says table {t.id} playing {t.game.value}: start a new journal"
                )
            return runner
        header = header_record(
            t.id, t.game.value, t.seating, t.hands,
            betting_seconds=t.betting_seconds, decision_seconds=t.decision_seconds,
            confirm_payments=t.confirm_payments, balances=t.balances,
        )  # fmt: skip
        config_from_header(header, str(path))  # the config must build before a row is written
        return TableRunner.create(path, header, time.time(), sync=t.journal_sync, key=key)

    # ------------------------------------------------------------------ the shoe

    def _shoe_event(self, event: Any) -> bool:
        """Hand a shoe event to the table; whether the table took it (journaled it).

        Handled in the shoe's read thread when the table is idle: a card is journaled,
        applied and published with no hand-over. When the table is busy the event waits its
        turn and this thread waits with it, so the shoe is acknowledged only for what the
        journal holds, on every path; should the table stop first, nothing is acknowledged
        and the shoe sends it again after the restart.
        """
        inbound = Inbound("shoe", item=event, done=threading.Event())
        try:
            if self.service.offer(inbound):
                return True
        except Exception:  # the table stopped on it (its reason is in service.error)
            return False
        done = inbound.done
        assert done is not None
        while not done.wait(0.05):  # set once the table handled it: the journal holds it
            if not self.service.running:
                return False
        return True

    def _gate(self, locked: bool) -> None:
        """Shut the shoe's gate, or open it for one card (the table opens it again for the
        next card once it has taken this one, so no card can slip out after the last one
        due, however fast the shoe deals)."""
        if self.transport is not None and isinstance(self.codec, FramedHostCodec):
            self.transport.send(
                self.codec.command(MessageType.LOCK)
                if locked
                else self.codec.command(MessageType.UNLOCK, count=1)
            )
        elif self.simulator is not None:
            # a shoe of the ASCII or RFID dialects has no gate: its simulator stands in for
            # the dealer too, who draws a card only when one is due
            self.simulator.gate(locked, None if locked else 1)

    def _shoe_status(self) -> None:
        """The shoe's link status and its codec's counts (``stats``: every message dropped
        as a repeat counts in ``duplicates``), for the dealer's and the pit's consoles."""
        if self.transport is not None:
            status = {**self.transport.status().to_dict(), **self._shoe_figures()}
            self.service.put(Inbound("hardware", item=("shoe", status)))

    def _shoe_figures(self) -> dict[str, Any]:
        """The shoe's running counts as they stand, for the consoles' every state (its link's
        state, connected or not, is told as it changes: :meth:`_shoe_status`)."""
        if self.transport is None:
            return {}
        status = self.transport.status()
        return {
            "frames": status.frames,
            "errors": status.errors,
            "reconnects": status.reconnects,
            "last_frame_at": status.last_frame_at,
            "stats": self.codec.stats.as_dict(),
        }

    def _start_shoe(self) -> None:
        shoe = self.config.shoe
        if isinstance(shoe, NoShoe):
            return
        deck = self.runner.state.config.game.info.deck
        if isinstance(shoe, SimulatedShoe):
            self.simulator = ShoeSimulator(
                shoe.dialect, link="pty", seed=shoe.seed, rate=shoe.rate, faults=shoe.faults,
                deck=deck, locked=True, endless=True,
            )  # fmt: skip
            url, dialect, baud, deck_map = self.simulator.start(), shoe.dialect, 115200, None
        else:
            assert isinstance(shoe, SerialShoe)
            url, dialect, baud = shoe.port, shoe.dialect, shoe.baud
            deck_map = load_deck_map(shoe.deck_map) if shoe.deck_map else None
        self.codec = make_codec(dialect, deck_map)
        # a shoe on a port outlives this process: go on from the last card the journal kept
        # (the simulator in this process started afresh with it, and has nothing to resend)
        if isinstance(self.codec, FramedHostCodec) and isinstance(shoe, SerialShoe):
            last = self.runner.journal.last_of("card_drawn")
            if last is not None and last.get("boot") is not None and last.get("read"):
                self.codec.resume(int(last["boot"]), int(last["read"]))

        def deliver(event: Any) -> bool:
            taken = self._shoe_event(event)
            if isinstance(event, DuplicateDropped):  # nothing is dropped without a count shown
                self._shoe_status()
            if isinstance(event, Connected | Disconnected):
                self._shoe_status()
                if isinstance(event, Connected):  # a shoe comes up unlocked: shut the gate
                    self._gate(self.runner.state.phase.value != "dealing")
            return taken

        self.transport = SerialTransport(url, self.codec, deliver, baudrate=baud)
        self.transport.start()
        self.service.live["shoe"] = self._shoe_figures

    # ------------------------------------------------------------------ the camera

    def _from_config(self, name: str) -> str:
        """A file the table's configuration names (its journal, zones, profile): a relative
        path is from the config's folder, not from wherever the table was started."""
        return name if Path(name).is_absolute() else str(self.base / name)

    def _zones(self) -> ZoneLayout:
        t = self.config.table
        name = self.config.camera.zones
        if name is not None and not is_shipped_zones(name):
            name = self._from_config(name)
        try:
            return table_layout(name, t.seating is Seating.SHARED, t.hands)
        except ConfigError as error:
            raise ConfigError(f"camera.zones: {error}") from None

    def _profile(self) -> Profile | None:
        """The deck's profile the camera reads with (None: the built-in one), loaded before
        the table opens its journal: a profile missing or unreadable refuses the table."""
        name = self.config.camera.profile
        if name is None:
            return None
        try:
            return load_profile(self._from_config(name))
        except ProfileError as error:
            raise ConfigError(f"camera.profile: {error}") from None

    def _start_camera(self) -> None:
        camera = self.config.camera
        if self.layout is None or camera.source is None:
            return
        source: Any
        if camera.source == "simulated":
            self.camera = TableCamera(
                self.layout, lambda: card_faces(self.service.state), fps=camera.fps
            )
            source = self.camera
        else:
            source = VideoCaptureSource(camera.source)
        profile = self.profile
        self.watcher = CameraWatcher(
            source,
            Recognizer(profile, self.layout, deck=self.runner.state.config.game.info.deck),
            lambda observation: self.service.put(Inbound("camera", item=observation)),
            lambda status: self.service.put(Inbound("hardware", item=("camera", status))),
            stable_frames=camera.stable_frames,
            lost_after=max(2.0, 3 / camera.fps),
            name=f"camera {self.config.table.id}",
            source_name=camera.source,
        )
        self.watcher.start()
        self.service.live["camera"] = self.watcher.figures

    # ------------------------------------------------------------------ control

    def start(self) -> None:
        """Start the table thread, the shoe and the broker link."""
        self.service.start()
        self._start_shoe()
        self._start_camera()
        self.link.start()
        self.staff_link.start()

    def stop(self) -> None:
        """Stop cleanly: mark the table offline, close the shoe, the link and the journal."""
        self.service.stop()
        self.staff_link.stop()
        self.link.stop(farewell=(self.topics.status, b"offline"))
        if self.watcher is not None:
            self.watcher.stop()
        if self.transport is not None:
            self.transport.stop()
        if self.simulator is not None:
            with contextlib.suppress(Exception):
                self.simulator.stop()
        self.births.close()
        self.runner.close()


def _rows(path: Path) -> int:
    """How many rows the journal at ``path`` holds (the file is closed again)."""
    with contextlib.closing(SqliteJournal(path)) as journal:
        return len(journal)
