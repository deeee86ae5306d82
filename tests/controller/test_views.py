"""What each audience may see: the leak test over many rounds of every game, and privacy."""

import json
import re

import pytest

from controller.games import Seating
from controller.topics import Topics
from controller.views import DEALER, PIT, PUBLIC, Projector
from simulators.dealer.offline import play_offline
from simulators.display.checker import DisplayChecker

CARD = re.compile(r'"([2-9TJQKA][CDHS])"')
TABLES = [
    ("ultimate-texas-holdem", Seating.SHARED),
    ("texas-holdem-bonus", Seating.BOXES),
    ("texas-poker", Seating.BOXES),
    ("casino-holdem", Seating.SHARED),
    ("triple-action-holdem", Seating.BOXES),
]


class Oracle:
    """What a player may know, built from the pit's stream alone (not from the views)."""

    def __init__(self) -> None:
        self.dealt: dict[str, tuple[str, str]] = {}  # card: (position, face)
        self.revealed: set[str] = set()
        self.showdown = False
        self.folded: set[str] = set()
        self.side_bets: set[tuple[str, str]] = set()  # folded stakes with a side bet settled
        self.ended = False

    def pit_event(self, doc: dict) -> None:
        kind, data = doc["event"], doc["data"]
        if kind == "card":
            self.dealt[data["card"]] = (data["position"], data["face"])
        elif kind == "reveal":
            self.revealed |= set(data["cards"])
        elif kind == "settled":
            self.showdown = True
            if data.get("folded"):
                self.folded.add(data["hand"])
                if any(line["spot"] in ("bonus", "best_five") for line in data["lines"]):
                    self.side_bets.add((data["hand"], data["seat"]))
        elif kind in ("redeal", "sequence_restored"):
            for card in data.get("collected", []) + data.get("removed", []):
                self.dealt.pop(card, None)
        elif kind == "round_ended":
            self.ended = True

    def end_step(self) -> None:
        """A round that ended in this step is forgotten once the step's messages are checked."""
        if self.ended:
            self.ended = False
            self.dealt.clear()
            self.revealed.clear()
            self.showdown = False
            self.folded.clear()
            self.side_bets.clear()

    def may_see(self, card: str, seat_hands: set[str], dark: bool = False, seat: str = "") -> bool:
        if card in self.revealed:
            return True
        if card not in self.dealt:
            return False  # the shoe's undealt order, or a card taken out of play
        position, face = self.dealt[card]
        if face == "up":
            return True
        if position in ("dealer", "board"):
            return False
        if self.showdown and position not in self.folded:
            return True
        if (position, seat) in self.side_bets:  # its side bet was settled on these cards
            return True
        return position in seat_hands and not dark


