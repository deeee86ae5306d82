import pytest

from controller.cards import Card
from drivers.shoe.events import Alarm, CardRead, ShoeWarning, must_halt
from drivers.shoe.uspc import UspcCodec, format_uspc_card, parse_uspc_card
from tests.drivers.shoe_support import ARRIVALS, feed_all, kinds

C = Card.parse

STREAM = (
    b" [Game]<Card:4S>  [Game]<Card:10H>  [Game]<Card:TD> "
    b" [Manual Burn Cards]<Card:H3>  [Manual Burn Cards]<Card:S10> "
    b" [Game]<Game>  [GameAlarm]<Alarm:E3 Card Not Read> <W0x01>\r\n [Game]<Card:AC> "
)


@pytest.mark.parametrize("arrival", ARRIVALS)
def test_game_and_burn_modes_failures_alarms_and_warnings(arrival: str) -> None:
    codec = UspcCodec()
    events = feed_all(codec, STREAM, arrival)
    assert kinds(events) == ["card"] * 5 + ["read_failed", "alarm", "warning", "card"]
    cards = [e for e in events if isinstance(e, CardRead)]
    assert [(c.card.code, c.burn) for c in cards] == [
        ("4S", False),
        ("TH", False),
        ("TD", False),
        ("3H", True),
        ("TS", True),
        ("AC", False),
    ]
    alarm = events[6]
    assert isinstance(alarm, Alarm) and (alarm.code, alarm.text) == ("E3", "Card Not Read")
    assert must_halt(events[5]) and must_halt(alarm)
    assert isinstance(events[7], ShoeWarning) and not must_halt(events[7])
    assert codec.take_output() == b""


def test_card_codes_both_orders_and_the_simulator_format_round_trip() -> None:
    for i in range(52):
        card = Card(i)
        for burn in (False, True):
            for ten in ("T", "10"):
                token = format_uspc_card(card, burn=burn, ten=ten)
                events = UspcCodec().feed(token.encode())
                assert [(e.card, e.burn) for e in events] == [(card, burn)]  # type: ignore[attr-defined]
    assert parse_uspc_card("h3") is C("3H")


GARBLED = [
    ("bad suit", b" [Game]<Card:4X> ", ["corrupt"]),
    ("bad rank", b" [Game]<Card:1S> ", ["corrupt"]),
    # a blank inside a card token is a damaged or inserted byte: never read round it
    ("blank inside", b" [Manual Burn Cards]<Card:S 4> ", ["corrupt"]),
    ("blank before", b" [Game]<Card: 4S> ", ["corrupt"]),
    ("tab inside", b" [Game]<Card:1\t0S> ", ["corrupt"]),
    ("non-ascii in token", b" [Game]<Ca\x85d:4S> ", ["corrupt"]),
    ("unterminated token", b" [Game]<Card:4S ", ["corrupt"]),
    ("missing opener", b" [Game]Card:4S> ", ["corrupt"]),
    ("unknown token", b" [Game]<Shuffle> ", ["corrupt"]),
    ("empty token", b"<>", ["corrupt"]),
    ("noise", b"\x07\x13xyz\xff ", ["noise"]),
    ("blank padding", b"   \r\n  ", []),
]


@pytest.mark.parametrize(("name", "garbage", "expected"), GARBLED, ids=[g[0] for g in GARBLED])
@pytest.mark.parametrize("arrival", ARRIVALS)
def test_garbled_input_is_reported_never_a_card(
    name: str, garbage: bytes, expected: list[str], arrival: str
) -> None:
    codec = UspcCodec()
    events = feed_all(codec, garbage + b" [Game]<Card:AS> ", arrival)
    assert kinds(events) == [*expected, "card"]
    assert events[-1].card == C("AS")  # type: ignore[attr-defined]
    assert all(must_halt(e) for e in events if e.kind.value == "corrupt")


def test_a_damaged_byte_anywhere_never_yields_another_card() -> None:
    token = b" [Game]<Card:QD> "
    for at in range(len(token)):
        for value in (0x85, ord("<"), ord(">"), ord("["), ord("X")):
            damaged = bytearray(token)
            damaged[at] = value
            events = UspcCodec().feed(bytes(damaged) + b" [Game]<Card:2C> ")
            cards = [e.card for e in events if isinstance(e, CardRead)]
            assert cards in ([C("QD"), C("2C")], [C("2C")]), (bytes(damaged), events)


def test_every_card_read_is_delivered_the_table_judges_repeats() -> None:
    """This shoe says nothing of decks or rounds: a card read twice (a reshuffled deck, or a
    double read) is delivered twice, for the table, which knows the round, to judge."""
    codec = UspcCodec()
    stream = b" [Game]<Card:4S>  [Game]<Card:5S>  [Game]<Game>  [Game]<Card:4S> " * 30
    events = codec.feed(stream)
    assert kinds(events) == ["card", "card", "read_failed", "card"] * 30
    assert [e.card for e in events if isinstance(e, CardRead)] == [C("4S"), C("5S"), C("4S")] * 30
    assert codec.stats.cards == 90 and codec.stats.duplicates == 0


def test_endless_garbage_without_a_token_is_bounded() -> None:
    codec = UspcCodec()
    for _ in range(100):
        codec.feed(b"x" * 1000)
    assert len(codec._buffer) < 1024
    assert kinds(codec.feed(b" [Game]<Card:AS> "))[-1] == "card"
