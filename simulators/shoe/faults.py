"""Fault specifications for the shoe simulator: ``--faults SPEC``.

``SPEC`` is a comma-separated list of items:

- ``NAME`` — the fault at its default probability;
- ``NAME=P`` — at probability ``P`` (0 to 1) per message sent, or per card for card faults;
- ``NAME@N[+N…]`` — exactly at the N-th card drawn (1-based), e.g. ``drop@3+7``;
- ``all`` or ``all=P`` — every fault the dialect supports, at its default or at ``P``.

Message faults (every transmission, retransmissions and the host's acknowledgements
included): ``noise`` (line noise before the message), ``split`` (the write cut at random
points with short pauses), ``badcrc`` (one byte damaged: a CRC error in the framed protocol,
a garbled token or line in the others), ``drop`` (the message lost), ``dup`` (sent twice).
Card faults: ``disconnect`` (the device vanishes for a moment before the card, then
returns), ``reboot`` (the shoe restarts before the card), ``unreadable`` (the card passes
unread), ``gap`` (the shoe loses the card's record: the host must name the missing number).
USPC shoes have neither boot messages nor sequence numbers, so ``reboot`` and ``gap`` do not
apply to them.

>>> spec = FaultSpec.parse("drop=0.1,dup@3+5,unreadable")
>>> spec.probability[Fault.DROP], sorted(spec.at[Fault.DUP]), spec.probability[Fault.UNREADABLE]
(0.1, [3, 5], 0.01)
>>> FaultSpec.parse("all", dialect="uspc").probability.keys() >= {Fault.NOISE, Fault.DROP}
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from controller.errors import InvalidSpec

__all__ = ["CARD_FAULTS", "DEFAULTS", "Fault", "FaultSpec"]


class Fault(StrEnum):
    """The faults the simulator can inject."""

    NOISE = "noise"
    SPLIT = "split"
    BADCRC = "badcrc"
    DROP = "drop"
    DUP = "dup"
    DISCONNECT = "disconnect"
    REBOOT = "reboot"
    UNREADABLE = "unreadable"
    GAP = "gap"


CARD_FAULTS = frozenset({Fault.DISCONNECT, Fault.REBOOT, Fault.UNREADABLE, Fault.GAP})
"""Faults decided once per card drawn; the others are decided per transmission."""

DEFAULTS: dict[Fault, float] = {
    Fault.NOISE: 0.05,
    Fault.SPLIT: 0.2,
    Fault.BADCRC: 0.02,
    Fault.DROP: 0.02,
    Fault.DUP: 0.02,
    Fault.DISCONNECT: 0.002,
    Fault.REBOOT: 0.002,
    Fault.UNREADABLE: 0.01,
    Fault.GAP: 0.002,
}
"""Default probability of each fault."""

_UNSUPPORTED = {"uspc": frozenset({Fault.REBOOT, Fault.GAP})}


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """Parsed fault injection settings: probabilities and fixed card positions."""

    probability: dict[Fault, float] = field(default_factory=dict)
    at: dict[Fault, frozenset[int]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str, dialect: str = "framed") -> FaultSpec:
        """Parse ``text`` for ``dialect``; errors name the item and the accepted forms."""
        unsupported = _UNSUPPORTED.get(dialect, frozenset())
        probability: dict[Fault, float] = {}
        at: dict[Fault, set[int]] = {}
        for raw in text.split(","):
            item = raw.strip()
            if not item:
                continue
            name, sep, value = item.partition("@") if "@" in item else item.partition("=")
            name = name.strip().lower()
            if name == "all":
                if sep == "@":
                    raise InvalidSpec(f"fault item {item!r}: 'all' takes '=P', not '@N'")
                for fault in Fault:
                    if fault not in unsupported:
                        probability[fault] = _probability(item, value) if sep else DEFAULTS[fault]
                continue
            try:
                fault = Fault(name)
            except ValueError:
                names = ", ".join(f.value for f in Fault)
                raise InvalidSpec(
                    f"unknown fault {name!r} in {item!r}: expected one of {names} or all"
                ) from None
            if fault in unsupported:
                raise InvalidSpec(
                    f"fault {fault.value!r} cannot happen on a {dialect} shoe: it sends "
                    "neither boot messages nor sequence numbers"
                )
            if sep == "@":
                at.setdefault(fault, set()).update(_positions(item, value))
            else:
                probability[fault] = _probability(item, value) if sep else DEFAULTS[fault]
        return cls(probability, {f: frozenset(p) for f, p in at.items()})

    def __bool__(self) -> bool:
        return bool(self.at) or any(p > 0 for p in self.probability.values())


def _probability(item: str, value: str) -> float:
    try:
        p = float(value)
    except ValueError:
        p = -1.0
    if not 0.0 <= p <= 1.0:
        raise InvalidSpec(f"fault item {item!r}: expected a probability from 0 to 1 after '='")
    return p


def _positions(item: str, value: str) -> set[int]:
    try:
        positions = {int(v) for v in value.split("+")}
    except ValueError:
        positions = {0}
    if min(positions) < 1:
        raise InvalidSpec(f"fault item {item!r}: expected card numbers from 1 after '@', as 3+7")
    return positions
