"""Amounts as text: exact both ways."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from controller.games.rules import format_amount


@given(
    st.integers(-(10**12), 10**12),
    st.integers(0, 12),
    st.integers(0, 12),
    st.sampled_from([1, 3, 7, 9]),
)
def test_every_amount_reads_back_exactly(num: int, twos: int, fives: int, other: int) -> None:
    amount = Fraction(num, 2**twos * 5**fives * other)
    text = format_amount(amount)
    assert Fraction(text) == amount
    if amount.denominator == 1:
        assert text == str(amount.numerator)  # whole amounts print as integers
        return
    rest = amount.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest == 1:  # a finite decimal exists: it is the one printed
        assert "/" not in text and "." in text
    else:
        assert text == f"{amount.numerator}/{amount.denominator}"


def test_integers_print_as_they_are() -> None:
    assert [format_amount(n) for n in (0, 5, -12)] == ["0", "5", "-12"]
