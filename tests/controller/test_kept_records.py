"""Records the table keeps and reuses for speed behave as if they were made afresh."""

import dataclasses
import json
import random
from fractions import Fraction

import pytest

from config.schema import load_game
from controller.cards import STANDARD_52, parse_cards
from controller.events import OpenTable
from controller.games import Seating
from controller.games.rules import Result, Spot, lose, push, win
from controller.hands import describe, evaluate
from controller.journal import GENESIS, Entry, chain, verify
from controller.table import TableConfig, _evolve, new_table
from tablectl.runtime import ReplayStep


def test_a_kept_line_is_the_line_its_arguments_make() -> None:
    first = win(Spot.ANTE, 10, Fraction(3, 2), "flush", "flush, ace beats pair of twos")
    again = win(Spot.ANTE, 10, Fraction(3, 2), "flush", "flush, ace beats pair of twos")
    assert again == first and again.paid == 15 and again.result is Result.WIN
    # equal odds in another object, and other odds, other stakes and other reasons
    assert win(Spot.ANTE, 10, Fraction(6, 4), "flush", "flush, ace beats pair of twos") == first
    other_odds = win(Spot.ANTE, 10, Fraction(2), "flush", "flush, ace beats pair of twos")
    assert other_odds.paid == 20 and other_odds.odds == 2
    assert win(Spot.ANTE, 12, Fraction(3, 2), "flush", "flush, ace beats pair of twos").paid == 18
    assert lose(Spot.CALL, 10, "folded") != push(Spot.CALL, 10, "folded")
    assert lose(Spot.CALL, 10, "folded").result is Result.LOSE
    assert push(Spot.CALL, 10, "tie").to_json()["returned"] == "10"
    assert lose(Spot.CALL, 10, "x").reason == "x" and lose(Spot.CALL, 10, "y").reason == "y"
    # amounts that are not whole are made afresh, exactly
    half = win(Spot.ANTE, Fraction(5, 2), Fraction(3, 2), None, "r")
    assert half.paid == Fraction(15, 4) and half.to_json()["returned"] == "6.25"


def test_a_lines_json_is_a_new_dict_on_every_call() -> None:
    line = lose(Spot.ANTE_PLUS, 10, "folded")
    first = line.to_json()
    first["reason"] = "changed by a reader"
    assert line.to_json()["reason"] == "folded"
    assert line.to_json() is not line.to_json()
    assert json.loads(json.dumps(line.to_json())) == {
        "spot": "ante_plus", "stake": "10", "result": "lose", "odds": None, "paid": "0",
        "returned": "0", "paytable_line": None, "reason": "folded",
    }  # fmt: skip
    # the JSON kept on a line is no field: equality and the fields' list ignore it
    assert [f.name for f in dataclasses.fields(line)][-1] == "reason"
    assert line == lose(Spot.ANTE_PLUS, 10, "folded")


def test_hand_names_and_the_order_of_the_best_five() -> None:
    rng = random.Random(7)
    cards = list(STANDARD_52.cards)
    names = {"two pair, kings and fives": "KS KD 5H 5C 2D", "full house, fives over kings":
             "5S 5D 5H KC KD", "straight, five high": "AS 2D 3H 4C 5D",
             "high card, ace": "AS 9D 7H 4C 2D", "pair of aces": "AS AD 7H 4C 2D"}  # fmt: skip
    for name, text in names.items():
        assert describe(evaluate(parse_cards(text)).strength) == name
    # a wheel's ace plays low, last; a straight flush wheel too; a pair first, then kickers
    laid_out = {"AS 2D 3H 4C 5D 9C KH": "5D 4C 3H 2D AS", "2H AH 4H 3H 5H KD KC": "5H 4H 3H 2H AH",
                "7C AD 7S 2H 9D": "7S 7C AD 9D 2H", "KD KC 2S 2C KH": "KH KD KC 2S 2C"}  # fmt: skip
    for text, order in laid_out.items():
        assert evaluate(parse_cards(text)).best_five == tuple(parse_cards(order)), text
    for _ in range(2000):
        value = evaluate(rng.sample(cards, 7))
        # groups first (by size, then rank), then single cards high to low, suits high first
        five = value.best_five
        ranks = [card >> 2 for card in five]
        expected = sorted(five, key=lambda card: (ranks.count(card >> 2), card), reverse=True)
        if value.category.value not in ("straight", "straight_flush") or ranks != [3, 2, 1, 0, 12]:
            assert list(five) == expected


def test_a_record_evolved_with_a_name_that_is_no_field_is_refused() -> None:
    config = TableConfig("T1", load_game("ultimate-texas-holdem"), Seating.SHARED, ("player",))
    state = new_table(config)
    assert _evolve(state, rounds_started=3).rounds_started == 3
    with pytest.raises(AssertionError):
        _evolve(state, rounds_startd=3)


