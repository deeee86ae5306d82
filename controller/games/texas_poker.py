"""Texas poker of the physical table (seed 001): ante, bet 2x or fold after the flop, bonus.

The dealer needs a pair of fours or better ("game"). With game: a better player hand wins
the ante by the ante paytable and the bet even money; a tie pushes; a worse hand loses both.
Without game: the ante pays 1:1 for a straight or less (or nothing at all) and by the ante
paytable from a flush up, and the bet is returned. The bonus pays a flat 7:1 when the first
five cards (two hole cards and the flop) make a pair of aces or better, apart from the
dealer's game. The table maximum payout caps the main game only.
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
from controller.hands import HandValue, Qualifier, evaluate

__all__ = ["TexasPoker"]

DECISION = DecisionPoint(
    "flop", (Option("bet", Spot.BET, Fraction(2)), Option("fold", folds=True)), on_timeout="fold"
)


class TexasPoker(Game):
    """Seed 001, played at boxes (owners, passengers, open and dark boxes: see the table)."""

    info = GAMES[GameId.TEXAS_POKER]
    script = DealScript(
        (
            DealHoleCards(2, Face.DOWN, Face.DOWN),
            DealBoard("flop", 3, Face.UP),
            Decide(DECISION),
            DealBoard("turn and river", 2, Face.UP),
            Reveal("dealer"),
        )
    )
    initial_spots = (Spot.ANTE, Spot.BONUS)
    paytable_roles = ("ante", "bonus")
    options_defaults: ClassVar[dict[str, object]] = {
        "no_game_table_from": "flush",
        "bonus_stands_after_fold": True,
        "bets_per_box": 3,  # the owner and up to two passengers
        "open_boxes_per_gambler": 2,  # neighbouring, with equal antes
    }

    def settle_side(self, cards: RoundCards, walk: Walk, player: HandValue) -> list[SettlementLine]:
        """The bonus, on the first five cards (hole cards and flop), apart from the dealer."""
        bonus = walk.bets.get(Spot.BONUS, 0)
        if bonus and walk.folded and not self.option("bonus_stands_after_fold"):
            return [lose(Spot.BONUS, bonus, "folded: the bonus goes with the hand")]
        first_five = evaluate((*cards.player, *cards.board[:3]), self.info.ranking)
        return self.paid_on_hand(walk, Spot.BONUS, "bonus", first_five, "first five cards: ")

    def settle_main(
        self, walk: Walk, player: HandValue, dealer: HandValue
    ) -> tuple[list[SettlementLine], bool | None]:
        """Ante and bet, with the no-game rule when the dealer lacks a pair of fours."""
        bets = walk.bets
        ante, bet = bets[Spot.ANTE], bets.get(Spot.BET, 0)
        qualifier = self.info.dealer_qualifier
        assert qualifier is not None
        has_game = qualifier.holds(dealer)
        if walk.folded:
            return [lose(Spot.ANTE, ante, "folded")], has_game
        table = self.hand_paytable("ante")
        if not has_game:
            table_from = Qualifier.parse(str(self.option("no_game_table_from")))
            why = f"dealer has no game ({dealer.name}, needs {qualifier.describe()})"
            ante_line = table.lookup(player) if table_from.holds(player) else None
            if ante_line is not None:
                first = win(
                    Spot.ANTE, ante, ante_line.odds, ante_line.name, f"{why}; {player.name}"
                )
            else:
                first = win(Spot.ANTE, ante, EVEN, None, f"{why}; {player.name}: ante 1:1")
            return [first, push(Spot.BET, bet, f"{why}: the bet is not paid")], False
        if player.strength > dealer.strength:
            reason = beats(player, dealer)
            ante_line = table.lookup(player)
            if ante_line is None:
                raise AssertionError(f"no ante line for a winning {player.name}")
            return [
                win(Spot.ANTE, ante, ante_line.odds, ante_line.name, reason),
                win(Spot.BET, bet, EVEN, None, reason),
            ], True
        if player.strength == dealer.strength:
            return ties(((Spot.ANTE, ante), (Spot.BET, bet)), player), True
        return losses(((Spot.ANTE, ante), (Spot.BET, bet)), player, dealer), True
