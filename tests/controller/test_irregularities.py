"""Seed 001's disputable situations and the studio rules, each a named path through the table."""

from fractions import Fraction

from controller.cards import Card, parse_cards
from controller.events import (
    CardDrawn,
    ChangeDeck,
    CorrectCard,
    DealerExposedEarly,
    Decide,
    Double,
    NoMoreBets,
    PlaceBet,
    Rebet,
    Redeal,
    ResolveUndecided,
    RestoreSequence,
    RevealDone,
    StartRound,
    VoidRound,
)
from controller.games.rules import Spot
from controller.table import Phase
from tests.controller.test_table import boxes, studio


def poker_round(n: int = 3):  # type: ignore[no-untyped-def]
    c = boxes("texas-poker", n=n)
    c.send(StartRound(actor="dealer"))
    for i in range(1, n + 1):
        c.bet(f"box {i}", f"gambler{i}", "ante", 100)
    c.send(NoMoreBets(actor="dealer"))
    return c


def test_broken_sequence_the_dealer_restores_it_and_play_continues() -> None:
    c = poker_round(2)
    # order: box 1, box 2, dealer, box 1, box 2, dealer. The dealer skips box 2 on the way round:
    c.cards("AS KS QS JS")  # the table took them as box 1, box 2, dealer, box 1
    c.send(CardDrawn(actor="shoe", card=Card.parse("TS")))  # box 2's second card
    c.send(CardDrawn(actor="shoe", card=Card.parse("9S")))  # dealer's second
    assert c.state.phase is Phase.DEALING  # nothing looked wrong to the table yet
    # the camera (or the dealer) notices; the dealer halts and restores the right sequence
    from controller.events import Halt

    c.send(Halt(actor="dealer", reason="card to the wrong box"))
    order = "box 1:AS box 2:QS dealer:KS box 1:JS box 2:TS dealer:9S"
    c.send(RestoreSequence(actor="dealer", cards=order))
    assert c.state.phase is Phase.DEALING and c.state.round is not None
    assert c.state.round.cards_of("box 2") == parse_cards("QS TS")
    assert c.state.round.cards_of("dealer") == parse_cards("KS 9S")


def test_a_restore_may_not_invent_a_card_or_change_the_order() -> None:
    c = poker_round(2)
    c.cards("AS KS QS")
    from controller.events import Halt

    c.send(Halt(actor="dealer", reason="check"))
    out = c.send(RestoreSequence(actor="dealer", cards="box 1:AS box 2:2C dealer:QS"))
    assert "2C: it was not dealt in this round" in out[-1].data["reason"]
    out = c.send(RestoreSequence(actor="dealer", cards="dealer:AS box 1:KS"))
    assert "card 1 of the deal goes to box 1, not dealer" in out[-1].data["reason"]
    assert c.state.phase is Phase.HALTED


def test_sequence_that_cannot_be_restored_redeal_bets_stay_no_ante_paid() -> None:
    c = poker_round(2)
    c.cards("AS KS QS")
    c.send(CardDrawn(actor="shoe", card=Card.parse("QS")))  # a card read twice: halted
    assert c.state.phase is Phase.HALTED
    before = c.state.round.stakes  # type: ignore[union-attr]
    c.send(Redeal(actor="dealer", reason="cannot restore the sequence"))
    rnd = c.state.round
    assert rnd is not None and c.state.phase is Phase.DEALING
    assert rnd.cards == () and rnd.redeals == 1 and rnd.stakes == before
    assert set(rnd.removed) == set(parse_cards("AS KS QS"))
    assert not c.kinds("settled")  # a redeal never pays the ante


def test_dealer_card_exposed_while_dealing_is_a_redeal() -> None:
    c = poker_round(1)
    c.cards("AS KS")  # box 1, then the dealer's first card, which he turns over by mistake
    c.send(Redeal(actor="dealer", reason="dealer's first card exposed"))
    assert c.state.phase is Phase.DEALING and c.state.round.cursor == 0  # type: ignore[union-attr]
    assert c.kinds("redeal")[-1]["reason"] == "dealer's first card exposed"


