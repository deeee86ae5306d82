"""The composition root of one table: the pure state machine, its journal, and recovery.

Every event is journaled before it is applied, so after a crash the table is rebuilt by
replaying the journal: the same events give the same state and the same actions.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import islice
from pathlib import Path
from typing import Any

from config.schema import GAMES_DIR, game_from_text
from controller.errors import TableError
from controller.events import Action, CardDrawn, Event, Fault, event_from_json, event_to_json
from controller.games import Seating
from controller.journal import (
    ID_FIELD,
    ID_KEY,
    PROGRESS_ROWS,
    Journal,
    Record,
    Row,
    parse_record,
    record_text,
    split_id,
    verify_rows,
)
from controller.table import RULES, TableConfig, TableState, handle, new_table
from controller.work import Progress
from drivers.storage.sqlite_journal import SqliteJournal
from tablectl.answers import Answers, answer_of, refusal, sender_of

__all__ = [
    "Observer",
    "ReplayStep",
    "TableRunner",
    "fault_of",
    "header_record",
    "rebuild",
    "replay",
]

_log = logging.getLogger(__name__)

HEADER = "table_configured"


def header_record(
    table_id: str,
    game: str,
    seating: Seating,
    hands: tuple[str, ...],
    *,
    game_toml: str | None = None,
    betting_seconds: float | None = None,
    decision_seconds: float | None = None,
    confirm_payments: bool = False,
    balances: dict[str, Fraction] | None = None,
) -> dict[str, Any]:
    """Row 0 of a journal: everything needed to rebuild the table, the game's file included."""
    text = game_toml if game_toml is not None else (GAMES_DIR / f"{game}.toml").read_text("utf-8")
    return {
        "kind": HEADER,
        "table_id": table_id,
        "game": game,
        "game_toml": text,
        "seating": seating.value,
        "hands": list(hands),
        "betting_seconds": betting_seconds,
        "decision_seconds": decision_seconds,
        "confirm_payments": confirm_payments,
        "balances": None if balances is None else {k: str(v) for k, v in balances.items()},
        "rules": RULES,
    }


