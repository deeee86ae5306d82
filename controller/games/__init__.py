"""The five games: their ids, decks, rankings and the shape of a deal.

Game ids are used everywhere (command line, config, MQTT topics, the journal):
``texas-holdem-bonus`` (seed 000), ``texas-poker`` (001), ``ultimate-texas-holdem`` (002),
``casino-holdem`` (003), ``triple-action-holdem`` (004).

>>> game("casino-holdem").dealer_qualifier.describe()
'pair of fours or better'
>>> game("triple-action-holdem").deck.name, game("triple-action-holdem").ranking.label
('stripped28', 'triple-action')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.cards import STANDARD_52, STRIPPED_28, Deck
from controller.errors import UnknownName
from controller.hands import Qualifier, Ranking

__all__ = ["GAMES", "GameId", "GameInfo", "Seating", "game"]


class GameId(StrEnum):
    """The ids of the five games."""

    TEXAS_HOLDEM_BONUS = "texas-holdem-bonus"
    TEXAS_POKER = "texas-poker"
    ULTIMATE_TEXAS_HOLDEM = "ultimate-texas-holdem"
    CASINO_HOLDEM = "casino-holdem"
    TRIPLE_ACTION_HOLDEM = "triple-action-holdem"


class Seating(StrEnum):
    """How players sit: each box its own hand, or one shared hand for any number of seats."""

    BOXES = "boxes"
    SHARED = "shared"


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What every part of the table needs to know about a game before its rules."""

    id: GameId
    title: str
    seed: str
    deck: Deck
    ranking: Ranking
    hole_cards: int
    dealer_cards: int
    board_cards: int
    dealer_qualifier: Qualifier | None
    seating: Seating

    @property
    def hand_size(self) -> int:
        """Cards a player hand is made from (hole cards plus board)."""
        return self.hole_cards + self.board_cards


GAMES: dict[GameId, GameInfo] = {
    g.id: g
    for g in (
        GameInfo(
            GameId.TEXAS_HOLDEM_BONUS, "Texas Hold'em Bonus Poker", "000",
            STANDARD_52, Ranking.STANDARD, 2, 2, 5, None, Seating.SHARED,
        ),
        GameInfo(
            GameId.TEXAS_POKER, "Texas poker (physical table)", "001",
            STANDARD_52, Ranking.STANDARD, 2, 2, 5,
            Qualifier.parse("pair of fours or better"), Seating.BOXES,
        ),
        GameInfo(
            GameId.ULTIMATE_TEXAS_HOLDEM, "Ultimate Texas Hold'em", "002",
            STANDARD_52, Ranking.STANDARD, 2, 2, 5,
            Qualifier.parse("pair or better"), Seating.SHARED,
        ),
        GameInfo(
            GameId.CASINO_HOLDEM, "Casino Hold'em", "003",
            STANDARD_52, Ranking.STANDARD, 2, 2, 5,
            Qualifier.parse("pair of fours or better"), Seating.SHARED,
        ),
        GameInfo(
            GameId.TRIPLE_ACTION_HOLDEM, "Triple Action Hold'em", "004",
            STRIPPED_28, Ranking.TRIPLE_ACTION, 2, 2, 3,
            Qualifier.parse("pair of nines or better"), Seating.BOXES,
        ),
    )
}  # fmt: skip


def game(name: str) -> GameInfo:
    """The game with id ``name``."""
    try:
        return GAMES[GameId(name.strip().lower())]
    except ValueError:
        raise UnknownName(
            f"unknown game {name!r}: expected one of {', '.join(g.value for g in GameId)}"
        ) from None
