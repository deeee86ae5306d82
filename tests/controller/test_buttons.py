"""The studio buttons by each game's own document, and the buttons of older journals."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.schema import parse_game_text
from controller.errors import ConfigError
from controller.events import Double, Rebet, StartRound, UndoBet, VoidRound
from controller.games.rules import Spot
from tests.controller.test_table import Console, studio

GAMES = Path(__file__).resolve().parents[2] / "config" / "games"


def totals(c: Console) -> dict[Spot, object]:
    assert c.state.round is not None
    stake = c.state.round.stake("player", "seat:1")
    return dict(stake.totals()) if stake else {}


def last_round(c: Console, **bets: int) -> None:
    c.send(StartRound(actor="dealer"))
    for spot, amount in bets.items():
        c.bet("player", "seat:1", spot, amount)
    c.send(VoidRound(actor="pit:ann", reason="demo"))
    c.send(StartRound(actor="dealer"))


def test_seed_000_rebet_and_double_work_on_the_previous_ante_only() -> None:
    c = studio("texas-holdem-bonus", rules=5)  # from rules 6 the Rebet also deals the seat in
    last_round(c, ante=10, bonus=5)
    c.send(Rebet(actor="seat:1", hand="player", seat="seat:1"))
    assert totals(c) == {Spot.ANTE: 10}
    c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
    assert totals(c) == {Spot.ANTE: 20}


def test_seed_000_before_the_rules_revision_repeats_every_bet() -> None:
    c = studio("texas-holdem-bonus", rules=2)
    last_round(c, ante=10, bonus=5)
    c.send(Rebet(actor="seat:1", hand="player", seat="seat:1"))
    assert totals(c) == {Spot.ANTE: 10, Spot.BONUS: 5}


def test_seed_002_one_double_a_round_even_after_an_undo() -> None:
    for rules, after_undo in ((5, {Spot.ANTE: 20}), (4, {Spot.ANTE: 40})):
        c = studio(rules=rules)
        c.send(StartRound(actor="dealer"))
        c.bet("player", "seat:1", "ante", 10)
        c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
        c.bet("player", "seat:1", "ante", 10)
        c.send(UndoBet(actor="seat:1", hand="player", seat="seat:1"))
        out = c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
        assert totals(c) == after_undo, rules  # an old journal replays as it was played
        assert (out[-1].kind == "refused") is (rules == 5)


def test_seed_003_undo_cancels_a_double_whole() -> None:
    for rules, left in ((5, {Spot.ANTE: 10, Spot.BONUS: 5}), (4, {Spot.ANTE: 20, Spot.BONUS: 5})):
        c = studio("casino-holdem", rules=rules)
        last_round(c, ante=10, bonus=5)
        c.send(Rebet(actor="seat:1", hand="player", seat="seat:1"))
        c.send(Double(actor="seat:1", hand="player", seat="seat:1"))
        c.send(UndoBet(actor="seat:1", hand="player", seat="seat:1"))
        assert totals(c) == left, rules
        assert c.state.balance("seat:1") == 1000 - sum(left.values())  # type: ignore[arg-type]


def test_a_chip_past_the_maximum_fills_the_spot_only_where_the_game_says() -> None:
    for game, side, filled in (
        ("ultimate-texas-holdem", Spot.BEST_FIVE, True),
        ("casino-holdem", Spot.BONUS, False),
    ):
        c = studio(game)
        c.send(StartRound(actor="dealer"))
        c.bet("player", "seat:1", "ante", 10)
        c.bet("player", "seat:1", side.value, 50)
        out = c.bet("player", "seat:1", side.value, 60)  # the spot's maximum is 100
        assert (out[-1].kind != "refused") is filled, game
        assert totals(c)[side] == (100 if filled else 50)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('rebet = "previous_bet"', "rebet"),
        ('undo = "everything"', "undo"),
        ("fill_to_maximum = 3", "fill_to_maximum"),
    ],
)
def test_a_bad_button_is_refused_with_its_field(line: str, words: str) -> None:
    text = (GAMES / "ultimate-texas-holdem.toml").read_text()
    key = line.split(" ")[0]
    lines = [ln for ln in text.splitlines() if not ln.startswith(f"{key} =")]
    bad = "\n".join(lines).replace("[buttons]", f"[buttons]\n{line}")
    with pytest.raises(ConfigError, match=words):
        parse_game_text(bad, "test.toml")


def test_a_missing_button_is_refused() -> None:
    text = (GAMES / "casino-holdem.toml").read_text()
    bad = "\n".join(ln for ln in text.splitlines() if not ln.startswith("undo ="))
    with pytest.raises(ConfigError, match="undo"):
        parse_game_text(bad, "test.toml")


def test_seed_000s_double_cannot_be_partial() -> None:
    text = (GAMES / "texas-holdem-bonus.toml").read_text()
    bad = text.replace("double_up_to_credit = false", "double_up_to_credit = true")
    with pytest.raises(ConfigError, match="double_up_to_credit"):
        parse_game_text(bad, "test.toml")
