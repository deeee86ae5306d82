"""The running table: drivers in, the state machine in the middle, MQTT out (composition root).

One :class:`TableService` owns one table. Everything that happens to the table is handled
one input at a time, in the order it arrived: commands from the dealer console, the pit
manager and the seats (MQTT), cards and faults from the shoe, seats going offline, the
clock's deadlines, rebirth requests and the broker coming back. Inputs wait in one inbox for
the table's thread; a card offered while the table is idle (:meth:`TableService.offer`) is
handled at once in the shoe's own thread instead, which saves the card a thread hand-over
and still keeps the order (nothing else runs meanwhile). Each input that is an event is
journaled before it is applied (:class:`~tablectl.runtime.TableRunner`); the
:class:`~controller.views.Projector` turns the step into one message per audience.

What it survives: the broker restarting (it reconnects and republishes every state under a
new birth), its own death (``TableRunner.recover`` replays the journal once, for the table
and its projector, and the service halts a round that was in play, so the dealer checks the
layout before resuming or voiding it), the shoe unplugged and back (published as hardware
status and alerted to the pit in words, as the camera's loss and return are; a dialect
without sequence numbers halts dealing, because a card may have been read while it was
away).
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.camera import CameraObservation
from controller.crosscheck import CrossCheck
from controller.errors import TableError
from controller.events import (
    Action,
    CardDrawn,
    Event,
    Halt,
    SeatDisconnected,
    SeatReturned,
    Tick,
    event_to_json,
)
from controller.inbound import CommandRejected, parse_command
from controller.journal import Seal, record_text
from controller.rate import CommandRate, Taken
from controller.table import Phase, TableState, dealt_as
from controller.topics import Sender, Topics
from controller.views import DEALER, PIT, PUBLIC, Outgoing, Projector
from drivers.shoe.events import CardRead, Connected, Disconnected, DuplicateCard, must_halt
from drivers.storage.sqlite_journal import JournalError
from tablectl.answers import Answer, answer_of, refusal
from tablectl.hardware import camera_change, shoe_back, shoe_lost, shoe_lost_halt
from tablectl.runtime import TableRunner
from tablectl.shoe_reasons import shoe_reason
from tablectl.workers import shown

__all__ = ["Inbound", "Publisher", "TableService"]

_log = logging.getLogger(__name__)

STOP = "stop"


class Publisher(Protocol):
    """Where the service's messages go (the MQTT link, or a list in tests)."""

    def publish(self, topic: str, payload: bytes, *, retain: bool = False, qos: int = 1) -> bool:
        """Publish one message; False when it could not be sent."""
        ...

    def flush(self, timeout: float) -> bool:
        """Send what was published so far now, waiting at most ``timeout`` seconds; whether
        it was sent."""
        ...


@dataclass(frozen=True, slots=True)
class Inbound:
    """One input to the table's thread: ``kind`` and what it carries."""

    kind: (
        str  # command, retained (a kept command), shoe, camera, hardware, presence, rebirth,
        # (dis)connected, event, sync, stop
    )
    topic: str = ""
    payload: bytes = b""
    item: Any = None
    # set once the input has been handled (journaled, for an event): never for an input the
    # table stopped on, or did not reach before it stopped
    done: threading.Event | None = field(default=None, compare=False)
    result: list[Any] = field(default_factory=list, compare=False)


#: the audiences shown the hardware's status (the shoe, the camera, the broker, the journal)
STAFF = (DEALER, PIT)

#: the longest the table waits for its publisher to have sent a card's public event
HANDOVER_LIMIT_SECONDS = 0.002

#: how often the dealer's state is sent again where the hardware's figures changed since
#: the last state made (the camera's frames and reading times, the shoe's counts, the
#: journal's write times): they are taken as each state is made, so between rounds, with no
#: input to make one, the dealer's hardware panel would show them as at the last input.
#: The pit's console shows no such panel (the pit hears of the hardware by its alerts): its
#: state is not sent for these figures alone
HARDWARE_REFRESH_SECONDS = 5.0

