"""The journal sealed as a whole: every column of every row, the row count and the last digest.

A real table (the service, its SQLite journal, the checkpoint at each round's end) writes a
journal sealed with a key; every kind of tampering is then made to a copy of the file, as a
determined tamperer would (the append-only triggers dropped, the chain recomputed with the
product's own :func:`controller.journal.chain`), and each must be found at its first bad row,
or between the two seals around it when the chain was recomputed.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.errors import ConfigError, InvalidSpec
from controller.events import event_to_json
from controller.journal import (
    APPENDED,
    BAD_SEAL,
    CHANGED,
    CUT,
    GENESIS,
    KIND,
    MISSING,
    NO_SEAL,
    RECOMPUTED,
    TRUNCATED,
    Audit,
    JournalCorrupt,
    Seal,
    chain,
    parse_head,
    parse_record,
    seal,
)
from controller.topics import Topics
from drivers.mqtt.client import BrokerAddress
from drivers.storage.chain_check import check_file
from drivers.storage.sqlite_journal import SqliteJournal
from tablectl.cli import main
from tablectl.running import RunningTable
from tablectl.runtime import TableRunner
from tablectl.service import Inbound, TableService
from tests.controller.round_script import T0, header, rounds
from tests.support.publisher import Collected

KEY = b"0123456789abcdef-a-test-journal-key"
OTHER_KEY = b"fedcba9876543210-not-the-tables-key"
ROUNDS = 4
SEEDS = range(6)


class Retained(Collected):
    """Keeps what is published, and whether it was retained."""

    def __init__(self) -> None:
        super().__init__()
        self.retained: dict[str, bytes] = {}

    def publish(self, topic: str, payload: bytes, *, retain: bool = False, qos: int = 1) -> bool:
        """Keep the message (and the last retained one of each topic)."""
        if retain:
            self.retained[topic] = payload
        return super().publish(topic, payload, retain=retain, qos=qos)


def play(path: Path, key: bytes | None, n: int = ROUNDS, close: bool = True) -> Retained:
    """``n`` rounds on a real table (its service, its journal, the checkpoint at each round's
    end); the journal closed as a stopped table closes it, unless ``close`` is off."""
    runner = TableRunner.create(path, header(), T0 - 60)
    runner.journal.keep_sealed(key)  # type: ignore[attr-defined]
    published = Retained()
    service = TableService(runner, published)
    service.start()
    try:
        for event, _ in rounds(n):
            service.submit(event)
    finally:
        service.stop()
    if close:
        runner.close()
    else:  # as a table that died: the rows are durable, no closing seal was written
        runner.journal._db.close()  # type: ignore[attr-defined]
    return published


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed journal of :data:`ROUNDS` rounds, sealed with :data:`KEY`."""
    path = tmp_path_factory.mktemp("sealed") / "table.journal"
    play(path, KEY)
    return path


@pytest.fixture
def copy(sealed: Path, tmp_path: Path) -> Path:
    """A copy of the sealed journal to tamper with."""
    target = tmp_path / "copy.journal"
    shutil.copyfile(sealed, target)
    return target


