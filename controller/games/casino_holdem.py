"""Casino Hold'em (seed 003): ante, call 2x or fold after the flop, and the AA bonus.

The dealer needs a pair of fours or better. Qualifying dealer: a better player hand wins the
ante by the ante paytable and the call even money; a tie returns both; a worse hand loses
both. Non-qualifying dealer: the ante is paid by the paytable and the call is returned.
The bonus pays on the first five cards (two hole cards and the flop) from a pair of aces
up, whether the player calls or folds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from controller.games import GAMES, GameId
from controller.games.base import Game, Walk
from controller.games.rules import (
    EVEN,
    DealBoard,
    DealHoleCards,
    DealScript,
    Decide,
    DecisionPoint,
    Face,
    Option,
    Reveal,
    RoundCards,
    SettlementLine,
    Spot,
    beats,
    lose,
    losses,
    push,
    ties,
    win,
)
from controller.hands import HandValue, evaluate

__all__ = ["CasinoHoldem"]

DECISION = DecisionPoint(
    "flop", (Option("call", Spot.CALL, Fraction(2)), Option("fold", folds=True)), on_timeout="fold"
)


class CasinoHoldem(Game):
    """Seed 003, played with one shared player hand for any number of seats (or boxes)."""

    info = GAMES[GameId.CASINO_HOLDEM]
    script = DealScript(
        (
            DealHoleCards(2, Face.UP, Face.DOWN),
            DealBoard("flop", 3, Face.UP),
            Decide(DECISION),
            DealBoard("turn and river", 2, Face.UP),
            Reveal("dealer"),
        )
    )
    initial_spots = (Spot.ANTE, Spot.BONUS)
    paytable_roles = ("ante", "bonus")
    options_defaults: ClassVar[dict[str, object]] = {}

    def settle_side(self, cards: RoundCards, walk: Walk, player: HandValue) -> list[SettlementLine]:
        """The bonus, on the first five cards (hole cards and flop), call or fold."""
        first_five = evaluate((*cards.player, *cards.board[:3]), self.info.ranking)
        return self.paid_on_hand(walk, Spot.BONUS, "bonus", first_five, "first five cards: ")

    def settle_main(
        self, walk: Walk, player: HandValue, dealer: HandValue
    ) -> tuple[list[SettlementLine], bool | None]:
        """Ante (by its paytable) and call."""
        bets = walk.bets
        ante, call = bets[Spot.ANTE], bets.get(Spot.CALL, 0)
        qualifier = self.info.dealer_qualifier
        assert qualifier is not None
        qualifies = qualifier.holds(dealer)
        if walk.folded:
            return [lose(Spot.ANTE, ante, "folded")], qualifies
        ante_line = self.hand_paytable("ante").lookup(player)
        if not qualifies or player.strength > dealer.strength:
            if ante_line is None:
                raise AssertionError(f"no ante line for {player.name}")
            if not qualifies:
                why = f"dealer does not qualify ({dealer.name}, needs {qualifier.describe()})"
                return [
                    win(Spot.ANTE, ante, ante_line.odds, ante_line.name, f"{why}; {player.name}"),
                    push(Spot.CALL, call, f"{why}: call returned"),
                ], False
            reason = beats(player, dealer)
            return [
                win(Spot.ANTE, ante, ante_line.odds, ante_line.name, reason),
                win(Spot.CALL, call, EVEN, None, reason),
            ], True
        if player.strength == dealer.strength:
            return ties(((Spot.ANTE, ante), (Spot.CALL, call)), player), True
        return losses(((Spot.ANTE, ante), (Spot.CALL, call)), player, dealer), True