def test_dealer_opens_early_decided_boxes_keep_their_decision_others_get_the_pit_ruling() -> None:
    c = poker_round(3)
    c.cards("AS KS QS JS TS 9S 8S 7S 2C 3C 4C")  # holes and the flop
    assert c.state.phase is Phase.DECIDING
    c.send(Decide(actor="dealer", hand="box 1", seat="gambler1", option="bet"))
    c.send(DealerExposedEarly(actor="dealer"))
    assert c.state.phase is Phase.HALTED and "pit manager rules" in c.kinds("halted")[-1]["reason"]
    out = c.send(ResolveUndecided(actor="dealer", ruling="return"))
    assert "only the pit manager" in out[-1].data["reason"]
    c.send(ResolveUndecided(actor="pit:ann", ruling="return"))
    ruled = c.kinds("ruling")[-1]["hands"]
    assert [h["hand"] for h in ruled] == ["box 2", "box 3"]
    c.cards("5C 6D")
    c.send(RevealDone(actor="dealer"))
    settled = {d["hand"]: d for d in c.kinds("settled")}
    assert settled["box 2"]["ruling"] == "returned" and settled["box 3"]["returned"] == "100"
    assert "ruling" not in settled["box 1"]  # box 1 decided: it plays out


def test_the_pit_may_rule_fold_instead() -> None:
    c = poker_round(2)
    c.cards("AS KS QS JS TS 9S 2C 3C 4C")
    c.send(DealerExposedEarly(actor="dealer"))
    c.send(ResolveUndecided(actor="pit:ann", ruling="fold"))
    c.cards("5C 6D")
    c.send(RevealDone(actor="dealer"))
    assert {d["folded"] for d in c.kinds("settled")} == {True}


def test_a_misread_card_is_corrected_by_the_pit_with_who_and_why_and_settlement_recomputed() -> (
    None
):
    c = boxes("triple-action-holdem", n=1, confirm_payments=True)
    c.send(StartRound(actor="dealer"))
    c.bet("box 1", "ann", "ante", 10)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("KS 9S KD 8C 9C TH JD")
    c.send(Decide(actor="dealer", hand="box 1", seat="ann", option="bet"))
    c.send(RevealDone(actor="dealer"))
    assert c.state.phase is Phase.SETTLING and c.kinds("settled")[-1]["net"] == "20"
    out = c.send(
        CorrectCard(actor="dealer", position="dealer", index=2, card=Card.parse("9H"), reason="x")
    )
    assert "only the pit manager" in out[-1].data["reason"]
    c.send(CorrectCard(actor="pit:ann", position="dealer", index=2, card=Card.parse("9H"),
                       reason="shoe misread 8C; camera shows 9H"))  # fmt: skip
    corrected = c.kinds("card_corrected")[-1]
    assert corrected == {
        "position": "dealer", "index": 2, "was": "8C", "now": "9H", "by": "pit:ann",
        "reason": "shoe misread 8C; camera shows 9H",
    }  # fmt: skip
    assert c.kinds("settled")[-1]["dealer_hand"]["name"] == "three of a kind, nines"
    assert c.kinds("settled")[-1]["net"] == "-20"
    assert c.state.phase is Phase.IDLE  # nothing left to pay: the corrected round is complete


def test_deck_change_only_between_rounds_by_the_pit() -> None:
    c = poker_round(1)
    out = c.send(ChangeDeck(actor="pit:ann", deck_id="D-2"))
    assert "can't change the deck while the table is dealing" in out[-1].data["reason"]
    c.send(VoidRound(actor="pit:ann", reason="test"))
    out = c.send(ChangeDeck(actor="dealer", deck_id="D-2"))
    assert "only the pit manager" in out[-1].data["reason"]
    c.send(ChangeDeck(actor="pit:ann", deck_id="D-2"))
    assert c.state.deck_id == "D-2"


