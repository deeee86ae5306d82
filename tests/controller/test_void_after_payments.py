"""A void after the dealer confirmed payments: refused unless the pit manager confirms it, and
then recorded stake by stake as returned or already paid, with an alert to the pit.

Seeds 000, 002 and 003: "Malfunction voids all pays and plays", and the shift manager
decides when a round is cancelled; no seed says what becomes of a payment already made.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from controller.events import (
    ConfirmPayment,
    Decide,
    Halt,
    MalformedEvent,
    NoMoreBets,
    RevealDone,
    StartRound,
    VoidRound,
    event_from_json,
)
from controller.games import Seating
from controller.table import RULES, Phase, TableState
from tablectl.runtime import TableRunner, config_from_header, header_record
from tests.controller.test_table import Console, boxes

T0 = 1_790_000_000.0


def settling() -> Console:
    """A physical table in settling: box 1 (ann) won 40 on 10 and 10, box 2 (bob) tied (his
    20 comes back), box 3 (cy) folded."""
    c = boxes(confirm_payments=True)
    c.send(StartRound(actor="dealer"))
    for box, seat in (("box 1", "ann"), ("box 2", "bob"), ("box 3", "cy")):
        c.bet(box, seat, "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    # box 1 KS KD, box 2 8C 9D, box 3 QH JC, dealer 9S 8H; board 9C TH JD
    c.cards("KS 8C QH 9S KD 9D JC 8H 9C TH JD")
    c.send(Decide(actor="dealer", hand="box 1", seat="ann", option="bet"))
    c.send(Decide(actor="dealer", hand="box 2", seat="bob", option="bet"))
    c.send(Decide(actor="dealer", hand="box 3", seat="cy", option="fold"))
    c.send(RevealDone(actor="dealer"))
    assert c.state.phase is Phase.SETTLING
    assert c.state.round is not None
    owed = {(h, s): st.returned for h, s, st in c.state.round.settlements}
    assert owed == {("box 1", "ann"): 40, ("box 2", "bob"): 20, ("box 3", "cy"): 0}
    return c


def refused(c: Console, event: VoidRound | Halt) -> str:
    before = c.state
    out = c.send(event)
    assert [a.kind for a in out] == ["refused"]
    assert c.state == before  # a refused command changes nothing
    return str(out[0].data["reason"])


def test_a_void_before_any_payment_needs_no_confirmation() -> None:
    c = settling()
    c.send(VoidRound(actor="pit:ann", reason="the shoe's records do not match"))
    ended = c.kinds("round_ended")[-1]
    assert ended["outcome"] == "void"
    assert [r["status"] for r in ended["refunds"]] == ["returned"] * 3  # type: ignore[index]
    assert not any("after payments" in str(a["message"]) for a in c.kinds("alert"))


def test_a_void_after_a_confirmed_payment_is_refused_saying_who_was_paid_and_what_to_do() -> None:
    c = settling()
    c.send(ConfirmPayment(actor="dealer", hand="box 1", seat="ann", paid=Fraction(40)))
    assert c.state.phase is Phase.SETTLING  # box 2 waits for its 20
    reason = refused(c, VoidRound(actor="pit:ann", reason="malfunction"))
    assert reason == (
        "can't void the round while the table is settling: payments already confirmed for "
        "box 1 (ann): the pit manager must confirm the void (void_round with "
        "confirm_paid=true); the record then shows those stakes as already paid, and every "
        "other bet returned"
    )
    # the dealer may not void at all, before or after payments
    assert "only the pit manager" in refused(c, VoidRound(actor="dealer", reason="x"))
    assert "only the pit manager" in refused(
        c, VoidRound(actor="dealer", reason="x", confirm_paid=True)
    )
    # halted while settling: the same rule, and the halt's reason is quoted
    c.send(Halt(actor="dealer", reason="a chip rolled off box 2"))
    reason = refused(c, VoidRound(actor="pit:ann", reason="malfunction"))
    assert "payments already confirmed for box 1 (ann)" in reason
    assert "while the table is halted (a chip rolled off box 2)" in reason


def test_the_pit_managers_confirmed_void_records_each_stake_and_alerts_the_pit() -> None:
    c = settling()
    c.send(ConfirmPayment(actor="dealer", hand="box 1", seat="ann", paid=Fraction(45)))  # over
    out = c.send(VoidRound(actor="pit:ann", reason="malfunction", confirm_paid=True))
    assert c.state.phase is Phase.IDLE and c.state.round is None
    ended = next(a.data for a in out if a.kind == "round_ended")
    assert ended["refunds"] == [
        {"hand": "box 1", "seat": "ann", "status": "already paid", "returned": "0", "paid": "45"},
        {"hand": "box 2", "seat": "bob", "status": "returned", "returned": "20"},
        {"hand": "box 3", "seat": "cy", "status": "returned", "returned": "10"},
    ]  # fmt: skip
    alert = next(a.data for a in out if a.kind == "alert")
    assert alert["audience"] == "pit" and alert["level"] == "warning"
    assert "voided by the pit manager (ann) after payments: already paid box 1 (ann) 45" in str(
        alert["message"]
    )
    assert c.state.last_round[0][1] == "void"


def test_two_payments_are_both_named_and_a_studio_balance_is_not_refunded_twice() -> None:
    c = boxes(confirm_payments=True, balances={"ann": Fraction(100), "bob": Fraction(100),
                                               "cy": Fraction(100)})  # fmt: skip
    c.send(StartRound(actor="dealer"))
    for box, seat in (("box 1", "ann"), ("box 2", "bob"), ("box 3", "cy")):
        c.bet(box, seat, "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("KS 8C QH 9S KD 9D JC 8H 9C TH JD")
    for box, seat, option in (("box 1", "ann", "bet"), ("box 2", "bob", "bet"),
                              ("box 3", "cy", "fold")):  # fmt: skip
        c.send(Decide(actor="dealer", hand=box, seat=seat, option=option))
    c.send(RevealDone(actor="dealer"))
    assert dict(c.state.balances) == {"ann": 80, "bob": 80, "cy": 90}
    c.send(ConfirmPayment(actor="dealer", hand="box 2", seat="bob", paid=Fraction(20)))
    c.send(ConfirmPayment(actor="dealer", hand="box 1", seat="ann", paid=Fraction(30)))  # short
    reason = refused(c, VoidRound(actor="pit:ann", reason="malfunction"))
    assert "payments already confirmed for box 2 (bob):" in reason  # a short one is no payment
    c.send(ConfirmPayment(actor="dealer", hand="box 1", seat="ann", paid=Fraction(40)))
    assert c.state.phase is Phase.IDLE  # every winner paid: the round is complete
    assert dict(c.state.balances) == {"ann": 120, "bob": 100, "cy": 90}


def test_an_old_journal_replays_its_void_by_the_rules_it_was_played_under(tmp_path: Path) -> None:
    """A journal written before the rule (its row 0 names no rules) replays as it was played:
    its void after a payment was taken then, and is taken again on the replay."""
    header = header_record("P1", "triple-action-holdem", Seating.BOXES,
                           ("box 1", "box 2", "box 3"), confirm_payments=True)  # fmt: skip
    assert header["rules"] == RULES >= 2
    old = {k: v for k, v in header.items() if k != "rules"}
    assert config_from_header(old, "old").rules == 1
    c = settling()
    c.send(ConfirmPayment(actor="dealer", hand="box 1", seat="ann", paid=Fraction(40)))
    plain = VoidRound(actor="pit:ann", reason="malfunction")
    for header_row, phase in ((old, Phase.IDLE), (header, Phase.SETTLING)):
        path = tmp_path / f"rules-{header_row.get('rules', 1)}.journal"
        runner = TableRunner.create(path, header_row, T0)
        for event, now in [*c.log, (plain, c.now + 1)]:
            runner.submit(event, now)
        live: TableState = runner.state
        runner.close()
        again = TableRunner.recover(path)
        assert again.state == live and again.state.phase is phase
        again.close()


def test_confirm_paid_is_read_as_true_or_false() -> None:
    doc = {"kind": "void_round", "actor": "pit:ann", "reason": "r"}
    assert event_from_json(doc) == VoidRound(actor="pit:ann", reason="r")  # an old record
    assert event_from_json({**doc, "confirm_paid": True}) == VoidRound(
        actor="pit:ann", reason="r", confirm_paid=True
    )
    with pytest.raises(MalformedEvent) as refusal:
        event_from_json({**doc, "confirm_paid": "yes"})
    assert str(refusal.value) == "void_round confirm_paid: expected true or false; got 'yes'"
