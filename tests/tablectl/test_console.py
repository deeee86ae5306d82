"""``tablectl send`` and ``tablectl watch`` against a running table on Mosquitto."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.table import Phase
from drivers.mqtt.client import BrokerAddress
from tablectl.cli import main
from tablectl.running import RunningTable
from tests.support.tables import boxes_table


@pytest.fixture
def table(mosquitto: Any, table_id: str, tmp_path: Path) -> Any:
    text = boxes_table(table_id)
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    running = RunningTable(parse_table_text(text, "test"), tmp_path, address)
    running.start()
    assert running.link.wait_connected(5)
    yield running
    running.stop()


def send(port: int, table_id: str, role: str, *words: str) -> int:
    return main(["send", "--broker", f"mqtt://127.0.0.1:{port}", "--table", table_id,
                 "--as", role, *words])  # fmt: skip


def test_commands_are_sent_and_their_replies_printed(
    table: RunningTable, mosquitto: Any, table_id: str, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "pit-dev")
    assert send(mosquitto.port, table_id, "pit", "open_table", "--by", "ann") == 0
    assert capsys.readouterr().out == "open_table: done\n"
    assert table.service.state.phase is Phase.IDLE

    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "dealer-dev")
    assert send(mosquitto.port, table_id, "dealer", "no_more_bets") == 1  # no round yet
    out = capsys.readouterr().out
    assert out.startswith("no_more_bets: refused: can't") and "idle" in out
    assert send(mosquitto.port, table_id, "dealer", "start_round", "--json") == 0
    assert '"ok": true' in capsys.readouterr().out

    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "seat-1-dev")
    words = ["place_bet", "hand=box 1", "spot=ante", "amount=100"]
    assert send(mosquitto.port, table_id, "seat:1", *words) == 0
    assert table.service.state.round is not None
    assert [s.seat for s in table.service.state.round.stakes] == ["seat:1"]
    assert send(mosquitto.port, table_id, "seat:1", "place_bet", "colour=red") == 1
    assert "refused" in capsys.readouterr().out


def test_a_bad_login_or_a_silent_table_is_an_error_that_says_so(
    mosquitto: Any, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "wrong")
    assert send(mosquitto.port, "T404", "pit", "open_table", "--timeout", "2") == 2
    err = capsys.readouterr().err
    assert err.startswith("tablectl send: error: could not log in to mqtt://pit@127.0.0.1")
    assert "broker refused the connection: Not authorized" in err
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "pit-dev")
    assert send(mosquitto.port, "T404", "pit", "open_table", "--timeout", "1", "--id", "x1",
                "--retries", "1") == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "no reply to open_table x1 from table T404 within 1 s, 2 times" in err
    assert "Sending it again with --id x1 is safe" in err
    assert send(mosquitto.port, "T404", "display", "open_table") == 2
    assert "a display reads, it sends no command" in capsys.readouterr().err
    assert send(mosquitto.port, "T404", "pit", "resume", "note") == 2
    assert "field 'note': expected NAME=VALUE" in capsys.readouterr().err


def test_a_command_sent_again_with_its_id_is_answered_and_not_applied_twice(
    table: RunningTable, mosquitto: Any, table_id: str, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "pit-dev")
    assert send(mosquitto.port, table_id, "pit", "open_table", "--by", "ann") == 0
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "dealer-dev")
    assert send(mosquitto.port, table_id, "dealer", "start_round") == 0
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "seat-1-dev")
    capsys.readouterr()
    words = ["place_bet", "hand=box 1", "spot=ante", "amount=100", "--id", "bet-1"]
    assert send(mosquitto.port, table_id, "seat:1", *words) == 0
    assert send(mosquitto.port, table_id, "seat:1", *words) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["place_bet: done", "place_bet: done (answered before; not applied again)"]
    rnd = table.service.state.round
    assert rnd is not None and [s.bets for s in rnd.stakes] == [(rnd.stakes[0].bets[0],)]
    assert str(rnd.stakes[0].bets[0][1]) == "100"
    other = ["place_bet", "hand=box 1", "spot=ante", "amount=50", "--id", "bet-1"]
    assert send(mosquitto.port, table_id, "seat:1", *other) == 1
    assert "expected a new id for a new command" in capsys.readouterr().out


def test_watch_prints_what_the_pit_receives(
    table: RunningTable, mosquitto: Any, table_id: str, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "pit-dev")
    result: list[int] = []
    port = mosquitto.port
    argv = ["watch", "--broker", f"mqtt://127.0.0.1:{port}", "--table", table_id]
    watcher = threading.Thread(
        target=lambda: result.append(main([*argv, "--as", "pit", "--seconds", "4"]))
    )
    watcher.start()
    out = ""
    deadline = time.monotonic() + 10
    while "pit/state: closed" not in out:  # the watch is in: it printed the retained state
        assert time.monotonic() < deadline, out
        time.sleep(0.05)
        out += capsys.readouterr().out
    assert send(mosquitto.port, table_id, "pit", "open_table", "--by", "ann") == 0
    watcher.join(10)
    assert result == [0]
    out += capsys.readouterr().out
    assert "pit/state: closed" in out  # the retained state first
    assert "pit/state: idle" in out and "pit/events: phase" in out


def test_watch_as_a_display_prints_the_public_stream(
    table: RunningTable, mosquitto: Any, table_id: str, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TABLECTL_MQTT_PASSWORD", "display-dev")
    argv = ["watch", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "--table", table_id]
    assert main([*argv, "--as", "display", "--seconds", "1", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    topics = {line["topic"] for line in lines}
    assert f"tablectl/{table_id}/status" in topics and f"tablectl/{table_id}/state" in topics
    state = next(x["message"] for x in lines if x["topic"].endswith("/state"))
    assert state["audience"] == "public" and state["phase"] == "closed"
    assert not [t for t in topics if "/pit/" in t or "/dealer/" in t]
