"""The birth counter of a table's MQTT session, kept beside its journal (SQLite).

Each connection to the broker is a new birth; the counter survives restarts so displays
never see an old birth number come back after the controller was killed.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["BirthCounter"]


class BirthCounter:
    """A persistent counter in its own table of the journal's database file."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS births (id INTEGER PRIMARY KEY, n INTEGER)")
        self._db.execute("INSERT OR IGNORE INTO births (id, n) VALUES (1, 0)")

    @property
    def current(self) -> int:
        """The last birth number handed out (0 before the first)."""
        row = self._db.execute("SELECT n FROM births WHERE id = 1").fetchone()
        return int(row[0])

    def next(self) -> int:
        """One more birth: the new number, stored before it is returned."""
        self._db.execute("UPDATE births SET n = n + 1 WHERE id = 1")
        return self.current

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()