#: the system clock moving this much more or less than the table's own running time
#: (the monotonic clock) between two looks is a step of it, told to the pit: the round's
#: timers run on the system clock (their deadlines are journaled, and survive a restart),
#: so a step moves them with it. Looks come with every input and every
#: HARDWARE_REFRESH_SECONDS; a time service slews small errors far slower than this
CLOCK_STEP_SECONDS = 2.0


class TableService:
    """One running table: a thread that journals and applies inputs, and publishes views."""

    def __init__(
        self,
        runner: TableRunner,
        publisher: Publisher | None = None,
        *,
        projector: Projector | None = None,
        clock: Callable[[], float] = time.time,
        gate: Callable[[bool], None] | None = None,
        halts_on_shoe_loss: bool = False,
        births: Callable[[], int] | None = None,
        crosscheck: CrossCheck | None = None,
        hardware_every: float | None = HARDWARE_REFRESH_SECONDS,
        seat_rate: CommandRate | None = None,
        seats: Collection[str] | None = None,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        self.runner = runner
        #: the table's own running time, to tell a step of ``clock`` by (the process's
        #: monotonic clock beside the system's; with another ``clock`` only where given)
        self.monotonic = monotonic or (time.monotonic if clock is time.time else None)
        self._clock_mark: tuple[float, float] | None = None  # (clock, monotonic) last looked
        #: how fast each seat's commands are taken (None: as fast as they come)
        self.seat_rate = seat_rate
        #: the table's seat ids, where it has a list of them (a studio's): commands and
        #: presence from any other seat id are ignored (None: every seat id is heard)
        self.seats = None if seats is None else frozenset(seats)
        self.refused_unread = 0  # seats' commands refused for coming too fast
        self.unknown_seats = 0  # commands and presence from seat ids the table does not have
        self._unknown_told = -math.inf  # when the pit last heard of an unknown seat id
        self.births = births
        self.crosscheck = crosscheck
        self.seen: CameraObservation | None = None  # the camera's latest stable view
        self.publisher = publisher
        self.topics = Topics(runner.state.config.table_id)
        self.projector = projector or Projector(self.topics, hardware=self.hardware)
        self.clock = clock
        self.gate = gate
        self.halts_on_shoe_loss = halts_on_shoe_loss
        self._inbox: deque[Inbound] = deque()
        self._turn = threading.Condition()  # guards the inbox and who is handling an input
        self._busy = False  # an input is being handled (by the table's thread or inline)
        self.inline = 0  # inputs handled at once in the thread that offered them
        self._stopping = False
        self.status: dict[str, Any] = {
            "shoe": {"connected": None},
            "camera": {"enabled": False},
            "broker": {"connected": False, "births": 0},
        }
        #: figures asked of a part whenever its status is shown, on top of what it last told
        #: (the shoe's and the camera's running counts, the camera's reading times)
        self.live: dict[str, Callable[[], dict[str, Any]]] = {}
        #: the hardware's figures as the last state made showed them, and when they are
        #: next compared with the parts' own (None: never; HARDWARE_REFRESH_SECONDS)
        self._hardware_shown: dict[str, Any] | None = None
        self.hardware_every = hardware_every
        self._hardware_due: float | None = None
        self._round_due: float | None = None  # the round's deadline the timer was set for
        self.published = 0
        self.rejected = 0
        self.faults = 0  # inputs whose handling raised outside the state machine
        self._applied: Event | None = None  # what the input being handled applied, if anything
        self._thread: threading.Thread | None = None
        self._last_rebirth = 0.0
        self._head: Seal | None = None  # the journal's head at the last checkpoint
        self.error: BaseException | None = None
        self.listeners: list[Callable[[Event, list[Action]], None]] = []

    # ------------------------------------------------------------------ control

    @property
    def state(self) -> TableState:
        """The table's current state."""
        return self.runner.state

    def start(self) -> None:
        """Start the table's thread (halting a round the journal left in play)."""
        if self._thread is not None:
            raise RuntimeError("the table is already running")
        self._stopping = False
        if self.hardware_every is not None:
            self._hardware_due = self.clock() + self.hardware_every
        self._thread = threading.Thread(
            target=self._main, name=f"table {self.topics.table_id}", daemon=True
        )
        self._thread.start()
        state = self.runner.state
        if state.round is not None and state.phase is not Phase.HALTED:
            self.put(
                Inbound(
                    "event",
                    item=Halt(
                        actor="system",
                        reason=(
                            "the controller restarted mid-round: check the layout against "
                            "the round's cards, then resume or void the round"
                        ),
                    ),
                )
            )

    def stop(self, timeout: float = 5.0) -> None:
        """Finish what is queued, then stop the thread."""
        if self._thread is None:
            return
        with self._turn:
            self._stopping = True  # no input is handled inline from now on
        self.put(Inbound(STOP))
        self._thread.join(timeout)
        with self._turn:  # nor is one still being handled inline when this returns
            self._turn.wait_for(lambda: not self._busy, timeout)
        self._thread = None

    @property
    def running(self) -> bool:
        """Whether the table's thread is handling inputs (started, not stopped or failed)."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def put(self, inbound: Inbound) -> None:
        """Queue an input (thread-safe; callable from paho's and the shoe's threads)."""
        with self._turn:
            self._inbox.append(inbound)
            self._turn.notify()

    def offer(self, inbound: Inbound) -> bool:
        """Handle ``inbound`` now, in the calling thread, when the table is idle; else queue it.

        The card path: a card read while nothing else is queued or being handled is
        journaled, applied and published before this returns (so the shoe is acknowledged
        only for a card the journal holds), without waking the table's thread. Anything
        queued before it is handled first, so the order of inputs is the order they came.
        Returns whether it was handled here. An error stops the table as it would in the
        table's thread: it is kept in :attr:`error` and re-raised.
        """
        with self._turn:
            if (
                self._busy
                or self._inbox
                or self._thread is None
                or self._stopping
                or self.error is not None
                or inbound.kind == STOP
            ):
                self._inbox.append(inbound)
                self._turn.notify()
                return False
            self._busy = True
        try:
            self._handle_safely(inbound)
            self.inline += 1
            if inbound.done is not None:  # as in the table's thread: set once handled
                inbound.done.set()
        except BaseException as error:
            self.error = error
            self.put(Inbound(STOP))  # the table stops, as when its own thread fails
            raise
        finally:
            with self._turn:
                self._busy = False
                self._turn.notify()  # what was queued meanwhile is the table thread's now
        return True

    def submit(self, event: Event, timeout: float = 5.0) -> list[Action]:
        """Queue ``event`` and wait for its actions (for tools and tests)."""
        done = threading.Event()
        inbound = Inbound("event", item=event, done=done)
        self.put(inbound)
        if not done.wait(timeout):
            raise TableError(f"the table did not handle {event.kind} within {timeout} s")
        actions: list[Action] = inbound.result
        return actions

    def sync(self, timeout: float = 5.0) -> None:
        """Wait until everything queued before this call has been handled."""
        done = threading.Event()
        self.put(Inbound("sync", done=done))
        if not done.wait(timeout):
            raise TableError(f"the table's queue did not drain within {timeout} s")

    def hardware(self) -> dict[str, Any]:
        """Shoe, camera, broker and journal status, as published to the dealer and the pit.

        A copy of each part (all plain JSON values), so a view never shares a dict that the
        next status update changes. What it returns is kept as what the consoles were last
        shown (:data:`HARDWARE_REFRESH_SECONDS`).
        """
        parts = self._hardware_now()
        self._hardware_shown = parts
        return parts

    def _hardware_now(self) -> dict[str, Any]:
        """:meth:`hardware`'s figures, not kept as shown."""
        parts = {name: dict(part) for name, part in self.status.items()}
        for name, figures in self.live.items():
            parts[name] = {**parts.get(name, {}), **figures()}
        parts["journal"] = self.runner.journal_status()
        broker = parts.setdefault("broker", {})
        if self.refused_unread:  # seats' commands refused for coming too fast
            broker["seat_commands_refused_too_fast"] = self.refused_unread
        if self.unknown_seats:
            broker["unknown_seat_messages"] = self.unknown_seats
        return parts

    # ------------------------------------------------------------------ MQTT callbacks

    def on_connected(self) -> None:
        """The broker accepted the link: a new birth follows (in the table's thread)."""
        self.put(Inbound("connected"))

    def on_disconnected(self, reason: str) -> None:
        """The broker went away."""
        self.put(Inbound("disconnected", payload=reason.encode()))

    def on_message(self, topic: str, payload: bytes) -> None:
        """A message on a subscribed topic."""
        if topic == self.topics.rebirth:
            self.put(Inbound("rebirth"))
        elif self.topics.presence_of(topic) is not None:
            self.put(Inbound("presence", topic=topic, payload=payload))
        else:
            self.put(Inbound("command", topic=topic, payload=payload))

    def on_retained(self, topic: str, payload: bytes) -> None:
        """A message the broker kept (retained) and sent because the table subscribed. A
        seat's presence is kept by design (its will); a command never is: it was sent at
        some time past, perhaps to a table that took it already, and the broker sends it
        again at every connection, so it is refused, never applied. A kept rebirth request
        is answered by the birth that follows the connection."""
        if self.topics.presence_of(topic) is not None:
            self.put(Inbound("presence", topic=topic, payload=payload))
        elif self.topics.sender_of(topic) is not None:
            self.put(Inbound("retained", topic=topic, payload=payload))

    # ------------------------------------------------------------------ the thread

    def _deadline(self) -> float | None:
        rnd = self.runner.state.round
        if rnd is None:
            return None
        phase = self.runner.state.phase
        deadline = (
            rnd.betting_deadline
            if phase is Phase.BETTING
            else rnd.decision_deadline
            if phase is Phase.DECIDING
            else None
        )
        if deadline is None:
            return None
        yellow = deadline - self.projector.yellow_seconds
        now = self.clock()
        return yellow if yellow > now else deadline

    def _main(self) -> None:
        try:
            self._loop()
        except JournalError as error:  # the disk: told by the runner in the journal's words
            self.error = error
        except BaseException as error:  # a fault of ours: recorded, and its traceback shown
            self.error = error
            raise

    def _next(self) -> Inbound | None:
        """Wait for this thread's turn: the next queued input, or ``None`` when a deadline
        of the round (the yellow light, the end of betting or of a decision) has come, or
        the time to look at the hardware's figures again (:data:`HARDWARE_REFRESH_SECONDS`)."""
        with self._turn:
            while True:
                if not self._busy:
                    if self._inbox:
                        self._busy = True
                        return self._inbox.popleft()
                    self._round_due = self._deadline()
                    due = [d for d in (self._round_due, self._hardware_due) if d is not None]
                    timeout = min(due) - self.clock() if due else None
                    if timeout is not None and timeout <= 0:
                        self._busy = True
                        return None
                else:  # an input offered inline is being handled: wait for it
                    timeout = None
                self._turn.wait(timeout)

    def _loop(self) -> None:
        while True:
            inbound = self._next()
            try:
                if inbound is None:
                    self._on_timer()
                    continue
                if inbound.kind == STOP:
                    return
                self._handle_safely(inbound)  # a journal that fails stops the table here
                if inbound.done is not None:  # set only once handled: durable, for a shoe
                    inbound.done.set()
            finally:
                with self._turn:
                    self._busy = False

    def _handle_safely(self, inbound: Inbound) -> None:
        """Handle one input; no input stops the table but a journal that cannot be written
        (nothing more could be made durable: the table stops, with that reason)."""
        self._applied = None
        try:
            self._handle(inbound)
        except JournalError:
            raise
        except Exception as error:
            self._unexpected(inbound, error)

    def _unexpected(self, inbound: Inbound, error: Exception) -> None:
        """Handling one input raised outside the table's own state machine (a view, a
        publication): what the table applied stays applied and journaled, the pit manager is
        alerted, and the next input is handled as usual."""
        self.faults += 1
        _log.error("could not handle a %s input", inbound.kind, exc_info=error)
        text = f"{type(error).__name__}: {error}".replace("\n", " ")[:300]
        try:
            message = f"fault: a {inbound.kind} input failed ({text}); the table goes on"
            self._alert("error", message, self.clock())
            if inbound.kind == "command":
                self._answer_failed(inbound, text)
        except Exception:  # the alert itself could not be built or sent: the log has it
            _log.exception("could not alert the pit to a fault")

    def _answer_failed(self, inbound: Inbound, text: str) -> None:
        """Answer a command whose handling failed: its sender is not left waiting."""
        sender = self.topics.sender_of(inbound.topic)
        if sender is None:
            return
        try:
            command_id, event = parse_command(sender, inbound.payload)
            name = event.kind
        except CommandRejected as error:
            command_id, name = error.command_id, error.command
        applied = self._applied is not None and self._applied.kind == name
        if applied:  # the table took it; what failed came after (a view, a publication)
            reason = f"applied; the table failed afterwards ({text}); the pit manager was alerted"
        else:
            reason = f"the table failed while handling it ({text}); the pit manager was alerted"
        audience = _audience(sender)
        now = self.clock()
        self._publish([self.projector.reply(audience, command_id, name, applied, reason, now)])

    def _on_timer(self) -> None:
        now = self.clock()
        self._clock_check(now)
        if self._hardware_due is not None and now >= self._hardware_due:
            self._refresh_hardware(now)
        if self._round_due is None or now < self._round_due:
            return
        state = self.runner.state
        rnd = state.round
        if rnd is None:  # no round: no deadline of one
            return
        deadline = rnd.betting_deadline if state.phase is Phase.BETTING else rnd.decision_deadline
        if deadline is not None and now >= deadline:
            self._apply(Tick(actor="timer"), now)
        else:  # the light turned yellow: the public view changes, nothing is journaled
            self._publish(self.projector.states(state, now, only=(PUBLIC,)))

    def _refresh_hardware(self, now: float) -> None:
        """The dealer's state sent again where the hardware's figures changed since the last
        state made (:data:`HARDWARE_REFRESH_SECONDS`); the next look is set. A failure here
        is the pit's alert, as an input's (the table goes on)."""
        assert self.hardware_every is not None
        self._hardware_due = now + self.hardware_every
        try:
            if self._hardware_now() != self._hardware_shown:
                self._publish(self.projector.states(self.runner.state, now, only=(DEALER,)))
        except Exception as error:
            self._unexpected(Inbound("hardware refresh"), error)

    def _clock_check(self, now: float) -> None:
        """Tell the pit when the system clock stepped since the last look
        (:data:`CLOCK_STEP_SECONDS`), and look at the hardware's figures again on time
        after a step back (their next look was set on the clock before it)."""
        if self.monotonic is None:
            return
        mono = self.monotonic()
        mark, self._clock_mark = self._clock_mark, (now, mono)
        if mark is None:
            return
        step = (now - mark[0]) - (mono - mark[1])
        if abs(step) < CLOCK_STEP_SECONDS:
            return
        self._alert("warning", clock_step(step, self.runner.state.phase), now)
        if step < 0 and self.hardware_every is not None:
            self._hardware_due = now + self.hardware_every

    def _handle(self, inbound: Inbound) -> None:
        now = self.clock()
        self._clock_check(now)
        match inbound.kind:
            case "event":
                inbound.result.extend(self._apply(inbound.item, now))
            case "command":
                self._command(inbound.topic, inbound.payload, now)
            case "retained":
                self._retained(inbound.topic, inbound.payload, now)
            case "shoe":
                self._shoe(inbound.item, now)
            case "presence":
                seat = self.topics.presence_of(inbound.topic)
                if not self._known_seat(seat, now):
                    return
                presence = inbound.payload.strip()
                who = f"seat:{seat}"
                away = who in self.runner.state.away
                if seat is not None and presence == b"offline" and not away:
                    self._apply(SeatDisconnected(actor="system", seat=who), now)
                elif seat is not None and presence == b"online":  # it gets its own view now
                    self.projector.add_seat(who)
                    if away:  # back: journaled for the pit (and every state published)
                        self._apply(SeatReturned(actor="system", seat=who), now)
                    else:  # nothing changed but what this seat is sent: its own state
                        self._publish(self.projector.states(self.runner.state, now, only=(who,)))
            case "rebirth":
                if now - self._last_rebirth >= 0.2:  # a burst of requests is one rebirth
                    self._last_rebirth = now
                    self._publish_status(b"online")  # live: the controller is here now
                    self._publish(self.projector.states(self.runner.state, now))
            case "connected":
                births = self.status["broker"]["births"] = self.status["broker"]["births"] + 1
                self.status["broker"]["connected"] = True
                self.projector.new_birth(births if self.births is None else self.births())
                self._publish_status(b"online")
                self._publish_head()
                self._publish(self.projector.states(self.runner.state, now))
            case "disconnected":
                self.status["broker"]["connected"] = False
                self.status["broker"]["last_error"] = inbound.payload.decode()
            case "hardware":
                name, status = inbound.item
                was = self.status.get(name, {}).get("connected")
                self.status[name] = status
                change = camera_change(was, status, now) if name == "camera" else None
                if change is not None:  # lost or back: the pit hears it in words
                    self._alert(*change, now)
                self._publish(self.projector.states(self.runner.state, now, only=STAFF))
            case "camera":
                self.seen = inbound.item
                self._camera_check(now)
            case "sync":
                pass
            case _:
                raise TableError(f"unknown input {inbound.kind!r}")

    def _apply(self, event: Event, now: float, command_id: str | None = None) -> list[Action]:
        before = self.runner.state
        actions = self.runner.submit(event, now, command_id)
        after = self.runner.state
        # journaled and applied (unless refused), whatever comes next
        self._applied = None if refusal(actions, event) is not None else event
        gates = [bool(a.data["locked"]) for a in actions if a.kind == "shoe_gate"]
        if self.gate is not None and gates and gates[-1]:
            self.gate(True)  # locked at once: no card may slip out while we publish
        for n, message in enumerate(self.projector.iter_events(before, after, actions, now)):
            self._publish([message])
            if n == 0 and self.publisher is not None:
                # the first event (a card's public one) leaves now: it would otherwise wait
                # for the publisher's network thread, and that thread for the interpreter,
                # until the other audiences' events and every state are built
                self.publisher.flush(HANDOVER_LIMIT_SECONDS)
        if actions:
            self._publish(self.projector.states(after, now))
        if self.gate is not None and gates and not gates[-1]:
            self.gate(False)  # opened last: the next card finds this thread free
        elif (
            self.gate is not None and isinstance(event, CardDrawn) and after.phase is Phase.DEALING
        ):
            self.gate(False)  # the gate lets one card through at a time: the next one
        if any(action.kind == "round_ended" for action in actions):
            self._head = self.runner.journal.quiet()  # the checkpoint: its head to the pit
            self._publish_head()
        for listener in self.listeners:
            listener(event, actions)
        if before.phase is Phase.HALTED and after.phase is not Phase.HALTED:
            self._camera_check(now)  # what the camera found during the halt is reported now
        return actions

    def _camera_check(self, now: float) -> None:
        """Cross-check the camera's latest stable view with the table; submit what it finds."""
        if self.crosscheck is None or self.seen is None:
            return
        self.crosscheck, result = self.crosscheck.check(self.runner.state, self.seen, now)
        for event in result.events:
            self._apply(event, now)
        camera = self.status.setdefault("camera", {})
        if list(result.notes) != camera.get("notes", []):
            camera["notes"] = list(result.notes)
            self._publish(self.projector.states(self.runner.state, now, only=STAFF))

    def _command(self, topic: str, payload: bytes, now: float) -> None:
        sender = self._sender(topic, now)
        if sender is None:
            return
        audience = _audience(sender)
        taken = (
            self.seat_rate.take(audience, now)
            if self.seat_rate is not None and sender.role == "seat"
            else None
        )
        if taken is not None:
            self._flood_told(audience, taken, now)
        try:
            command_id, event = parse_command(sender, payload)
        except CommandRejected as error:
            # in a flood the seat is told why, the pit only of the flood
            tell_pit = taken is None or taken.ok
            self._reject(audience, error.command_id, error.command, str(error), now, tell_pit)
            return
        if taken is not None and not taken.ok:
            self.refused_unread += 1
            reply = self.projector.reply(
                audience, command_id, event.kind, False, self._too_fast(), now
            )
            self._publish([reply])
            return
        known = self.runner.answers.get(audience, command_id)
        if known is not None:  # sent again (a retry): answered as before, not applied again
            self._repeat(audience, command_id, event, known, now)
            return
        actions = self._apply(event, now, command_id)
        answer = answer_of(event, refusal(actions, event))
        self._publish(
            [self.projector.reply(audience, command_id, event.kind, answer.ok, answer.reason, now)]
        )

    def _too_fast(self) -> str:
        assert self.seat_rate is not None
        rate = self.seat_rate
        return (
            f"expected at most {rate.burst} commands at once from a seat and "
            f"{rate.per_second:g} a second after that; got more: this command was not "
            "looked at and changed nothing; wait a few seconds and send it again"
        )

    def _flood_told(self, audience: str, taken: Taken, now: float) -> None:
        """The pit told once when a seat's flood starts, and once when it ends."""
        assert self.seat_rate is not None
        if taken.flood_starts:
            text = (
                f"{audience} sends commands faster than {self.seat_rate.per_second:g} a "
                "second: the ones beyond are refused unread (the seat is told each time) "
                "until it slows down"
            )
            self._alert("warning", text, now)
        elif taken.flood_ends:
            text = (
                f"{audience} slowed down: {taken.refused} of its commands were refused "
                f"unread over {max(0.0, now - taken.since):.1f} s; its commands are taken again"
            )
            self._alert("info", text, now)

    def _sender(self, topic: str, now: float) -> Sender | None:
        """Who sends on ``topic`` if it is a command topic of this table and its sender is
        heard (:meth:`_known_seat`), else None."""
        sender = self.topics.sender_of(topic)
        if sender is None or sender.role != "seat":
            return sender
        return sender if self._known_seat(sender.seat, now) else None

    def _known_seat(self, seat: str | None, now: float) -> bool:
        """Whether a message from ``seat`` (None: not a seat's) is heard: every seat's at a
        table without a list of seats, else only those listed. Another seat id's message is
        counted and dropped unanswered (a reply to it would open a stream for a made-up id),
        and the pit hears of it at most once a minute."""
        if seat is None or self.seats is None or seat in self.seats:
            return True
        self.unknown_seats += 1
        if now - self._unknown_told >= 60.0 or now < self._unknown_told:
            self._unknown_told = now
            listed = ", ".join(sorted(self.seats)) or "none"
            self._alert(
                "warning",
                f"messages from seat {shown(seat)}, which this table does not have (its "
                f"seats: {listed}), are ignored ({self.unknown_seats} so far): check the "
                "seat's console and the table's seats",
                now,
            )
        return False

    def _reject(
        self,
        audience: str,
        command_id: str,
        name: str,
        reason: str,
        now: float,
        tell_pit: bool = True,
    ) -> None:
        """Refuse a command before the table sees it: its sender is told why, and the pit
        (unless ``tell_pit`` is off: a seat's flood is told to the pit once)."""
        self.rejected += 1
        self._publish([self.projector.reply(audience, command_id, name, False, reason, now)])
        if not tell_pit:
            return
        data = {"from": audience, "command": name, "reason": reason}
        self._publish(
            [self.projector.event(PIT, self.topics.pit.events, "command_rejected", data, now)]
        )

    def _retained(self, topic: str, payload: bytes, now: float) -> None:
        """A command the broker kept (:meth:`on_retained`): refused, whatever it says."""
        sender = self._sender(topic, now)
        if sender is None:
            return
        try:
            command_id, event = parse_command(sender, payload)
            name = event.kind
        except CommandRejected as error:
            command_id, name = error.command_id, error.command
        reason = (
            "expected a command sent live; got one the broker kept (published with retain) "
            "and sent again as the table subscribed: a kept command is never applied, as it "
            "may be old or taken already; clear it (an empty retained message on the same "
            "topic) and send the command without retain"
        )
        self._reject(_audience(sender), command_id, name, reason, now)

    def _repeat(
        self, audience: str, command_id: str, event: Event, known: Answer, now: float
    ) -> None:
        """Answer a command whose id this sender already used: the same command gets the
        first answer again, another command is refused (the id is taken)."""
        if known.text == record_text(event_to_json(event)):
            reply = self.projector.reply(
                audience, command_id, known.command, known.ok, known.reason, now, repeated=True
            )
        else:
            self.rejected += 1
            first = "applied" if known.ok else "refused"
            reason = (
                f"expected a new id for a new command: id {command_id!r} was already used "
                f"for {known.command} ({first}), and got {event.kind} with other fields; "
                "send it with a new id"
            )
            reply = self.projector.reply(audience, command_id, event.kind, False, reason, now)
        self._publish([reply])

    def _shoe(self, event: Any, now: float) -> None:
        state = self.runner.state
        if isinstance(event, CardRead):
            if event.burn:
                self._alert("info", f"burn card read ({event.card}) and set aside", now)
                return
            card = CardDrawn(actor="shoe", card=event.card, read=event.record, boot=event.boot)
            self._apply(card, now)
            return
        if isinstance(event, Connected | Disconnected):
            connected = isinstance(event, Connected)
            was = self.status.get("shoe", {}).get("connected")
            self.status["shoe"] = {**self.status.get("shoe", {}), "connected": connected}
            if (
                not connected
                and self.halts_on_shoe_loss
                and state.round is not None
                and state.phase is not Phase.HALTED
            ):  # the halt, journaled, is the pit's alert
                reason = shoe_lost_halt(event.port, getattr(event, "reason", ""), now)
                self._apply(Halt(actor="shoe", reason=reason), now)
            else:
                if not connected and was is not False:
                    lost = shoe_lost(event.port, getattr(event, "reason", ""), now)
                    self._alert("error", lost, now)
                elif connected and was is False:
                    halted = state.phase is Phase.HALTED
                    self._alert("info", shoe_back(event.port, now, halted=halted), now)
                self._publish(self.projector.states(state, now, only=STAFF))
            return
        if must_halt(event):
            text = shoe_reason(event, state)  # in words, with where the round stood
            dealt = (
                dealt_as(state.round, event.card)
                if isinstance(event, DuplicateCard) and state.round is not None
                else ""
            )
            if dealt:  # the deck's terms, and the round's
                text += f"; in this round it was dealt as {dealt}"
            if state.round is not None and state.phase is not Phase.HALTED:
                self._apply(Halt(actor="shoe", reason=text), now)
            else:
                self._alert("error", f"shoe: {text}", now)

    def _alert(self, level: str, message: str, now: float) -> None:
        data = {"level": level, "message": message}
        self._publish(
            [
                self.projector.event(PIT, self.topics.pit.alerts, "alert", data, now),
                self.projector.event(PIT, self.topics.pit.events, "alert", data, now),
            ]
        )

    def _publish_status(self, payload: bytes) -> None:
        if self.publisher is not None:
            self.publisher.publish(self.topics.status, payload, retain=True)

    def _publish_head(self) -> None:
        """The journal's head at the last checkpoint, retained on the pit's journal topic."""
        if self.publisher is not None and self._head is not None:
            doc = self._head.to_json(self.topics.table_id)
            self.publisher.publish(self.topics.journal, json.dumps(doc).encode(), retain=True)

    def _publish(self, messages: list[Outgoing]) -> None:
        if self.publisher is None:
            return
        for message in messages:
            if self.publisher.publish(message.topic, message.payload, retain=message.retain):
                self.published += 1


def clock_step(step: float, phase: Phase) -> str:
    """The pit's words for a step of the system clock by ``step`` seconds."""
    size = f"{abs(step):,.0f} s" if abs(step) < 120 else f"{abs(step) / 60:,.0f} min"
    if step > 0:
        what = (
            f"the system clock stepped forward by {size} more than the table's own running "
            "time (a time service's correction, or the host paused): the round's betting "
            "and decision timers run on it and moved with it, so a window open now may have "
            "closed early"
        )
    else:
        what = (
            f"the system clock stepped back by {size}: the round's betting and decision "
            "timers run on it and moved with it, so a window open now runs that much longer "
            "(the dealer can close betting at any time)"
        )
    now = "" if phase in (Phase.BETTING, Phase.DECIDING) else " (no timer runs now)"
    return f"{what}{now}; check the host's time service (NTP)"


def _audience(sender: Sender) -> str:
    """The audience a command's sender is answered as: ``seat:3``, ``dealer`` or ``pit``."""
    return f"seat:{sender.seat}" if sender.role == "seat" else sender.role


def journal_path(base: Path, configured: str) -> Path:
    """The journal file of a table config (relative paths are from the config's folder)."""
    path = Path(configured)
    return path if path.is_absolute() else base / path
