from controller.camera import (
    CameraObservation,
    DiscrepancyKind,
    ExpectedZone,
    ZoneObservation,
    compare,
)
from controller.cards import parse_cards


def cards(text: str) -> frozenset:
    return frozenset(parse_cards(text))


def observation(*zones: ZoneObservation) -> CameraObservation:
    return CameraObservation(frame=1, time=0.0, zones=zones)


EXPECTED = {
    "box1": ExpectedZone(face_up=cards("AS KD")),
    "box2": ExpectedZone(face_up=cards("2C 3C")),
    "dealer": ExpectedZone(face_up=cards("9H"), face_down=cards("TD")),
}


def test_a_matching_table_has_no_discrepancy() -> None:
    seen = observation(
        ZoneObservation("box1", cards("AS KD")),
        ZoneObservation("box2", cards("2C 3C")),
        ZoneObservation("dealer", cards("9H"), face_down=1),
    )
    assert compare(seen, EXPECTED) == ()


def test_each_kind_of_difference_carries_both_readings() -> None:
    seen = observation(
        ZoneObservation("box1", cards("AS 2C")),  # 2C belongs in box2
        ZoneObservation("box2", cards("3C 7S")),  # 7S was never dealt
        ZoneObservation("dealer", cards("9H TD")),  # the hole card is exposed
        ZoneObservation("", unknown=1),  # something unreadable off every zone
    )
    found = {
        (d.kind, d.zone, str(d.card) if d.card is not None else None)
        for d in compare(seen, EXPECTED)
    }
    assert (DiscrepancyKind.WRONG_ZONE, "box1", "2C") in found
    assert (DiscrepancyKind.WRONG_CARD, "box2", "7S") in found
    assert (DiscrepancyKind.EXPOSED, "dealer", "TD") in found
    assert (DiscrepancyKind.MISSING, "box1", "KD") in found
    assert (DiscrepancyKind.UNREADABLE, "", None) in found
    # an exposed hole card is not also a missing back
    assert not [d for d in compare(seen, EXPECTED) if d.kind is DiscrepancyKind.BACKS]
    wrong_zone = next(d for d in compare(seen, EXPECTED) if d.kind is DiscrepancyKind.WRONG_ZONE)
    assert wrong_zone.expected_zone == "box2"
    assert "2C seen in box1, dealt to box2" in wrong_zone.detail


def test_missing_backs_are_counted() -> None:
    seen = observation(
        ZoneObservation("box1", cards("AS KD")),
        ZoneObservation("box2", cards("2C 3C")),
        ZoneObservation("dealer", cards("9H")),
    )
    (d,) = compare(seen, EXPECTED)
    assert (d.kind, d.zone, d.seen, d.expected) == (DiscrepancyKind.BACKS, "dealer", 0, 1)


def test_a_card_seen_in_another_zone_is_not_also_missing() -> None:
    seen = observation(
        ZoneObservation("box1", cards("AS")),
        ZoneObservation("box2", cards("2C 3C KD")),
        ZoneObservation("dealer", cards("9H"), face_down=1),
    )
    kinds = [(d.kind, str(d.card)) for d in compare(seen, EXPECTED)]
    assert kinds == [(DiscrepancyKind.WRONG_ZONE, "KD")]
