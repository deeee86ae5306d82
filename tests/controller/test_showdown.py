import random

import pytest

from controller.cards import Card, parse_cards
from controller.errors import InvalidHand
from controller.games import GAMES, GameId, game
from controller.showdown import Outcome, deal_showdown


class StackedDeck(random.Random):
    """A random source whose shuffle leaves the deck as it is: the shoe order is the deck order."""

    def __init__(self, order: list[Card]) -> None:
        super().__init__(0)
        self.order = order

    def shuffle(self, x: list[Card]) -> None:  # type: ignore[override]
        x[:] = self.order + [c for c in x if c not in self.order]


def test_deal_order_one_card_at_a_time_round_the_boxes_then_the_dealer_twice_then_the_board() -> (
    None
):
    order = list(parse_cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"))
    round_ = deal_showdown(game("texas-poker"), 3, StackedDeck(order))
    assert [name for name, _ in round_.dealt] == [
        "box 1",
        "box 2",
        "box 3",
        "dealer",
        "box 1",
        "box 2",
        "box 3",
        "dealer",
        "board",
        "board",
        "board",
        "board",
        "board",
    ]
    assert round_.boxes[0].hole == (order[0], order[4])
    assert round_.dealer.hole == (order[3], order[7])
    assert round_.board == tuple(order[8:13])


def test_outcomes_and_dealer_qualification() -> None:
    # dealer: 3-3 on a board with no pair below fours: does not qualify for Casino Hold'em
    order = list(parse_cards("AS 3D 4H 3C  KS QD 9C 7H 2S"))
    round_ = deal_showdown(game("casino-holdem"), 1, StackedDeck(order))
    assert round_.dealer.value.name == "pair of threes"
    assert not round_.dealer_qualifies
    # on cards alone the player's ace high loses to the pair; money rules come later
    assert round_.boxes[0].value.name == "high card, ace"
    assert round_.outcome(0) is Outcome.LOSE


def test_both_playing_the_board_is_a_tie() -> None:
    order = list(parse_cards("2C 3D 4D 5C  AS KS QS JS 9D"))  # player 2C 4D, dealer 3D 5C
    round_ = deal_showdown(game("ultimate-texas-holdem"), 1, StackedDeck(order))
    assert round_.outcome(0) is Outcome.TIE and round_.dealer_qualifies is False


def test_triple_action_deals_from_the_28_card_deck_with_a_three_card_board() -> None:
    round_ = deal_showdown(game("triple-action-holdem"), 6, random.Random(3))
    cards = [c for _, c in round_.dealt]
    assert len(cards) == 6 * 2 + 2 + 3 and len(set(cards)) == len(cards)
    assert all(c.rank >= 6 for c in cards)


def test_too_many_boxes_for_the_deck_is_refused() -> None:
    with pytest.raises(InvalidHand, match="need 29 cards but the 28-card deck"):
        deal_showdown(game("triple-action-holdem"), 12, random.Random(1))
    with pytest.raises(InvalidHand, match="at least one"):
        deal_showdown(GAMES[GameId.CASINO_HOLDEM], 0, random.Random(1))
