"""The journal on a real SQLite file: append-only, tamper-evident, enough to rebuild the table."""

import contextlib
import gc
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from controller.events import event_from_json, event_to_json
from controller.journal import JournalCorrupt, chain, record_text, verify
from controller.table import Phase, fold, new_table
from drivers.storage import chain_check
from drivers.storage.chain_check import ChainCheck, Verdict
from drivers.storage.sqlite_journal import JournalError, SqliteJournal
from tablectl.cli import main
from tablectl.runtime import TableRunner, replay
from tests.controller.round_script import T0, header, rounds


def play(path: Path, events: list) -> TableRunner:  # type: ignore[type-arg]
    runner = TableRunner.create(path, header(), T0 - 60)
    for event, now in events:
        runner.submit(event, now)
    return runner


def test_events_round_trip_through_json() -> None:
    for event, _ in rounds():
        assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event


def test_rows_are_chained_and_append_only(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    journal = SqliteJournal(path)
    entries = list(journal.entries())
    verify(entries)
    assert entries[0].record["kind"] == "table_configured" and len(entries) == len(rounds(1)) + 1
    journal.close()
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE journal SET at = 0 WHERE seq = 3")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM journal WHERE seq = 3")


def test_tampering_is_found_at_the_first_bad_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    assert main(["journal", "verify", "--journal", str(path)]) == 0
    assert "chain intact" in capsys.readouterr().out
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TRIGGER journal_no_update")  # what a determined tamperer would do
    record = json.loads(db.execute("SELECT record FROM journal WHERE seq = 5").fetchone()[0])
    record["card"] = "AS"
    db.execute("UPDATE journal SET record = ? WHERE seq = 5", (json.dumps(record),))
    db.close()
    assert main(["journal", "verify", "--journal", str(path)]) == 2
    assert "row 5: its digest does not match its content" in capsys.readouterr().err
    journal = SqliteJournal(path)
    with pytest.raises(JournalCorrupt, match="row 5"):
        list(replay(journal))


