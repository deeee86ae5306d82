"""Type stub of the compiled hand-evaluator kernel (see _handeval.c)."""

from collections.abc import Sequence
from typing import Any

import numpy.typing as npt

STRENGTH_CATEGORY_SHIFT: int
N_KINDS: int

def strength(cards: Sequence[int], ranking: int = 0, /) -> int:
    """The strength of one hand of 5 to 7 card numbers: higher wins, equal ties."""

def best_five(
    cards: Sequence[int], ranking: int = 0, /
) -> tuple[int, tuple[int, int, int, int, int]]:
    """The strength and the indices of the first five cards (in the order given) that make
    it, in the order a dealer lays them out: groups first (the larger, then the higher), then
    single cards high to low, suits high first; a wheel's ace last. ``cards`` come high first.
    """

def strength_batch(hands: npt.NDArray[Any], out: npt.NDArray[Any], ranking: int, /) -> None:
    """Strengths of an (N, 5..7) uint8 array of card numbers into ``out`` (N uint32)."""

def count_categories(
    deck: bytes, k: int, ranking: int, first: int, /
) -> tuple[int, int, int, int, int, int, int, int, int, int]:
    """Category counts (high card first) of every k-card hand whose first card is deck[first]."""

def tally(
    player: bytes,
    dealer: bytes,
    board: bytes,
    board_total: int,
    deck: bytes,
    ranking: int,
    threshold: int,
    samples: int,
    seed: int,
    /,
) -> tuple[int, ...]:
    """60 counts over completions of a round: qualifies * 30 + (lose, tie, win) * 10 + category."""

def dealer_cells(
    player: bytes, board: bytes, dealer: bytes, deck: bytes, ranking: int, threshold: int, /
) -> tuple[tuple[int, int, int], ...]:
    """Six (count, card, card) cells: every dealer hand by qualifies * 3 + (lose, tie, win)."""

def simulate(
    game: int,
    rule: int,
    threshold: int,
    ante_from: int,
    two_pair: int,
    plus_odds: bytes,
    cell_net: bytes,
    call: float,
    deck: bytes,
    run: tuple[int, int],
    /,
) -> tuple[int, float, float, float]:
    """Simulate rounds: run is (hands, seed); returns (hands, sum, sum of squares, win chances)."""

def play_round(
    game: int,
    rule: int,
    threshold: int,
    ante_from: int,
    two_pair: int,
    plus_odds: bytes,
    cell_net: bytes,
    call: float,
    deck: bytes,
    deal: tuple[bytes, int],
    /,
) -> tuple[int, float, float]:
    """One round from nine cards and a seed: (decision code, net per ante, win chance)."""
