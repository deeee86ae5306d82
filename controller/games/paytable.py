"""Paytables: odds by hand (category, optionally a minimum rank) or by named line.

Paytables are data loaded from ``config/games/*.toml``; this module only knows how to
read a line name, parse odds and find the line a hand earns.

>>> from controller.cards import parse_cards
>>> from controller.hands import evaluate
>>> table = HandPaytable.build("bonus", {"flush": "20:1", "pair_of_aces": "7:1"}, otherwise="lose")
>>> table.lookup(evaluate(parse_cards("AS AD 2C 7H 9S"))).name
'pair_of_aces'
>>> table.lookup(evaluate(parse_cards("KS KD 2C 7H 9S"))) is None
True
>>> parse_odds("3:2"), parse_odds("1.5:1"), parse_odds("30 to 1")
(Fraction(3, 2), Fraction(3, 2), Fraction(30, 1))
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from controller.errors import UnknownName
from controller.games.rules import Result
from controller.hands import Category, HandValue, Qualifier, Ranking

__all__ = ["HandLine", "HandPaytable", "NamedPaytable", "line_qualifier", "parse_odds"]

_ODDS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?::|to)\s*(\d+(?:\.\d+)?)\s*$")


def parse_odds(text: str) -> Fraction:
    """Parse odds written ``A:B``, ``A to B`` or with a decimal (``1.5:1``) into a Fraction."""
    match = _ODDS.match(text)
    if not match:
        raise UnknownName(f"bad odds {text!r}: expected 'A:B' or 'A to B', such as '3:2' or '30:1'")
    won, staked = Fraction(match.group(1)), Fraction(match.group(2))
    if staked == 0 or won <= 0:
        raise UnknownName(f"bad odds {text!r}: both sides must be positive")
    return won / staked


def format_odds(odds: Fraction) -> str:
    """Odds as a table prints them: ``3:2``, ``30:1``."""
    return f"{odds.numerator}:{odds.denominator}"


def line_qualifier(name: str) -> Qualifier:
    """The hand a line name stands for: ``flush``, ``pair_of_aces``, ``three_of_a_kind`` …

    >>> line_qualifier("pair_of_fours").describe()
    'pair of fours or better'
    """
    if "_of_" in name and not name.startswith(("three_of", "four_of")):
        category, _, rank = name.partition("_of_")
        return Qualifier.parse(f"{category.replace('_', ' ')} of {rank}")
    if name.startswith(("three_of_a_kind_of_", "four_of_a_kind_of_")):
        head, _, rank = name.rpartition("_of_")
        return Qualifier.parse(f"{head.replace('_', ' ')} of {rank}")
    try:
        return Qualifier(Category(name))
    except ValueError:
        raise UnknownName(
            f"bad paytable line {name!r}: expected a hand category "
            f"({', '.join(c.value for c in Category)}), optionally with '_of_<rank plural>' "
            "as in 'pair_of_aces'"
        ) from None


@dataclass(frozen=True, slots=True)
class HandLine:
    """One paytable line earned by a hand at least as good as ``qualifier``."""

    name: str
    qualifier: Qualifier
    odds: Fraction


@dataclass(frozen=True, slots=True)
class HandPaytable:
    """Odds by the player's hand; a hand earns the best line it reaches."""

    name: str
    lines: tuple[HandLine, ...]
    otherwise: Result  # what happens to a hand below every line: LOSE or PUSH
    # per ranking: (threshold, line) from the best line down, worked out once
    _ladders: dict[Ranking, tuple[tuple[int, HandLine], ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # the line of each (ranking, strength) looked up so far (at most one per possible hand)
    _found: dict[tuple[Ranking, int], HandLine | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def build(
        cls, name: str, odds: Mapping[str, str | Fraction], *, otherwise: str = "lose"
    ) -> HandPaytable:
        """A paytable from ``{line name: odds}``."""
        lines = tuple(
            HandLine(
                line,
                line_qualifier(line),
                value if isinstance(value, Fraction) else parse_odds(value),
            )
            for line, value in odds.items()
        )
        return cls(name, lines, Result(otherwise))

    def _ladder(self, ranking: Ranking) -> tuple[tuple[int, HandLine], ...]:
        ladder = self._ladders.get(ranking)
        if ladder is None:
            ladder = tuple(
                sorted(
                    ((ln.qualifier.threshold(ranking), ln) for ln in self.lines),
                    key=lambda pair: pair[0],
                    reverse=True,
                )
            )
            self._ladders[ranking] = ladder
        return ladder

    def ordered(self, ranking: Ranking) -> tuple[HandLine, ...]:
        """The lines from the best hand down, in ``ranking``."""
        return tuple(line for _, line in self._ladder(ranking))

    def lowest(self, ranking: Ranking) -> HandLine:
        """The line of the weakest hand that earns anything, in ``ranking``."""
        return self._ladder(ranking)[-1][1]

    def lookup(self, value: HandValue) -> HandLine | None:
        """The best line ``value`` reaches, or None when it reaches none."""
        key = (value.ranking, value.strength)
        try:
            return self._found[key]
        except KeyError:
            pass
        found = None
        for threshold, line in self._ladder(value.ranking):
            if value.strength >= threshold:
                found = line
                break
        self._found[key] = found
        return found

    def with_odds(self, line: str, odds: Fraction) -> HandPaytable:
        """A copy with one line's odds changed (for what-if mathematics)."""
        if line not in {ln.name for ln in self.lines}:
            known = ", ".join(ln.name for ln in self.lines)
            raise UnknownName(
                f"paytable {self.name!r} has no line {line!r}: expected one of {known}"
            )
        return HandPaytable(
            self.name,
            tuple(
                HandLine(ln.name, ln.qualifier, odds) if ln.name == line else ln
                for ln in self.lines
            ),
            self.otherwise,
        )

    def odds_by_line(self) -> dict[str, Fraction]:
        """``{line name: odds}``, as configured."""
        return {ln.name: ln.odds for ln in self.lines}


@dataclass(frozen=True, slots=True)
class NamedPaytable:
    """Odds by named line, where the game itself decides which line a hand earns."""

    name: str
    odds: Mapping[str, Fraction]

    def get(self, line: str) -> Fraction | None:
        """The odds of ``line``, or None if the table does not pay it."""
        return self.odds.get(line)

    def with_odds(self, line: str, odds: Fraction) -> NamedPaytable:
        """A copy with one line's odds changed (for what-if mathematics)."""
        if line not in self.odds:
            raise UnknownName(
                f"paytable {self.name!r} has no line {line!r}: "
                f"expected one of {', '.join(self.odds)}"
            )
        return NamedPaytable(self.name, {**self.odds, line: odds})

    def odds_by_line(self) -> dict[str, Fraction]:
        """``{line name: odds}``, as configured."""
        return dict(self.odds)


Paytable = HandPaytable | NamedPaytable
