"""Hardware under a running table: the camera (rendered frames of the real round, read by the
recognizer, cross-checked with the shoe; a misread halts naming both readings, a lost camera
is reported) and the shoe (unplugged and back: status, and a halt where the dialect needs)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.cards import Card, parse_cards
from controller.events import Event
from controller.inbound import parse_command
from controller.table import Phase
from controller.topics import Sender, Topics
from drivers.mqtt.client import BrokerAddress
from tablectl.running import RunningTable
from tests.support.tables import boxes_table


def table_file(table_id: str, journal: Path, camera: str) -> str:
    return boxes_table(
        table_id,
        journal,
        more=f"""
[shoe]
kind = "simulated"
rate = 8
seed = 3
[camera]
{camera}
""",
    )


def command(sender: Sender, doc: dict[str, Any]) -> Event:
    _, event = parse_command(sender, json.dumps({"v": 1, "id": "t", **doc}).encode())
    return event


def wait_for(ready: Callable[[], bool], timeout: float = 15.0, table: Any = None) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            state = table.service.state if table is not None else None
            raise AssertionError(
                f"timed out; the table is {state and state.phase}: {state and state.next_due}"
            )
        time.sleep(0.02)


#: the simulated camera the tables here run with
CAMERA = 'enabled = true\nsource = "simulated"\nfps = 8\nstable_frames = 2'


def running_table(text: str, mosquitto: Any, tmp_path: Path) -> RunningTable:
    """The table of the table file ``text`` on the test's broker, not started yet."""
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    return RunningTable(parse_table_text(text, "test"), tmp_path, address)


@pytest.fixture
def table(mosquitto: Any, table_id: str, tmp_path: Path) -> Any:
    running = running_table(table_file(table_id, tmp_path / "j.db", CAMERA), mosquitto, tmp_path)
    running.start()
    yield running
    running.stop()


def open_and_bet(table: RunningTable) -> None:
    """Open the table, bet on box 1 and close betting: the shoe deals."""
    service = table.service
    service.submit(command(Sender("pit"), {"command": "open_table", "by": "test"}))
    service.submit(command(Sender("dealer"), {"command": "start_round"}))
    bet = {"command": "place_bet", "hand": "box 1", "spot": "ante", "amount": "100"}
    service.submit(command(Sender("seat", "1"), bet))
    service.submit(command(Sender("dealer"), {"command": "no_more_bets"}))


def deal_to_the_flop(table: RunningTable) -> None:
    """Open, bet on box 1, close betting; the shoe deals to the flop decision."""
    open_and_bet(table)
    wait_for(lambda: table.service.state.phase is Phase.DECIDING, table=table)


def board(table: RunningTable) -> list[Card]:
    rnd = table.service.state.round
    assert rnd is not None
    return [card for position, card, _ in rnd.cards if position == "board"]