@pytest.mark.parametrize(("game", "seating"), TABLES)
def test_nothing_hidden_reaches_a_player(game: str, seating: Seating) -> None:
    """Every message a display or a seat may read, over 25 rounds with irregularities."""
    oracle = Oracle()
    checker = DisplayChecker("OFF")
    checked = 0
    for step in play_offline(game, seating, 25, seed=11, irregular=0.3, mischief=0.2):
        for out in step.published:
            if out.audience == PIT and out.topic.endswith("/events"):
                oracle.pit_event(json.loads(out.payload))
        hands_of = {}
        rnd = step.after.round or step.before.round
        for stake in rnd.stakes if rnd else ():
            hands_of.setdefault(stake.seat, set()).add(stake.hand)
        dark = rnd.dark if rnd else frozenset()
        for out in step.published:
            if out.audience not in (PUBLIC,) and not out.audience.startswith("seat:"):
                continue
            text = out.payload.decode()
            doc = json.loads(text)
            if out.audience == PUBLIC:
                checker.receive(out.topic, out.payload)
                assert "seat:" not in text, f"a seat id on a public topic: {text[:200]}"
                last = doc.get("last_round") or {}
                if last:  # the showdown stays on the display: its cards were shown
                    text = text.replace(json.dumps(last, separators=(",", ":")), "")
                    for hand in last.get("hands", []):
                        if hand.get("folded"):
                            assert hand["cards"] == [None] * len(hand["cards"])
            else:
                for settlement in doc.get("settlements", []):  # the last round's, shown then
                    assert "player_hand" in settlement or settlement.get("folded")
                    assert not (settlement.get("folded") and "player_hand" in settlement)
                if doc.get("type") == "state":
                    text = json.dumps({**doc, "settlements": []})
                others = re.findall(r'"seat:[^"]+"', text)
                assert set(others) <= {f'"{out.audience}"'}, f"{out.audience} sees {others}"
            seat_hands = hands_of.get(out.audience, set())
            for card in CARD.findall(text):
                hand = oracle.dealt.get(card, ("", ""))[0]
                ok = oracle.may_see(card, seat_hands, dark=hand in dark, seat=out.audience)
                assert ok, f"{card} leaked to {out.audience} on {out.topic}: {text[:300]}"
                checked += 1
        oracle.end_step()
    assert checked > 100
    assert checker.report()["findings"] == []
    assert checker.report()["gaps"] == 0


def test_the_pit_sees_face_down_cards_and_the_public_does_not() -> None:
    saw_hidden_in_pit = saw_null_in_public = False
    for step in play_offline(
        "texas-poker", Seating.BOXES, 2, seed=1, irregular=0.0, mischief=0.0, void_chance=0.0
    ):
        for out in step.published:
            doc = json.loads(out.payload)
            if doc.get("event") != "card" or doc["data"]["position"] == "board":
                continue
            if out.audience == PIT:
                saw_hidden_in_pit |= doc["data"]["card"] is not None
            elif out.audience == PUBLIC:
                assert doc["data"]["card"] is None  # seed 001: every hole card face down
                saw_null_in_public = True
    assert saw_hidden_in_pit and saw_null_in_public


def test_a_seat_sees_its_own_face_down_cards_only() -> None:
    own = 0
    for step in play_offline(
        "texas-poker", Seating.BOXES, 3, seed=2, irregular=0.0, mischief=0.0, void_chance=0.0
    ):
        for out in step.published:
            doc = json.loads(out.payload)
            if not out.audience.startswith("seat:") or doc.get("event") != "card":
                continue
            box = "box " + out.audience.removeprefix("seat:")
            assert doc["data"]["position"] == box
            own += doc["data"]["card"] is not None
    assert own == 3 * 3 * 2  # three rounds, three boxes, two cards


def test_sequence_numbers_count_every_message_of_a_stream() -> None:
    last: dict[str, int] = {}
    for step in play_offline("casino-holdem", Seating.SHARED, 3, seed=4):
        for out in step.published:
            seq = json.loads(out.payload)["seq"]
            if out.audience in last:
                assert seq == last[out.audience] + 1, out.topic
            last[out.audience] = seq


def test_republishing_some_audiences_leaves_no_gap_in_the_others() -> None:
    """A status change republishes the dealer's and the pit's states only: the public and
    the seats must not lose a sequence number to states built and never sent."""
    projector = Projector(Topics("V1"))
    state = next(iter(play_offline("casino-holdem", Seating.SHARED, 1, seed=4, players=2))).after
    first = {o.audience: json.loads(o.payload)["seq"] for o in projector.states(state, 0.0)}
    staff = projector.states(state, 1.0, only=(DEALER, PIT))
    assert sorted(o.audience for o in staff) == [DEALER, PIT]
    public = projector.states(state, 2.0, only=(PUBLIC,))
    assert [o.audience for o in public] == [PUBLIC]
    again = {o.audience: json.loads(o.payload)["seq"] for o in projector.states(state, 3.0)}
    assert again[PUBLIC] == first[PUBLIC] + 2  # one republish in between
    assert again[DEALER] == first[DEALER] + 2 and again[PIT] == first[PIT] + 2
    seats = [a for a in first if a.startswith("seat:")]
    assert seats and all(again[s] == first[s] + 1 for s in seats)  # never republished alone