def test_seats_act_only_for_themselves_and_devices_only_as_themselves() -> None:
    c = studio()
    c.send(StartRound(actor="dealer"))
    out = c.send(
        PlaceBet(actor="seat:2", hand="player", seat="seat:1", spot=Spot.ANTE, amount=Fraction(5))
    )
    assert "seat:2 may not act for seat:1" in out[-1].data["reason"]
    out = c.send(CardDrawn(actor="seat:1", card=Card.parse("AS")))
    assert "seat:1 may not send card_drawn: only the shoe" in out[-1].data["reason"]
    out = c.send(VoidRound(actor="seat:1", reason="I lost"))
    assert "only the pit manager" in out[-1].data["reason"] and c.state.phase is Phase.BETTING


def test_rebet_repeats_last_rounds_bets_and_double_doubles_within_limits_and_balance() -> None:
    c = studio(rules=2)  # the buttons before each game had its own (old journals replay so)
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.bet("player", "seat:1", "best_five", 5)
    c.send(VoidRound(actor="pit:ann", reason="demo"))
    c.send(StartRound(actor="dealer"))
    c.send(Rebet(actor="seat:1", hand="player", seat="seat:1"))
    stake = c.state.round.stake("player", "seat:1")  # type: ignore[union-attr]
    assert stake is not None and stake.totals() == {Spot.ANTE: 10, Spot.BEST_FIVE: 5}
    c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
    stake = c.state.round.stake("player", "seat:1")  # type: ignore[union-attr]
    assert stake is not None and stake.totals() == {Spot.ANTE: 20, Spot.BEST_FIVE: 10}
    out = c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
    assert "again: once per round" in out[-1].data["reason"]


def test_double_doubles_the_first_bets_up_to_the_balance() -> None:
    c = studio(rules=2)
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 230)  # with its Ante Plus it costs 460: balance 540
    c.bet("player", "seat:1", "best_five", 50)  # balance 490
    c.send(Double(actor="seat:1", hand="player", seat="seat:1"))  # the ante doubles: 30 left
    stake = c.state.round.stake("player", "seat:1")  # type: ignore[union-attr]
    assert stake is not None and stake.totals() == {Spot.ANTE: 460, Spot.BEST_FIVE: 50}
    assert "best_five not doubled" in c.kinds("alert")[-1]["message"]
    assert "the balance is 30 (no credit)" in c.kinds("alert")[-1]["message"]
    assert c.state.balance("seat:1") == 30


def test_double_beyond_the_limit_is_refused_whole() -> None:
    c = studio("casino-holdem", rules=2)
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 600)
    out = c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
    assert out[-1].kind == "refused"
    assert "expected at most the table maximum 1000" in out[-1].data["reason"]
    assert "got 1200 in all (600 already on it, 600 added)" in out[-1].data["reason"]


def test_a_seat_that_disconnects_before_no_more_bets_does_not_play() -> None:
    from controller.events import SeatDisconnected

    c = studio()
    c.send(StartRound(actor="dealer"))
    c.bet("player", "seat:1", "ante", 10)
    c.bet("player", "seat:2", "ante", 10)
    c.send(SeatDisconnected(actor="system", seat="seat:2"))
    assert c.state.balance("seat:2") == 1000
    assert [s.seat for s in c.state.round.stakes] == ["seat:1"]  # type: ignore[union-attr]
    c.send(NoMoreBets(actor="dealer"))
    c.send(SeatDisconnected(actor="system", seat="seat:1"))  # after no more bets: bets stand
    assert c.kinds("seat_disconnected")[-1] == {"seat": "seat:1", "bets": "stand"}
    assert [s.seat for s in c.state.round.stakes] == ["seat:1"]  # type: ignore[union-attr]


