"""Triple Action Hold'em (seed 004): 28-card deck, ante, bet 1x or fold, ante bonus, bonus.

Each hand and the dealer get two cards, three board cards lie face down and one dealer card
is shown before the decision. The dealer needs a pair of nines or better: without it the
ante wins even money and the bet is returned; with it the better hand wins ante and bet
even money, a tie returns both. A hand that stayed in and makes a full house or better (in
the Triple Action ranking: full house, four of a kind, flush, straight flush, royal flush)
is also paid the ante bonus on its ante, win or lose. The bonus side bet pays on the
player's five-card hand from two pair up (paytable A or B) and stays in action after a fold.
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
    Result,
    Reveal,
    RoundCards,
    SettlementLine,
    Spot,
    beats,
    lose,
    losses,
    push,
    ties,
    times,
    win,
)
from controller.hands import HandValue

__all__ = ["TripleActionHoldem"]

DECISION = DecisionPoint(
    "up card", (Option("bet", Spot.BET, Fraction(1)), Option("fold", folds=True)), on_timeout="fold"
)


class TripleActionHoldem(Game):
    """Seed 004, played at boxes."""

    info = GAMES[GameId.TRIPLE_ACTION_HOLDEM]
    script = DealScript(
        (
            DealHoleCards(2, Face.DOWN, Face.DOWN),
            DealBoard("board", 3, Face.DOWN),
            Reveal("dealer_first"),
            Decide(DECISION),
            Reveal("dealer"),
            Reveal("board"),
        )
    )
    initial_spots = (Spot.ANTE, Spot.BONUS)
    paytable_roles = ("ante_bonus", "bonus")
    options_defaults: ClassVar[dict[str, object]] = {}

    def settle_side(self, cards: RoundCards, walk: Walk, player: HandValue) -> list[SettlementLine]:
        """The bonus, on the player's five-card hand; it stays in action after a fold."""
        return self.paid_on_hand(walk, Spot.BONUS, "bonus", player)

    def settle_main(
        self, walk: Walk, player: HandValue, dealer: HandValue
    ) -> tuple[list[SettlementLine], bool | None]:
        """Ante and bet against a dealer who needs a pair of nines, and the ante bonus."""
        bets = walk.bets
        ante, bet = bets[Spot.ANTE], bets.get(Spot.BET, 0)
        qualifier = self.info.dealer_qualifier
        assert qualifier is not None
        qualifies = qualifier.holds(dealer)
        if walk.folded:
            return [lose(Spot.ANTE, ante, "folded: ante lost, no ante bonus")], qualifies
        lines: list[SettlementLine] = []
        if not qualifies:
            why = f"dealer does not qualify ({dealer.name}, needs {qualifier.describe()})"
            lines.append(win(Spot.ANTE, ante, EVEN, None, why))
            lines.append(push(Spot.BET, bet, f"{why}: bet returned"))
        elif player.strength > dealer.strength:
            reason = beats(player, dealer)
            lines += [win(Spot.ANTE, ante, EVEN, None, reason)]
            lines += [win(Spot.BET, bet, EVEN, None, reason)]
        elif player.strength == dealer.strength:
            lines += ties(((Spot.ANTE, ante), (Spot.BET, bet)), player)
        else:
            lines += losses(((Spot.ANTE, ante), (Spot.BET, bet)), player, dealer)
        ante_bonus = self.hand_paytable("ante_bonus").lookup(player)
        if ante_bonus is not None:
            # paid on the ante, win or lose; it has no stake of its own
            reason = f"{player.name}: ante bonus on the ante of {ante}, whatever the dealer holds"
            lines.append(
                SettlementLine(
                    Spot.ANTE_BONUS, 0, Result.WIN, ante_bonus.odds,
                    times(ante, ante_bonus.odds), ante_bonus.name, reason,
                )
            )  # fmt: skip
        return lines, qualifies