def test_journal_rows_and_replay_steps_are_frozen_records() -> None:
    entry = chain(GENESIS, 0, 1.0, {"kind": "table_configured"})
    same = Entry(seq=0, at=1.0, record={"kind": "table_configured"}, prev=GENESIS,
                 digest=entry.digest)  # fmt: skip
    assert same == entry and same.text is None and entry.text is not None
    verify([same])
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.seq = 1  # type: ignore[misc]
    assert "text" not in repr(entry)
    step = ReplayStep(0, 1.0, OpenTable(actor="pit:x"), None, [])  # type: ignore[arg-type]
    assert (step.seq, step.at) == (0, 1.0) and step.actions == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.actions = []  # type: ignore[misc]


def _rounds_to_the_reveal(rounds: int, seed: int):  # type: ignore[no-untyped-def]
    """Seeded studio rounds of Ultimate with seven seats, each stopped at its reveal: the
    state there, with the game (bets, decisions and folds drawn at random)."""
    from controller.events import CardDrawn, Decide, NoMoreBets, PlaceBet, RevealDone, StartRound
    from controller.table import Phase, handle

    game = load_game("ultimate-texas-holdem")
    seats = [f"seat:{i}" for i in range(1, 8)]
    config = TableConfig("K1", game, Seating.SHARED, ("player",),
                         balances=dict.fromkeys(seats, Fraction(10**6)))  # fmt: skip
    rng = random.Random(seed)
    state, _ = handle(new_table(config), OpenTable(actor="pit:ann"), 0.0)
    now = 1.0
    for _ in range(rounds):
        state, _ = handle(state, StartRound(actor="dealer"), now)
        for seat in seats:
            bet = PlaceBet(
                actor=seat, hand="player", seat=seat, spot=Spot.ANTE, amount=Fraction(10)
            )
            state, _ = handle(state, bet, now)
            if rng.random() < 0.5:
                bet = PlaceBet(actor=seat, hand="player", seat=seat, spot=Spot.BEST_FIVE,
                               amount=Fraction(rng.choice((5, 10))))  # fmt: skip
                state, _ = handle(state, bet, now)
        state, _ = handle(state, NoMoreBets(actor="dealer"), now)
        deck = iter(STANDARD_52.shuffled(rng))
        while state.phase is not Phase.REVEAL:
            if state.phase is Phase.DEALING:
                state, _ = handle(state, CardDrawn(actor="shoe", card=next(deck)), now)
                continue
            assert state.phase is Phase.DECIDING and state.round is not None
            point = state.round.due.point  # type: ignore[union-attr]
            for stake in state.round.stakes:
                if game.walk(stake.totals(), stake.decisions).pending == point:
                    option = rng.choice(point.options).name  # type: ignore[union-attr]
                    decide = Decide(actor=stake.seat, hand="player", seat=stake.seat, option=option)
                    state, _ = handle(state, decide, now)
                    break
        yield state, game
        state, _ = handle(state, RevealDone(actor="dealer"), now)
        now += 60.0


def test_settlements_made_ahead_are_those_the_reveal_would_make_afresh() -> None:
    # each stake is settled as soon as its cards and decisions are all known, and kept in
    # the round by them; the reveal then publishes them: what it publishes must be what a
    # round that kept nothing would work out at the reveal
    import controller.table as table
    from controller.events import RevealDone

    made_ahead = 0
    for state, _ in _rounds_to_the_reveal(40, seed=5):
        assert state.round is not None
        made_ahead += len(state.round.settled_ahead)
        kept = table.handle(state, RevealDone(actor="dealer"), 9.0)
        bare = _evolve(state.round, hands_ahead=(), settled_ahead=())
        afresh = table.handle(_evolve(state, round=bare), RevealDone(actor="dealer"), 9.0)
        assert kept == afresh
        assert [a for a in kept[1] if a.kind == "settled"], "every round settles its stakes"
    assert made_ahead >= 40  # the settlements were there before each reveal


def test_a_card_corrected_after_the_settlements_were_made_ahead_is_settled_anew() -> None:
    import controller.table as table
    from controller.events import CorrectCard, RevealDone

    state, _ = next(iter(_rounds_to_the_reveal(1, seed=11)))
    assert state.round is not None and state.round.settled_ahead
    dealt = {card for _, card, _ in state.round.cards}
    other = next(card for card in STANDARD_52.cards if card not in dealt)
    fix = CorrectCard(actor="pit:ann", position="board", index=5, card=other, reason="misread")
    corrected, _ = table.handle(state, fix, 9.0)
    _, actions = table.handle(corrected, RevealDone(actor="dealer"), 9.0)
    settled = [a.data for a in actions if a.kind == "settled"]
    assert settled and all(other.code in s["player_hand"]["cards"] for s in settled)
    assert corrected.round is not None
    bare = _evolve(corrected.round, hands_ahead=(), settled_ahead=())
    assert (
        table.handle(_evolve(corrected, round=bare), RevealDone(actor="dealer"), 9.0)[1] == actions
    )