def test_cached_stake_views_equal_fresh_ones_at_every_step() -> None:
    """Stake views are reused between audiences and inputs: never a stale one."""
    kept = Projector(Topics("V2"))
    checked = 0
    for step in play_offline("ultimate-texas-holdem", Seating.SHARED, 4, seed=9, players=4):
        fresh = Projector(Topics("V2"))
        for audience in ("dealer", "pit"):
            build = "dealer_state" if audience == "dealer" else "pit_state"
            mine = getattr(kept, build)(step.after, 0.0).stakes
            theirs = getattr(fresh, build)(step.after, 0.0).stakes
            assert mine == theirs, (step.event.kind, audience)
            checked += len(mine)
        for seat in ("seat:1", "seat:2"):
            assert kept.seat_state(step.after, seat, 0.0).stakes == (
                fresh.seat_state(step.after, seat, 0.0).stakes
            )
    assert checked > 100


def _shared_round(river: tuple[str, str]) -> dict:
    """The public state after one Ultimate round on a shared hand where both seats check to
    the river and then take ``river``'s options; its ``last_round``."""
    from fractions import Fraction

    from controller.cards import parse_cards
    from controller.events import (
        CardDrawn,
        ChangeDeck,
        Decide,
        NoMoreBets,
        OpenTable,
        PlaceBet,
        RevealDone,
        StartRound,
    )
    from controller.games.rules import Spot
    from controller.table import handle, new_table
    from tablectl.runtime import config_from_header, header_record

    header = header_record(
        "S1", "ultimate-texas-holdem", Seating.SHARED, ("player",),
        balances={"seat:1": Fraction(1000), "seat:2": Fraction(1000)},
    )  # fmt: skip
    state = new_table(config_from_header(header, "test"))
    projector = Projector(Topics("S1"))
    cards = [CardDrawn(actor="shoe", card=c) for c in parse_cards("AH QC 2H JD 5H 9H KH 3C 7D")]
    seats = ("seat:1", "seat:2")

    def decide(options: tuple[str, str]) -> list:
        return [
            Decide(actor=s, hand="player", seat=s, option=o)
            for s, o in zip(seats, options, strict=True)
        ]

    events = [
        OpenTable(actor="pit:ann"), StartRound(actor="dealer"),
        ChangeDeck(actor="dealer", deck_id="D-1"),
        *[PlaceBet(actor=s, hand="player", seat=s, spot=Spot.ANTE, amount=Fraction(10))
          for s in seats],
        NoMoreBets(actor="dealer"), *cards[:4], *decide(("check", "check")), *cards[4:7],
        *decide(("check", "check")), *cards[7:9], *decide(river), RevealDone(actor="dealer"),
    ]  # fmt: skip
    now = 1_790_000_000.0
    for event in events:
        now += 1.0
        after, actions = handle(state, event, now)
        projector.observe(state, after, actions)
        state = after
    (public,) = [o for o in projector.states(state, now) if o.audience == PUBLIC]
    return json.loads(public.payload)["last_round"]


def test_a_shared_hand_that_every_seat_folded_is_never_shown() -> None:
    last = _shared_round(("fold", "fold"))
    (hand,) = last["hands"]
    assert hand["folded"] is True
    assert hand["cards"] == [None, None] and hand["name"] is None
    assert not {"AH", "2H"} & set(CARD.findall(json.dumps(last)))  # the player's hole cards


def test_a_shared_hand_that_one_seat_played_on_is_shown_down() -> None:
    last = _shared_round(("fold", "call_1x"))
    (hand,) = last["hands"]
    assert hand["folded"] is False
    assert hand["cards"] == ["AH", "2H"] and hand["name"]