def test_records_are_stored_in_the_form_their_digest_covers(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    db = sqlite3.connect(path)
    for text, digest, prev, seq, at in db.execute(
        "SELECT record, digest, prev, seq, at FROM journal ORDER BY seq"
    ):
        assert text == record_text(json.loads(text))
        assert chain(prev, seq, at, json.loads(text)).digest == digest
    db.close()


def test_a_journal_written_in_another_json_form_verifies_and_replays(tmp_path: Path) -> None:
    """Rows stored with other separators (as earlier versions wrote them) hash the same
    content: they verify, replay to the same table, and a change to them is still found."""
    events = rounds(2)
    path = tmp_path / "old.sqlite"
    SqliteJournal(path).close()  # the schema
    db = sqlite3.connect(path, isolation_level=None)
    prev = "0" * 64
    for seq, (record, at) in enumerate(
        [(header(), T0 - 60), *((event_to_json(e), now) for e, now in events)]
    ):
        entry = chain(prev, seq, at, record)
        text = json.dumps(record, sort_keys=True, ensure_ascii=False)  # ", " and ": "
        db.execute(
            "INSERT INTO journal (seq, at, kind, record, prev, digest) VALUES (?, ?, ?, ?, ?, ?)",
            (seq, at, record["kind"], text, entry.prev, entry.digest),
        )
        prev = entry.digest
    journal = SqliteJournal(path)
    verify(list(journal.entries()))
    rebuilt = [step.state for step in replay(journal)][-1]
    assert rebuilt == fold(new_table(rebuilt.config), events)
    journal.close()
    db.execute("DROP TRIGGER journal_no_update")
    record = json.loads(db.execute("SELECT record FROM journal WHERE seq = 7").fetchone()[0])
    assert record["kind"] == "card_drawn"
    db.execute(
        "UPDATE journal SET record = ? WHERE seq = 7",
        (json.dumps({**record, "card": "2S"}, sort_keys=True),),
    )
    db.close()
    journal = SqliteJournal(path)
    with pytest.raises(JournalCorrupt, match="row 7: its digest does not match"):
        verify(list(journal.entries()))
    journal.close()


def test_a_change_written_in_the_canonical_form_is_found(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TRIGGER journal_no_update")
    record = json.loads(db.execute("SELECT record FROM journal WHERE seq = 3").fetchone()[0])
    assert record["kind"] == "place_bet"
    changed = record_text({**record, "amount": "1000"})
    db.execute("UPDATE journal SET record = ? WHERE seq = 3", (changed,))
    db.close()
    journal = SqliteJournal(path)
    with pytest.raises(JournalCorrupt, match="row 3: its digest does not match"):
        list(replay(journal))
    journal.close()


def test_repeated_records_are_read_as_separate_objects(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(2)).close()
    journal = SqliteJournal(path)
    entries = list(journal.entries())
    journal.close()
    starts = [e for e in entries if e.record["kind"] == "start_round"]
    assert len(starts) == 2 and starts[0].text == starts[1].text
    assert starts[0].record == starts[1].record and starts[0].record is not starts[1].record
    starts[0].record["actor"] = "changed by a reader"
    assert starts[1].record["actor"] == "dealer"


def test_recovery_rebuilds_the_identical_table(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    events = rounds(2)
    live = play(path, events[:20])
    state_at_crash = live.state
    live.close()  # all that survives a crash is the file
    again = TableRunner.recover(path)
    assert again.state == state_at_crash
    for event, now in events[20:]:
        again.submit(event, now)
    uninterrupted = fold(new_table(again.state.config), events)
    assert again.state == uninterrupted and again.state.phase is Phase.IDLE


def test_recovery_replays_once_and_tells_every_row(tmp_path: Path) -> None:
    # a restart rebuilds the table and what its projector remembers in one pass: the
    # observer sees each row's state before and after, and its actions, as replay() does
    path = tmp_path / "t.sqlite"
    events = rounds(2)
    play(path, events).close()
    seen: list[tuple[object, object, list[object]]] = []
    recovered = TableRunner.recover(
        path, observe=lambda before, after, actions: seen.append((before, after, actions))
    )
    recovered.close()
    journal = SqliteJournal(path)
    steps = list(replay(journal))
    journal.close()
    assert len(seen) == len(steps) == len(events)
    assert [(a, acts) for _, a, acts in seen] == [(s.state, s.actions) for s in steps]
    assert [b for b, _, _ in seen[1:]] == [s.state for s in steps[:-1]]
    assert seen[0][0] == new_table(steps[0].state.config)
    assert recovered.state == steps[-1].state


def test_recovery_refuses_a_journal_changed_behind_its_back(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TRIGGER journal_no_update")
    db.execute("UPDATE journal SET at = at + 1 WHERE seq = 4")
    db.close()
    with pytest.raises(JournalCorrupt, match="row 4: its digest does not match"):
        TableRunner.recover(path)


def test_history_and_replay_for_the_pit_manager(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(2)).close()
    assert main(["history", "--journal", str(path), "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["outcome"] for r in listed] == ["complete", "complete"]
    first = listed[0]["round_id"]
    assert first.startswith("S1-") and first.endswith("-000001")
    assert main(["replay", "--journal", str(path), "--round", first, "--json"]) == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (
        steps[0]["event"]["kind"] == "start_round" and steps[-1]["event"]["kind"] == "reveal_done"
    )
    assert steps[-1]["after"]["phase"] == "idle"
    settled = [a for s in steps for a in s["actions"] if a["kind"] == "settled"]
    assert {a["seat"] for a in settled} == {"seat:1", "seat:2"}
    assert main(["replay", "--journal", str(path), "--round", "S1-nope"]) == 2
    assert "is not in" in capsys.readouterr().err
    assert main(["replay", "--journal", str(path), "--round", first]) == 0
    assert "after: idle" in capsys.readouterr().out


CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from tablectl.runtime import TableRunner
    from tests.controller.round_script import T0, header, rounds
    path, sync = Path(sys.argv[1]), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    if path.exists():
        runner = TableRunner.recover(path, sync=sync)
    else:
        runner = TableRunner.create(path, header(), T0 - 60, sync=sync)
    done = len(list(runner.journal.entries())) - 1
    for event, now in rounds(count)[done:]:
        runner.submit(event, now)
        print(done, flush=True)
        done += 1
        time.sleep(0.002)
    print("finished", flush=True)
    """
)


@pytest.mark.parametrize("sync", ["full", "normal"])
@pytest.mark.parametrize("kill_after", [3, 11, 17, 29])
def test_sigkill_mid_round_loses_nothing(tmp_path: Path, kill_after: int, sync: str) -> None:
    """Either durability survives the controller's death (``normal`` only risks a power cut)."""
    path = tmp_path / "t.sqlite"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), sync],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    for _ in range(kill_after):
        assert child.stdout.readline() != ""
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    finish = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), sync],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert finish.returncode == 0 and finish.stdout.rstrip().endswith("finished"), finish.stderr
    recovered = TableRunner.recover(path)
    uninterrupted = fold(new_table(recovered.state.config), rounds(2))
    assert recovered.state == uninterrupted
    assert len(list(recovered.journal.entries())) == len(rounds(2)) + 1  # every event exactly once


@pytest.mark.parametrize(
    ("count", "lives"),
    [
        pytest.param(2, 12, id="2-rounds"),
        pytest.param(8, 120, id="8-rounds", marks=pytest.mark.full),
    ],
)
def test_sigkill_at_random_moments_many_times_loses_nothing(
    tmp_path: Path, count: int, lives: int
) -> None:
    """The controller killed again and again at random moments (in a journal write, in
    handle(), between inputs), restarted from its journal each time, ends where an
    uninterrupted table ends, with every input journaled once."""
    rng = random.Random(count * 1000 + lives)
    path = tmp_path / "t.sqlite"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-c", CHILD, str(path), "full", str(count)]
    killed = 0
    for _ in range(lives):
        child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        first = child.stdout.readline()  # the child recovered and applied one more input
        if first.strip() == "finished":
            child.wait(timeout=30)
            break
        time.sleep(rng.uniform(0.0, 0.012))  # a moment a few inputs on, anywhere in them
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        killed += child.returncode == -signal.SIGKILL
    finish = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert finish.returncode == 0 and finish.stdout.rstrip().endswith("finished"), finish.stderr
    assert killed >= min(lives, 5)
    recovered = TableRunner.recover(path)
    assert recovered.state == fold(new_table(recovered.state.config), rounds(count))
    assert len(list(recovered.journal.entries())) == len(rounds(count)) + 1
    recovered.close()


def test_an_unknown_sync_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="journal sync 'fast': expected one of full, normal"):
        SqliteJournal(tmp_path / "j.sqlite", "fast")
    assert not (tmp_path / "j.sqlite").exists()


def in_the_database_file(path: Path) -> int:
    """How many rows the database file itself holds (a reader that ignores the log; before
    the first checkpoint even the table is only in the log)."""
    with contextlib.closing(
        sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    ) as reader:
        if reader.execute("SELECT 1 FROM sqlite_master WHERE name = 'journal'").fetchone() is None:
            return 0
        return int(reader.execute("SELECT count(*) FROM journal").fetchone()[0])


def test_checkpoints_run_when_quiet_or_after_many_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows wait in the write-ahead log until the table is quiet (no append pays for a copy);
    the log is then written over in place, never grown again from empty."""
    path = tmp_path / "j.sqlite"
    wal = tmp_path / "j.sqlite-wal"
    journal = SqliteJournal(path)
    for i in range(50):
        journal.append({"kind": "tick", "n": i}, T0 + i)
    assert in_the_database_file(path) == 0  # not copied yet: SQLite's own checkpoint is off
    size = wal.stat().st_size
    journal.quiet()
    assert in_the_database_file(path) == 50
    for i in range(50, 60):  # the next round overwrites the log: its file does not grow
        journal.append({"kind": "tick", "n": i}, T0 + i)
        assert wal.stat().st_size == size
    assert in_the_database_file(path) == 50
    monkeypatch.setattr(SqliteJournal, "CHECKPOINT_ROWS", 20)
    for i in range(60, 69):
        journal.append({"kind": "tick", "n": i}, T0 + i)
    assert in_the_database_file(path) == 50
    journal.append({"kind": "tick", "n": 69}, T0 + 69)  # the 20th row since the last one
    assert in_the_database_file(path) == 70
    journal.close()
    assert not wal.exists() or wal.stat().st_size == 0  # closed: one file to copy
    reopened = SqliteJournal(path)
    rows = list(reopened.entries())
    verify(rows)
    assert [r.record["n"] for r in rows] == list(range(70))
    reopened.close()


def test_readers_never_checkpoint_and_the_writer_never_waits_for_them(
    tmp_path: Path,
) -> None:
    """A pit manager reading a running table's journal leaves its log alone when it closes,
    and the table's checkpoint goes on while a reader holds a snapshot (it copies what it
    can; the log starts over once the reader is done)."""
    path = tmp_path / "j.sqlite"
    writer = SqliteJournal(path)
    writer._db.execute("PRAGMA busy_timeout=60000")  # a checkpoint that waited would hang
    for i in range(20):
        writer.append({"kind": "tick", "n": i}, T0 + i)
    reader = SqliteJournal(path)
    assert [e.record["n"] for e in reader.entries()] == list(range(20))
    reader.close()
    assert in_the_database_file(path) == 0  # the reader copied nothing into the file
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN")
    assert holder.execute("SELECT count(*) FROM journal").fetchone() == (20,)  # a snapshot
    done = threading.Event()
    quiet = threading.Thread(target=lambda: (writer.quiet(), done.set()), daemon=True)
    quiet.start()
    quiet.join(10)
    assert done.is_set(), "the checkpoint waited for the reader"
    writer.append({"kind": "tick", "n": 20}, T0 + 20)  # appends go on meanwhile
    holder.execute("COMMIT")
    holder.close()
    writer.quiet()
    assert in_the_database_file(path) == 21
    writer.close()


def test_the_log_kept_after_a_checkpoint_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table that wrote an unusually long stretch keeps at most WAL_KEPT_BYTES of log."""
    monkeypatch.setattr(SqliteJournal, "WAL_KEPT_BYTES", 64 * 1024)
    path = tmp_path / "j.sqlite"
    wal = tmp_path / "j.sqlite-wal"
    journal = SqliteJournal(path)
    for i in range(100):
        journal.append({"kind": "tick", "n": i}, T0 + i)
    assert wal.stat().st_size > 64 * 1024
    journal.quiet()
    journal.append({"kind": "tick", "n": 100}, T0 + 100)
    assert wal.stat().st_size <= 64 * 1024
    journal.close()


