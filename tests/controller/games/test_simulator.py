"""The compiled simulator against the Python rules: same decisions, same value of every round."""

import random
from fractions import Fraction

import pytest

from config.schema import load_game
from controller import _handeval
from controller.cards import Card
from controller.games import GameId
from controller.games.rtp import _expected_main_net, compiled_parameters
from controller.games.rules import Spot
from controller.games.strategy import View, strategy


def deals(game_id: GameId, n: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    cards = list(load_game(game_id).info.deck.cards)
    out = []
    for _ in range(n):
        rng.shuffle(cards)
        out.append(tuple(cards[:9]))
    return out


def decisions_from_code(game_id: GameId, code: int) -> list[str]:
    if game_id is GameId.ULTIMATE_TEXAS_HOLDEM:
        return {4: ["call_4x"], 2: ["check", "call_2x"], 1: ["check", "check", "call_1x"]}.get(
            code, ["check", "check", "fold"]
        )
    if game_id is GameId.TEXAS_HOLDEM_BONUS:
        if code & 1:
            return ["fold"]
        return ["bet", "bet" if code & 2 else "check", "bet" if code & 4 else "check"]
    option = "call" if game_id is GameId.CASINO_HOLDEM else "bet"
    return [option] if code else ["fold"]


@pytest.mark.parametrize(
    "game_id",
    [
        GameId.ULTIMATE_TEXAS_HOLDEM,
        GameId.CASINO_HOLDEM,
        GameId.TEXAS_POKER,
        GameId.TEXAS_HOLDEM_BONUS,
    ],
)
def test_each_compiled_round_is_worth_what_the_rules_pay(game_id: GameId) -> None:
    game = load_game(game_id)
    parameters = compiled_parameters(game, "optimal")
    assert parameters is not None
    for nine in deals(game_id, 120, seed=8):
        code, net, chance = _handeval.play_round(*parameters, (bytes(map(int, nine)), 5))
        decisions = decisions_from_code(game_id, code)
        walk = game.verify_complete({Spot.ANTE: Fraction(1)}, decisions)
        player, board = (nine[0], nine[2]), nine[4 : 4 + game.info.board_cards]
        python_net, python_chance = _expected_main_net(game, walk, player, board, ())
        assert net == pytest.approx(python_net, abs=1e-12), (nine, decisions)
        assert chance == pytest.approx(python_chance, abs=1e-12)


def test_compiled_ultimate_decisions_are_the_published_strategy() -> None:
    game = load_game("ultimate-texas-holdem")
    parameters = compiled_parameters(game, "optimal")
    assert parameters is not None
    play = strategy(GameId.ULTIMATE_TEXAS_HOLDEM)
    for nine in deals(GameId.ULTIMATE_TEXAS_HOLDEM, 1500, seed=2):
        code, _, _ = _handeval.play_round(*parameters, (bytes(map(int, nine)), 1))
        player, board = (nine[0], nine[2]), nine[4:9]
        decisions: list[str] = []
        for name, visible in (("preflop", 0), ("flop", 3), ("river", 5)):
            choice = play.decide(name, View(game, player, board[:visible], (), 0))
            decisions.append(choice)
            if choice != "check":
                break
        assert decisions == decisions_from_code(GameId.ULTIMATE_TEXAS_HOLDEM, code), nine


def test_the_compiled_path_steps_aside_for_paytables_it_cannot_model() -> None:
    from controller.games.base import GameConfig
    from controller.games.paytable import HandPaytable

    game = load_game("casino-holdem")
    ante = game.hand_paytable("ante")
    odd = HandPaytable.build(
        "odd", {**{ln.name: ln.odds for ln in ante.lines}, "pair_of_jacks": "2:1"}
    )
    cfg = game.config
    changed = type(game)(
        GameConfig(cfg.limits, {**cfg.paytables, "ante": odd}, cfg.seating, cfg.table_max_payout)
    )
    assert compiled_parameters(changed, "optimal") is None
    assert compiled_parameters(game, "optimal") is not None
