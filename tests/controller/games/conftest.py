from collections.abc import Callable
from fractions import Fraction

import pytest

from config.schema import load_game
from controller.cards import parse_cards
from controller.games.base import Game
from controller.games.rules import Result, RoundCards, Settlement, Spot

Settle = Callable[..., Settlement]


def make_settle(game: Game) -> Settle:
    def settle(
        player: str, dealer: str, board: str, bets: dict[str, int], decisions: list[str]
    ) -> Settlement:
        cards = RoundCards(parse_cards(player), parse_cards(dealer), parse_cards(board))
        return game.settle(cards, {Spot(k): Fraction(v) for k, v in bets.items()}, decisions)

    return settle


@pytest.fixture(scope="session")
def thb() -> Settle:
    return make_settle(load_game("texas-holdem-bonus"))


@pytest.fixture(scope="session")
def tp() -> Settle:
    return make_settle(load_game("texas-poker"))


@pytest.fixture(scope="session")
def uth() -> Settle:
    return make_settle(load_game("ultimate-texas-holdem"))


@pytest.fixture(scope="session")
def ch() -> Settle:
    return make_settle(load_game("casino-holdem"))


@pytest.fixture(scope="session")
def ta() -> Settle:
    return make_settle(load_game("triple-action-holdem"))


def lines(s: Settlement) -> dict[str, tuple[str, str]]:
    """{spot: (result, paid)} for compact expectations."""
    return {ln.spot.value: (ln.result.value, str(ln.paid)) for ln in s.lines}


def returned(s: Settlement) -> Fraction:
    return s.returned


__all__ = ["Result", "Settle", "lines", "returned"]