def test_the_journal_status_tracks_its_slowest_recent_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TableRunner, "WRITES_KEPT", 4)
    runner = TableRunner.create(tmp_path / "j.sqlite", header(), T0 - 60)
    seen: list[float] = []
    for n, (event, now) in enumerate(rounds(1)[:12], start=1):
        runner.submit(event, now)
        seen.append(runner.write_ms[-1])
        status = runner.journal_status()
        window = list(runner.write_ms)
        assert status["write_ms"] == round(seen[-1], 3)
        assert round(max(window), 3) <= status["slowest_ms"] <= round(max(seen[-8:]), 3)
        if n % 4 == 0:  # the window moved on: exactly its own slowest
            assert status["slowest_ms"] == round(max(window), 3)
    runner.close()


def test_a_replay_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    """Replay pauses the collector while it reads and keeps the rows out of its passes until
    it ends: finished, abandoned half way, or refused for a broken chain."""
    runner = TableRunner.create(tmp_path / "j.sqlite", header(), T0 - 60)
    for event, now in rounds(2):
        runner.submit(event, now)
    journal = runner.journal
    assert gc.isenabled() and gc.get_freeze_count() == 0
    steps = replay(journal, "test")
    first = next(steps)
    assert gc.isenabled()  # it runs between the steps, for everything the steps make
    assert gc.get_freeze_count() > 0  # the rows read are out of its passes meanwhile
    assert first.seq == 1
    steps.close()  # abandoned half way
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert [s.state for s in replay(journal, "test")][-1] == runner.state  # finished
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()  # a caller that keeps it off finds it off
    try:
        list(replay(journal, "test"))
        assert not gc.isenabled()
    finally:
        gc.enable()
    runner.close()
    with sqlite3.connect(tmp_path / "j.sqlite") as db:  # one row changed behind its back
        db.execute("DROP TRIGGER journal_no_update")
        db.execute("UPDATE journal SET record = replace(record, 'seat:1', 'seat:9') WHERE seq = 3")
    tampered = SqliteJournal(tmp_path / "j.sqlite")
    with pytest.raises(JournalCorrupt, match="row 3"):
        list(replay(tampered, "test"))
    tampered.close()
    assert gc.isenabled() and gc.get_freeze_count() == 0


