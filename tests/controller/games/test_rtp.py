"""Returns to player against REFERENCE.md, and the simulation's shortcuts against the rules."""

import itertools
import random
from fractions import Fraction

import pytest

from config.schema import load_game
from controller.cards import Card
from controller.games import GameId
from controller.games.odds import tally
from controller.games.rtp import _expected_main_net, rtp
from controller.games.rules import RoundCards, Spot
from controller.games.strategy import _staying_in_value, strategy


def test_bonus_poker_bonus_is_1208_of_1326() -> None:
    result = rtp(load_game("texas-holdem-bonus"), "bonus")
    assert result.exact == Fraction(1208, 1326) and result.method == "exact"


@pytest.mark.parametrize(
    ("game", "bet", "variant", "figure", "digits"),
    [
        ("texas-poker", "bonus", None, 0.8701, 4),
        ("ultimate-texas-holdem", "best-five", None, 0.96502, 5),
        ("casino-holdem", "bonus", None, 0.93742, 5),
        ("triple-action-holdem", "bonus", "A", 0.9564, 4),
        ("triple-action-holdem", "bonus", "B", 0.9461, 4),
    ],
)
def test_exact_side_bets_equal_the_reference(
    game: str, bet: str, variant: str | None, figure: float, digits: int
) -> None:
    rules = load_game(game, variants={"bonus": variant} if variant else None)
    result = rtp(rules, bet)
    assert result.method == "exact"
    assert round(result.rtp, digits) == figure


def test_triple_action_main_game_is_exact_and_equals_the_reference() -> None:
    result = rtp(load_game("triple-action-holdem"), "main")
    assert result.method == "exact" and result.hands == 3276 * 300 * 253
    assert round(result.rtp, 4) == 0.9637
    assert round(result.details["ante_bonus_share"], 5) == 0.03541


@pytest.mark.parametrize("game", ["casino-holdem", "texas-poker", "triple-action-holdem"])
def test_the_strategy_value_model_equals_the_rules(game: str) -> None:
    """The expected-value model strategies decide by pays exactly what settle pays."""
    rules = load_game(game)
    option = next(o for o in rules.script.decision_points[0].options if o.places_bet)
    net = _staying_in_value(rules, option.multiple)
    info = rules.info
    rng = random.Random(4)
    cards = list(info.deck.cards)
    for _ in range(400):
        rng.shuffle(cards)
        player, dealer = (cards[0], cards[2]), (cards[1], cards[3])
        board = tuple(cards[4 : 4 + info.board_cards])
        s = rules.settle(RoundCards(player, dealer, board), {Spot.ANTE: Fraction(1)}, [option.name])
        assert s.dealer_qualifies is not None
        outcome = (s.player_hand.strength > s.dealer_hand.strength) * 2 + (
            s.player_hand.strength == s.dealer_hand.strength
        )
        assert net(s.dealer_qualifies, outcome, s.player_hand.category) == s.net


@pytest.mark.parametrize("game", [g.value for g in GameId])
def test_averaging_out_the_dealer_equals_settling_every_dealer_hand(game: str) -> None:
    rules = load_game(game)
    info = rules.info
    rng = random.Random(9)
    cards = list(info.deck.cards)
    play = strategy(info.id)
    for _ in range(3):
        rng.shuffle(cards)
        player, board = (cards[0], cards[1]), tuple(cards[2 : 2 + info.board_cards])
        decisions = [p.options[0].name for p in rules.script.decision_points][:1]
        walk = rules.walk({Spot.ANTE: Fraction(1)}, decisions)
        while walk.pending is not None:
            decisions.append(walk.pending.options[-1].name)
            walk = rules.walk({Spot.ANTE: Fraction(1)}, decisions)
        fast, _ = _expected_main_net(rules, walk, player, board, ())
        unseen = [c for c in info.deck.cards if c not in (*player, *board)]
        nets = [
            rules.settle(RoundCards(player, d, board), {Spot.ANTE: Fraction(1)}, decisions).net
            for d in itertools.combinations(unseen, 2)
        ]
        assert fast == pytest.approx(float(sum(nets) / len(nets)), abs=1e-12)
        assert play.name


@pytest.mark.parametrize(
    "game", ["ultimate-texas-holdem", "casino-holdem", "texas-holdem-bonus", "texas-poker"]
)
def test_simulated_main_games_run_and_bracket_a_sane_return(game: str) -> None:
    result = rtp(load_game(game), "main", hands=1500, seed=7)
    assert result.method == "monte-carlo" and result.ci95 is not None
    low, high = result.ci95
    assert low < result.rtp < high and 0.85 < result.rtp < 1.1


def test_simulated_side_bet_agrees_with_its_exact_value() -> None:
    rules = load_game("triple-action-holdem")
    simulated = rtp(rules, "bonus", exact=False, hands=6000, seed=3)
    exact = rtp(rules, "bonus")
    assert simulated.ci95 is not None and simulated.ci95[0] < exact.rtp < simulated.ci95[1]


def test_tally_counts_every_completion() -> None:
    info = load_game("casino-holdem").info
    t = tally(
        (Card(51), Card(50)), (Card(0), Card(5), Card(9)), deck=info.deck, ranking=info.ranking,
        board_total=5, qualifier=info.dealer_qualifier,
    )  # fmt: skip
    assert t.total == 1081 * 990 and t.exhaustive
    assert 0 < t.probability(2) < 1
