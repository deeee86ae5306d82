"""Every refusal of a bad amount or an unknown field names what was expected and what arrived,
in amounts as a person writes them (10.5, never 21/2); hostile and random input by hypothesis.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.events import PlaceBet, StartRound, shown
from controller.games.rules import Spot, say_amount
from controller.inbound import CommandRejected, parse_command
from controller.topics import Sender
from tests.controller.test_halt_reasons import assert_words
from tests.controller.test_table import studio

SEAT = Sender("seat", "3")
AMOUNT = re.compile(r"\d{1,15}(?:\.\d{1,6}|/[1-9]\d{0,14})?")
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)


def rejected(sender: Sender, doc: dict[str, object]) -> str:
    payload = json.dumps({"v": 1, "id": "c1", **doc}).encode()
    with pytest.raises(CommandRejected) as refusal:
        parse_command(sender, payload)
    return str(refusal.value)


BAD_AMOUNTS = st.one_of(
    TEXT.filter(lambda t: AMOUNT.fullmatch(t.strip()) is None),
    st.integers(max_value=-1, min_value=-(10**12)),
    st.floats(min_value=-1e9, max_value=-0.01),
    st.booleans(),
    st.none(),
    st.lists(st.integers(-1000, 1000), max_size=3),
    st.dictionaries(TEXT.map(lambda t: t[:5]), st.integers(-9, 9), max_size=2),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(BAD_AMOUNTS)
def test_an_unreadable_amount_says_what_is_expected_and_what_arrived(raw: object) -> None:
    reason = rejected(SEAT, {"command": "place_bet", "hand": "player", "spot": "ante",
                             "amount": raw})  # fmt: skip
    arrived = json.loads(json.dumps(raw))  # as the table received it
    assert reason == (
        f"place_bet amount: expected an amount such as 25 or 12.5; got {shown(arrived)}"
    )


def test_what_arrived_is_shown_as_a_person_reads_it() -> None:
    assert rejected(SEAT, {"command": "place_bet", "hand": "player", "spot": "ante",
                           "amount": "a lot"}) == (
        "place_bet amount: expected an amount such as 25 or 12.5; got 'a lot'"
    )  # fmt: skip
    assert shown(True) == "true" and shown(None) == "null" and shown("x" * 50).endswith("…'")
    assert shown("a\x00b") == "'a\\x00b'"  # a control character is shown escaped, not sent


#: (sender, command, its valid fields, the fields a refusal lists as accepted)
COMMANDS = [
    (SEAT, "place_bet", {"hand": "player", "spot": "ante", "amount": 10},
     "hand, seat, spot, amount and dark"),
    (SEAT, "decide", {"hand": "player", "option": "check"}, "hand, seat and option"),
    (Sender("dealer"), "resume", {"note": "ok"}, "note"),
    (Sender("pit"), "void_round", {"reason": "r"}, "reason and confirm_paid"),
]  # fmt: skip
RESERVED = {"v", "id", "command", "by", "actor", "kind", "seat", "hand", "spot", "amount",
            "dark", "option", "note", "reason", "confirm_paid"}  # fmt: skip
UNKNOWN = st.dictionaries(
    TEXT.filter(lambda k: k not in RESERVED and k.isprintable() and 0 < len(k) < 30),
    st.one_of(st.integers(-1000, 1000), st.booleans(), TEXT.map(lambda t: t[:10])),
    min_size=1,
    max_size=3,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(COMMANDS), UNKNOWN)
def test_unknown_fields_are_named_with_the_fields_accepted(
    command: tuple[Sender, str, dict[str, object], str], extra: dict[str, object]
) -> None:
    sender, name, fields, accepted = command
    reason = rejected(sender, {"command": name, **fields, **extra})
    which = "an unknown field" if len(extra) == 1 else "unknown fields"
    assert reason.startswith(f"{name} has {which} ")
    assert reason.endswith(f": expected only {accepted}")
    for key in extra:
        assert shown(key) in reason


def test_a_missing_field_names_every_field_expected() -> None:
    reason = rejected(SEAT, {"command": "place_bet", "hand": "player", "spot": "ante"})
    assert reason == (
        "place_bet lacks the field 'amount': expected hand, seat, spot and amount "
        "(dark may be added)"
    )
    spot = rejected(SEAT, {"command": "place_bet", "hand": "player", "spot": "antes",
                           "amount": 5})  # fmt: skip
    assert spot.startswith("place_bet spot: expected a bet spot (ante, ante_plus, ")
    assert spot.endswith("; got 'antes'")


def bet(amount: Fraction) -> PlaceBet:
    return PlaceBet(actor="seat:1", hand="player", seat="seat:1", spot=Spot.ANTE, amount=amount)


@settings(max_examples=200)
@given(st.decimals(min_value=1, max_value=999, places=2).filter(lambda d: d % 1 != 0))
def test_a_bet_of_part_of_a_chip_says_the_step_the_limits_and_the_amount(amount: Decimal) -> None:
    c = studio()  # Ultimate: ante 1 to 1,000 in whole chips
    c.send(StartRound(actor="dealer"))
    before = c.state
    out = c.send(bet(Fraction(amount)))
    assert c.state == before and out[-1].kind == "refused"
    reason = str(out[-1].data["reason"])
    written = format(amount.normalize(), "f")  # 10.50 is written 10.5
    assert reason == (
        "ante bet: expected a whole number of chips of 1 (table minimum 1, maximum 1000); "
        f"got {written}"
    )
    assert_words(reason)


@settings(max_examples=100)
@given(st.fractions(min_value=1, max_value=10**6, max_denominator=999))
def test_no_refused_amount_is_written_as_a_fraction(amount: Fraction) -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    out = c.send(bet(amount))
    if out[-1].kind != "refused":
        assert amount.denominator == 1 and amount <= 500  # with its Ante Plus, within 1,000
        return
    reason = str(out[-1].data["reason"])
    assert_words(reason)
    assert f" {say_amount(amount)}" in reason  # what arrived, as a person writes it


def test_a_limit_on_the_total_says_what_was_already_on_the_spot() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    c.send(bet(Fraction(400)))
    out = c.send(bet(Fraction(1201, 2)))
    assert out[-1].data["reason"] == (
        "ante bet: expected at most the table maximum 1000 (minimum 1); got 1000.5 in all "
        "(400 already on it, 600.5 added)"
    )
    out = c.send(bet(Fraction(0)))
    assert out[-1].data["reason"] == "can't bet 0: expected a positive amount such as 25 or 12.5"
    out = c.send(PlaceBet(actor="seat:1", hand="box 9", seat="seat:1", spot=Spot.ANTE,
                          amount=Fraction(10)))  # fmt: skip
    assert out[-1].data["reason"] == "can't bet on 'box 9': expected a hand of this table (player)"
