"""Every game's rules class, by id."""

from __future__ import annotations

from controller.errors import UnknownName
from controller.games import GameId
from controller.games.base import Game
from controller.games.casino_holdem import CasinoHoldem
from controller.games.texas_holdem_bonus import TexasHoldemBonus
from controller.games.texas_poker import TexasPoker
from controller.games.triple_action_holdem import TripleActionHoldem
from controller.games.ultimate_texas_holdem import UltimateTexasHoldem

__all__ = ["GAME_CLASSES", "game_class"]

GAME_CLASSES: dict[GameId, type[Game]] = {
    GameId.TEXAS_HOLDEM_BONUS: TexasHoldemBonus,
    GameId.TEXAS_POKER: TexasPoker,
    GameId.ULTIMATE_TEXAS_HOLDEM: UltimateTexasHoldem,
    GameId.CASINO_HOLDEM: CasinoHoldem,
    GameId.TRIPLE_ACTION_HOLDEM: TripleActionHoldem,
}


def game_class(name: str) -> type[Game]:
    """The rules class of the game with id ``name``."""
    try:
        return GAME_CLASSES[GameId(name)]
    except ValueError:
        raise UnknownName(
            f"unknown game {name!r}: expected one of {', '.join(g.value for g in GameId)}"
        ) from None
