"""What the overhead camera saw, per table zone, and how it compares with what the shoe dealt.

This module is pure (no OpenCV, no numpy): the camera driver builds a
:class:`CameraObservation` from stable recognitions, and the table state machine calls
:func:`compare` with what it expects in each zone; every :class:`Discrepancy` is a reason
to halt or to raise an irregularity, and none is ever resolved by guessing.

>>> from controller.cards import parse_cards
>>> seen = CameraObservation(frame=7, time=1.5, zones=(
...     ZoneObservation("box1", frozenset(parse_cards("AS KD")), face_down=0, unknown=0),
...     ZoneObservation("dealer", frozenset(parse_cards("7C")), face_down=1, unknown=0),
... ))
>>> expected = {
...     "box1": ExpectedZone(face_up=frozenset(parse_cards("AS KD"))),
...     "dealer": ExpectedZone(face_down=frozenset(parse_cards("7C 2H"))),
... }
>>> [(d.kind.value, d.zone, str(d.card)) for d in compare(seen, expected)]
[('exposed', 'dealer', '7C')]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from controller.cards import Card

__all__ = [
    "CameraObservation",
    "Discrepancy",
    "DiscrepancyKind",
    "ExpectedZone",
    "ZoneObservation",
    "compare",
]


@dataclass(frozen=True, slots=True)
class ZoneObservation:
    """The cards the camera sees in one zone: face-up codes, backs, unreadable faces."""

    zone: str
    cards: frozenset[Card] = frozenset()
    face_down: int = 0
    unknown: int = 0


@dataclass(frozen=True, slots=True)
class CameraObservation:
    """One stable view of the table: every zone with something in it, plus the frame number.

    Cards outside every zone are reported under the zone id ``""``.
    """

    frame: int
    time: float
    zones: tuple[ZoneObservation, ...] = ()

    def zone(self, zone_id: str) -> ZoneObservation:
        """What is seen in ``zone_id`` (an empty observation when nothing is)."""
        for z in self.zones:
            if z.zone == zone_id:
                return z
        return ZoneObservation(zone_id)

    def where(self, card: Card) -> str | None:
        """The zone in which ``card`` is seen face up, or None."""
        for z in self.zones:
            if card in z.cards:
                return z.zone
        return None


@dataclass(frozen=True, slots=True)
class ExpectedZone:
    """What the table expects in a zone: cards dealt face up, and cards dealt face down."""

    face_up: frozenset[Card] = frozenset()
    face_down: frozenset[Card] = frozenset()


class DiscrepancyKind(StrEnum):
    """How the camera's view differs from the expected table."""

    WRONG_CARD = "wrong_card"  # a face-up card the shoe did not deal to any zone
    WRONG_ZONE = "wrong_zone"  # a card dealt to one zone lies in another
    EXPOSED = "exposed"  # a card that must lie face down is seen face up
    MISSING = "missing"  # a card dealt face up to the zone is not seen anywhere
    BACKS = "backs"  # the number of face-down cards differs
    UNREADABLE = "unreadable"  # a face-up card the camera cannot read with confidence


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """One difference, with both readings: what the camera saw and what was expected."""

    kind: DiscrepancyKind
    zone: str
    card: Card | None = None
    expected_zone: str | None = None
    seen: int = 0
    expected: int = 0
    detail: str = field(default="", compare=False)


def compare(
    observation: CameraObservation, expected: Mapping[str, ExpectedZone]
) -> tuple[Discrepancy, ...]:
    """Every difference between the camera's view and the expected zones, in zone order.

    Zones absent from ``expected`` are expected empty. The result is empty exactly when
    the camera confirms the table.
    """
    out: list[Discrepancy] = []
    home: dict[Card, str] = {}
    for zone_id, exp in expected.items():
        for card in exp.face_up | exp.face_down:
            home[card] = zone_id
    zone_ids = list(expected) + [z.zone for z in observation.zones if z.zone not in expected]
    for zone_id in zone_ids:
        exp = expected.get(zone_id, ExpectedZone())
        seen = observation.zone(zone_id)
        exposed = 0
        for card in sorted(seen.cards):
            if card in exp.face_up:
                continue
            if card in exp.face_down:
                exposed += 1
                out.append(
                    Discrepancy(
                        DiscrepancyKind.EXPOSED,
                        zone_id,
                        card,
                        zone_id,
                        detail=f"{card} is face up in {zone_id or 'no zone'}, dealt face down",
                    )
                )
            elif card in home:
                out.append(
                    Discrepancy(
                        DiscrepancyKind.WRONG_ZONE,
                        zone_id,
                        card,
                        home[card],
                        detail=f"{card} seen in {zone_id or 'no zone'}, dealt to {home[card]}",
                    )
                )
            else:
                out.append(
                    Discrepancy(
                        DiscrepancyKind.WRONG_CARD,
                        zone_id,
                        card,
                        detail=f"{card} seen in {zone_id or 'no zone'}, not dealt by the shoe",
                    )
                )
        for card in sorted(exp.face_up - seen.cards):
            if observation.where(card) is None:
                out.append(
                    Discrepancy(
                        DiscrepancyKind.MISSING,
                        zone_id,
                        card,
                        zone_id,
                        detail=f"{card} dealt face up to {zone_id}, not seen",
                    )
                )
        backs = len(exp.face_down) - exposed
        if seen.face_down != backs:
            out.append(
                Discrepancy(
                    DiscrepancyKind.BACKS,
                    zone_id,
                    seen=seen.face_down,
                    expected=backs,
                    detail=f"{seen.face_down} face-down cards in {zone_id}, expected {backs}",
                )
            )
        if seen.unknown:
            out.append(
                Discrepancy(
                    DiscrepancyKind.UNREADABLE,
                    zone_id,
                    seen=seen.unknown,
                    detail=f"{seen.unknown} face-up cards in {zone_id or 'no zone'} unreadable",
                )
            )
    return tuple(out)
