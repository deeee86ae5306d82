"""The journal's model: append-only, hash-chained records of every input, written before use.

Row 0 is the table's configuration (the game's configuration file included, so a journal is
a self-contained record); every later row is one event with the time it was handled. Each
row's digest is SHA-256 over the previous row's digest and the row's own content, so
changing, removing or reordering any row breaks the chain from that row on.

A row's content is hashed in one canonical form: compact JSON with sorted keys (see
:func:`canonical`). A journal that stores each record in that form (:func:`record_text`)
lets :func:`verify` hash the stored text as it is, without writing the record out again.

>>> first = chain(GENESIS, 0, 10.0, {"kind": "table_configured"})
>>> second = chain(first.digest, 1, 11.0, {"kind": "open_table", "actor": "pit"})
>>> verify([first, second])
>>> tampered = Entry(1, 11.0, {"kind": "close_table", "actor": "pit"}, second.prev, second.digest)
>>> verify([first, tampered])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
controller.journal.JournalCorrupt: row 1: its digest does not match its content ...
>>> canonical(1, 11.0, second.record) == canonical_text(1, 11.0, record_text(second.record))
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sized
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Protocol, TypeVar

from controller.errors import TableError
from controller.work import Progress

__all__ = [
    "GENESIS",
    "PROGRESS_ROWS",
    "Entry",
    "Journal",
    "JournalCorrupt",
    "Record",
    "Row",
    "canonical",
    "canonical_text",
    "chain",
    "parse_record",
    "record_text",
    "verify",
    "verify_rows",
]

GENESIS = "0" * 64

#: rows checked between two progress reports (a few milliseconds of hashing)
PROGRESS_ROWS = 4096

_T = TypeVar("_T")


class JournalCorrupt(TableError):
    """A journal whose chain is broken; the message names the first bad row and how."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal row: its number, when it was handled, the record, and the chain."""

    seq: int
    at: float
    record: dict[str, Any]
    prev: str
    digest: str
    # the text the journal stored and read the record from, when it stores text; verify
    # hashes it as it is when it hashes to the digest, and writes the record out otherwise
    text: str | None = field(default=None, repr=False, compare=False)