# ----------------------------------------------------------- the chain checked beside a restart


@pytest.fixture
def check_aside(monkeypatch: pytest.MonkeyPatch) -> list[Verdict]:
    """Every journal checks its chain in a second process, however short; the verdicts the
    real child processes gave are kept."""
    verdicts: list[Verdict] = []
    real = ChainCheck.verdict

    def kept(self: ChainCheck) -> Verdict:
        verdicts.append(real(self))
        return verdicts[-1]

    monkeypatch.setattr(SqliteJournal, "CHECK_ASIDE_ROWS", 0)
    monkeypatch.setattr(ChainCheck, "verdict", kept)
    return verdicts


@pytest.fixture
def one_round(tmp_path: Path) -> Path:
    """A table's journal of one round."""
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    return path


def test_a_restart_checked_aside_rebuilds_the_identical_table(
    tmp_path: Path, check_aside: list[Verdict]
) -> None:
    path = tmp_path / "t.sqlite"
    events = rounds(2)
    play(path, events[:25]).close()
    again = TableRunner.recover(path)
    assert [v.rows for v in check_aside] == [26] and check_aside[0].head
    assert again.state == fold(new_table(again.state.config), events[:25])
    for event, now in events[25:]:  # the lock is released: the table writes on
        again.submit(event, now)
    again.close()
    journal = SqliteJournal(path)
    verify(list(journal.entries()))
    assert len(journal) == len(events) + 1
    journal.close()