def test_a_card_that_reaches_a_halted_deal_is_dealt_where_it_lies_when_the_round_resumes() -> None:
    """The controller restarted mid-deal: the shoe sends again the card it read meanwhile,
    which the dealer put where the deal puts it. It is held, not taken as a stray, and dealt
    to that place when the round resumes; the deal goes on with the next place."""
    from controller.events import Halt, Resume

    c = poker_round(2)
    c.cards("AS KS")  # box 1, box 2
    c.send(Halt(actor="system", reason="the controller restarted mid-round"))
    out = c.send(CardDrawn(actor="shoe", card=Card.parse("QS")))  # the dealer's first card
    assert c.state.phase is Phase.HALTED and c.state.round is not None
    assert c.state.round.held == (Card.parse("QS"),)
    alert = next(a.data for a in out if a.kind == "alert")
    assert alert["audience"] == "pit"  # the dealer's first card, face down: the pit's alone
    alert = alert["message"]
    assert alert.startswith("card QS arrived while the deal was halted: it is held for ")
    assert "dealer" in alert and "when the round resumes" in alert
    assert "QS" not in c.state.round.halt_reason  # not a new irregularity on top of the halt
    out = c.send(Resume(actor="pit:ann", note="layout checked"))
    assert c.state.phase is Phase.DEALING
    assert c.state.round.cards_of("dealer") == parse_cards("QS")
    assert (c.state.round.held, c.state.round.stray) == ((), ())
    assert [a.data["card"] for a in out if a.kind == "card"] == ["QS"]
    c.cards("JS TS 9S")  # the deal goes on: box 1, box 2, dealer
    assert c.state.round.cards_of("box 1") == parse_cards("AS JS")
    assert c.state.round.cards_of("dealer") == parse_cards("QS 9S")


def test_held_cards_give_way_to_a_redeal_or_a_restored_sequence() -> None:
    from controller.events import Halt

    c = poker_round(2)
    c.cards("AS KS")
    c.send(Halt(actor="system", reason="the controller restarted mid-round"))
    c.send(CardDrawn(actor="shoe", card=Card.parse("QS")))
    c.send(RestoreSequence(actor="dealer", cards="box 1:AS box 2:KS dealer:QS"))
    assert c.state.round is not None and c.state.round.held == ()
    assert c.state.round.cards_of("dealer") == parse_cards("QS")  # placed as the dealer said
    c.send(Halt(actor="system", reason="the controller restarted mid-round"))
    c.send(CardDrawn(actor="shoe", card=Card.parse("JS")))
    c.send(Redeal(actor="pit:ann", reason="layout cannot be trusted"))
    assert c.state.round is not None and (c.state.round.held, c.state.round.cards) == ((), ())


def test_a_card_while_a_round_is_halted_outside_the_deal_is_still_a_stray() -> None:
    from controller.events import Halt, Resume

    c = poker_round(2)
    c.cards("AS KS QS JS TS 9S 8H 7H 6H")  # hole cards and the flop: the decisions are due
    assert c.state.phase is Phase.DECIDING
    c.send(Halt(actor="dealer", reason="check the layout"))
    c.send(CardDrawn(actor="shoe", card=Card.parse("8S")))
    assert c.state.round is not None and c.state.round.held == ()
    assert "card 8S arrived while the table was halted" in c.state.round.halt_reason
    c.send(Resume(actor="pit:ann", note="8S set aside"))
    assert c.state.phase is Phase.DECIDING and c.state.round.stray == parse_cards("8S")


def test_dealer_card_exposed_during_the_deal_halts_for_a_redeal_as_a_new_game() -> None:
    """Seed 001: "If the stickman opened the first or the second card at the bank, cards
    re-handing starts." The table halts; only a redeal (or the pit's void) moves it on; the
    bets stay, nothing is paid, and the cards dealt again are a new game linked to the old."""
    c = poker_round(2)
    c.cards("AS KS")
    out = c.send(DealerExposedEarly(actor="dealer"))  # no card at the bank yet
    assert out[-1].kind == "refused" and "none is dealt yet" in out[-1].data["reason"]
    c.cards("QS JS TS 9S 8S")  # both dealer cards and a flop card: still the deal
    assert c.state.phase is Phase.DEALING
    c.send(DealerExposedEarly(actor="camera"))
    reason = c.kinds("halted")[-1]["reason"]
    assert "dealer's first or second card was exposed during the deal" in reason
    assert "redeal" in reason and "bets stay" in reason
    rnd = c.state.round
    assert rnd is not None and rnd.exposed_in_deal and not rnd.exposed_early
    old, stakes = rnd.round_id, rnd.stakes
    from controller.events import Resume

    for refused in (
        Resume(actor="pit:ann", note="go on"),
        ResolveUndecided(actor="pit:ann", ruling="return"),
        RestoreSequence(actor="dealer", cards="box 1:AS"),
    ):
        out = c.send(refused)
        assert out[-1].kind == "refused" and "expected a redeal" in out[-1].data["reason"]
        assert c.state.round is rnd  # a refused command changes nothing
    c.send(Redeal(actor="dealer", reason="dealer's card exposed"))
    rnd = c.state.round
    assert rnd is not None and c.state.phase is Phase.DEALING
    assert rnd.round_id != old and rnd.round_id.endswith("-000002")
    assert rnd.abandoned == (old,) and rnd.stakes == stakes and not rnd.exposed_in_deal
    assert c.state.rounds_started == 2
    redeal = c.kinds("redeal")[-1]
    assert redeal["abandoned_round"] == old and redeal["round_id"] == rnd.round_id
    assert not c.kinds("settled")  # the redeal pays no ante
    phase = [a.data for a in c.actions if a.kind == "phase"][-1]
    assert phase["round_id"] == rnd.round_id


