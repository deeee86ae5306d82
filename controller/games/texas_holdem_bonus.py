"""Texas Hold'em Bonus Poker (seed 000): ante, flop 2x / fold, turn and river 1x / check, bonus.

The ante is paid even money only when the player wins with a straight or better, else it
is returned; flop, turn and river bets pay even money on a win; every main bet pushes on a
tie and loses to a better dealer hand. There is no dealer qualification. The bonus side bet
pays on the player's first two cards, whatever happens in the main game, folds included.
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from controller.cards import Card, Rank
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
from controller.hands import HandValue, Qualifier

__all__ = ["BONUS_LINES", "TexasHoldemBonus", "bonus_line"]

PREFLOP = DecisionPoint(
    "preflop",
    (Option("bet", Spot.FLOP, Fraction(2)), Option("fold", folds=True)),
    on_timeout="fold",
)
TURN = DecisionPoint(
    "turn", (Option("bet", Spot.TURN, Fraction(1)), Option("check")), on_timeout="check"
)
RIVER = DecisionPoint(
    "river", (Option("bet", Spot.RIVER, Fraction(1)), Option("check")), on_timeout="check"
)

#: bonus lines, best first, as the seed's paytable lists them
BONUS_LINES = (
    "aces",
    "ace_king_suited",
    "ace_queen_or_jack_suited",
    "ace_king",
    "kings_queens_or_jacks",
    "ace_queen_or_jack",
    "pair_2_to_10",
)


def bonus_line(hole: tuple[Card, ...]) -> str | None:
    """The bonus line the first two cards earn, or None.

    >>> from controller.cards import parse_cards
    >>> [bonus_line(parse_cards(h)) for h in ("AS AD", "AH KH", "JS AS", "AS KD")]
    ['aces', 'ace_king_suited', 'ace_queen_or_jack_suited', 'ace_king']
    >>> [bonus_line(parse_cards(h)) for h in ("QS QD", "TS TD", "9S 8S")]
    ['kings_queens_or_jacks', 'pair_2_to_10', None]
    """
    a, b = sorted(hole, reverse=True)
    high, low, suited = a.rank, b.rank, a.suit == b.suit
    if high == low:
        if high is Rank.ACE:
            return "aces"
        if high >= Rank.JACK:
            return "kings_queens_or_jacks"
        return "pair_2_to_10"
    if high is Rank.ACE and low is Rank.KING:
        return "ace_king_suited" if suited else "ace_king"
    if high is Rank.ACE and low in (Rank.QUEEN, Rank.JACK):
        return "ace_queen_or_jack_suited" if suited else "ace_queen_or_jack"
    return None


class TexasHoldemBonus(Game):
    """Seed 000, played with one shared player hand (or boxes)."""

    info = GAMES[GameId.TEXAS_HOLDEM_BONUS]
    script = DealScript(
        (
            DealHoleCards(2, Face.UP, Face.DOWN),
            Decide(PREFLOP),
            DealBoard("flop", 3, Face.UP),
            Decide(TURN),
            DealBoard("turn", 1, Face.UP),
            Decide(RIVER),
            DealBoard("river", 1, Face.UP),
            Reveal("dealer"),
        )
    )
    initial_spots = (Spot.ANTE, Spot.BONUS)
    paytable_roles = ("bonus",)
    options_defaults: ClassVar[dict[str, object]] = {"ante_pays_from": "straight"}
    named_lines: ClassVar[dict[str, tuple[str, ...]]] = {"bonus": BONUS_LINES}

    def settle_side(self, cards: RoundCards, walk: Walk, player: HandValue) -> list[SettlementLine]:
        """The bonus, on the first two cards, whatever the main game does."""
        bonus = walk.bets.get(Spot.BONUS, 0)
        if not bonus:
            return []
        line = bonus_line(cards.player)
        odds = self.named_paytable("bonus").get(line) if line else None
        if line is not None and odds is not None:
            return [win(Spot.BONUS, bonus, odds, line, f"first two cards: {line}")]
        return [lose(Spot.BONUS, bonus, "first two cards earn no bonus line")]

    def settle_main(
        self, walk: Walk, player: HandValue, dealer: HandValue
    ) -> tuple[list[SettlementLine], bool | None]:
        """Ante (even money from a straight up, else returned) and flop, turn, river bets."""
        bets = walk.bets
        ante = bets[Spot.ANTE]
        raises = (Spot.FLOP, Spot.TURN, Spot.RIVER)
        if walk.folded:
            return [lose(Spot.ANTE, ante, "folded before the flop")], None
        lines: list[SettlementLine] = []
        ante_from = Qualifier.parse(str(self.option("ante_pays_from")))
        if player.strength > dealer.strength:
            reason = beats(player, dealer)
            if ante_from.holds(player):
                lines.append(win(Spot.ANTE, ante, EVEN, player.category.value, reason))
            else:
                lines.append(
                    push(Spot.ANTE, ante, f"{reason}, below {ante_from.describe()}: ante returned")
                )
            lines += [win(s, bets.get(s, 0), EVEN, None, reason) for s in raises]
        elif player.strength == dealer.strength:
            lines += ties(((s, bets.get(s, 0)) for s in (Spot.ANTE, *raises)), player)
        else:
            stakes = ((s, bets.get(s, 0)) for s in (Spot.ANTE, *raises))
            lines += losses(stakes, player, dealer)
        return lines, None
