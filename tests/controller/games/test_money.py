"""Over random rounds of every game: no money appears or vanishes, every line pays by its odds."""

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from config.schema import load_game
from controller.games import GameId
from controller.games.rules import Result, RoundCards, Spot

GAMES = {g: load_game(g) for g in GameId}


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(list(GameId)),
    st.randoms(use_true_random=False),
    st.integers(1, 40),
    st.booleans(),
)
def test_money_is_conserved(game_id: GameId, rnd: random.Random, units: int, side: bool) -> None:
    game = GAMES[game_id]
    info = game.info
    cards = list(info.deck.cards)
    rnd.shuffle(cards)
    player, dealer = (cards[0], cards[2]), (cards[1], cards[3])
    board = tuple(cards[4 : 4 + info.board_cards])
    ante_limit = game.config.limits[Spot.ANTE]
    ante = ante_limit.minimum + ante_limit.step * (units - 1)
    bets = {Spot.ANTE: ante}
    side_spot = next(s for s in game.initial_spots if s is not Spot.ANTE)
    if side:
        bets[side_spot] = game.config.limits[side_spot].minimum
    game.verify_initial_bets(bets)
    decisions: list[str] = []
    walk = game.walk(bets, decisions)
    while walk.pending is not None:
        decisions.append(rnd.choice(walk.pending.options).name)
        walk = game.walk(bets, decisions)
    s = game.settle(RoundCards(player, dealer, board), bets, decisions)

    # what was staked is exactly the initial bets, the automatic Ante Plus and each decision's bet
    expected = sum(bets.values(), Fraction(0))
    expected += ante if game_id is GameId.ULTIMATE_TEXAS_HOLDEM else 0
    for _point, option in walk.taken:
        expected += ante * option.multiple if option.places_bet else 0
    assert s.staked == expected
    # every spot with a stake is settled once
    spots = [ln.spot for ln in s.lines if ln.stake > 0]
    assert sorted(spots) == sorted(sp for sp, amount in walk.bets.items() if amount > 0)
    # each line returns 0 (lost), its stake (pushed) or its stake plus stake x odds (won)
    for line in s.lines:
        if line.result is Result.LOSE:
            assert line.returned == 0
        elif line.result is Result.PUSH:
            assert line.returned == line.stake
        else:
            base = ante if line.spot is Spot.ANTE_BONUS else line.stake
            assert line.odds is not None and line.paid == base * line.odds
    # the house's result is the player's with the sign flipped, and nobody is paid below zero
    assert s.returned >= 0 and s.staked - s.returned == -s.net


@pytest.mark.parametrize("game_id", list(GameId))
def test_a_refused_decision_changes_nothing(game_id: GameId) -> None:
    game = GAMES[game_id]
    bets = {Spot.ANTE: game.config.limits[Spot.ANTE].minimum}
    before = game.walk(bets, [])
    with pytest.raises(Exception, match="not a choice"):
        game.walk(bets, ["no-such-choice"])
    assert game.walk(bets, []) == before