def config_from_header(record: dict[str, Any], source: str) -> TableConfig:
    """Rebuild the table's configuration from a journal's first row."""
    if record.get("kind") != HEADER:
        raise TableError(f"{source}: row 0 is {record.get('kind')!r}, expected {HEADER!r}")
    balances = record.get("balances")
    rules = record.get("rules", 1)  # a journal from before the rules were numbered: 1
    if not isinstance(rules, int) or not 1 <= rules <= RULES:
        raise TableError(
            f"{source}: row 0 says the table plays by rules {rules!r}; this controller knows "
            f"rules 1 to {RULES}: replay it with the release that wrote it"
        )
    try:
        return TableConfig(
            table_id=record["table_id"],
            game=game_from_text(record["game_toml"], f"{source} row 0"),
            seating=Seating(record["seating"]),
            hands=tuple(record["hands"]),
            betting_seconds=record.get("betting_seconds"),
            decision_seconds=record.get("decision_seconds"),
            confirm_payments=bool(record.get("confirm_payments")),
            balances=None if balances is None else {k: Fraction(v) for k, v in balances.items()},
            rules=rules,
        )
    except TableError:
        raise  # said in words already (the game's TOML)
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as error:
        # a header no controller wrote (its chain may still hold: whoever changed it could
        # recompute the digests): refused in words, not a traceback
        what = f"lacks {error}" if isinstance(error, KeyError) else f"holds a bad value ({error})"
        raise TableError(
            f"{source}: row 0, the table's header, {what}: expected the header this "
            "controller writes (table_id, game_toml, seating, hands, balances, ...)"
        ) from None


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One replayed row: its number and time, the event, the state after it, its actions."""

    seq: int
    at: float
    event: Event
    state: TableState
    actions: list[Action]
    command_id: str | None = None  # the id its sender gave the command, for a command


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (as it was before, afterwards)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


#: what a recovery tells of every replayed row: the state before it, after it, and its actions
Observer = Callable[[TableState, TableState, list[Action]], None]


def replay(
    journal: Journal,
    source: str = "journal",
    *,
    check: bool = True,
    progress: Progress | None = None,
    check_progress: Progress | None = None,
) -> Iterator[ReplayStep]:
    """Rebuild the table row by row (after checking the chain, unless ``check`` is off).

    ``progress(done, total)`` is told of the rows replayed and ``check_progress`` of the rows
    checked, each every :data:`~controller.journal.PROGRESS_ROWS` rows and at the end.

    Every row is read and checked before the first is applied, so a long journal is held
    whole while it is replayed, as stored: a table's journal repeats a few hundred distinct
    records (cards, bets, decisions) over hundreds of thousands of rows, and each distinct
    text is parsed and decoded once (events are immutable). The rows are read with Python's
    cyclic garbage collector paused and kept out of its later passes (``gc.freeze``) until
    the replay ends, however it ends: plain acyclic data it would otherwise walk again and
    again for nothing (0.5-0.7 s of a 10,000-round replay).
    """
    rows = _read(journal, source, check, check_progress)
    gc.freeze()
    try:
        yield from _replay_rows(rows, source, progress)
    finally:
        gc.unfreeze()


def _read(
    journal: Journal, source: str, check: bool = True, progress: Progress | None = None
) -> list[Row]:
    """Every row of ``journal``, its chain checked (unless ``check`` is off); never none."""
    with _collector_paused():
        rows = journal.rows()
        if check:
            verify_rows(rows, progress)
    if not rows:
        raise TableError(f"{source}: the journal is empty")
    return rows


def _replay_rows(
    rows: list[Row], source: str, progress: Progress | None = None
) -> Iterator[ReplayStep]:
    """The steps of a journal already read and checked (``progress``: see :func:`replay`).

    An input whose handling failed when it was live fails again here, changes nothing and
    shows no actions; its :class:`~controller.events.Fault` row follows (:func:`_settled`).
    Where a fault row follows an input that this release applies, the input is undone: the
    journal says what the table applied.
    """
    state = new_table(config_from_header(parse_record(rows[0][2]), source))
    total = len(rows)
    if progress is not None:
        progress(1, total)  # the header
    events = list(_events(rows))
    steps = _fold(state, ((at, event, cid) for _, at, event, cid in events), source, [])
    for done, ((seq, _, _, command), (at, event, _, after, actions)) in enumerate(
        zip(events, steps, strict=True), 2
    ):
        yield ReplayStep(seq, at, event, after, actions, None if command is None else command[0])
        if progress is not None and not done % PROGRESS_ROWS:
            progress(done, total)
    if progress is not None:
        progress(total, total)


#: an input whose handling raised: the event, and what it raised
Failure = tuple[Event, Exception]


def _described(error: Exception) -> str:
    """What went wrong, in one bounded line."""
    text = f"{type(error).__name__}: {error}".replace("\n", " ")
    return text if len(text) <= 300 else text[:299] + "…"


def fault_of(event: Event, error: Exception) -> Fault:
    """The fault recorded after ``event`` when handling it raised ``error``."""
    return Fault(
        actor="system",
        failed=event.kind,
        of=event.actor,
        error=_described(error),
        halts=isinstance(event, CardDrawn),
    )


def _settled(failed: Failure, event: Event, source: str) -> None:
    """Check that the row after a failed input is the fault the table records after it."""
    bad, error = failed
    if isinstance(event, Fault) and event.failed == bad.kind:
        return
    raise TableError(
        f"{source}: a {bad.kind} from {bad.actor} cannot be applied ({_described(error)}), "
        f"and the row after it is a {event.kind}, not its fault: the table that wrote this "
        "journal handled it differently (another release?)"
    ) from error


def _events(rows: list[Row]) -> Iterator[tuple[int, float, Event, Command | None]]:
    """Every row's event after the header, with its row number and its command (see
    :func:`_decoded`)."""
    records = ((at, text) for _, at, text, _, _ in rows)
    for row, (at, event, command) in zip(islice(rows, 1, None), _decoded(records), strict=True):
        yield row[0], at, event, command


def rebuild(
    journal: Journal,
    source: str = "journal",
    observe: Observer | None = None,
    answers: Answers | None = None,
) -> TableState:
    """The table a journal leaves: :func:`replay` without its steps, as a restart needs it;
    ``observe`` is told of every row (a projector rebuilding what its views remember) in the
    same single pass, and ``answers`` the answers to the latest commands (a command sent
    again is answered, not applied twice). The table is returned only once the journal's
    chain has been checked:
    before the replay, or beside it by another process on a long journal
    (:meth:`~controller.journal.Journal.checked_records`).

    The cyclic garbage collector stays paused throughout: the table's records form no
    cycles (a 10,000-round replay leaves a few hundred cyclic objects, from refused
    commands' exceptions), and its passes over the rows and the states would cost a tenth
    of the replay.
    """
    return _rebuild(journal, source, observe, answers)[0]


def _rebuild(
    journal: Journal, source: str, observe: Observer | None, answers: Answers | None = None
) -> tuple[TableState, Failure | None]:
    """:func:`rebuild`, and the last row's failure when no fault row follows it (the table
    stopped between the two); ``answers`` is given the answers to the latest commands."""
    unrecorded: list[Failure] = []
    latest: deque[Answered] = deque(maxlen=answers.kept if answers is not None else 0)
    with _collector_paused(), journal.checked_records() as records:
        if not records:
            raise TableError(f"{source}: the journal is empty")
        state = new_table(config_from_header(parse_record(records[0][1]), source))
        first = _latest_commands(records, latest.maxlen or 0)
        steps = _fold(state, _decoded(records, first), source, unrecorded, latest)
        if observe is None:
            last = deque(steps, maxlen=1)  # only the last table is wanted
            state = last[0][3] if last else state
        else:
            for _, _, before, state, actions in steps:
                observe(before, state, actions)
    if answers is not None:
        for (command_id, text), event, refused, failed in latest:
            answers.keep(
                sender_of(event.actor), command_id, answer_of(event, refused, text, failed)
            )
    return state, unrecorded[0] if unrecorded else None


#: a row's command: the id its sender gave it, and the row's text without the id
Command = tuple[str, str]

#: a replayed command: the command, its event, the table's refusal of it (if it refused it),
#: and whether its handling failed
Answered = tuple[Command, Event, Action | None, bool]

#: one replayed row: its time, its event, the table before and after it, its actions
_Step = tuple[float, Event, TableState, TableState, list[Action]]


def _fold(
    state: TableState,
    events: Iterable[tuple[float, Event, Command | None]],
    source: str,
    unrecorded: list[Failure],
    answered: deque[Answered] | None = None,
) -> Iterator[_Step]:
    """Apply a journal's events from ``state`` as the live table applied them.

    An input whose handling failed when it was live fails again here, changes nothing and
    has no actions; its :class:`~controller.events.Fault` row must follow
    (:func:`_settled`). Where a fault row follows an input that this release applies, the
    input is undone: the journal says what the table applied. A last row that failed with
    no fault row after it (the table stopped between the two) is put in ``unrecorded``.
    Every command journaled with its id goes to ``answered`` (a bounded deque keeps the
    latest), marked failed when a fault row follows it or it is that last row.
    """
    failed: Failure | None = None
    prior = state
    command: Command | None = None
    for at, event, this in events:
        if failed is not None:
            _settled(failed, event, source)
            failed = None
        if event.__class__ is Fault:
            state = prior  # the input before it was not applied live: nor is it here
            if command is not None and answered:  # nor was that command: it failed
                answered[-1] = (*answered[-1][:3], True)
        command = this
        prior = state
        try:
            after, actions = handle(state, event, at)
        except Exception as error:  # it failed live too: its fault row comes next
            failed, after, actions = (event, error), state, []
        if command is not None and answered is not None:
            answered.append((command, event, refusal(actions, event), False))
        yield at, event, state, after, actions
        state = after
    if failed is not None:
        unrecorded.append(failed)
        if command is not None and answered:
            answered[-1] = (*answered[-1][:3], True)


def _latest_commands(records: list[Record], kept: int) -> int:
    """The row from which on the journal's latest ``kept`` commands (rows with an id) are,
    counted from the end (1 when it has fewer)."""
    if not kept:
        return len(records)
    found = 0
    for row in range(len(records) - 1, 0, -1):
        if ID_KEY in records[row][1]:
            found += 1
            if found == kept:
                return row
    return 1


def _decoded(
    records: Iterable[Record], commands_from: int = 1
) -> Iterator[tuple[float, Event, Command | None]]:
    """Every record's time and event after the header, each distinct record decoded once
    (events are immutable) whatever ids commands came with; and, from row
    ``commands_from`` on, each command's id and its text without the id.

    Only the commands whose answers are kept are told: the others' ids would be made into
    objects, and dropped, a row at a time (keeping them as long as a bounded number of
    answers needs them made a 10,000-round replay half a second slower)."""
    decoded: dict[str, Event] = {}
    for row, (at, stored) in enumerate(islice(records, 1, None), 1):
        event = decoded.get(stored)
        if event is not None:  # a row without an id (a card), read before
            yield at, event, None
            continue
        text, command_id = split_id(stored)
        event = decoded.get(text)
        if event is None:
            event = event_from_json(parse_record(text))
            if len(decoded) < 65536:
                decoded[text] = event
        if command_id is None or row < commands_from:
            yield at, event, None
        else:
            yield at, event, (command_id, text)


class TableRunner:
    """A table whose every input is journaled before it is applied."""

    #: how many of the latest journal write times are kept (for status and benchmarks)
    WRITES_KEPT = 1024

    def __init__(self, state: TableState, journal: Journal, answers: Answers | None = None) -> None:
        self.state = state
        self.journal = journal
        self.answers = answers if answers is not None else Answers()
        self.write_ms: deque[float] = deque(maxlen=self.WRITES_KEPT)
        self._slowest = 0.0  # of write_ms, kept as writes come (no scan per status)
        self._writes = 0

    @classmethod
    def create(
        cls,
        path: Path,
        header: dict[str, Any],
        at: float,
        *,
        sync: str = "full",
        key: bytes | None = None,
    ) -> TableRunner:
        """Start a new journal at ``path`` with ``header`` as its first row (its head sealed
        with ``key`` from then on, when the table has one)."""
        journal = SqliteJournal(path, sync)
        try:
            if len(journal):
                raise TableError(f"{path}: the journal already has rows: recover it instead")
            journal.append(header, at)
            journal.keep_sealed(key)
        except BaseException:
            journal.close()
            raise
        return cls(new_table(config_from_header(header, str(path))), journal)

    @classmethod
    def recover(
        cls,
        path: Path,
        *,
        sync: str = "full",
        observe: Observer | None = None,
        key: bytes | None = None,
    ) -> TableRunner:
        """Reopen a journal and rebuild the table by replaying it once (``observe``: see
        :func:`rebuild`). With the table's ``key``, the journal's last seal must hold (its
        rows neither cut nor rewritten) before anything is written to it, and its head is
        sealed from then on."""
        journal = SqliteJournal(path, sync)
        answers = Answers()
        try:
            state, failed = _rebuild(journal, str(path), observe, answers)
            journal.keep_sealed(key)  # the chain is checked: now its sealed head, then write
        except BaseException:
            journal.close()
            raise
        runner = cls(state, journal, answers)
        if failed is not None:  # it stopped between a failed input and its fault: record it
            before = runner.state
            actions = runner._fault(*failed, time.time())
            if observe is not None:
                observe(before, runner.state, actions)
        return runner

    def submit(self, event: Event, now: float, command_id: str | None = None) -> list[Action]:
        """Journal ``event``, then apply it; return what the outside world must do.

        A command's id (``command_id``) is journaled with it, and the table's answer is kept
        (:attr:`answers`): the same command sent again is answered, not applied again.
        """
        record = event_to_json(event)
        text = ""
        if command_id is not None:
            text = record_text(record)  # the command as it is without its id
            record[ID_FIELD] = command_id
        start = time.perf_counter()
        self.journal.append(record, now)
        ms = (time.perf_counter() - start) * 1000
        self.write_ms.append(ms)
        self._writes += 1
        if self._writes % self.WRITES_KEPT == 0:  # older writes have left the window
            self._slowest = max(self.write_ms)
        elif ms > self._slowest:
            self._slowest = ms
        try:
            self.state, actions = handle(self.state, event, now)
        except Exception as error:  # nothing of it was applied: record why, and go on
            if command_id is not None:
                answer = answer_of(event, None, text, failed=True)
                self.answers.keep(sender_of(event.actor), command_id, answer)
            return self._fault(event, error, now)
        if command_id is not None:
            answer = answer_of(event, refusal(actions, event), text)
            self.answers.keep(sender_of(event.actor), command_id, answer)
        return actions

    def _fault(self, event: Event, error: Exception, now: float) -> list[Action]:
        """Journal and apply the fault after ``event``, whose handling raised ``error``."""
        _log.error("the table could not apply %s from %s", event.kind, event.actor, exc_info=error)
        fault = fault_of(event, error)
        self.journal.append(event_to_json(fault), now)
        self.state, actions = handle(self.state, fault, now)
        return actions

    def journal_status(self) -> dict[str, float | int]:
        """How the journal's durable writes are going: the disk's share of every input.

        ``write_ms`` is the last write, ``slowest_ms`` the slowest of the latest
        :data:`WRITES_KEPT` to twice as many (the window moves on every :data:`WRITES_KEPT`
        writes, so a status costs no scan): a slow or failing disk shows here before it
        stops the table.
        """
        last = self.write_ms[-1] if self.write_ms else 0.0
        return {"write_ms": round(last, 3), "slowest_ms": round(self._slowest, 3)}

    def close(self) -> None:
        """Close the journal."""
        self.journal.close()
