"""Deal a round in table order from a shuffled deck and compare every hand with the dealer's.

This is the card side of a round only (who gets which card, what each hand makes,
whether the dealer qualifies, who beats whom); money is settled by the game modules.

>>> import random
>>> from controller.games import game
>>> round_ = deal_showdown(game("casino-holdem"), 1, random.Random(7))
>>> len(round_.boxes[0].hole), len(round_.dealer.hole), len(round_.board)
(2, 2, 5)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum

from controller.cards import Card
from controller.errors import InvalidHand
from controller.games import GameInfo
from controller.hands import HandValue, evaluate

__all__ = ["Outcome", "Seat", "Showdown", "deal_showdown"]


class Outcome(StrEnum):
    """A player hand against the dealer's, before any money rule."""

    WIN = "win"
    LOSE = "lose"
    TIE = "tie"


@dataclass(frozen=True, slots=True)
class Seat:
    """One hand at the showdown: its hole cards and what it makes with the board."""

    name: str
    hole: tuple[Card, ...]
    value: HandValue


@dataclass(frozen=True, slots=True)
class Showdown:
    """A whole dealt round: the cards in the order they left the deck, and every hand."""

    game: GameInfo
    dealt: tuple[tuple[str, Card], ...]
    boxes: tuple[Seat, ...]
    dealer: Seat
    board: tuple[Card, ...]

    @property
    def dealer_qualifies(self) -> bool:
        """Whether the dealer's hand meets the game's qualifier (always, where there is none)."""
        q = self.game.dealer_qualifier
        return q is None or q.holds(self.dealer.value)

    def outcome(self, box: int) -> Outcome:
        """Box ``box`` (0-based) against the dealer, on cards alone."""
        mine, theirs = self.boxes[box].value.strength, self.dealer.value.strength
        if mine > theirs:
            return Outcome.WIN
        if mine < theirs:
            return Outcome.LOSE
        return Outcome.TIE


def deal_showdown(info: GameInfo, boxes: int, rng: random.Random) -> Showdown:
    """Shuffle the game's deck with ``rng`` and deal ``boxes`` player hands in table order.

    One card at a time round the boxes from the dealer's left, then the dealer, twice
    (for the hole cards); then the board.
    """
    if boxes < 1:
        raise InvalidHand(f"a round needs at least one player hand; got {boxes}")
    needed = boxes * info.hole_cards + info.dealer_cards + info.board_cards
    order = info.deck.shuffled(rng)
    if needed > len(order):
        raise InvalidHand(
            f"{boxes} boxes need {needed} cards but the {info.deck.description} holds {len(order)}"
        )
    draw = iter(order)
    dealt: list[tuple[str, Card]] = []
    holes: list[list[Card]] = [[] for _ in range(boxes)]
    dealer_hole: list[Card] = []
    for _ in range(max(info.hole_cards, info.dealer_cards)):
        for b in range(boxes):
            if len(holes[b]) < info.hole_cards:
                card = next(draw)
                holes[b].append(card)
                dealt.append((f"box {b + 1}", card))
        if len(dealer_hole) < info.dealer_cards:
            card = next(draw)
            dealer_hole.append(card)
            dealt.append(("dealer", card))
    board = tuple(next(draw) for _ in range(info.board_cards))
    dealt.extend(("board", c) for c in board)

    def seat(name: str, hole: list[Card]) -> Seat:
        return Seat(name, tuple(hole), evaluate((*hole, *board), info.ranking))

    return Showdown(
        game=info,
        dealt=tuple(dealt),
        boxes=tuple(seat(f"box {b + 1}", h) for b, h in enumerate(holes)),
        dealer=seat("dealer", dealer_hole),
        board=board,
    )
