"""Ultimate Texas Hold'em (seed 002): ante, Ante Plus, one call of 4x/3x, 2x or 1x, Best Five.

The dealer needs a pair or better. A better player hand wins the ante (only when the dealer
qualifies; otherwise the ante is returned) and the call even money, and the Ante Plus by its
paytable (three of a kind or less: returned). A tie returns every main bet; a worse hand
loses them all. Folding at the river loses ante and Ante Plus. The Best Five bet is settled
on the player's hand alone, whatever the main game does, a fold included.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    Money,
    Option,
    Result,
    Reveal,
    RoundCards,
    SettlementLine,
    Spot,
    beats,
    lose,
    push,
    ties,
    win,
)
from controller.hands import HandValue

__all__ = ["UltimateTexasHoldem"]

PREFLOP = DecisionPoint(
    "preflop",
    (
        Option("call_4x", Spot.CALL, Fraction(4)),
        Option("call_3x", Spot.CALL, Fraction(3)),
        Option("check"),
    ),
    on_timeout="check",
)
FLOP = DecisionPoint(
    "flop",
    (Option("call_2x", Spot.CALL, Fraction(2)), Option("check")),
    on_timeout="check",
    only_if_no_bet_on=Spot.CALL,
)
RIVER = DecisionPoint(
    "river",
    (Option("call_1x", Spot.CALL, Fraction(1)), Option("fold", folds=True)),
    on_timeout="fold",
    only_if_no_bet_on=Spot.CALL,
)


class UltimateTexasHoldem(Game):
    """Seed 002, played with one shared player hand for any number of seats (or boxes)."""

    info = GAMES[GameId.ULTIMATE_TEXAS_HOLDEM]
    script = DealScript(
        (
            DealHoleCards(2, Face.UP, Face.DOWN),
            Decide(PREFLOP),
            DealBoard("flop", 3, Face.UP),
            Decide(FLOP),
            DealBoard("turn and river", 2, Face.UP),
            Decide(RIVER),
            Reveal("dealer"),
        )
    )
    initial_spots = (Spot.ANTE, Spot.BEST_FIVE)
    paytable_roles = ("ante_plus", "best_five")
    options_defaults: ClassVar[dict[str, object]] = {}

    def automatic_bets(self, bets: Mapping[Spot, Money]) -> dict[Spot, Money]:
        """The Ante Plus, equal to the ante, placed by the table."""
        return {Spot.ANTE_PLUS: bets.get(Spot.ANTE, 0)}

    def settle_side(self, cards: RoundCards, walk: Walk, player: HandValue) -> list[SettlementLine]:
        """Best Five, on the player's hand alone, a fold included."""
        return self.paid_on_hand(walk, Spot.BEST_FIVE, "best_five", player)

    def settle_main(
        self, walk: Walk, player: HandValue, dealer: HandValue
    ) -> tuple[list[SettlementLine], bool | None]:
        """Ante, call and Ante Plus."""
        bets = walk.bets
        ante, plus, call = bets[Spot.ANTE], bets[Spot.ANTE_PLUS], bets.get(Spot.CALL, 0)
        qualifier = self.info.dealer_qualifier
        assert qualifier is not None
        qualifies = qualifier.holds(dealer)
        if walk.folded:
            return [
                lose(Spot.ANTE, ante, "folded"),
                lose(Spot.ANTE_PLUS, plus, "folded"),
            ], qualifies
        returned = ""  # why the ante comes back when the dealer does not qualify
        if not qualifies:
            why = f"dealer does not qualify ({dealer.name}, needs {qualifier.describe()})"
            returned = f"{why}: ante returned"
        if player.strength > dealer.strength:
            reason = beats(player, dealer)
            table = self.hand_paytable("ante_plus")
            line = table.lookup(player)
            if line is not None:
                plus_line = win(Spot.ANTE_PLUS, plus, line.odds, line.name, reason)
            elif table.otherwise is Result.PUSH:
                plus_line = push(Spot.ANTE_PLUS, plus, f"{reason}; below a straight: returned")
            else:
                plus_line = lose(Spot.ANTE_PLUS, plus, f"{reason}; no Ante Plus line")
            return [
                win(Spot.ANTE, ante, EVEN, None, reason)
                if qualifies
                else push(Spot.ANTE, ante, returned),
                win(Spot.CALL, call, EVEN, None, reason),
                plus_line,
            ], qualifies
        if player.strength == dealer.strength:
            main = (Spot.ANTE, Spot.CALL, Spot.ANTE_PLUS)
            return ties(((s, bets.get(s, 0)) for s in main), player), qualifies
        reason = f"the dealer's {dealer.name} beats {player.name}"
        return [
            lose(Spot.ANTE, ante, reason) if qualifies else push(Spot.ANTE, ante, returned),
            lose(Spot.CALL, call, reason),
            lose(Spot.ANTE_PLUS, plus, reason),
        ], qualifies