def test_a_second_redeal_links_every_abandoned_game() -> None:
    c = poker_round(1)
    c.cards("AS KS")
    c.send(Redeal(actor="dealer", reason="first"))
    first = c.state.round.abandoned  # type: ignore[union-attr]
    c.cards("QS JS")
    c.send(Redeal(actor="dealer", reason="second"))
    rnd = c.state.round
    assert rnd is not None and len(first) == 1 and rnd.abandoned[0] == first[0]
    assert len(rnd.abandoned) == 2 and rnd.round_id.endswith("-000003")


def test_exposure_after_the_deal_keeps_the_pit_ruling() -> None:
    """Seed 001's other sentence: the dealer opened his card after the deal, before the
    decisions: no redeal; the pit manager rules on the undecided boxes."""
    c = poker_round(2)
    c.cards("AS KS QS JS TS 9S 2C 3C 4C")
    assert c.state.phase is Phase.DECIDING
    c.send(DealerExposedEarly(actor="dealer"))
    assert "pit manager rules" in c.kinds("halted")[-1]["reason"]
    assert c.state.round is not None and not c.state.round.exposed_in_deal


def test_a_journal_of_rules_3_replays_an_exposure_in_the_deal_and_a_redeal_as_played() -> None:
    """Under rules 3 and before the exposure during the deal went to the pit's ruling, and a
    redeal kept the round's id: an old journal replays so."""
    c = boxes("texas-poker", n=2, rules=3)
    c.send(StartRound(actor="dealer"))
    for i in (1, 2):
        c.bet(f"box {i}", f"gambler{i}", "ante", 100)
    c.send(NoMoreBets(actor="dealer"))
    c.cards("AS KS QS")
    c.send(DealerExposedEarly(actor="dealer"))
    assert "pit manager rules" in c.kinds("halted")[-1]["reason"]
    old = c.state.round.round_id  # type: ignore[union-attr]
    c.send(Redeal(actor="dealer", reason="redeal"))
    rnd = c.state.round
    assert rnd is not None and rnd.round_id == old and rnd.abandoned == ()
    assert c.state.rounds_started == 1 and "round_id" not in c.kinds("redeal")[-1]


def test_the_public_reads_why_a_round_halted_without_the_card_that_halted_it() -> None:
    from controller.events import Resume
    from controller.topics import Topics
    from controller.views import Projector

    c = poker_round(2)
    c.cards("AS KS QS")
    c.send(CardDrawn(actor="shoe", card=Card.parse("QS")))  # a card read twice: halted
    rnd = c.state.round
    assert c.state.phase is Phase.HALTED and rnd is not None and "QS" in rnd.halt_reason
    public = Projector(Topics("P1")).public_state(c.state, 0)
    assert public.halted and "card shoe" in public.halt_words
    assert "QS" not in public.model_dump_json()  # the face-down card the reason names
    c.send(Resume(actor="pit:ann", note="checked"))
    assert Projector(Topics("P1")).public_state(c.state, 0).halt_words == ""
