"""The running table through a real Mosquitto: whole rounds, commands, restarts, SIGKILL."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from config.tables import TABLES_DIR, load_table, parse_table_text
from controller.games import GameId
from controller.topics import Topics
from drivers.mqtt.client import BrokerAddress
from drivers.storage.sqlite_journal import SqliteJournal
from simulators.dealer.crew import Crew, seats_for
from simulators.display.live import LiveDisplay
from tablectl.commands.demo import run_table
from tablectl.running import RunningTable
from tablectl.runtime import replay

PASSWORDS = {u: f"{u}-dev" for u in ["dealer", "pit", "seat-1", "seat-2", "seat-3"]}


def controller_at(port: int) -> BrokerAddress:
    return BrokerAddress("127.0.0.1", port, "controller", "controller-dev")


def reply_to(probe: Any, topic: str, command_id: str, timeout: float = 5.0) -> dict[str, Any]:
    """The reply with ``command_id`` on ``topic``, waiting for it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for message in probe.messages(topic):
            doc = json.loads(message.payload)
            if doc.get("id") == command_id:
                return doc  # type: ignore[no-any-return]
        time.sleep(0.02)
    raise AssertionError(f"no reply to {command_id} on {topic}")


def args(**kw: Any) -> argparse.Namespace:
    base = {
        "hands": 1,
        "seed": 5,
        "players": 2,
        "rate": 20.0,
        "irregular": 0.5,
        "quiet": True,
        "betting_seconds": 0.8,
        "decision_seconds": 1.5,
        "camera": True,
    }
    return argparse.Namespace(**{**base, **kw})


@pytest.mark.parametrize("game", list(GameId))
def test_whole_rounds_of_every_game_through_mosquitto(
    game: GameId, mosquitto: Any, tmp_path: Path
) -> None:
    """The shoe simulator, the crew and a checking display, all logged in with the ACL."""
    summary = run_table(game, args(hands=2), controller_at(mosquitto.port), tmp_path, None)
    assert summary["finished"], summary
    assert len(summary["rounds"]) == 2
    display = summary["display"]
    assert display["findings"] == [] and display["messages"] > 10
    assert summary["journal"]["rows"] > 5
    # the simulated shoe deals the game's own deck (Triple Action's is stripped to 28 cards)
    assert not [note for note in summary["irregularities"] if "not in the" in note], summary
    camera = summary["camera"]  # the simulated camera read the round and agreed with the shoe
    assert camera["frames"] > 5 and camera["halts"] == [], camera


def table_file(table_id: str, journal: Path, *, rate: float = 20.0, seed: int = 1) -> str:
    return f"""
[table]
id = "{table_id}"
game = "ultimate-texas-holdem"
seating = "shared"
journal = "{journal}"
betting_seconds = 0.8
decision_seconds = 1.5
yellow_seconds = 0.3
seats = ["1", "2"]
balance = "1000"
[shoe]
kind = "simulated"
rate = {rate}
seed = {seed}
"""