def test_no_row_is_added_while_the_chain_is_checked_aside(
    one_round: Path, check_aside: list[Verdict]
) -> None:
    path = one_round
    journal = SqliteJournal(path)
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    with (
        journal.checked_records() as records,
        pytest.raises(sqlite3.OperationalError, match="locked"),
    ):
        other.execute("BEGIN IMMEDIATE")
    other.execute("BEGIN IMMEDIATE")  # free again
    other.execute("ROLLBACK")
    other.close()
    journal.close()
    assert len(records) == len(rounds(1)) + 1 and check_aside[0].rows == len(records)


def _tamper(path: Path, seq: int, **changes: object) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TRIGGER journal_no_update")
    (text,) = db.execute("SELECT record FROM journal WHERE seq = ?", (seq,)).fetchone()
    record = json.loads(text)
    db.execute(
        "UPDATE journal SET record = ? WHERE seq = ?", (record_text({**record, **changes}), seq)
    )
    db.close()


def test_a_restart_checked_aside_refuses_a_changed_journal(
    one_round: Path, check_aside: list[Verdict]
) -> None:
    path = one_round
    _tamper(path, 3, amount="1000")
    with pytest.raises(JournalCorrupt, match="row 3: its digest does not match its content"):
        TableRunner.recover(path)
    assert check_aside[0].corrupt.startswith("row 3:")