def canonical(seq: int, at: float, record: dict[str, Any]) -> bytes:
    """The exact bytes a row's digest covers."""
    return json.dumps(
        {"seq": seq, "at": repr(float(at)), "record": record},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode()


def record_text(record: dict[str, Any]) -> str:
    """A record in the canonical form of its row's digest: compact JSON, sorted keys."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_text(seq: int, at: float, text: str) -> bytes:
    """:func:`canonical` of the row whose record's canonical text is ``text``.

    The same bytes, put together around the text: keys in sorted order ``at``, ``record``,
    ``seq``; the time as the JSON string of its ``repr`` (digits, sign, point, exponent,
    ``inf`` or ``nan``: nothing that JSON escapes).
    """
    return _canonical_str(seq, at, text).encode()


def _canonical_str(seq: int, at: float, text: str) -> str:
    return f'{{"at":"{float(at)!r}","record":{text},"seq":{int(seq)}}}'


def _digest(prev: str, content: bytes) -> str:
    return hashlib.sha256(prev.encode() + content).hexdigest()


def chain(prev: str, seq: int, at: float, record: dict[str, Any]) -> Entry:
    """The row that follows a row whose digest is ``prev``."""
    text = record_text(record)
    digest = _digest(prev, canonical_text(seq, at, text))
    return Entry(seq, at, record, prev, digest, text)


#: a row as stored, its record unparsed: (seq, at, text, prev, digest)
Row = tuple[int, float, str, str, str]
#: what a replay needs of a row: (at, text)
Record = tuple[float, str]


def parse_record(text: str) -> dict[str, Any]:
    """The record a row stores as ``text``; an unreadable one as ``{"kind": "unreadable"}``
    with the text (it cannot hash to its digest, and no event has that kind).

    >>> parse_record('{"actor":"dealer","kind":"start_round"}')["kind"], parse_record("{x")
    ('start_round', {'kind': 'unreadable', 'text': '{x'})
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        return {"kind": "unreadable", "text": text}
    return doc if isinstance(doc, dict) else {"kind": "unreadable", "text": text}


def verify(entries: Iterable[Entry], progress: Progress | None = None) -> None:
    """Raise :class:`JournalCorrupt` at the first row that breaks the chain; ``progress(done,
    total)`` is told of the rows checked, every :data:`PROGRESS_ROWS` rows and at the end."""
    entries = _sized(entries, progress)
    rows = ((e.seq, e.at, e.text, e.prev, e.digest, e.record) for e in entries)
    _verify(rows, progress, len(entries) if isinstance(entries, Sized) else 0)


def verify_rows(rows: Iterable[Row], progress: Progress | None = None) -> None:
    """:func:`verify` for rows as stored (a record is parsed only where its text does not
    hash to the digest)."""
    rows = _sized(rows, progress)
    stored = ((seq, at, text, prev, digest, None) for seq, at, text, prev, digest in rows)
    _verify(stored, progress, len(rows) if isinstance(rows, Sized) else 0)


def _sized(items: Iterable[_T], progress: Progress | None) -> Iterable[_T]:
    """``items`` as they are, or as a list when progress needs their number and they have none."""
    if progress is None or isinstance(items, Sized):
        return items
    return list(items)


#: a row as :func:`_check` takes it: (seq, at, stored text, prev, digest, record if parsed)
_Checked = tuple[int, float, str | None, str, str, dict[str, Any] | None]


def _verify(rows: Iterable[_Checked], progress: Progress | None, total: int) -> None:
    """Check rows, reporting to ``progress`` (if any) between runs of :data:`PROGRESS_ROWS`."""
    if progress is None:
        _check(rows, GENESIS, 0)
        return
    progress(0, total)
    pending = iter(rows)
    prev, done = _check(islice(pending, PROGRESS_ROWS), GENESIS, 0)
    while True:
        progress(done, total)
        prev, checked = _check(islice(pending, PROGRESS_ROWS), prev, done)
        if checked == done:
            return
        done = checked


def _check(rows: Iterable[_Checked], prev: str, expected_seq: int) -> tuple[str, int]:
    """Check rows that follow the row numbered ``expected_seq - 1`` whose digest is ``prev``;
    return the last row's digest and the number the next row must have."""
    sha256 = hashlib.sha256
    for seq, at, text, row_prev, digest, record in rows:
        if seq != expected_seq:
            raise JournalCorrupt(
                f"row {seq}: expected row {expected_seq} here (a row is missing or moved)"
            )
        if row_prev != prev:
            raise JournalCorrupt(f"row {seq}: it does not follow row {seq - 1} (the chain is cut)")
        # A stored text that hashes to the digest is the very content that was hashed (the
        # usual case, checked in one step: UTF-8 encodes a concatenation as the concatenation
        # of the encodings); otherwise (another JSON form, or a change) the record is written
        # out in the canonical form and hashed.
        if (
            text is None
            or sha256((prev + _canonical_str(seq, at, text)).encode()).hexdigest() != digest
        ):
            if record is None:  # a row as stored: its record, as the journal reads it
                record = parse_record(text or "")
            if _digest(prev, canonical(seq, at, record)) != digest:
                raise JournalCorrupt(
                    f"row {seq}: its digest does not match its content "
                    "(changed after it was written)"
                )
        prev, expected_seq = digest, expected_seq + 1
    return prev, expected_seq


class Journal(Protocol):
    """Where the table's inputs are kept: append before applying, read back to replay."""

    def append(self, record: dict[str, Any], at: float) -> Entry:
        """Write one record durably and return its row."""
        ...

    def entries(self) -> Iterator[Entry]:
        """Every row, in order."""
        ...

    def rows(self) -> list[Row]:
        """Every row as stored, its record unparsed, in order (for a replay, which parses
        each distinct record once)."""
        ...

    def checked_records(self) -> AbstractContextManager[list[Record]]:
        """Every row's time and record text, in order, for a restart's replay: the chain is
        checked by the time the context ends (:class:`JournalCorrupt` otherwise), perhaps
        beside the replay rather than before it."""
        ...

    def last_of(self, kind: str) -> dict[str, Any] | None:
        """The record of the latest row of ``kind``, or None (a restarted table asks for the
        last card it kept, to go on from the shoe's record after it)."""
        ...

    def quiet(self) -> None:
        """The table has a quiet moment (a round ended): do deferred housekeeping now."""
        ...

    def close(self) -> None:
        """Release the storage."""
        ...