def test_commands_are_validated_and_answered(
    mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    config = parse_table_text(table_file(table_id, tmp_path / "j.db"), "test")
    table = RunningTable(config, tmp_path, controller_at(mosquitto.port))
    table.start()
    t = Topics(table_id)
    try:
        pit = mqtt_client(mosquitto, "pit")
        pit.subscribe(t.pit.reply, t.pit.state)
        seat = mqtt_client(mosquitto, "seat-1")
        seat.subscribe(t.seat("1").reply)
        pit.expect(t.pit.state)
        rows = len(table.runner.journal)

        pit.publish(t.pit.cmd, b"{not json")
        reply = reply_to(pit, t.pit.reply, "")
        assert not reply["ok"] and "expected a JSON object" in reply["reason"]

        pit.publish(
            t.pit.cmd, json.dumps({"v": 1, "id": "p2", "command": "card_drawn", "card": "AS"})
        )  # only the shoe deals
        reply = reply_to(pit, t.pit.reply, "p2")
        assert not reply["ok"] and "; got 'card_drawn'" in reply["reason"]

        seat.publish(
            t.seat("1").cmd,
            json.dumps(
                {
                    "v": 1,
                    "id": "s1",
                    "command": "place_bet",
                    "hand": "player",
                    "seat": "seat:2",
                    "spot": "ante",
                    "amount": "5",
                }
            ),
        )
        reply = json.loads(seat.expect(t.seat("1").reply).payload)
        assert (
            reply["id"] == "s1" and not reply["ok"] and "may not act for seat:2" in reply["reason"]
        )
        table.service.sync()
        assert len(table.runner.journal) == rows  # malformed or unauthorised: nothing journaled

        # out of phase: a legal command the table refuses (journaled, state unchanged)
        seat.publish(
            t.seat("1").cmd,
            json.dumps(
                {
                    "v": 1,
                    "id": "s2",
                    "command": "place_bet",
                    "hand": "player",
                    "spot": "ante",
                    "amount": "5",
                }
            ),
        )
        reply = reply_to(seat, t.seat("1").reply, "s2")
        assert not reply["ok"] and "closed" in reply["reason"]
        assert table.service.state.phase.value == "closed"
    finally:
        table.stop()


def rounds_ended(journal: Path) -> list[dict[str, Any]]:
    """What every round's end reported, from a running table's journal read as the pit
    manager reads it: on a connection of its own (the table's is the table thread's)."""
    with contextlib.closing(SqliteJournal(journal)) as reader:
        return [
            action.data
            for step in replay(reader)
            for action in step.actions
            if action.kind == "round_ended"
        ]


#: rounds the crew deals around a broker restart: the first before it, and enough after it
#: that the seats, reconnected, bet in one whatever the outage's betting windows took
ROUNDS_AROUND_A_RESTART = 6


def test_the_table_survives_a_broker_restart(
    mosquitto_factory: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    broker = mosquitto_factory(auth=True)
    address = controller_at(broker.port)
    config = parse_table_text(table_file(table_id, tmp_path / "j.db"), "test")
    table = RunningTable(config, tmp_path, address)
    table.start()
    crew = Crew(
        BrokerAddress("127.0.0.1", broker.port),
        table_id,
        "ultimate-texas-holdem",
        seats_for("shared", 2),
        rounds=ROUNDS_AROUND_A_RESTART,
        seed=2,
        studio=True,
        passwords=PASSWORDS,
        on_round_end=lambda d: table.simulator.new_deck(),
    )
    try:
        crew.start()
        deadline = time.monotonic() + 20
        while not crew.rounds_ended and time.monotonic() < deadline:
            time.sleep(0.05)
        assert crew.rounds_ended, "no round ended before the restart"
        before = len(rounds_ended(tmp_path / "j.db"))
        broker.restart()
        # the studio's timers run the round on while the broker is away (its events are not
        # kept for a display that was away: the states republished at the next birth are),
        # so the rounds are counted at the table, not from the crew's events
        deadline = time.monotonic() + 90
        while not (
            crew.dealer.started >= ROUNDS_AROUND_A_RESTART and table.service.state.round is None
        ):
            assert time.monotonic() < deadline, (crew.dealer.started, crew.rounds_ended)
            time.sleep(0.05)
        ended = [data["outcome"] for data in rounds_ended(tmp_path / "j.db")]
        # a round whose betting fell in the outage ends with no bets (its seats were away:
        # on a loaded machine their reconnection may take two rounds' betting); once back,
        # the seats bet again and a round completes
        assert len(ended) >= ROUNDS_AROUND_A_RESTART, ended
        assert set(ended) <= {"complete", "no bets"}, ended
        assert ended[0] == "complete" and "complete" in ended[before:], (before, ended)
        assert table.link.connects >= 2  # reconnected, and republished under a new birth
        display = mqtt_client(broker, "display")
        display.subscribe(Topics(table_id).state, Topics(table_id).status)
        table.service.sync()
        deadline = time.monotonic() + 5
        state = json.loads(display.expect(Topics(table_id).state).payload)
        while state["phase"] != "idle" and time.monotonic() < deadline:  # the latest state
            time.sleep(0.05)
            state = json.loads(display.messages(Topics(table_id).state)[-1].payload)
        assert state["birth"] >= 2
        # the display's retained state ends where the table's journal ends
        last = rounds_ended(tmp_path / "j.db")[-1]
        assert state["phase"] == "idle"
        assert state["last_round"]["round_id"] == last["round_id"]
        assert state["last_round"]["outcome"] == last["outcome"]
        assert display.expect(Topics(table_id).status).payload == b"online"
    finally:
        crew.stop()
        table.stop()


def test_the_table_resumes_from_its_journal_after_sigkill(
    mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    """Killed mid-round: restarted, it replays its journal, halts the round for the dealer
    to check, the pit resumes it, and the rounds complete; displays converge."""
    path = tmp_path / "table.toml"
    path.write_text(table_file(table_id, tmp_path / "j.db", rate=10.0, seed=3))
    broker_url = f"mqtt://controller:controller-dev@127.0.0.1:{mosquitto.port}"
    command = [
        sys.executable,
        "-m",
        "tablectl.cli",
        "run",
        "--config",
        str(path),
        "--broker",
        broker_url,
    ]

    def start() -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert '"table"' in line, proc.stderr.read() if proc.stderr else line
        return proc

    proc = start()
    t = Topics(table_id)
    status = mqtt_client(mosquitto, "display")
    status.subscribe(t.status)
    watching = LiveDisplay(  # a display that stays through the crash
        BrokerAddress("127.0.0.1", mosquitto.port, "display", "display-dev"), table_id, quiet=True
    )
    assert watching.start()
    crew = Crew(
        BrokerAddress("127.0.0.1", mosquitto.port),
        table_id,
        "ultimate-texas-holdem",
        seats_for("shared", 2),
        rounds=2,
        seed=4,
        studio=True,
        passwords=PASSWORDS,
    )
    try:
        crew.start()
        pit = mqtt_client(mosquitto, "pit")
        pit.subscribe(t.pit.events)
        pit.expect(t.pit.events, None, timeout=20)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # wait for a card of the first round
            if any(
                json.loads(m.payload).get("event") == "card" for m in pit.messages(t.pit.events)
            ):
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        status.expect(t.status, b"offline", timeout=30)  # the will
        proc = start()
        assert crew.finished.wait(60), crew.rounds_ended
        assert any("restarted mid-round" in r for r in crew.pit.rulings)
        # the display converges on the final state: the last round, as the table ended it
        last = crew.rounds_ended[-1]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            seen = (watching.checker.state or {}).get("last_round") or {}
            if seen.get("round_id") == last["round_id"]:
                break
            time.sleep(0.05)
        state = watching.checker.state
        assert state is not None and state["phase"] == "idle" and state["birth"] >= 2
        assert state["last_round"]["round_id"] == last["round_id"]
        assert state["last_round"]["outcome"] == last["outcome"]
        assert [f for f in watching.checker.findings if f.kind != "gap"] == []
    finally:
        watching.stop()
        crew.stop()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert '"stopped": true' in out
    with contextlib.closing(SqliteJournal(tmp_path / "j.db")) as journal:
        kinds = [e.record.get("kind") for e in journal.entries()]
    assert kinds.count("halt") >= 1


#: the journal key the shipped tables read from TABLECTL_JOURNAL_KEY, for this test only
EXAMPLE_KEY = "an-example-journal-key-for-tests-only"


@pytest.mark.parametrize("path", sorted(TABLES_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_every_example_table_runs_against_mosquitto_and_stops_on_sigterm(
    path: Path, mosquitto: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    """``tablectl run`` on each shipped table file: online, its states retained, a shoe that
    is absent (the physical tables' USB port) reported as such, offline after SIGTERM."""
    config = load_table(path)
    t = Topics(config.table.id)
    display, pit = mqtt_client(mosquitto, "display"), mqtt_client(mosquitto, "pit")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", "run", "--config", str(path),
         "--broker", f"mqtt://controller:controller-dev@127.0.0.1:{mosquitto.port}",
         "--journal", str(tmp_path / "j.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "TABLECTL_JOURNAL_KEY": EXAMPLE_KEY},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline() or "{}")
        assert started.get("table") == config.table.id, proc.stderr and proc.stderr.read()
        assert started["phase"] == "closed" and started["game"] == config.table.game.value
        display.subscribe(t.status, t.state)
        display.expect(t.status, "online", timeout=10)
        state = json.loads(display.expect(t.state, timeout=10).payload)
        assert state["phase"] == "closed" and state["audience"] == "public"
        pit.subscribe(t.pit.state)
        hardware = json.loads(pit.expect(t.pit.state, timeout=10).payload)["hardware"]
        assert hardware["camera"]["enabled"] is config.camera.enabled
        assert "write_ms" in hardware["journal"]
        if config.shoe.kind == "serial":  # nothing on the configured port here
            assert hardware["shoe"]["connected"] is not True
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert json.loads(out.splitlines()[-1]) == {
        "table": config.table.id, "stopped": True, "phase": "closed", "rounds_started": 0
    }  # fmt: skip
    display.expect(t.status, "offline", timeout=10)
    # the journal is sealed with the key the example names, as it was opened and closed
    with contextlib.closing(SqliteJournal(tmp_path / "j.db")) as journal:
        assert [s.why for s in journal.seals()] == ["open", "close"]
        assert journal.audit(EXAMPLE_KEY.encode()).intact
