"""A journal file's hash chain (and the kind stored beside each record) checked in a process
of its own, beside a restart's replay.

A restarting table replays its whole journal: it reads every row, checks the chain, and
folds the events into the table. On a long journal the fold takes most of the time and one
processor; checking the chain takes another tenth of the time. :class:`ChainCheck` runs the
check in a second Python process (``python -m drivers.storage.chain_check FILE``) on another
processor while the table's own process reads only what the fold needs and folds it. The
table is used only once the check has passed: a broken chain still stops the restart, with
the same message naming the first bad row.

The child prints one line of JSON: ``{"rows": N, "head": DIGEST}`` when the
chain holds (its row count and last digest, so the parent can tell it checked the very rows
it replayed), ``{"corrupt": MESSAGE}`` when it does not, ``{"error": MESSAGE}`` when it
cannot read the file. Anything else (the child cannot start, dies, or outlasts its time) is
no verdict at all, and the caller checks the chain itself.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from controller.journal import JournalCorrupt, KindRow, Row, verify_kinds, verify_rows

__all__ = ["KINDS_QUERY", "ROWS_QUERY", "ChainCheck", "Verdict", "check_file"]

#: every row as stored, its record unparsed, in order
ROWS_QUERY = "SELECT seq, at, record, prev, digest FROM journal ORDER BY seq"
#: every row's stored kind beside its record, in order (the kind must be the record's)
KINDS_QUERY = "SELECT seq, kind, record FROM journal ORDER BY seq"
#: both at once, for the check beside a replay
CHECK_QUERY = "SELECT seq, at, record, prev, digest, kind FROM journal ORDER BY seq"

#: the module the child runs (this one)
CHILD_MODULE = "drivers.storage.chain_check"
# the directory the child imports this package from: the parent's own, whatever its sys.path
_SOURCE_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class Verdict:
    """What the child found: ``rows`` checked up to ``head`` (the last digest), or the
    first bad row (``corrupt``), or why it found nothing (``failed``)."""

    rows: int = 0
    head: str = ""
    corrupt: str = ""
    failed: str = ""


def check_file(path: Path) -> dict[str, object]:
    """Check the chain of the journal at ``path`` (opened read-only), as the child reports it."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            stored: list[tuple[int, float, str, str, str, str]] = db.execute(
                CHECK_QUERY
            ).fetchall()  # every column, read once
            rows: list[Row] = [row[:5] for row in stored]
            kinds: list[KindRow] = [(row[0], row[5], row[2]) for row in stored]
            del stored
        finally:
            db.close()
    except sqlite3.Error as error:
        return {"error": f"{path}: cannot read the journal: {error}"}
    try:
        verify_rows(rows)
        verify_kinds(kinds)
    except JournalCorrupt as corrupt:
        return {"corrupt": str(corrupt)}
    head = rows[-1][4] if rows else ""
    return {"rows": len(rows), "head": head}


class ChainCheck:
    """The child process checking one journal file's chain (see the module's text)."""

    def __init__(self, process: subprocess.Popen[str], timeout: float) -> None:
        self._process = process
        self._timeout = timeout

    @classmethod
    def start(cls, path: Path, rows: int) -> ChainCheck | Verdict:
        """Start checking the journal at ``path`` (about ``rows`` long) in a child process;
        a :class:`Verdict` that failed when no child can start."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_SOURCE_ROOT, env.get("PYTHONPATH")) if p)
        command = [sys.executable, "-m", CHILD_MODULE, str(path)]
        try:
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
            )
        except OSError as error:
            return Verdict(failed=f"the chain check could not start: {error}")
        # a check takes a few microseconds a row: ten times that, and half a minute to start
        return cls(process, 30.0 + rows * 30e-6)

    def verdict(self) -> Verdict:
        """Wait for the child's verdict (at most its time), then reap it."""
        try:
            out, err = self._process.communicate(timeout=self._timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            return Verdict(failed=f"the chain check took more than {self._timeout:.0f} s")
        try:
            found = json.loads(out)
            if not isinstance(found, dict):
                raise ValueError(found)
        except ValueError:
            why = (err.strip().splitlines() or [f"exit status {self._process.returncode}"])[-1]
            return Verdict(failed=f"the chain check gave no verdict: {why}")
        if "corrupt" in found:
            return Verdict(corrupt=str(found["corrupt"]))
        if "error" in found:
            return Verdict(failed=str(found["error"]))
        return Verdict(rows=int(found["rows"]), head=str(found["head"]))

    def stop(self) -> None:
        """End the child if it still runs, and reap it."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.communicate()


def main(argv: list[str] | None = None) -> int:
    """``python -m drivers.storage.chain_check FILE``: print the verdict as JSON."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m drivers.storage.chain_check JOURNAL_FILE", file=sys.stderr)
        return 2
    print(json.dumps(check_file(Path(args[0]))))
    return 0


if __name__ == "__main__":
    import gc

    gc.disable()  # plain acyclic rows: the collector's passes over them would find nothing
    sys.exit(main())