@contextlib.contextmanager
def tampering(path: Path) -> Iterator[sqlite3.Connection]:
    """The file opened as a tamperer opens it: the append-only triggers dropped."""
    db = sqlite3.connect(path, isolation_level=None)
    for trigger in ("journal_no_update", "journal_no_delete"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    for trigger in ("journal_seal_no_update", "journal_seal_no_delete"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    try:
        yield db
    finally:
        db.close()


def check(path: Path, key: bytes | None = KEY, recorded: Seal | None = None) -> Audit:
    with contextlib.closing(SqliteJournal(path)) as journal:
        return journal.audit(key, recorded)


def rows_of(path: Path) -> list[tuple[int, float, str, str, str, str]]:
    db = sqlite3.connect(path)
    try:
        rows: list[tuple[int, float, str, str, str, str]] = db.execute(
            "SELECT seq, at, kind, record, prev, digest FROM journal ORDER BY seq"
        ).fetchall()
    finally:
        db.close()
    return rows


def seal_rows(path: Path) -> list[int]:
    with contextlib.closing(SqliteJournal(path)) as journal:
        return sorted({s.rows for s in journal.seals()})


def seal_count(path: Path) -> int:
    with contextlib.closing(SqliteJournal(path)) as journal:
        return len(journal.seals())


def recompute_from(db: sqlite3.Connection, first: int) -> None:
    """Rewrite the chain from row ``first`` on with the product's own chain function."""
    prev = GENESIS
    if first:
        prev = db.execute("SELECT digest FROM journal WHERE seq = ?", (first - 1,)).fetchone()[0]
    rows = db.execute(
        "SELECT seq, at, record FROM journal WHERE seq >= ? ORDER BY seq", (first,)
    ).fetchall()
    for seq, at, text in rows:
        entry = chain(prev, seq, at, parse_record(text))
        db.execute(
            "UPDATE journal SET record = ?, prev = ?, digest = ? WHERE seq = ?",
            (entry.text, entry.prev, entry.digest, seq),
        )
        prev = entry.digest


def changed_record(text: str) -> str:
    """The record with one value changed (an ante of 10 becomes 100, say)."""
    record = parse_record(text)
    if "amount" in record:
        return json.dumps({**record, "amount": str(int(record["amount"]) * 10)})
    return json.dumps({**record, "actor": "pit:someone-else"})


def first(found: Audit) -> tuple[str, int | None]:
    assert not found.intact, "the tampering was not found"
    return found.findings[0].what, found.findings[0].row


def sample_rows(seed: int, n: int) -> list[int]:
    rng = random.Random(seed)
    return sorted({0, n - 1, *rng.sample(range(n), 4)})


# ------------------------------------------------------------------ what a real table writes


def test_a_table_seals_its_head_when_it_opens_at_each_round_end_and_when_it_closes(
    sealed: Path,
) -> None:
    n = len(rows_of(sealed))
    with contextlib.closing(SqliteJournal(sealed)) as journal:
        seals = journal.seals()
    assert [s.why for s in seals] == ["open", *["checkpoint"] * ROUNDS, "close"]
    assert seals[0].rows == 1 and seals[-1].rows == seals[-2].rows == n
    assert all(s.genuine(KEY) and not s.genuine(OTHER_KEY) for s in seals)
    found = check(sealed)
    assert found.intact and found.rows == n and found.sealed is not None
    assert found.sealed.rows == n
    assert any("the seals match the key" in note for note in found.notes)


def test_the_head_is_published_retained_to_the_pit_at_each_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    published = play(path, KEY)
    topic = Topics("S1").journal
    heads = [json.loads(p) for p in published.texts("/pit/journal")]
    assert len(heads) == ROUNDS
    last = json.loads(published.retained[topic])
    assert last == heads[-1] and last["table"] == "S1" and last["why"] == "checkpoint"
    assert parse_head(published.retained[topic].decode()).genuine(KEY)
    # the head the pit recorded is the file's head at that checkpoint
    assert last["head"] == rows_of(path)[last["rows"] - 1][5]
    assert check(path, None, parse_head(json.dumps(last))).intact


def test_the_head_is_published_again_at_each_birth(tmp_path: Path) -> None:
    """A broker that lost its retained messages gets the head again when the table
    reconnects, as it gets every state."""
    runner = TableRunner.create(tmp_path / "t.journal", header(), T0 - 60)
    runner.journal.keep_sealed(KEY)  # type: ignore[attr-defined]
    published = Retained()
    service = TableService(runner, published)
    service.start()
    try:
        service.put(Inbound("connected"))
        service.sync()
        assert published.texts("/pit/journal") == []  # no checkpoint yet: nothing to say
        for event, _ in rounds(1):
            service.submit(event)
        service.put(Inbound("connected"))
        service.sync()
    finally:
        service.stop()
        runner.close()
    heads = published.texts("/pit/journal")
    assert len(heads) == 2 and heads[0] == heads[1]
    assert parse_head(heads[1]).genuine(KEY)


def test_a_table_without_a_key_publishes_its_head_unsealed_and_keeps_no_seal(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.journal"
    published = play(path, None, n=2)
    heads = [json.loads(p) for p in published.texts("/pit/journal")]
    assert len(heads) == 2 and all(h["mac"] is None for h in heads)
    assert seal_rows(path) == []
    found = check(path, None)
    assert found.intact and any("holds no seal" in note for note in found.notes)
    # the head the pit recorded still finds rows cut off the end
    with tampering(path) as db:
        db.execute("DELETE FROM journal WHERE seq >= ?", (heads[-1]["rows"] - 3,))
    assert first(check(path, None, parse_head(json.dumps(heads[-1])))) == (
        TRUNCATED,
        heads[-1]["rows"] - 3,
    )


# ------------------------------------------------------------------ every tamper, every column


def _set(column: str, value: Callable[[tuple[Any, ...]], Any]) -> Callable[..., None]:
    def tamper(db: sqlite3.Connection, row: tuple[Any, ...]) -> None:
        db.execute(f"UPDATE journal SET {column} = ? WHERE seq = ?", (value(row), row[0]))

    return tamper


COLUMNS: dict[str, tuple[Callable[..., None], str]] = {
    "seq": (_set("seq", lambda r: 10_000 + r[0]), MISSING),
    "at": (_set("at", lambda r: r[1] + 1.0), CHANGED),
    "kind": (_set("kind", lambda r: "void_round" if r[2] != "void_round" else "halt"), KIND),
    "record": (_set("record", lambda r: changed_record(r[3])), CHANGED),
    "prev": (_set("prev", lambda r: "f" * 64), CUT),
    "digest": (_set("digest", lambda r: "e" * 64), CHANGED),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("column", sorted(COLUMNS))
def test_a_change_to_any_column_of_any_row_is_found_at_that_row(
    sealed: Path, tmp_path: Path, column: str, seed: int
) -> None:
    rows = rows_of(sealed)
    tamper, what = COLUMNS[column]
    for i in sample_rows(seed * 7 + len(column), len(rows)):
        path = tmp_path / f"{column}-{i}.journal"
        shutil.copyfile(sealed, path)
        with tampering(path) as db:
            tamper(db, rows[i])
        assert first(check(path)) == (what, i), (column, i)
        assert first(check(path, None)) == (what, i), (column, i)  # no key needed for these


@pytest.mark.parametrize("seed", SEEDS)
def test_a_deleted_row_is_found_where_it_is_missing(
    sealed: Path, tmp_path: Path, seed: int
) -> None:
    n = len(rows_of(sealed))
    i = random.Random(seed).randrange(n - 1)
    path = tmp_path / "deleted.journal"
    shutil.copyfile(sealed, path)
    with tampering(path) as db:
        db.execute("DELETE FROM journal WHERE seq = ?", (i,))
    assert first(check(path)) == (MISSING, i)


@pytest.mark.parametrize("seed", SEEDS)
def test_two_swapped_rows_are_found_at_the_first_of_them(
    sealed: Path, tmp_path: Path, seed: int
) -> None:
    rows = rows_of(sealed)
    rng = random.Random(seed)
    i, j = sorted(rng.sample(range(len(rows)), 2))
    while rows[i][3] == rows[j][3] and rows[i][1] == rows[j][1]:  # pragma: no cover
        i, j = sorted(rng.sample(range(len(rows)), 2))
    path = tmp_path / "swapped.journal"
    shutil.copyfile(sealed, path)
    with tampering(path) as db:
        for (seq, *_), (_, at, kind, record, prev, digest) in (
            (rows[i], rows[j]),
            (rows[j], rows[i]),
        ):
            db.execute(
                "UPDATE journal SET at = ?, kind = ?, record = ?, prev = ?, digest = ? "
                "WHERE seq = ?",
                (at, kind, record, prev, digest, seq),
            )
    what, row = first(check(path))
    assert row == i and what in (CUT, CHANGED)


@pytest.mark.parametrize("cut", [1, 2, 7, 30])
def test_rows_cut_off_the_end_are_found_at_the_first_missing(
    copy: Path, capsys: pytest.CaptureFixture[str], cut: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = len(rows_of(copy))
    with tampering(copy) as db:
        db.execute("DELETE FROM journal WHERE seq >= ?", (n - cut,))
    assert check(copy, None).findings[0].what == TRUNCATED  # the seals left say so, keyless
    found = check(copy)
    assert first(found) == (TRUNCATED, n - cut)
    assert f"covers {n} rows, the file has {n - cut}" in found.findings[0].message
    monkeypatch.setenv("JOURNAL_KEY", KEY.decode())
    assert main(["journal", "verify", "--journal", str(copy), "--key-env", "JOURNAL_KEY"]) == 2
    err = capsys.readouterr().err
    assert f"tampered (truncated): rows {n - cut}–{n - 1} were removed" in err
    assert "What the seal does not prove" in err


@pytest.mark.parametrize("seed", SEEDS)
def test_a_chain_recomputed_after_an_edit_is_found_between_the_seals_around_it(
    sealed: Path, tmp_path: Path, seed: int
) -> None:
    """The adversary's own attack: an ante of 10 made 100 and the chain after it rewritten
    with the product's chain function. The chain holds; the sealed heads do not."""
    rows = rows_of(sealed)
    bets = [r[0] for r in rows if r[2] == "place_bet"]
    i = random.Random(seed).choice(bets)
    path = tmp_path / "recomputed.journal"
    shutil.copyfile(sealed, path)
    with tampering(path) as db:
        db.execute("UPDATE journal SET record = ? WHERE seq = ?", (changed_record(rows[i][3]), i))
        recompute_from(db, i)
    assert check(path, None, None).findings[0].what == RECOMPUTED  # even the seals, keyless
    marks = seal_rows(sealed)
    low = max((s for s in marks if s <= i), default=0)
    high = min(s for s in marks if s > i) - 1
    found = check(path)
    assert first(found) == (RECOMPUTED, low)
    assert found.findings[0].last == high and low <= i <= high
    assert high - low < 20  # one round's rows


def test_a_recomputed_chain_with_seals_rewritten_without_the_key(copy: Path) -> None:
    """Whoever rewrites the seals along with the chain passes a check without the key, and
    is found by the key (and by the head the pit recorded)."""
    rows = rows_of(copy)
    i = next(r[0] for r in rows if r[2] == "place_bet")
    recorded = parse_head(f"{len(rows)}:{rows[-1][5]}")
    with tampering(copy) as db:
        db.execute("UPDATE journal SET record = ? WHERE seq = ?", (changed_record(rows[i][3]), i))
        recompute_from(db, i)
        for (count,) in db.execute("SELECT DISTINCT rows FROM journal_seal").fetchall():
            head = db.execute("SELECT digest FROM journal WHERE seq = ?", (count - 1,)).fetchone()
            db.execute("UPDATE journal_seal SET head = ? WHERE rows = ?", (head[0], count))
    keyless = check(copy, None)
    assert keyless.intact and any("not checked against the key" in n for n in keyless.notes)
    assert first(check(copy)) == (BAD_SEAL, None)
    assert first(check(copy, None, recorded)) == (RECOMPUTED, 0)


def test_a_recomputed_chain_with_every_seal_removed(copy: Path) -> None:
    rows = rows_of(copy)
    i = next(r[0] for r in rows if r[2] == "place_bet")
    recorded = parse_head(f"{len(rows) - 5}:{rows[-6][5]}")
    with tampering(copy) as db:
        db.execute("UPDATE journal SET record = ? WHERE seq = ?", (changed_record(rows[i][3]), i))
        recompute_from(db, i)
        db.execute("DELETE FROM journal_seal")
    assert check(copy, None).intact  # nothing in the file can tell, without a key or a head
    assert first(check(copy)) == (NO_SEAL, None)
    assert first(check(copy, None, recorded)) == (RECOMPUTED, 0)


def test_rows_added_after_the_journal_was_closed_are_found(copy: Path) -> None:
    rows = rows_of(copy)
    n = len(rows)
    with tampering(copy) as db:
        prev = rows[-1][5]
        for seq in range(n, n + 3):
            record = {"actor": "dealer", "kind": "start_round"}
            entry = chain(prev, seq, T0 + 10_000 + seq, record)
            db.execute(
                "INSERT INTO journal (seq, at, kind, record, prev, digest) VALUES (?,?,?,?,?,?)",
                (seq, entry.at, "start_round", entry.text, entry.prev, entry.digest),
            )
            prev = entry.digest
    assert first(check(copy)) == (APPENDED, n)
    assert first(check(copy, None)) == (APPENDED, n)
    # a forged seal to cover them is found by the key
    with tampering(copy) as db:
        fake = seal(OTHER_KEY, n + 3, prev, T0 + 20_000, "open")
        db.execute(
            "INSERT INTO journal_seal (rows, head, at, why, mac) VALUES (?, ?, ?, ?, ?)",
            (fake.rows, fake.head, fake.at, fake.why, fake.mac),
        )
    found = check(copy)
    assert [(f.what, f.row) for f in found.findings] == [(APPENDED, n), (BAD_SEAL, None)]
    assert "1 of the 7 seals do not match the key" in found.findings[1].message


def test_rows_after_the_last_checkpoint_of_a_table_that_died_are_named_not_condemned(
    tmp_path: Path,
) -> None:
    path = tmp_path / "died.journal"
    play(path, KEY, n=2, close=False)
    runner = TableRunner.recover(path)  # the table comes back, writes half a round, dies
    runner.journal.keep_sealed(KEY)  # type: ignore[attr-defined]
    runner.submit(rounds(1)[1][0], T0 + 5000)
    runner.journal._db.close()  # type: ignore[attr-defined]
    n = len(rows_of(path))
    found = check(path)
    assert found.intact and found.sealed is not None and found.sealed.why == "open"
    assert any(f"rows {n - 1}–{n - 1} come after the last seal" in x for x in found.notes)


def test_a_journal_from_before_the_seal_verifies_as_it_did(tmp_path: Path) -> None:
    """No seal table, and the kind column written as earlier versions wrote it."""
    path = tmp_path / "old.journal"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(
        "CREATE TABLE journal (seq INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, "
        "record TEXT NOT NULL, prev TEXT NOT NULL, digest TEXT NOT NULL)"
    )
    prev = GENESIS
    for seq, (record, at) in enumerate(
        [(header(), T0 - 60), *((event_to_json(e), t) for e, t in rounds(1))]
    ):
        entry = chain(prev, seq, at, record)
        db.execute(
            "INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?)",
            (seq, at, str(record.get("kind", "")), json.dumps(record), entry.prev, entry.digest),
        )
        prev = entry.digest
    db.close()
    found = check(path, None)
    assert found.intact and found.seals == 0


# ------------------------------------------------------------------ the command line


def test_verify_says_what_it_checked_and_what_the_seal_does_not_prove(
    sealed: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    assert main(["journal", "verify", "--journal", str(sealed), "--key-file", str(key_file)]) == 0
    out = capsys.readouterr().out
    assert "chain intact" in out and "the seals match the key" in out
    assert "What the seal does not prove" in out and "rows after the last seal" in out
    rows = rows_of(sealed)
    head = f"{len(rows)}:{rows[-1][5]}"
    assert main(["journal", "verify", "--journal", str(sealed), "--head", head]) == 0
    assert "the head the pit recorded" in capsys.readouterr().out


def test_verify_names_a_changed_kind_column(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = rows_of(copy)
    i = next(r[0] for r in rows if r[2] == "card_drawn")
    with tampering(copy) as db:
        db.execute("UPDATE journal SET kind = 'void_round' WHERE seq = ?", (i,))
    assert main(["journal", "verify", "--journal", str(copy)]) == 2
    err = capsys.readouterr().err
    assert (
        f"tampered (changed kind column): row {i}: its kind column says 'void_round', "
        "its record says 'card_drawn'" in err
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--head", "twelve"], "head 'twelve': expected ROWS:DIGEST"),
        (["--key-env", "NO_SUCH_JOURNAL_KEY"], "--key-env: the environment variable "
         "NO_SUCH_JOURNAL_KEY is not set: expected the table's journal key there"),
        (["--key-file", "/nonexistent/key"], "--key-file: /nonexistent/key: the journal key: "
         "expected a file, found nothing"),
    ],
)  # fmt: skip
def test_verify_refuses_a_head_or_a_key_it_cannot_use(
    sealed: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["journal", "verify", "--journal", str(sealed), *argv]) == 2
    assert message in capsys.readouterr().err


def test_verify_with_another_key_says_the_seals_do_not_match(
    sealed: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOURNAL_KEY", OTHER_KEY.decode())
    assert main(["journal", "verify", "--journal", str(sealed), "--key-env", "JOURNAL_KEY"]) == 2
    err = capsys.readouterr().err
    assert "tampered (altered seal): 6 of the 6 seals do not match the key" in err


def test_a_recorded_head_is_read_as_rows_and_digest_or_as_the_published_message() -> None:
    digest = "ab" * 32
    assert parse_head(f"12:{digest}") == Seal(12, digest, 0.0, "recorded")
    published = seal(KEY, 12, digest, T0, "checkpoint").to_json("S1")
    again = parse_head(json.dumps(published))
    assert again.genuine(KEY) and (again.rows, again.head) == (12, digest)
    for bad in ("12", f"x:{digest}", f"-1:{digest}", "12:abc", '{"rows": 1}', "{", "[]"):
        with pytest.raises(InvalidSpec, match="expected ROWS:DIGEST"):
            parse_head(bad)


# ------------------------------------------------------------------ the table restarting


@pytest.mark.parametrize("tamper", ["truncated", "recomputed", "another key", "kind", "appended"])
def test_a_table_does_not_start_on_a_journal_whose_seal_does_not_hold(
    copy: Path, tamper: str
) -> None:
    rows = rows_of(copy)
    key = KEY
    seals = seal_count(copy)
    with tampering(copy) as db:
        if tamper == "truncated":
            db.execute("DELETE FROM journal WHERE seq >= ?", (len(rows) - 4,))
        elif tamper == "recomputed":
            i = next(r[0] for r in rows if r[2] == "place_bet")
            db.execute(
                "UPDATE journal SET record = ? WHERE seq = ?", (changed_record(rows[i][3]), i)
            )
            recompute_from(db, i)
        elif tamper == "kind":
            i = max(r[0] for r in rows if r[2] == "card_drawn")
            db.execute("UPDATE journal SET kind = 'void_round' WHERE seq = ?", (i,))
        elif tamper == "appended":  # a well-chained row after the closing seal
            record = {"actor": "pit:ann", "kind": "close_table"}
            entry = chain(rows[-1][5], len(rows), T0 + 10_000, record)
            db.execute(
                "INSERT INTO journal (seq, at, kind, record, prev, digest) VALUES (?,?,?,?,?,?)",
                (entry.seq, entry.at, "close_table", entry.text, entry.prev, entry.digest),
            )
        else:
            key = OTHER_KEY
    expected = {
        "truncated": f"rows {len(rows) - 4}–{len(rows) - 1} were removed",
        "recomputed": "the chain was recomputed after a change",
        "another key": "was not made with this table's key",
        "kind": "its kind column says 'void_round', its record says 'card_drawn'",
        "appended": f"row {len(rows)} was added after the table closed the journal",
    }[tamper]
    with pytest.raises(JournalCorrupt, match=expected):
        TableRunner.recover(copy, key=key).close()
    assert seal_count(copy) == seals  # nothing sealed anew over the tampering
    grown = {"truncated": -4, "appended": 1}.get(tamper, 0)
    assert len(rows_of(copy)) == len(rows) + grown  # nor anything written


TABLE = """
[table]
id = "S1"
game = "ultimate-texas-holdem"
seating = "shared"
journal = "table.journal"
seats = ["1", "2"]
balance = "1000"
{key}
"""


def test_the_running_table_takes_its_key_from_the_environment_or_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = BrokerAddress("127.0.0.1", 1)  # never connected: the table is not started
    config = parse_table_text(TABLE.format(key='journal_key_env = "S1_KEY"'), "t.toml")
    with pytest.raises(ConfigError, match="S1_KEY is not set"):
        RunningTable(config, tmp_path, address)
    assert not (tmp_path / "table.journal").exists()  # refused before a file is opened
    monkeypatch.setenv("S1_KEY", "short")
    with pytest.raises(ConfigError, match="a key of 5 characters: expected at least 16"):
        RunningTable(config, tmp_path, address)
    monkeypatch.setenv("S1_KEY", KEY.decode())
    table = RunningTable(config, tmp_path, address)
    table.births.close()
    table.runner.close()
    assert check(tmp_path / "table.journal").intact
    (tmp_path / "key").write_bytes(KEY)
    by_file = parse_table_text(TABLE.format(key='journal_key_file = "key"'), "t.toml")
    table = RunningTable(by_file, tmp_path, address)  # the same key, from a file
    table.births.close()
    table.runner.close()
    with contextlib.closing(SqliteJournal(tmp_path / "table.journal")) as journal:
        assert [s.why for s in journal.seals()] == ["open", "close", "open", "close"]


def test_a_table_file_names_one_place_for_its_key() -> None:
    both = 'journal_key_env = "K"\njournal_key_file = "k"'
    with pytest.raises(ConfigError, match="expected one place for the journal's key"):
        parse_table_text(TABLE.format(key=both), "t.toml")
    with pytest.raises(ConfigError, match=r"table\.journal_key_env: String should match"):
        parse_table_text(TABLE.format(key='journal_key_env = "NOT A NAME"'), "t.toml")


def test_the_chain_check_beside_a_long_replay_checks_the_kind_column_too(copy: Path) -> None:
    """A restart on a long journal checks the chain in a second process: it must refuse a
    changed kind column as the check in process does."""
    assert "rows" in check_file(copy)
    i = max(r[0] for r in rows_of(copy) if r[2] == "card_drawn")
    with tampering(copy) as db:
        db.execute("UPDATE journal SET kind = 'void_round' WHERE seq = ?", (i,))
    assert check_file(copy) == {
        "corrupt": f"row {i}: its kind column says 'void_round', its record says 'card_drawn' "
        "(the kind column was changed after it was written)"
    }


@pytest.mark.parametrize("text", ['{"rows": 1e400, "head": 5}', "[" * 5000, '{"rows": "x"}'])
def test_a_head_no_table_published_is_refused_in_words(text: str) -> None:
    # 1e400 rows raised OverflowError, JSON past the parser's depth RecursionError
    with pytest.raises(InvalidSpec, match=r"expected ROWS:DIGEST \(a row count"):
        parse_head(text)


def test_a_row_nested_past_the_parser_is_an_unreadable_record() -> None:
    # a forged row 100,000 deep raised RecursionError at history, replay and run
    from controller.journal import parse_record

    deep = "[" * 100_000
    assert parse_record(deep) == {"kind": "unreadable", "text": deep}


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_key_variable_is_refused_not_taken_for_no_key(
    sealed: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """``--key-env ""`` (a variable's name lost to a script's typo) was taken for no key at
    all: verify then proved less than it was asked to, and said so only in passing."""
    assert main(["journal", "verify", "--journal", str(sealed), "--key-env", name]) == 2
    err = capsys.readouterr().err
    assert "--key-env: expected the name of the environment variable holding the table's" in err
    assert "Traceback" not in err
