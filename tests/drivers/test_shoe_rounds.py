"""The shoe's cards follow the table's rounds and decks, in every dialect.

Every game shuffles a fresh deck for each round, so the same card comes again in the next
round. Through each dialect's real codec and the real table, round after round with a new
deck each time: no card is taken for a repeat across a reshuffle, every card read reaches
the round, a card read twice within a round halts the table naming both places in the
round's terms (attributed to the shoe), and a message is dropped only when provably the
same read, each drop counted.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import pytest

from config.schema import load_game
from controller.cards import Card
from controller.events import (
    Action,
    CardDrawn,
    Event,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    RevealDone,
    StartRound,
    Tick,
)
from controller.games import Seating
from controller.games.rules import Spot
from controller.table import Phase, TableConfig, TableState, handle, new_table
from drivers.shoe import make_codec
from drivers.shoe.base import ShoeCodec
from drivers.shoe.deckmap import demo_deck_map
from drivers.shoe.events import CardRead, DuplicateDropped, ShoeEvent, must_halt
from drivers.shoe.framed import (
    MessageType,
    card_payload,
    deck_payload,
    encode_frame,
    hello_payload,
)
from drivers.shoe.jsonl import format_jsonl
from drivers.shoe.uspc import format_uspc_card

DIALECTS = ("uspc", "jsonl", "framed")
DECK_MAP = demo_deck_map()
T0 = 1_790_000_000.0
BOXES = 5  # 5 boxes of Texas poker: 17 cards a round, a third of the deck


class Wire:
    """One shoe of a dialect, as bytes on its wire: a boot, a deck loaded, a card read."""

    def __init__(self, dialect: str, rng: random.Random) -> None:
        self.dialect = dialect
        self.rng = rng
        self.seq = 0

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def boot(self) -> bytes:
        if self.dialect == "framed":
            return encode_frame(0, MessageType.HELLO, hello_payload(self._next(), 1, "m", "s", "1"))
        if self.dialect == "jsonl":
            return format_jsonl({"type": "boot", "seq": self._next(), "device_id": "r1"})
        return b""

    def deck_loaded(self, name: str) -> bytes:
        """What the shoe says when a deck is loaded: only the framed shoe says anything."""
        if self.dialect != "framed":
            return b""
        record = self._next()
        return encode_frame(record & 0xFF, MessageType.DECK_LOADED, deck_payload(record, name))

    def card(self, card: Card, *, again: bool = False) -> bytes:
        """A card read; ``again``: the very same message sent a second time."""
        seq = self.seq if again else self._next()
        if self.dialect == "framed":
            return encode_frame(seq & 0xFF, MessageType.CARD, card_payload(seq, card, 95))
        if self.dialect == "jsonl":
            uid = DECK_MAP.uid_for(card)
            return format_jsonl({"type": "card", "seq": seq, "device_id": "r1", "uid": uid})
        return format_uspc_card(card, ten=self.rng.choice(("T", "10"))).encode()


@dataclass
class Table:
    """The pure table fed by one codec, with a count of every halt and every card."""

    dialect: str
    rng: random.Random
    codec: ShoeCodec = field(init=False)
    wire: Wire = field(init=False)
    state: TableState = field(init=False)
    now: float = T0
    read_at: float = 0.0  # the shoe's clock: a read every 0.1 s, across rounds too
    halts: list[str] = field(default_factory=list)
    halted_by: list[str] = field(default_factory=list)
    shoe_halts: list[ShoeEvent] = field(default_factory=list)
    dropped: int = 0
    read: int = 0
    rounds: int = 0
    last_read: Card | None = None

    def __post_init__(self) -> None:
        self.codec = make_codec(self.dialect, DECK_MAP)
        self.wire = Wire(self.dialect, self.rng)
        config = TableConfig(
            "R1", load_game("texas-poker"), Seating.BOXES,
            tuple(f"box {i}" for i in range(1, BOXES + 1)), decision_seconds=10.0,
        )  # fmt: skip
        self.state = new_table(config)
        self.send(OpenTable(actor="pit:ann"))
        self.feed(self.wire.boot())

    def send(self, event: Event, after: float = 0.25) -> list[Action]:
        self.now += after
        self.state, actions = handle(self.state, event, self.now)
        self.halts += [str(a.data["reason"]) for a in actions if a.kind == "halted"]
        self.halted_by += [str(a.data["by"]) for a in actions if a.kind == "halted"]
        self.rounds += sum(a.kind == "round_ended" for a in actions)
        return actions

    def feed(self, data: bytes) -> list[ShoeEvent]:
        """What the codec makes of ``data``; cards go to the table as the service sends them."""
        self.read_at += 0.1
        events = self.codec.feed(data, self.read_at)
        for event in events:
            if isinstance(event, CardRead):
                self.read += 1
                self.last_read = event.card
                self.send(CardDrawn(actor="shoe", card=event.card, read=event.record))
            elif isinstance(event, DuplicateDropped):
                self.dropped += 1
            elif must_halt(event):
                self.shoe_halts.append(event)
        return events

    def play_round(self, deck: list[Card], deal: Callable[[Card], bytes] | None = None) -> None:
        """One round from ``deck`` (a fresh shuffle): bets, the deal, decisions, the reveal."""
        idle = self.state.phase is Phase.IDLE
        assert idle, self.state.next_due
        self.send(StartRound(actor="dealer"))
        for box in range(1, BOXES + 1):
            spot, amount = Spot("ante"), Fraction(100)
            self.send(PlaceBet(actor="dealer", hand=f"box {box}", seat=f"p{box}", spot=spot,
                               amount=amount))  # fmt: skip
        self.send(NoMoreBets(actor="dealer"))
        self.feed(self.wire.deck_loaded(f"deck-{self.rounds + 1}"))
        cards = iter(deck)
        for _ in range(200):  # bounded: a round takes a few dozen steps
            phase = self.state.phase
            if phase is Phase.DEALING:
                card = next(cards)
                self.feed(deal(card) if deal is not None else self.wire.card(card))
            elif phase is Phase.DECIDING:  # the decision timer decides for every box
                rnd = self.state.round
                assert rnd is not None and rnd.decision_deadline is not None
                self.send(Tick(actor="timer"), after=rnd.decision_deadline - self.now + 0.01)
            elif phase is Phase.REVEAL:
                self.send(RevealDone(actor="dealer"))
            else:
                return
        raise AssertionError(f"the round did not end: {self.state.next_due}")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_hundred_and_twenty_reshuffled_rounds_never_halt_on_a_false_duplicate(
    dialect: str,
) -> None:
    """120 rounds, a new deck shuffled for each, through the dialect's codec: not one halt,
    every card read is a card of its round. Every tenth deck starts with the card that ended
    the round before, read again within a second (an RFID tag is the same tag next round)."""
    rng = random.Random(f"rounds-{dialect}")
    table = Table(dialect, rng)
    deck_52 = table.state.config.game.info.deck
    for n in range(120):
        deck = list(deck_52.shuffled(rng))
        last = table.last_read
        if n % 10 == 9 and last is not None:  # the reshuffled deck's top card: the last one
            deck.remove(last)
            deck.insert(0, last)
        read = table.read
        table.play_round(deck)
        assert table.rounds == n + 1, table.state.next_due
        assert table.read - read == 17  # each card the shoe read is a card of the round
    assert table.halts == [] and table.shoe_halts == []
    assert table.rounds == 120 and table.dropped == 0
    assert table.read == table.codec.stats.cards == 120 * 17
    assert table.codec.stats.duplicates == 0


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_card_read_twice_in_a_round_halts_naming_both_places_in_the_round(
    dialect: str,
) -> None:
    """The table, which knows the round, judges a repeat: the halt names where the card was
    dealt and where it came again, in the round's terms, by the shoe, in words."""
    rng = random.Random(5)
    table = Table(dialect, rng)
    deck = list(table.state.config.game.info.deck.shuffled(rng))
    table.play_round(deck)  # a whole round first: the next one's deck holds the same cards
    deck = list(table.state.config.game.info.deck.shuffled(rng))
    repeated = deck[1]
    deck.insert(4, repeated)  # box 2's first card comes again as card 5 (box 5's first)
    table.send(StartRound(actor="dealer"))
    for box in range(1, BOXES + 1):
        table.send(PlaceBet(actor="dealer", hand=f"box {box}", seat=f"p{box}",
                            spot=Spot("ante"), amount=Fraction(100)))  # fmt: skip
    table.send(NoMoreBets(actor="dealer"))
    table.feed(table.wire.deck_loaded("deck-2"))
    for card in deck[:5]:
        table.feed(table.wire.card(card))
    if dialect == "framed":  # the shoe proves it itself: the deck it loaded gave it twice
        [duplicate] = table.shoe_halts
        assert duplicate.message == (  # type: ignore[attr-defined]
            f"{repeated} came out of deck deck-2 twice, with no new deck loaded between: "
            "as its card 2, and again as its card 5"
        )  # the running table adds the round's terms (tests/tablectl/test_shoe_rounds.py)
        return
    assert table.shoe_halts == [] and table.state.phase is Phase.HALTED
    assert table.halts == [
        f"card {repeated} was already dealt in this round as card 2 (box 2's first card); "
        "it came again as card 5 (due: box 5's first card)"
    ]
    assert table.halted_by == ["shoe"]
    halt = table.state.round
    assert halt is not None and repeated not in [c for _, c, _ in halt.cards[2:]]


def test_a_repeated_rfid_line_is_dropped_only_when_provably_the_same_read() -> None:
    """A line sent twice (same seq, same tag) is dropped and counted; the same tag under a
    new seq is a new read, delivered, and the round judges it."""
    table = Table("jsonl", random.Random(1))
    deck = list(table.state.config.game.info.deck.shuffled(random.Random(2)))
    sent: list[bytes] = []

    def deal(card: Card) -> bytes:
        line = table.wire.card(card)
        sent.append(line)
        return line + (table.wire.card(card, again=True) if len(sent) % 4 == 0 else b"")

    table.play_round(deck, deal)
    assert table.halts == [] and table.rounds == 1
    assert table.dropped == table.codec.stats.duplicates == len(sent) // 4 > 0
    assert table.read == len(sent)
