"""Odds of a partly dealt round: how every completion ends, for strategies and game math.

:func:`tally` counts the completions of a round (the dealer's hidden cards and the board
still to come) by whether the dealer qualifies, how the player's hand compares, and the
player's final category. Strategies turn a tally into the expected value of each choice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from controller import _handeval
from controller.cards import Card, Deck
from controller.hands import Category, Qualifier, Ranking

__all__ = ["LOSE", "TIE", "WIN", "Tally", "tally"]

LOSE, TIE, WIN = 0, 1, 2
_KINDS = tuple(Category)


@dataclass(frozen=True, slots=True)
class Tally:
    """Counts by [dealer qualifies 0/1][lose, tie, win][player category, kernel order]."""

    counts: npt.NDArray[np.int64]
    exhaustive: bool

    @property
    def total(self) -> int:
        """How many completions were counted."""
        return int(self.counts.sum())

    def probability(self, outcome: int) -> float:
        """P(lose), P(tie) or P(win) over the counted completions."""
        return float(self.counts[:, outcome, :].sum()) / self.total

    def expectation(self, net: Callable[[bool, int, Category], float]) -> float:
        """The mean of ``net(dealer_qualifies, outcome, player_category)`` over the completions."""
        total = 0.0
        for q in (0, 1):
            for outcome in (LOSE, TIE, WIN):
                for kind, n in enumerate(self.counts[q, outcome]):
                    if n:
                        total += float(n) * net(bool(q), outcome, _KINDS[kind])
        return total / self.total


def tally(
    player: Sequence[Card],
    board: Sequence[Card],
    *,
    deck: Deck,
    ranking: Ranking,
    board_total: int,
    qualifier: Qualifier | None,
    dealer: Sequence[Card] = (),
    samples: int = 0,
    seed: int = 1,
) -> Tally:
    """Count every completion (``samples=0``) or ``samples`` random ones of a partly dealt round."""
    threshold = qualifier.threshold(ranking) if qualifier is not None else 0
    counts = _handeval.tally(
        bytes(map(int, player)),
        bytes(map(int, dealer)),
        bytes(map(int, board)),
        board_total,
        bytes(map(int, deck.cards)),
        int(ranking),
        threshold,
        samples,
        seed,
    )
    return Tally(np.array(counts, dtype=np.int64).reshape(2, 3, 10), samples <= 0)
