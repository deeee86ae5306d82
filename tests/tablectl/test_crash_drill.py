"""Durable before acknowledged, on every path: a crash drill with the real parts.

``tablectl run`` plays a physical table on a real Mosquitto; the framed shoe simulator runs
in this process on a real pseudo-terminal, so it outlives the controller and knows which of
its cards were acknowledged; a crew (dealer, pit manager, players) plays rounds over MQTT,
and a seat floods the table with commands so that cards often arrive while it is busy. The
controller is killed (SIGKILL) again and again at random moments and restarted from its
journal. At the end, every card the shoe was told is recorded is in the journal, and no
card is in it twice (a card journaled just before a kill is resent by the shoe, which was
never told, and the restarted table knows it from the journal).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.cards import parse_cards
from controller.events import CardDrawn, OpenTable
from drivers.mqtt.broker import dev_password
from drivers.mqtt.client import BrokerAddress
from drivers.shoe.framed import FramedHostCodec
from drivers.shoe.transport import SerialTransport
from drivers.storage.sqlite_journal import SqliteJournal
from simulators.dealer.crew import Crew, seats_for
from simulators.shoe.shoe import ShoeSimulator
from tablectl.answers import sender_of
from tablectl.running import RunningTable
from tablectl.runtime import TableRunner, replay
from tablectl.service import Inbound, TableService
from tests.controller.round_script import T0, header
from tests.support.mqtt import Probe
from tests.support.publisher import Collected
from tests.support.tables import boxes_table
from tests.tablectl.test_service_inbox import hold

ROOT = Path(__file__).resolve().parents[2]


def table_text(table_id: str, device: str, journal: Path) -> str:
    return boxes_table(
        table_id,
        journal,
        more=f"""
confirm_payments = false
[shoe]
kind = "serial"
port = "{device}"
dialect = "framed"
[camera]
enabled = false
""",
    )


def flood(address: BrokerAddress, topic: str, stop: threading.Event, limit: int) -> int:
    """Publish well-formed bets, about a hundred a second (bursts of ten): each is journaled
    (and mostly refused), so cards often find the table's thread busy. Each goes twice, with
    the same id, as a console's retry does (the second must not be applied). At most
    ``limit``."""
    probe = Probe(address.port, "seat-2")
    probe.connect()
    sent = 0
    bet = {"v": 1, "command": "place_bet", "hand": "box 2", "spot": "ante", "amount": "5"}
    try:
        while not stop.is_set() and sent < limit:
            with contextlib.suppress(AssertionError):  # a controller being killed: go on
                payload = json.dumps({**bet, "id": f"f{sent}"})
                probe.publish(topic, payload, timeout=1.0)
                probe.publish(topic, payload, timeout=1.0)
            sent += 1
            if sent % 10 == 0:
                time.sleep(0.1)
    finally:
        probe.close()
    return sent


@pytest.mark.parametrize(
    "lives",
    [
        pytest.param(6, id="6-kills"),
        pytest.param(200, id="200-kills", marks=[pytest.mark.full, pytest.mark.timeout(1800)]),
    ],
)
def test_every_acknowledged_card_is_in_the_journal_after_kills_under_a_flood(
    mosquitto: Any, table_id: str, tmp_path: Path, lives: int
) -> None:
    rng = random.Random(lives)
    target: list[subprocess.Popen[bytes]] = []  # the controller to kill at an acknowledgement

    def kill_at_ack(draw: Any) -> None:
        if target:
            target.pop().send_signal(signal.SIGKILL)  # the moment the shoe hears "recorded"

    shoe = ShoeSimulator(
        "framed", link="pty", seed=lives, rate=40, endless=True, locked=True, on_ack=kill_at_ack
    )
    device = shoe.start()
    journal = tmp_path / "j.db"
    config = tmp_path / "table.toml"
    config.write_text(table_text(table_id, device, journal), "utf-8")
    broker = f"mqtt://controller:controller-dev@127.0.0.1:{mosquitto.port}"
    command = [
        sys.executable,
        "-m",
        "tablectl.cli",
        "run",
        "--config",
        str(config),
        "--broker",
        broker,
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    address = BrokerAddress("127.0.0.1", mosquitto.port)
    seats = seats_for("boxes", 1)
    passwords = {u: dev_password(u) for u in ("dealer", "pit", "seat-1")}
    crew = Crew(
        address, table_id, "texas-poker", seats, rounds=10_000, seed=lives, passwords=passwords
    )
    stop_flood = threading.Event()
    flooded: list[int] = []
    flooder = threading.Thread(
        target=lambda: flooded.append(
            flood(address, f"tablectl/{table_id}/seat/2/cmd", stop_flood, 200_000)
        ),
        daemon=True,
    )
    killed = 0
    children: list[subprocess.Popen[bytes]] = []
    log = tmp_path / "controller.log"

    def start() -> subprocess.Popen[bytes]:
        with log.open("ab") as err:  # a file, not a pipe nobody reads while it runs
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=env)
        children.append(child)
        return child

    try:
        crew.start()
        flooder.start()
        for life in range(lives):
            child = start()
            # a few cards into this life (rounds, the flood and halts meanwhile), then:
            wanted = acknowledged(shoe) + rng.randint(1, 4)
            wait_until(lambda n=wanted: acknowledged(shoe) >= n, "cards to be dealt", 60.0)
            if life % 2:  # killed as it acknowledges its next card
                target.append(child)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=20)
                target.clear()
            else:  # killed anywhere between two cards: in a write, in handle(), in between
                time.sleep(rng.uniform(0.0, 0.4))
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            killed += child.returncode == -signal.SIGKILL
        # a last life that ends cleanly, after the shoe had time to resend what is owed;
        # first dealing (its signal handlers set: on a loaded machine, a terminate sent a
        # fixed 3 s after the start once arrived while it was still importing)
        child = start()
        wanted = acknowledged(shoe) + 1
        wait_until(lambda n=wanted: acknowledged(shoe) >= n, "the last life to deal", 60.0)
        time.sleep(3.0)
        stop_flood.set()
        time.sleep(0.5)
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
        assert child.returncode == 0, log.read_text("utf-8", "replace")[-2000:]
    finally:
        for child in children:  # none outlives the test, however it ends
            if child.poll() is None:
                child.kill()
                child.wait(timeout=30)
        stop_flood.set()
        crew.stop()
        shoe.stop()
    assert killed == lives
    with contextlib.closing(SqliteJournal(journal)) as reader:
        steps = list(replay(reader))
    reads = [step.event.read for step in steps if isinstance(step.event, CardDrawn)]
    ids = Counter((sender_of(s.event.actor), s.command_id) for s in steps if s.command_id)
    applied_twice = {key: n for key, n in ids.items() if n > 1}
    assert not applied_twice, f"commands journaled twice under one id: {applied_twice}"
    flooded_ids = sum(sender == "seat:2" for sender, _ in ids)
    assert flooded_ids, "no command of the flood was journaled"
    # a card read before a kill and sent again reaches a restarted table whose deal is halted
    # (the layout check): it is held for the place it lies on, and dealt there on resuming
    held = sum(
        isinstance(s.event, CardDrawn) and s.state.round is not None
        and s.event.card in s.state.round.held
        for s in steps
    )  # fmt: skip
    taken = sum(sum(a.kind == "card" for a in s.actions) for s in steps if s.event.kind == "resume")
    # or refused on resuming, the deal halted again: a card the shoe dealt again in the round
    # (its endless shoe reshuffled mid-round), as when it comes while the deal runs
    refused = [
        a.data["reason"]
        for s in steps
        if s.event.kind == "resume"
        for a in s.actions
        if a.kind == "halted"
    ]
    assert all("was already dealt in this round" in reason for reason in refused), refused
    last = steps[-1].state.round
    assert taken + len(refused) == held - (len(last.held) if last is not None else 0)
    acked = [draw.record for draw in shoe.log if draw.acked]
    assert len(acked) >= lives, f"only {len(acked)} cards were dealt and acknowledged"
    lost = sorted(set(acked) - set(reads))
    assert not lost, f"{len(lost)} acknowledged cards are not in the journal: records {lost[:20]}"
    twice = {record: n for record, n in Counter(reads).items() if n > 1}
    assert not twice, f"cards journaled more than once (record: times): {twice}"
    repeated = sum(bool(reply.get("repeated")) for reply in crew.replies)
    print(
        f"\n{lives} kills, {len(acked)} cards acknowledged, {len(reads)} journaled, "
        f"0 lost, {len(twice)} journaled twice, {flooded[0] if flooded else 0} flood commands "
        f"each sent twice ({flooded_ids} journaled once), {len(ids)} command ids journaled, "
        f"0 twice; the crew sent {crew.retries} commands again, {repeated} answered as repeats; "
        f"{held} cards reached a halted deal, {taken} dealt where they lay on resuming"
    )


def acknowledged(shoe: ShoeSimulator) -> int:
    """How many of the shoe's cards the host has acknowledged so far."""
    return sum(draw.acked for draw in list(shoe.log))