def test_the_camera_confirms_the_round_and_a_misread_halts_naming_both(
    table: RunningTable, mqtt_client: Any, mosquitto: Any, table_id: str
) -> None:
    pit = mqtt_client(mosquitto, "pit")
    pit.subscribe(Topics(table_id).pit.alerts)
    deal_to_the_flop(table)
    assert table.camera is not None and table.watcher is not None
    wait_for(lambda: table.watcher is not None and table.watcher.frames >= 6)
    time.sleep(0.5)  # several stable views of the dealt layout: all agree with the shoe
    assert table.service.state.phase is Phase.DECIDING
    camera = table.service.hardware()["camera"]
    assert camera["connected"] is True
    # how long the recognizer takes a frame, asked as the consoles' states are made: the
    # last frame's and the slowest kept, as the watcher timed them
    assert 0 < camera["read_ms"] <= camera["slowest_ms"]
    assert camera["slowest_ms"] == round(max(table.watcher.read_ms), 1)
    assert camera["frames"] >= 6  # counted as they come, not as they were when it connected
    shoe = table.service.hardware()["shoe"]
    dealt = len(table.service.state.round.cards)  # type: ignore[union-attr]
    assert shoe["stats"]["cards"] >= dealt >= 5 and shoe["frames"] >= dealt

    flop = board(table)
    dealt = {card for _, card, _ in table.service.state.round.cards}  # type: ignore[union-attr]
    other = next(c for c in parse_cards("2C 3D 4H 5S 6C 7D") if c not in dealt)
    table.camera.swap("board", flop[0], other)
    wait_for(lambda: table.service.state.phase is Phase.HALTED, table=table)
    rnd = table.service.state.round
    assert rnd is not None
    reason = rnd.halt_reason
    assert f"camera sees {other} at board, the shoe dealt" in reason
    assert str(flop[0]) in reason
    halts = [e.record for e in table.runner.journal.entries() if e.record.get("kind") == "halt"]
    assert halts[-1]["actor"] == "camera"
    message = json.loads(pit.expect(Topics(table_id).pit.alerts).payload)
    assert message["event"] == "halted"

    # the pit manager checks the layout and resumes: the same finding does not halt again
    table.service.submit(command(Sender("pit"), {"command": "resume", "by": "pit", "note": "ok"}))
    time.sleep(0.6)
    assert table.service.state.phase is Phase.DECIDING


def test_a_lost_camera_is_reported_and_the_shoe_deals_on(
    table: RunningTable, mqtt_client: Any, mosquitto: Any, table_id: str
) -> None:
    pit = mqtt_client(mosquitto, "pit")
    pit.subscribe(Topics(table_id).pit.alerts)
    assert table.camera is not None
    wait_for(lambda: table.service.hardware()["camera"].get("connected") is True)
    table.camera.blind()
    wait_for(lambda: table.service.hardware()["camera"].get("connected") is False)
    alert = json.loads(pit.expect(Topics(table_id).pit.alerts).payload)
    assert "camera lost: the overhead camera (simulated) stopped" in alert["data"]["message"]
    deal_to_the_flop(table)  # the table is not halted: the shoe is its first witness
    assert len(board(table)) == 3
    table.camera.blind(False)
    wait_for(lambda: table.service.hardware()["camera"].get("connected") is True)


def test_a_camera_switched_on_needs_a_source(tmp_path: Path) -> None:
    from controller.errors import ConfigError

    with pytest.raises(ConfigError, match="an enabled camera needs a source"):
        parse_table_text(table_file("C1", tmp_path / "j.db", "enabled = true"), "t.toml")


