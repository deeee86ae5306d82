"""Every halt the table can produce says why in words, names who caused it, and counts cards
in the round's terms.

The halts are enumerated from the code that builds them (every call of ``_halt`` and
``_halt_for_card`` in ``controller/table.py``, plus the ``halt`` command the dealer, the pit
manager, the shoe, the camera and the system send); a new call site fails the census below
until it has its case here.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from config.schema import load_game
from controller.cards import Card
from controller.events import (
    CardDrawn,
    DealerExposedEarly,
    Fault,
    Halt,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    StartRound,
    Tick,
)
from controller.games import Seating
from controller.games.rules import DealScript, Spot
from controller.games.rules import Decide as DecideStep
from controller.table import Phase, TableConfig, new_table, role_of, who
from tests.controller.test_crosscheck import CASINO, DEALT, play
from tests.controller.test_table import Console, boxes, studio

ACTORS = {"shoe", "camera", "dealer", "pit", "system"}

#: what a halt reason never holds: JSON or Python's brackets, fractions such as 31/2, Python
#: reprs, escaped control characters
NOT_WORDS = re.compile(r"[{}\[\]<>]|\b\d+/\d+\b|Fraction\(|\bNone\b|\\[nrt]|object at 0x")


def assert_words(text: str) -> None:
    """``text`` is a reason a person reads: words only, and not empty."""
    assert text.strip(), "an empty reason"
    found = NOT_WORDS.search(text)
    assert found is None, f"{found.group()!r} in {text!r}"


def dealt_boxes(cards: str = "") -> Console:
    """Triple Action at three boxes, two of them bet, betting closed, ``cards`` dealt."""
    c = boxes()
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    c.bet("box 2", "bob", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    for code in cards.split():
        c.send(CardDrawn(actor="shoe", card=Card.parse(code)))
    return c


def _duplicate() -> Console:
    c = dealt_boxes("KS 8C 9S")
    c.send(CardDrawn(actor="shoe", card=Card.parse("8C")))  # box 2's card again
    return c


def _not_in_deck() -> Console:
    c = dealt_boxes("KS 8C 9S KD")
    c.send(CardDrawn(actor="shoe", card=Card.parse("2C")))  # Triple Action deals 8s to aces
    return c


def _not_due() -> Console:
    c = boxes()
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    c.send(CardDrawn(actor="shoe", card=Card.parse("AS")))
    return c


def _while_halted() -> Console:
    c = _not_due()
    c.send(CardDrawn(actor="shoe", card=Card.parse("KS")))
    return c


def _exposed(actor: str) -> Callable[[], Console]:
    def make() -> Console:
        c = dealt_boxes("KS 8C 9S KD 9D 8H")
        c.send(DealerExposedEarly(actor=actor))
        return c

    return make


def _exposed_in_deal() -> Console:
    c = dealt_boxes("KS 8C 9S")  # the dealer's first card dealt, the deal not done
    c.send(DealerExposedEarly(actor="camera"))
    return c


def _timer() -> Console:
    """A studio table whose flop decision times out to an option the game does not offer."""
    game = load_game("casino-holdem")
    steps = tuple(
        DecideStep(dataclasses.replace(s.point, on_timeout="nap"))
        if isinstance(s, DecideStep)
        else s
        for s in game.script.steps
    )
    napping = type("NappingCasino", (type(game),), {"script": DealScript(steps)})(game.config)
    config = TableConfig(
        "S1", napping, Seating.SHARED, ("player",), decision_seconds=10.0,
        balances={"seat:1": Fraction(1000)},
    )  # fmt: skip
    c = Console(new_table(config))
    c.send(OpenTable(actor="pit:ann"))
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AH QC 2H JD 5H 9H KH")
    assert c.state.phase is Phase.DECIDING
    c.send(Tick(actor="timer"), after=11)
    return c


def _fault() -> Console:
    c = dealt_boxes("KS")
    # a fault's error is an engineer's text (a Python repr here): it stays out of the reason
    c.send(Fault(actor="system", failed="card_drawn", of="shoe",
                 error="RuntimeError('a bug: {x}')", halts=True))  # fmt: skip
    return c


def _command(actor: str, reason: str) -> Callable[[], Console]:
    def make() -> Console:
        c = dealt_boxes("KS 8C")
        c.send(Halt(actor=actor, reason=reason))
        return c

    return make


def _camera() -> Console:
    run = play(CASINO.format(shoe="AH QC 2H JD 5H 9H KH 3C 7D")
               + f"at 5 camera sees {DEALT.replace('2H', '2D')}\n")  # fmt: skip
    c = Console(run.state)
    c.actions = list(run.actions)
    return c


#: (name, how to reach the halt, who causes it, what the reason must say about the round)
CASES: list[tuple[str, Callable[[], Console], str, tuple[str, ...]]] = [
    ("a card dealt twice", _duplicate, "shoe", ("8C", "box 2's first card", "box 1's second")),
    ("a card of another deck", _not_in_deck, "shoe", ("2C", "box 2's second card")),
    ("a card when none is due", _not_due, "shoe", ("AS", "no card was due", "betting")),
    ("a card while halted", _while_halted, "shoe", ("KS", "while the table was halted")),
    ("the dealer's cards exposed, told by the dealer", _exposed("dealer"), "dealer", ()),
    ("the dealer's cards exposed, seen by the camera", _exposed("camera"), "camera", ()),
    ("the dealer's cards exposed, told by the pit", _exposed("pit:ann"), "pit", ()),
    (
        "the dealer's card exposed during the deal",
        _exposed_in_deal,
        "camera",
        ("dealer's first card", "during the deal", "redeal", "bets stay"),
    ),
    ("the decision timer failed", _timer, "system", ("player", "flop")),
    ("the controller failed on a card", _fault, "system", ("a card from the shoe",)),
    ("the dealer's halt", _command("dealer", "a chip fell on box 2"), "dealer", ("box 2",)),
    ("the pit's halt", _command("pit:ann", "checking the cameras"), "pit", ()),
    ("a halt with no reason", _command("dealer", "  "), "dealer", ("no reason given",)),
    ("the shoe's halt", _command("shoe", "the shoe jammed"), "shoe", ()),
    ("the system's halt", _command("system", "the controller restarted"), "system", ()),
    ("the camera sees another card", _camera, "camera", ("2D", "at player", "dealt 2H")),
]


@pytest.mark.parametrize(("name", "make", "actor", "says"), CASES, ids=[c[0] for c in CASES])
def test_every_halt_says_why_in_words_and_who_caused_it(
    name: str, make: Callable[[], Console], actor: str, says: tuple[str, ...]
) -> None:
    c = make()
    assert c.state.phase is Phase.HALTED, name
    halted = [a.data for a in c.actions if a.kind == "halted"][-1]
    by = str(halted["by"])
    assert role_of(by) == actor and role_of(by) in ACTORS
    rnd = c.state.round
    assert rnd is not None and rnd.halted_by == by
    assert_words(rnd.halt_reason)
    assert_words(str(halted["reason"]))
    for phrase in says:
        assert phrase in rnd.halt_reason, (phrase, rnd.halt_reason)
    # the consoles' line names who halted, in words
    assert c.state.next_due == f"halted by {who(by)}: {rnd.halt_reason}"
    assert who(by).startswith("the ")
    alerts = [a.data["message"] for a in c.actions if a.kind == "alert"]
    assert any(who(by) in str(m) for m in alerts)


def test_a_second_halt_by_another_actor_is_added_with_its_name() -> None:
    c = boxes()
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    c.send(Halt(actor="dealer", reason="a chip fell on box 2"))
    c.send(CardDrawn(actor="shoe", card=Card.parse("9S")))
    rnd = c.state.round
    assert rnd is not None and rnd.halted_by == "dealer"  # who stopped the round first
    assert rnd.halt_reason == (
        "a chip fell on box 2; then the shoe: card 9S arrived while the table was halted"
    )
    assert c.actions[-1].data == {
        "level": "error", "message": "card 9S arrived while the table was halted", "by": "shoe",
    }  # fmt: skip


def test_resuming_clears_who_halted() -> None:
    from controller.events import Resume

    c = _not_due()
    c.send(Resume(actor="pit:ann", note="card set aside"))
    assert c.state.phase is Phase.BETTING
    assert c.state.round is not None and c.state.round.halted_by == ""


def test_every_halt_site_of_the_table_has_its_case() -> None:
    """A census of the code that builds halts: a new one needs its case in CASES."""
    source = (Path(__file__).parents[2] / "controller" / "table.py").read_text()
    sites = re.findall(r"(?<!def )\b(_halt|_halt_for_card)\(", source)
    # _card: the card dealt twice, the card of another deck, a card not due (through
    # _halt_for_card); _halt_for_card itself; the exposure during the deal and after it; the
    # timer; the fault; the command
    assert len(sites) == 9, f"{len(sites)} halt sites: add the new one's case to CASES"


def test_the_words_checker_catches_what_it_is_for() -> None:
    """The reasons above are checked by a checker that does fail on what it looks for."""
    for bad in ('shoe: {"event": "duplicate_card"}', "ante bet 31/2", "Fraction(31, 2)", "None"):
        with pytest.raises(AssertionError):
            assert_words(bad)
    c = studio()
    c.send(StartRound(actor="dealer"))
    out = c.send(PlaceBet(actor="seat:1", hand="player", seat="seat:1", spot=Spot.ANTE,
                          amount=Fraction(21, 2)))  # fmt: skip
    assert out[-1].kind == "refused"
    assert_words(str(out[-1].data["reason"]))