def test_a_replay_that_fails_on_a_changed_row_is_told_as_the_change(
    tmp_path: Path, check_aside: list[Verdict]
) -> None:
    # the replay meets the changed row before the check's verdict is in: the restart names
    # the change, not the odd record it made
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    _tamper(path, 3, kind="no_such_event")
    with pytest.raises(JournalCorrupt, match="row 3: its digest does not match") as raised:
        TableRunner.recover(path)
    assert "no_such_event" in str(raised.value.__cause__)


def test_a_chain_check_that_gives_no_verdict_is_made_in_process(
    tmp_path: Path,
    check_aside: list[Verdict],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = tmp_path / "t.sqlite"
    events = rounds(1)
    play(path, events).close()
    monkeypatch.setattr(chain_check, "CHILD_MODULE", "drivers.storage.no_such_module")
    again = TableRunner.recover(path)
    again.close()
    assert again.state == fold(new_table(again.state.config), events)
    assert "no verdict" in check_aside[0].failed and "No module named" in check_aside[0].failed
    assert "checking the chain in this process" in caplog.text
    _tamper(path, 3, kind="no_such_event")  # the check in process still finds a change,
    with pytest.raises(JournalCorrupt, match="row 3: its digest does not match") as raised:
        TableRunner.recover(path)
    assert "no_such_event" in str(raised.value.__cause__)  # even one the replay failed on


def test_a_check_of_other_rows_than_those_replayed_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()
    monkeypatch.setattr(SqliteJournal, "CHECK_ASIDE_ROWS", 0)
    monkeypatch.setattr(ChainCheck, "verdict", lambda self: Verdict(rows=5, head="ab" * 32))
    with pytest.raises(JournalError, match="the rows checked are not the rows replayed"):
        TableRunner.recover(path)


def test_the_chain_check_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    play(path, rounds(1)).close()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "drivers.storage.chain_check", *args],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip

    done = run(str(path))
    found = json.loads(done.stdout)
    assert done.returncode == 0 and found["rows"] == len(rounds(1)) + 1
    assert found["head"] == list(SqliteJournal(path).entries())[-1].digest
    _tamper(path, 4, actor="someone else")
    assert json.loads(run(str(path)).stdout) == {
        "corrupt": "row 4: its digest does not match its content (changed after it was written)"
    }
    missing = json.loads(run(str(tmp_path / "none.sqlite")).stdout)
    assert "cannot read the journal" in missing["error"]
    usage = run()
    assert usage.returncode == 2 and "usage" in usage.stderr


def test_a_checkpoint_that_cannot_run_now_is_put_off_not_fatal(
    one_round: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A read in progress on the table's own connection (another thread reading it) makes
    SQLite refuse the checkpoint; the rows are durable in the log, so the table goes on: the
    refusal is logged, the checkpoint runs at the next quiet moment, and an append that
    crosses the checkpoint threshold meanwhile still returns its row."""
    journal = SqliteJournal(one_round)
    rows = len(journal)
    assert in_the_database_file(one_round) == rows  # the last writer checkpointed on closing
    reading = journal.entries()
    next(reading)  # a read left in progress on this connection
    journal.CHECKPOINT_ROWS = 1  # every append would checkpoint, and cannot
    entry = journal.append({"kind": "tick", "actor": "timer"}, T0 + 3600)
    assert entry.seq == rows and "locked" in caplog.text and "checkpoint put off" in caplog.text
    journal.quiet()  # nor at the quiet moment, while the read goes on
    assert in_the_database_file(one_round) == rows  # the new row is in the log only
    list(reading)  # the read ends
    journal.quiet()
    assert in_the_database_file(one_round) == rows + 1
    journal.close()
    verify(list(SqliteJournal(one_round).entries()))
