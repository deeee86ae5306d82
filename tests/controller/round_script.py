"""A scripted studio round of Ultimate Texas Hold'em, shared by the journal and crash tests."""

from fractions import Fraction

from controller.cards import parse_cards
from controller.events import (
    CardDrawn,
    Decide,
    Event,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    RevealDone,
    StartRound,
)
from controller.games import Seating
from controller.games.rules import Spot
from tablectl.runtime import header_record

T0 = 1_790_000_000.0


def header() -> dict[str, object]:
    return header_record(
        "S1", "ultimate-texas-holdem", Seating.SHARED, ("player",),
        balances={"seat:1": Fraction(1000), "seat:2": Fraction(1000)},
    )  # fmt: skip


def rounds(n: int = 2) -> list[tuple[Event, float]]:
    """``n`` whole rounds, each with its events and times."""
    out: list[tuple[Event, float]] = [(OpenTable(actor="pit:ann"), T0)]
    t = T0
    decks = ["AH QC 2H JD 5H 9H KH 3C 7D", "KS 2C KD 3D 7C 8H 9S 4H 4D"]
    for r in range(n):
        events: list[Event] = [
            StartRound(actor="dealer"),
            PlaceBet(
                actor="seat:1", hand="player", seat="seat:1", spot=Spot.ANTE, amount=Fraction(10)
            ),
            PlaceBet(
                actor="seat:2", hand="player", seat="seat:2", spot=Spot.ANTE, amount=Fraction(5)
            ),
            NoMoreBets(actor="dealer"),
        ]
        cards = list(parse_cards(decks[r % 2]))
        events += [CardDrawn(actor="shoe", card=c) for c in cards[:4]]
        events += [
            Decide(actor="seat:1", hand="player", seat="seat:1", option="check"),
            Decide(actor="seat:2", hand="player", seat="seat:2", option="call_4x"),
        ]
        events += [CardDrawn(actor="shoe", card=c) for c in cards[4:7]]
        events += [Decide(actor="seat:1", hand="player", seat="seat:1", option="check")]
        events += [CardDrawn(actor="shoe", card=c) for c in cards[7:9]]
        events += [Decide(actor="seat:1", hand="player", seat="seat:1", option="call_1x")]
        events += [RevealDone(actor="dealer")]
        for event in events:
            t += 1.5
            out.append((event, t))
    return out