@pytest.mark.parametrize(("dialect", "halts"), [("uspc", True), ("framed", False)])
def test_the_shoe_unplugged_and_back(
    dialect: str, halts: bool, mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    """The status follows the cable; a shoe without sequence numbers halts the round (a card
    may have been read while it was away), the framed shoe's records show what was missed."""
    text = table_file(table_id, tmp_path / "j.db", "enabled = false").replace(
        "seed = 3", f'seed = 3\ndialect = "{dialect}"\nfaults = "disconnect@3"'
    )
    table = running_table(text, mosquitto, tmp_path)
    pit = mqtt_client(mosquitto, "pit")
    pit.subscribe(Topics(table_id).pit.state)
    table.start()
    try:
        service = table.service
        open_and_bet(table)

        def shoe_states() -> list[object]:
            return [
                json.loads(m.payload)["hardware"]["shoe"].get("connected")
                for m in pit.messages(Topics(table_id).pit.state)
            ]

        wait_for(lambda: False in shoe_states() and shoe_states()[-1] is True, table=table)
        seen = shoe_states()
        assert seen.index(False) < len(seen) - 1  # lost, then back
        if halts:
            wait_for(lambda: service.state.phase is Phase.HALTED, table=table)
            rnd = service.state.round
            assert rnd is not None and "the shoe was disconnected" in rnd.halt_reason
            resume = {"command": "resume", "by": "pit", "note": "layout checked"}
            service.submit(command(Sender("pit"), resume))
        wait_for(lambda: service.state.phase is Phase.DECIDING, table=table)
        assert len(board(table)) == 3
    finally:
        table.stop()


def test_between_inputs_the_consoles_are_sent_the_camera_s_figures_as_they_stand(
    mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    """With no input to make a state (the round waiting on a decision), the dealer's console
    still sees the camera's frames counted on, every ``hardware_refresh_seconds``."""
    text = table_file(table_id, tmp_path / "j.db", CAMERA).replace(
        'journal = "', 'hardware_refresh_seconds = 0.5\njournal = "'
    )
    table = running_table(text, mosquitto, tmp_path)
    dealer = mqtt_client(mosquitto, "dealer")
    dealer.subscribe(Topics(table_id).dealer.state)
    table.start()
    try:
        deal_to_the_flop(table)
        inputs = sum(1 for _ in table.runner.journal.entries())

        def frames() -> list[int]:
            return [
                json.loads(m.payload)["hardware"]["camera"]["frames"]
                for m in dealer.messages(Topics(table_id).dealer.state)
            ]

        def notes() -> list[object]:
            return [
                json.loads(m.payload)["hardware"]["camera"].get("notes")
                for m in dealer.messages(Topics(table_id).dealer.state)
            ]

        # the camera has confirmed the flop (its notes, a change that makes a state, cleared)
        wait_for(lambda: notes()[-1:] == [[]], table=table)
        first = frames()[-1]
        # it reads 8 frames a second: sent again at least twice within the wait
        wait_for(lambda: len([f for f in frames() if f > first]) >= 2, table=table)
        assert sum(1 for _ in table.runner.journal.entries()) == inputs  # no input made them
        assert frames() == sorted(frames())
        assert table.service.state.phase is Phase.DECIDING
    finally:
        table.stop()


def test_zones_that_miss_a_box_are_refused_before_anything_opens(tmp_path: Path) -> None:
    from controller.errors import ConfigError

    camera = 'enabled = true\nsource = "simulated"\nzones = "shared-hand"'
    config = parse_table_text(table_file("Z1", tmp_path / "j.db", camera), "t.toml")
    with pytest.raises(ConfigError, match=r"camera\.zones: the zones .* watch no box 1, box 2"):
        RunningTable(config, tmp_path, BrokerAddress("127.0.0.1", 1))
    assert not (tmp_path / "j.db").exists()  # no journal begun for a table that cannot run


def test_a_missing_profile_is_refused_before_anything_opens(tmp_path: Path) -> None:
    from controller.errors import ConfigError

    camera = 'enabled = true\nsource = "simulated"\nprofile = "decks/gone.npz"'
    config = parse_table_text(table_file("Z2", tmp_path / "j.db", camera), "t.toml")
    gone = tmp_path / "decks" / "gone.npz"  # from the config's folder, as the journal is
    with pytest.raises(ConfigError, match=rf"camera\.profile: profile {gone}: expected a .npz"):
        RunningTable(config, tmp_path, BrokerAddress("127.0.0.1", 1))
    assert not (tmp_path / "j.db").exists()  # no journal begun for a table that cannot run


def test_a_profile_and_zones_named_beside_the_config_are_read_from_there(
    mosquitto: Any, table_id: str, tmp_path: Path, monkeypatch: Any
) -> None:
    """A table started from any folder reads the profile and zones its config names relative
    to the config's own folder: never a file of the same name where it was started."""
    from config.camera import DEFAULT_ZONES
    from drivers.camera.profile import builtin_profile

    folder = tmp_path / "table"
    (folder / "decks").mkdir(parents=True)
    replace(builtin_profile(), name="the studio's deck").save(folder / "decks" / "deck.npz")
    zones = DEFAULT_ZONES.read_text().replace('name = "seven-box"', 'name = "beside the config"')
    (folder / "zones.toml").write_text(zones)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "decks").mkdir(parents=True)
    # a profile and zones of the same names where the table is started
    replace(builtin_profile(), name="another deck").save(elsewhere / "decks" / "deck.npz")
    (elsewhere / "zones.toml").write_text(DEFAULT_ZONES.read_text())
    monkeypatch.chdir(elsewhere)
    camera = (
        'enabled = true\nsource = "simulated"\nprofile = "decks/deck.npz"\nzones = "zones.toml"'
    )
    config = parse_table_text(table_file(table_id, folder / "j.db", camera), "t.toml")
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    table = RunningTable(config, folder, address)
    table.start()
    try:
        assert table.watcher is not None
        assert table.watcher.recognizer.profile.name == "the studio's deck"
        assert table.layout is not None and table.layout.name == "beside the config"
    finally:
        table.stop()


def test_a_fast_shoe_never_gets_a_card_out_after_the_last_one_due(
    mosquitto: Any, table_id: str, tmp_path: Path
) -> None:
    """The gate opens for one card at a time: a shoe dealing 2,000 cards a second stops at the
    flop's last card and the river's, round after round, and the table never halts."""
    text = table_file(table_id, tmp_path / "j.db", "enabled = false").replace(
        "rate = 8", "rate = 2000"
    )
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    table = RunningTable(parse_table_text(text, "test"), tmp_path, address)
    table.start()
    service = table.service
    try:
        service.submit(command(Sender("pit"), {"command": "open_table", "by": "test"}))
        for _ in range(4):
            service.submit(command(Sender("dealer"), {"command": "start_round"}))
            for seat in ("1", "2"):
                bet = {"command": "place_bet", "hand": f"box {seat}", "spot": "ante"}
                service.submit(command(Sender("seat", seat), {**bet, "amount": "100"}))
            service.submit(command(Sender("dealer"), {"command": "no_more_bets"}))
            wait_for(lambda: service.state.phase is Phase.DECIDING, table=table)
            time.sleep(0.1)  # time for a card too many, were the gate still open
            for seat, option in (("1", "bet"), ("2", "fold")):
                decide = {"command": "decide", "hand": f"box {seat}", "option": option}
                service.submit(command(Sender("seat", seat), decide))
            wait_for(lambda: service.state.phase is Phase.REVEAL, table=table)
            time.sleep(0.1)
            service.submit(command(Sender("dealer"), {"command": "reveal_done"}))
            wait_for(lambda: service.state.phase is Phase.IDLE, table=table)
            assert table.simulator is not None
            table.simulator.new_deck()
        journal = table.runner.journal
        assert [e.record for e in journal.entries() if e.record.get("kind") == "halt"] == []
        assert service.state.rounds_started == 4
    finally:
        table.stop()


def test_a_disk_slower_than_the_shoes_resends_loses_and_doubles_nothing(
    mosquitto: Any, table_id: str, tmp_path: Path
) -> None:
    """A card is acknowledged to the shoe only once the journal holds it: while each journal
    write stalls four resend timeouts, the shoe resends; the resends are dropped, every card
    is journaled once, in the order dealt, and the table never halts."""
    text = table_file(table_id, tmp_path / "j.db", "enabled = false").replace(
        "rate = 8", "rate = 200"
    )
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    table = RunningTable(parse_table_text(text, "test"), tmp_path, address)
    journal = table.runner.journal
    append = journal.append

    def stalling(record: dict[str, Any], at: float) -> Any:
        if record.get("kind") == "card_drawn":
            time.sleep(0.1)  # the simulated shoe resends every 25 ms
        return append(record, at)

    journal.append = stalling  # type: ignore[method-assign]
    table.start()
    try:
        deal_to_the_flop(table)
        codec = table.codec
        assert codec is not None and codec.stats.duplicates > 0  # the shoe did resend
        rnd = table.service.state.round
        assert rnd is not None
        dealt = [card for _, card, _ in rnd.cards]
        rows = [e.record for e in journal.entries() if e.record.get("kind") == "card_drawn"]
        assert [parse_cards(r["card"])[0] for r in rows] == dealt
        assert len(set(dealt)) == len(dealt) == 7  # box 1 and the dealer twice, the flop
        assert [e for e in journal.entries() if e.record.get("kind") == "halt"] == []
    finally:
        table.stop()
