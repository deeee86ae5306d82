"""The journal on SQLite: one file, append-only (triggers refuse changes), synchronous writes.

Each record is stored as the JSON text its row's digest covers (compact, sorted keys), so
verifying the chain hashes the stored text as it is. Rows written in another JSON form (by
earlier versions) are read and verified as before.

A journal given the table's key (:meth:`SqliteJournal.keep_sealed`) also seals its head (its
row count and last digest, HMAC-SHA256 under the key) in the ``journal_seal`` table: when
the table opens it to write, at each checkpoint and when it closes it. The seals find what
the chain alone cannot: rows cut off the end, and a chain recomputed after a change
(:meth:`SqliteJournal.audit`).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.errors import TableError
from controller.journal import (
    APPENDED,
    BAD_SEAL,
    GENESIS,
    RECOMPUTED,
    TRUNCATED,
    Audit,
    Entry,
    JournalCorrupt,
    KindRow,
    Record,
    Row,
    Seal,
    audit,
    chain,
    kind_of,
    parse_record,
    seal,
    verify_kinds,
    verify_rows,
)
from controller.work import Progress
from drivers.storage.chain_check import KINDS_QUERY, ROWS_QUERY, ChainCheck, Verdict

__all__ = ["SYNC_MODES", "JournalError", "SqliteJournal"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq     INTEGER PRIMARY KEY,
    at      REAL    NOT NULL,
    kind    TEXT    NOT NULL,
    record  TEXT    NOT NULL,
    prev    TEXT    NOT NULL,
    digest  TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'journal rows are append-only'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'journal rows are append-only'); END;
CREATE TABLE IF NOT EXISTS journal_seal (
    id      INTEGER PRIMARY KEY,
    rows    INTEGER NOT NULL,
    head    TEXT    NOT NULL,
    at      REAL    NOT NULL,
    why     TEXT    NOT NULL,
    mac     TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS journal_seal_no_update BEFORE UPDATE ON journal_seal
BEGIN SELECT RAISE(ABORT, 'journal seals are append-only'); END;
CREATE TRIGGER IF NOT EXISTS journal_seal_no_delete BEFORE DELETE ON journal_seal
BEGIN SELECT RAISE(ABORT, 'journal seals are append-only'); END;
"""

#: every seal, in the order written
SEALS_QUERY = "SELECT rows, head, at, why, mac FROM journal_seal ORDER BY id"
#: the last seal written
LAST_SEAL_QUERY = "SELECT rows, head, at, why, mac FROM journal_seal ORDER BY id DESC LIMIT 1"


def _flat(doc: object) -> bool:
    """Whether ``doc`` is an object of plain values only (so a copy of it is a whole copy)."""
    return isinstance(doc, dict) and all(
        value is None or type(value) in (str, int, float, bool) for value in doc.values()
    )


#: how durable an append is: ``full`` flushes every row to the disk (it survives a power cut);
#: ``normal`` leaves the flush to the checkpoint (a row survives a crash of the process, and
#: of the machine unless the power goes)
SYNC_MODES = {"full": "FULL", "normal": "NORMAL"}


log = logging.getLogger(__name__)


class JournalError(TableError):
    """The journal file cannot be opened or written."""


