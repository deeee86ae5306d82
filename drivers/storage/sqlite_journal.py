"""The journal on SQLite: one file, append-only (triggers refuse changes), synchronous writes.

Each record is stored as the JSON text its row's digest covers (compact, sorted keys), so
verifying the chain hashes the stored text as it is. Rows written in another JSON form (by
earlier versions) are read and verified as before.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.errors import TableError
from controller.journal import GENESIS, Entry, chain

__all__ = ["JournalError", "SqliteJournal"]

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
"""


def _flat(doc: object) -> bool:
    """Whether ``doc`` is an object of plain values only (so a copy of it is a whole copy)."""
    return isinstance(doc, dict) and all(
        value is None or type(value) in (str, int, float, bool) for value in doc.values()
    )


class JournalError(TableError):
    """The journal file cannot be opened or written."""


class SqliteJournal:
    """A :class:`controller.journal.Journal` in one SQLite file.

    Every append is its own committed transaction with ``synchronous=FULL``: when
    :meth:`append` returns, the row survives a crash or a power cut.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as error:
            raise JournalError(f"{self.path}: cannot open the journal: {error}") from None
        row = self._db.execute(
            "SELECT seq, digest FROM journal ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        self._next: int = int(row[0]) + 1 if row else 0
        self._last: str = str(row[1]) if row else GENESIS

    def append(self, record: dict[str, Any], at: float) -> Entry:
        """Write one record durably and return its row."""
        entry = chain(self._last, self._next, at, record)
        try:
            self._db.execute(
                "INSERT INTO journal (seq, at, kind, record, prev, digest) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (entry.seq, entry.at, str(record.get("kind", "")), entry.text, entry.prev,
                 entry.digest),
            )  # fmt: skip
        except sqlite3.Error as error:
            raise JournalError(f"{self.path}: cannot write row {entry.seq}: {error}") from None
        self._next, self._last = entry.seq + 1, entry.digest
        return entry

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
            try:
                doc = json.loads(record)
            except json.JSONDecodeError:
                yield Entry(seq, at, {"kind": "unreadable", "text": record}, prev, digest)
                continue
            if _flat(doc) and len(read) < 65536:
                read[record] = doc.copy()
            yield Entry(seq, at, doc, prev, digest, record)

    def __len__(self) -> int:
        return self._next

    def close(self) -> None:
        """Close the file."""
        self._db.close()
