"""The journal's model: append-only, hash-chained records of every input, written before use.

Row 0 is the table's configuration (the game's configuration file included, so a journal is
a self-contained record); every later row is one event with the time it was handled. Each
row's digest is SHA-256 over the previous row's digest and the row's own content, so
changing, removing or reordering any row breaks the chain from that row on.

>>> first = chain(GENESIS, 0, 10.0, {"kind": "table_configured"})
>>> second = chain(first.digest, 1, 11.0, {"kind": "open_table", "actor": "pit"})
>>> verify([first, second])
>>> tampered = Entry(1, 11.0, {"kind": "close_table", "actor": "pit"}, second.prev, second.digest)
>>> verify([first, tampered])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
controller.journal.JournalCorrupt: row 1: its digest does not match its content ...
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from controller.errors import TableError

__all__ = ["GENESIS", "Entry", "Journal", "JournalCorrupt", "chain", "verify"]

GENESIS = "0" * 64


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


def canonical(seq: int, at: float, record: dict[str, Any]) -> bytes:
    """The exact bytes a row's digest covers."""
    return json.dumps(
        {"seq": seq, "at": repr(float(at)), "record": record},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode()


def chain(prev: str, seq: int, at: float, record: dict[str, Any]) -> Entry:
    """The row that follows a row whose digest is ``prev``."""
    digest = hashlib.sha256(prev.encode() + canonical(seq, at, record)).hexdigest()
    return Entry(seq, at, record, prev, digest)


def verify(entries: Iterable[Entry]) -> None:
    """Raise :class:`JournalCorrupt` at the first row that breaks the chain."""
    prev, expected_seq = GENESIS, 0
    for entry in entries:
        if entry.seq != expected_seq:
            raise JournalCorrupt(
                f"row {entry.seq}: expected row {expected_seq} here (a row is missing or moved)"
            )
        if entry.prev != prev:
            raise JournalCorrupt(
                f"row {entry.seq}: it does not follow row {entry.seq - 1} (the chain is cut)"
            )
        if chain(prev, entry.seq, entry.at, entry.record).digest != entry.digest:
            raise JournalCorrupt(
                f"row {entry.seq}: its digest does not match its content "
                "(changed after it was written)"
            )
        prev, expected_seq = entry.digest, expected_seq + 1


class Journal(Protocol):
    """Where the table's inputs are kept: append before applying, read back to replay."""

    def append(self, record: dict[str, Any], at: float) -> Entry:
        """Write one record durably and return its row."""
        ...

    def entries(self) -> Iterator[Entry]:
        """Every row, in order."""
        ...

    def close(self) -> None:
        """Release the storage."""
        ...