def journaled_cards(runner: TableRunner) -> list[dict[str, Any]]:
    return [e.record for e in runner.journal.entries() if e.record["kind"] == "card_drawn"]


def wait_until(ready: Any, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_a_card_that_finds_the_table_busy_is_acknowledged_only_once_journaled(
    tmp_path: Path,
) -> None:
    """The window the drill aims at, held open: the table's thread is busy with a command
    while the shoe deals a card over a real pseudo-terminal into the real transport and the
    running table's own shoe callback. The shoe hears nothing (and keeps resending) until
    the table has journaled the card."""
    runner = TableRunner.create(tmp_path / "t.journal", header(), T0)
    service = TableService(runner, Collected())
    service.start()
    host = SimpleNamespace(service=service)  # what RunningTable's shoe callback uses
    shoe = ShoeSimulator("framed", link="pty", cards=parse_cards("AS"), rate=0, locked=True)
    transport = SerialTransport(
        shoe.start(), FramedHostCodec(), lambda event: RunningTable._shoe_event(host, event)
    )
    release = threading.Event()
    try:
        transport.start()
        wait_until(lambda: shoe.acks_received >= 1, "the shoe's introduction to be taken")
        entered, release = hold(service, "open_table")
        service.put(Inbound("event", item=OpenTable(actor="pit:ann")))
        assert entered.wait(5)  # the table's thread is busy inside the command
        shoe.gate(False, 1)  # the dealer draws a card now
        wait_until(lambda: shoe.log, "the card to be dealt")
        time.sleep(0.3)  # a dozen resends meanwhile
        assert not shoe.log[0].acked and not journaled_cards(runner)  # not journaled: no ack
        release.set()
        wait_until(lambda: shoe.log[0].acked, "the acknowledgement")
        assert [c["read"] for c in journaled_cards(runner)] == [
            shoe.log[0].record
        ]  # journaled once, then acked
    finally:
        release.set()
        transport.stop()
        shoe.stop()
        service.stop()
        runner.close()
