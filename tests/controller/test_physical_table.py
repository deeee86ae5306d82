"""Seed 001's physical table: owners and passengers, open and dark boxes, two boxes, the order."""

from fractions import Fraction

from controller.cards import parse_cards
from controller.events import AllowPassenger, Decide, NoMoreBets, PlaceBet, RevealDone, StartRound
from controller.games.rules import Spot
from controller.table import Phase
from tests.controller.test_table import Console, boxes


def table(n: int = 5) -> Console:
    c = boxes("texas-poker", n=n)
    c.send(StartRound(actor="dealer"))
    return c


def bet(
    c: Console, box: int, seat: str, amount: int, *, dark: bool = False, spot: str = "ante"
) -> str:
    out = c.send(PlaceBet(actor="dealer", hand=f"box {box}", seat=seat, spot=Spot(spot),
                          amount=Fraction(amount), dark=dark))  # fmt: skip
    return out[-1].data.get("reason", "") if out[-1].kind == "refused" else ""


def test_a_passenger_on_an_open_box_needs_the_owners_permission_and_bets_his_amount() -> None:
    c = table()
    assert bet(c, 1, "ann", 200) == ""
    assert "needs its owner ann's permission" in bet(c, 1, "bob", 200)
    c.send(AllowPassenger(actor="dealer", hand="box 1", passenger="bob"))
    assert "bets the owner's amount (200)" in bet(c, 1, "bob", 250)
    assert bet(c, 1, "bob", 200) == ""
    c.send(AllowPassenger(actor="dealer", hand="box 1", passenger="cy"))
    c.send(AllowPassenger(actor="dealer", hand="box 1", passenger="dee"))
    assert bet(c, 1, "cy", 100) == ""  # below the owner's for now
    assert "a box takes 3 bets" in bet(c, 1, "dee", 200)
    out = c.send(NoMoreBets(actor="dealer"))
    assert (
        "cy on box 1 bets 100, the owner ann 200: open-box bets must be equal"
        in out[-1].data["reason"]
    )
    assert bet(c, 1, "cy", 100) == ""
    c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING


def test_dark_bets_need_no_permission_and_may_differ() -> None:
    c = table()
    assert bet(c, 2, "ann", 200, dark=True) == ""
    assert bet(c, 2, "bob", 500) == ""  # a dark box: any amount, no permission
    assert c.state.round is not None and c.state.round.dark == frozenset({"box 2"})
    out = c.send(AllowPassenger(actor="dealer", hand="box 2", passenger="cy"))
    assert "a dark box needs no permission" in out[-1].data["reason"]
    c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING


def test_one_gambler_at_most_two_neighbouring_open_boxes_with_equal_antes() -> None:
    c = table()
    assert bet(c, 2, "ann", 200) == ""
    assert "must be neighbours (has box 2)" in bet(c, 4, "ann", 200)
    assert bet(c, 3, "ann", 300) == ""
    assert "at most 2 open boxes" in bet(c, 1, "ann", 200)
    assert bet(c, 5, "ann", 100, dark=True) == ""  # dark bets are limited only by free boxes
    out = c.send(NoMoreBets(actor="dealer"))
    assert "ann's antes on box 2 and box 3 differ (200 and 300)" in out[-1].data["reason"]
    from controller.events import UndoBet

    c.send(UndoBet(actor="dealer", hand="box 3", seat="ann"))
    assert bet(c, 3, "ann", 200) == ""
    c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING


def test_a_passenger_follows_the_owner_onto_his_second_box_automatically() -> None:
    """Seed 001: "if the gambler plays on two open boxes, the passenger must play on two open
    boxes automatically": betting closes with his bet on the second box, at the same amount."""
    c = table()
    bet(c, 1, "ann", 200)
    bet(c, 2, "ann", 200)
    c.send(AllowPassenger(actor="dealer", hand="box 1", passenger="bob"))
    bet(c, 1, "bob", 200)
    out = c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING, out
    followed = [a.data for a in out if a.kind == "bet" and a.data.get("automatic")]
    assert followed == [{"hand": "box 2", "seat": "bob", "spot": "ante", "amount": "200",
                         "automatic": True, "follows": "ann", "from": "box 1"}]  # fmt: skip
    rnd = c.state.round
    assert rnd is not None and rnd.stake("box 2", "bob") is not None
    assert rnd.stake("box 2", "bob").totals() == {Spot.ANTE: 200}  # type: ignore[union-attr]


def test_a_passenger_follows_only_as_far_as_the_box_has_room() -> None:
    c = table()
    bet(c, 1, "ann", 200)
    bet(c, 2, "ann", 200)
    for seat in ("cy", "dee"):
        c.send(AllowPassenger(actor="dealer", hand="box 2", passenger=seat))
        bet(c, 2, seat, 200)
    c.send(AllowPassenger(actor="dealer", hand="box 1", passenger="bob"))
    bet(c, 1, "bob", 200)
    before = c.state
    out = c.send(NoMoreBets(actor="dealer"))
    assert out[-1].kind == "refused" and c.state == before
    reason = str(out[-1].data["reason"])
    assert "bob rides ann's box 1 and must follow him onto box 2 automatically" in reason
    assert "a box takes 3 bets" in reason


def test_before_the_rule_a_passenger_was_entered_on_the_second_box_by_hand() -> None:
    """A journal played under rules 2 replays as it was played: betting did not close."""
    c = boxes("texas-poker", n=5, rules=2)
    c.send(StartRound(actor="dealer"))
    bet(c, 1, "ann", 200)
    bet(c, 2, "ann", 200)
    c.send(AllowPassenger(actor="dealer", hand="box 1", passenger="bob"))
    bet(c, 1, "bob", 200)
    out = c.send(NoMoreBets(actor="dealer"))
    assert "bob must ride both of ann's boxes (box 1 and box 2)" in out[-1].data["reason"]
    c.send(AllowPassenger(actor="dealer", hand="box 2", passenger="bob"))
    bet(c, 2, "bob", 200)
    c.send(NoMoreBets(actor="dealer"))
    assert c.state.phase is Phase.DEALING


def test_first_box_then_second_and_passengers_follow_the_owners_decision() -> None:
    c = table(2)
    bet(c, 1, "ann", 200)
    bet(c, 2, "ann", 200)
    c.send(AllowPassenger(actor="dealer", hand="box 1", passenger="bob"))
    c.send(AllowPassenger(actor="dealer", hand="box 2", passenger="bob"))
    bet(c, 1, "bob", 200)
    bet(c, 2, "bob", 200)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AS KS QS JS TS 9S 2C 3C 4C")
    out = c.send(Decide(actor="dealer", hand="box 2", seat="ann", option="fold"))
    assert (
        "can't decide box 2 before box 1: ann decides his first box first" in out[-1].data["reason"]
    )
    out = c.send(Decide(actor="dealer", hand="box 1", seat="bob", option="fold"))
    assert "the box owner ann decides" in out[-1].data["reason"]
    c.send(Decide(actor="dealer", hand="box 1", seat="ann", option="bet"))
    c.send(Decide(actor="dealer", hand="box 2", seat="ann", option="fold"))
    c.cards("5D 6D")
    c.send(RevealDone(actor="dealer"))
    settled = {(d["hand"], d["seat"]): d for d in c.kinds("settled")}
    assert (
        settled[("box 1", "bob")]["folded"] is False and settled[("box 2", "bob")]["folded"] is True
    )
    hole = settled[("box 1", "ann")]["player_hand"]["cards"][:2]  # type: ignore[index]
    assert hole == [c.code for c in parse_cards("AS JS")]  # one card at a time round the boxes