class SqliteJournal:
    """A :class:`controller.journal.Journal` in one SQLite file.

    Every append is its own committed transaction. With ``sync="full"`` (the default) it is
    flushed to the disk: when :meth:`append` returns, the row survives a crash or a power cut.
    With ``sync="normal"`` the flush waits for the next checkpoint: the row survives a crash
    of the controller, not a power cut of the machine.

    Rows go to SQLite's write-ahead log; copying the log into the database file (a
    checkpoint, two more syncs) is not left to whichever append crosses SQLite's threshold,
    where it would hold a card up for milliseconds: it runs when the table is quiet
    (:meth:`quiet`, at the end of a round) and, should a table stay busy that long, every
    :data:`CHECKPOINT_ROWS` appends. The checkpoint leaves the log file its size (up to
    :data:`WAL_KEPT_BYTES`) and the next round writes over it from the start: a flushed
    append that grows a file must also commit the file's new size to the file system's own
    journal, one that overwrites does not (on ext4, p99 0.62-0.74 -> 0.30-0.51 ms a row).

    The checkpoint never waits for a reader (a pit manager's ``tablectl history`` on the
    running table's journal): it copies what it can; SQLite starts the log over once
    everything is copied and no reader holds it. Only the journal that writes rows
    checkpoints: a reader closes without one (its checkpoint would take the writer's lock
    while it copies: a running table's write took up to 136 ms instead of 16).
    """

    CHECKPOINT_ROWS = 5000
    #: a journal at least this long has its chain checked in a second process while it is
    #: replayed (:meth:`checked_records`); a shorter one is checked faster than that starts
    CHECK_ASIDE_ROWS = 20_000
    #: the write-ahead log kept for reuse after a checkpoint: some ten rounds of rows
    WAL_KEPT_BYTES = 4 * 1024 * 1024

    def __init__(self, path: Path | str, sync: str = "full") -> None:
        if sync not in SYNC_MODES:
            raise JournalError(f"journal sync {sync!r}: expected one of {', '.join(SYNC_MODES)}")
        self.path = Path(path)
        self.sync = sync
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._not_anothers()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={SYNC_MODES[sync]}")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # see quiet()
            self._db.execute(f"PRAGMA journal_size_limit={int(self.WAL_KEPT_BYTES)}")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as error:
            raise JournalError(f"{self.path}: cannot open the journal: {error}") from None
        row = self._tail()
        self._next: int = int(row[0]) + 1 if row else 0
        self._last: str = str(row[1]) if row else GENESIS
        self._since_checkpoint = 0
        self._wrote = False  # this is the table's writer, not a reader
        self._key: bytes | None = None  # the table's key, once it keeps the journal sealed

    def _not_anothers(self) -> None:
        """Refuse an SQLite database that holds other tables and no journal, before
        anything is written to it: given one by mistake, ``tablectl history`` wrote the
        journal's tables into it and switched it to write-ahead logging."""
        names = [r[0] for r in self._db.execute("SELECT name FROM sqlite_master")]
        if names and "journal" not in names:
            self._db.close()
            shown = ", ".join(sorted(names)[:5]) + (", …" if len(names) > 5 else "")
            raise JournalError(
                f"{self.path}: expected a table's journal; got an SQLite database of other "
                f"tables ({shown}), left as it is"
            )

    def _tail(self) -> tuple[int, str] | None:
        """The last row's number and digest, as stored now (None in an empty journal)."""
        row: tuple[int, str] | None = self._db.execute(
            "SELECT seq, digest FROM journal ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return row

    def append(self, record: dict[str, Any], at: float) -> Entry:
        """Write one record durably and return its row."""
        entry = chain(self._last, self._next, at, record)
        try:
            self._db.execute(
                "INSERT INTO journal (seq, at, kind, record, prev, digest) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (entry.seq, entry.at, kind_of(record), entry.text, entry.prev, entry.digest),
            )  # fmt: skip
        except sqlite3.Error as error:
            raise JournalError(f"{self.path}: cannot write row {entry.seq}: {error}") from None
        self._next, self._last = entry.seq + 1, entry.digest
        self._wrote = True
        self._since_checkpoint += 1
        if self._since_checkpoint >= self.CHECKPOINT_ROWS:
            self.quiet()
        return entry

    def quiet(self) -> Seal:
        """Seal the head (with a key), then checkpoint the write-ahead log into the database
        file (rows stay durable either way), without waiting for readers; the next append
        writes the log over from its start. Returns the head as it is now, sealed with the
        key if the journal has one (what the table publishes to the pit).

        A checkpoint that cannot run now is no loss and stops nothing: every row is already
        durable in the log. It is logged and tried again at the next quiet moment, or after a
        tenth of :data:`CHECKPOINT_ROWS` more appends. (A read in progress on this very
        connection, from another thread, makes SQLite refuse it: "database table is locked".)
        A seal that cannot be written is logged the same way; the next one covers its rows.
        """
        head = self._seal("checkpoint")
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as error:
            log.warning("%s: checkpoint put off (rows are safe in the log): %s", self.path, error)
            self._since_checkpoint = self.CHECKPOINT_ROWS - self.CHECKPOINT_ROWS // 10
            return head
        self._since_checkpoint = 0
        return head

    # ------------------------------------------------------------------ the seal

    def keep_sealed(self, key: bytes | None) -> Seal | None:
        """Seal this journal's head with the table's ``key`` from now on (None: keep no seal);
        return the seal written now, on opening it (None for an empty journal or no key).

        The journal's latest seal must hold first: made with this key, and its rows as they
        are in the file. Otherwise :class:`~controller.journal.JournalCorrupt` says what does
        not match, and nothing is written (the table must not go on from a journal whose
        sealed rows were cut or rewritten, nor seal them anew).
        """
        if key is None:
            self._key = None
            return None
        latest = self._db.execute(LAST_SEAL_QUERY).fetchone()
        if latest is not None:
            self._check_latest(Seal(*latest), key)
        self._key = key
        return self._seal("open") if self._next else None

    def _check_latest(self, latest: Seal, key: bytes) -> None:
        """Raise :class:`JournalCorrupt` unless ``latest`` (the last seal) holds (see
        :meth:`keep_sealed`)."""
        if not latest.genuine(key):
            raise JournalCorrupt(
                f"{self.path}: the journal's last seal ({latest.why}, {latest.when}) was not "
                "made with this table's key: if the key was changed, put back the one the "
                "journal was sealed with; otherwise the seals were altered: run tablectl "
                "journal verify",
                None,
                BAD_SEAL,
            )
        if latest.rows > self._next:
            raise JournalCorrupt(
                f"{self.path}: rows {self._next}–{latest.rows - 1} were removed: the last seal "
                f"({latest.when}) covers {latest.rows} rows, the file has {self._next}: run "
                "tablectl journal verify",
                self._next,
                TRUNCATED,
            )
        row = self._db.execute(
            "SELECT digest FROM journal WHERE seq = ?", (latest.rows - 1,)
        ).fetchone()
        if (str(row[0]) if row else GENESIS) != latest.head:
            raise JournalCorrupt(
                f"{self.path}: row {latest.rows - 1}'s digest is not the head sealed at "
                f"{latest.when}: the chain was recomputed after a change: run tablectl "
                "journal verify",
                latest.rows - 1,
                RECOMPUTED,
            )
        if latest.why == "close" and self._next > latest.rows:
            # a table that stopped cleanly sealed its last row; one that crashed left no
            # closing seal: rows after a closing seal were written by something else
            added = (
                f"row {latest.rows} was"
                if self._next - latest.rows == 1
                else f"rows {latest.rows}–{self._next - 1} were"
            )
            raise JournalCorrupt(
                f"{self.path}: {added} added after the table closed the journal "
                f"({latest.when}): run tablectl journal verify",
                latest.rows,
                APPENDED,
            )

    def _seal(self, why: str) -> Seal:
        """The head now, sealed and written when the journal has a key."""
        head = seal(self._key, self._next, self._last, time.time(), why)
        if self._key is None or not self._next:
            return head
        try:
            self._db.execute(
                "INSERT INTO journal_seal (rows, head, at, why, mac) VALUES (?, ?, ?, ?, ?)",
                (head.rows, head.head, head.at, head.why, head.mac),
            )
        except sqlite3.Error as error:
            log.warning("%s: the %s seal was not written: %s", self.path, why, error)
        return head

    def seals(self) -> list[Seal]:
        """Every seal, in the order written."""
        return [Seal(*row) for row in self._db.execute(SEALS_QUERY)]

    def kinds(self) -> list[KindRow]:
        """Every row's stored kind beside its record's text, in order."""
        kinds: list[KindRow] = self._db.execute(KINDS_QUERY).fetchall()
        return kinds

    def audit(
        self,
        key: bytes | None = None,
        recorded: Seal | None = None,
        progress: Progress | None = None,
    ) -> Audit:
        """Check every row, every stored column and every seal (see
        :func:`controller.journal.audit`), all read in one transaction."""
        self._db.execute("BEGIN")
        try:
            rows, kinds, seals = self.rows(), self.kinds(), self.seals()
        finally:
            self._db.execute("ROLLBACK")
        return audit(rows, kinds, seals, key, recorded, progress)

    def entries(self) -> Iterator[Entry]:
        """Every row, in order, as stored."""
        cursor = self._db.execute("SELECT seq, at, record, prev, digest FROM journal ORDER BY seq")
        # a table's journal repeats the same few records (cards, bets, decisions): a record
        # of plain values already read is copied instead of parsed again
        read: dict[str, dict[str, Any]] = {}
        for seq, at, record, prev, digest in cursor:
            known = read.get(record)
            if known is not None:
                yield Entry(seq, at, known.copy(), prev, digest, record)
                continue
            doc = parse_record(record)
            if _flat(doc) and len(read) < 65536:
                read[record] = doc.copy()
            yield Entry(seq, at, doc, prev, digest, record)

    def last_of(self, kind: str) -> dict[str, Any] | None:
        """The record of the latest row of ``kind`` (read backwards from the end), or None."""
        row: tuple[str] | None = self._db.execute(
            "SELECT record FROM journal WHERE kind = ? ORDER BY seq DESC LIMIT 1", (kind,)
        ).fetchone()
        return None if row is None else parse_record(row[0])

    def rows(self) -> list[Row]:
        """Every row as stored, its record unparsed (a replay parses each distinct one once)."""
        rows: list[Row] = self._db.execute(ROWS_QUERY).fetchall()
        return rows

    @contextlib.contextmanager
    def checked_records(self) -> Iterator[list[Record]]:
        """Every row's time and record text, in order, for a restart's replay; on leaving,
        the chain has been checked (or :class:`JournalCorrupt` names its first bad row, even
        when the replay itself failed first, on that row).

        A journal of :data:`CHECK_ASIDE_ROWS` rows or more is checked by a second process
        (:class:`~drivers.storage.chain_check.ChainCheck`) while the caller replays it, on
        another processor: this process reads only the two columns a replay needs and never
        hashes a row (a 10,000-round journal: 4.5-4.9 -> 4.0-4.2 s). No other writer can add a
        row meanwhile (this connection holds the write lock throughout), and the child's
        row count and last digest must be this reader's, so both read the same rows. Should
        the child give no verdict (it cannot start, dies or hangs), the chain is checked
        here, with a warning.
        """
        if len(self) < self.CHECK_ASIDE_ROWS:
            rows = self.rows()
            verify_rows(rows)
            verify_kinds(self.kinds())
            yield [(at, text) for _, at, text, _, _ in rows]
            return
        try:
            self._db.execute("BEGIN IMMEDIATE")  # no row is added until both have read
        except sqlite3.Error as error:
            raise JournalError(f"{self.path}: cannot lock the journal: {error}") from None
        check: ChainCheck | Verdict = Verdict(failed="the chain check did not start")
        try:
            check = ChainCheck.start(self.path, len(self))
            records: list[Record] = self._db.execute(
                "SELECT at, record FROM journal ORDER BY seq"
            ).fetchall()
            try:
                yield records
            except Exception as failed:
                # a replay that fails on a changed row is told as the change it is
                found = self._verdict(check)
                if found.corrupt:
                    raise JournalCorrupt(found.corrupt) from failed
                raise
            found = self._verdict(check)
            if found.corrupt:
                raise JournalCorrupt(found.corrupt)
            tail = self._tail()
            if found.rows != len(records) or found.head != (tail[1] if tail else ""):
                raise JournalError(
                    f"{self.path}: the rows checked are not the rows replayed ({found.rows} "
                    f"checked up to {found.head[:12] or 'none'}, {len(records)} replayed): "
                    "was the file replaced?"
                )
        finally:
            if isinstance(check, ChainCheck):
                check.stop()
            try:
                self._db.execute("ROLLBACK")  # it wrote nothing: end the read, free the lock
            except sqlite3.Error as error:
                raise JournalError(f"{self.path}: cannot unlock the journal: {error}") from None

    def _verdict(self, check: ChainCheck | Verdict) -> Verdict:
        """The check's verdict; with none from the child, the chain checked here."""
        found = check.verdict() if isinstance(check, ChainCheck) else check
        if not found.failed:
            return found
        log.warning("%s: %s; checking the chain in this process", self.path, found.failed)
        rows = self.rows()
        try:
            verify_rows(rows)
            verify_kinds(self.kinds())
        except JournalCorrupt as corrupt:
            return Verdict(corrupt=str(corrupt))
        return Verdict(rows=len(rows), head=rows[-1][4] if rows else "")

    def __len__(self) -> int:
        return self._next

    def close(self) -> None:
        """Close the file; the writer first seals the head (with a key), checkpoints and
        empties the write-ahead log (one file to copy), a reader leaves both to the writer."""
        if self._key is not None:
            self._seal("close")
        if self._wrote:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()
