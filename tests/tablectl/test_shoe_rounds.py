"""A running table's shoe, round after round with a new deck each: the simulator on a real
pseudo-terminal in every dialect, the real transport, codec, journal and broker. No card is
taken for a repeat across a reshuffle; a card read twice in one round halts the table in the
round's terms, attributed to the shoe; a message dropped as a repeat is counted in the shoe's
hardware status the dealer and the pit see."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.cards import Card
from controller.events import Action, Event, OpenTable
from controller.games import Seating
from controller.table import Phase
from controller.topics import Sender, Topics
from drivers.mqtt.client import BrokerAddress
from drivers.shoe.events import CardRead, DuplicateCard
from tablectl.running import RunningTable
from tablectl.runtime import TableRunner, header_record
from tablectl.service import Inbound, TableService
from tests.support.publisher import Collected
from tests.support.tables import boxes_table
from tests.tablectl.test_running_hardware import command, wait_for

ROUNDS = 12  # per dialect on the wire (100 in `make test-full`); the codec and the table
# alone play 120 each in tests/drivers/test_shoe_rounds.py


def shoe_table(table_id: str, journal: Path, dialect: str, faults: str = "") -> str:
    return boxes_table(
        table_id,
        journal,
        boxes=3,
        more=f"""
[shoe]
kind = "simulated"
dialect = "{dialect}"
rate = 400
seed = 8
faults = "{faults}"
[camera]
enabled = false
""",
    )


def start(table_id: str, tmp_path: Path, mosquitto: Any, dialect: str, faults: str = "") -> Any:
    text = shoe_table(table_id, tmp_path / "j.db", dialect, faults)
    address = BrokerAddress("127.0.0.1", mosquitto.port, "controller", "controller-dev")
    table = RunningTable(parse_table_text(text, "test"), tmp_path, address)
    halts: list[dict[str, Any]] = []

    def listen(event: Event, actions: list[Action]) -> None:
        halts.extend(a.data for a in actions if a.kind == "halted")

    table.service.listeners.append(listen)
    table.start()
    table.service.submit(command(Sender("pit"), {"command": "open_table", "by": "test"}))
    return table, halts


def bet_and_close(service: TableService, boxes: int = 3) -> None:
    service.submit(command(Sender("dealer"), {"command": "start_round"}))
    for seat in map(str, range(1, boxes + 1)):
        bet = {"command": "place_bet", "hand": f"box {seat}", "spot": "ante", "amount": "100"}
        service.submit(command(Sender("seat", seat), bet))
    service.submit(command(Sender("dealer"), {"command": "no_more_bets"}))


def play_round(table: RunningTable) -> None:
    """One whole round on the running table, then a new deck in the shoe (the shuffler)."""
    service = table.service
    bet_and_close(service)
    wait_for(lambda: service.state.phase is Phase.DECIDING, table=table)
    for seat, option in (("1", "bet"), ("2", "fold"), ("3", "bet")):
        decide = {"command": "decide", "hand": f"box {seat}", "option": option}
        service.submit(command(Sender("seat", seat), decide))
    wait_for(lambda: service.state.phase is Phase.REVEAL, table=table)
    service.submit(command(Sender("dealer"), {"command": "reveal_done"}))
    wait_for(lambda: service.state.phase is Phase.IDLE, table=table)
    assert table.simulator is not None
    table.simulator.new_deck()


@pytest.mark.parametrize("rounds", [ROUNDS, pytest.param(100, marks=pytest.mark.full)])
@pytest.mark.parametrize("dialect", ["uspc", "jsonl", "framed"])
def test_rounds_with_a_new_deck_each_never_halt_on_a_false_duplicate(
    dialect: str, rounds: int, mosquitto: Any, table_id: str, tmp_path: Path
) -> None:
    table, halts = start(table_id, tmp_path, mosquitto, dialect)
    try:
        for _ in range(rounds):
            play_round(table)
        assert halts == []
        assert table.service.state.rounds_started == rounds
        cards = [e.record for e in table.runner.journal.entries()
                 if e.record.get("kind") == "card_drawn"]  # fmt: skip
        assert len(cards) == rounds * 13  # 3 boxes and the dealer two each, the board five
        # the shoe dealt the same cards again round after round: repeats across decks
        assert len({c["card"] for c in cards}) < len(cards)
        # nothing dropped but what was provably sent twice: a framed record the shoe sent
        # again when its acknowledgement was late (a busy machine), and nothing else
        assert table.simulator is not None
        assert table.codec.stats.duplicates <= table.simulator.resends
    finally:
        table.stop()


def test_a_card_read_twice_in_a_round_halts_in_the_rounds_terms_by_the_shoe(
    mosquitto: Any, table_id: str, tmp_path: Path
) -> None:
    """An ASCII shoe sends its second round's fifth token twice: the table halts, naming where
    the card was dealt and where it came again; both reads are in the journal."""
    table, halts = start(table_id, tmp_path, mosquitto, "uspc", faults="dup@18")
    try:
        play_round(table)  # 13 cards: the 18th drawn is the second round's 5th
        bet_and_close(table.service)
        wait_for(lambda: bool(halts), table=table)  # the listeners hear of it last
        [halt] = halts
        rnd = table.service.state.round
        assert rnd is not None and len(rnd.cards) == 5
        box, card = rnd.cards[4][0], rnd.cards[4][1]
        assert box == "box 1"  # the deal goes round boxes 1-3 and the dealer, twice
        assert halt["by"] == "shoe"
        assert halt["reason"] == (
            f"card {card} was already dealt in this round as card 5 (box 1's second card); "
            "it came again as card 6 (due: box 2's second card)"
        )
        drawn = [e.record["card"] for e in table.runner.journal.entries()
                 if e.record.get("kind") == "card_drawn"]  # fmt: skip
        # the card on the felt reached the round: read twice, journaled twice (a next card
        # may follow, drawn before the halt shut the gate: a stray of the halted round)
        assert drawn[13 + 4 : 13 + 6] == [card.code, card.code]
    finally:
        table.stop()


def test_a_repeated_rfid_line_is_dropped_and_counted_in_the_hardware_status(
    mosquitto: Any, mqtt_client: Any, table_id: str, tmp_path: Path
) -> None:
    pit = mqtt_client(mosquitto, "pit")
    pit.subscribe(Topics(table_id).pit.state)
    table, halts = start(table_id, tmp_path, mosquitto, "jsonl", faults="dup@3+15")
    try:
        for _ in range(2):
            play_round(table)
        assert halts == []
        wait_for(lambda: table.service.hardware()["shoe"].get("stats", {}).get("duplicates") == 2)

        def published() -> list[int]:
            return [
                json.loads(m.payload)["hardware"]["shoe"].get("stats", {}).get("duplicates", 0)
                for m in pit.messages(Topics(table_id).pit.state)
            ]

        wait_for(lambda: 2 in published())  # the pit saw both drops counted
        assert published().index(1) < published().index(2)
        assert table.codec.stats.cards == 26
    finally:
        table.stop()


def test_a_framed_shoes_duplicate_halts_in_its_decks_terms_and_the_rounds(
    tmp_path: Path,
) -> None:
    """The framed shoe proves a repeat within the deck it loaded; the halt says so in words,
    with where the card lies in the round."""
    header = header_record("F1", "texas-poker", Seating.BOXES, ("box 1", "box 2"))
    runner = TableRunner.create(tmp_path / "f1.journal", header, 1_790_000_000.0)
    service = TableService(runner, Collected())
    service.start()
    try:
        service.submit(OpenTable(actor="pit:ann"))
        bet_and_close(service, boxes=2)
        for code in ("AS", "KD", "QC"):
            service.put(Inbound("shoe", item=CardRead(Card.parse(code), record=1)))
        service.put(Inbound("shoe", item=DuplicateCard(Card.parse("KD"), 2, 4, "red-7")))
        service.sync()
        rnd = service.state.round
        assert service.state.phase is Phase.HALTED and rnd is not None
        reason = rnd.halt_reason
        assert (
            "KD came out of deck red-7 twice, with no new deck loaded between: as its card 2, "
            "and again as its card 4" in reason
        )
        assert reason.endswith("; in this round it was dealt as card 2 (box 2's first card)")
        assert "{" not in reason
        assert [card for _, card, _ in rnd.cards] == [Card.parse(c) for c in ("AS", "KD", "QC")]
        halt = [e.record for e in runner.journal.entries() if e.record.get("kind") == "halt"]
        assert halt[-1]["actor"] == "shoe"
    finally:
        service.stop()
        runner.close()
