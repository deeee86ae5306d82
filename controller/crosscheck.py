"""The camera's cross-check of the shoe: what the table should look like, and what to do when
the camera sees otherwise.

Pure and deterministic, like the state machine: :meth:`CrossCheck.check` takes the table
state, one *stable* :class:`~controller.camera.CameraObservation` (the capture adapter's
debounced view) and the time, and returns the events to submit to the table, sent by the
``camera`` actor, so they are journaled and replayed like any other input:

- the camera reads another card at a position than the shoe dealt there → :class:`Halt`
  naming both readings (``camera sees 7H at box 3, the shoe dealt 7D``);
- a dealt card lies in another player's box, the dealer's or the board's place → a
  broken-sequence :class:`Halt` (``broken sequence: camera sees KD at box 2, the shoe dealt
  it to box 1``), which the dealer answers with ``restore`` or ``redeal``; so do more backs
  at a position than the shoe dealt there face down (nothing hides a card *into* view);
- the dealer's face-down card seen face up before the reveal → :class:`DealerExposedEarly`,
  the seed's irregularity (during the deal the table halts for a redeal; after it, the pit
  manager rules on the undecided hands); a face-down board
  card seen before its reveal halts the table.

Each finding is reported once per deal (a resumed table is not halted again for what the
dealer or the pit manager already saw); while the table is halted, findings wait, and are
reported when the checker is called again after the table resumes. A new deal (a new round,
a redeal) is checked only against an observation taken after it started, never against the
camera's last view of the cards just collected. What the camera merely cannot confirm (a
card not seen yet, a back too few, an unreadable face, a card outside every zone) never
halts: the dealer's hand or a card in flight hides cards all the time; those are returned
as ``notes`` for the console. A table whose camera is switched off (``enabled=False``)
checks nothing.

>>> from controller.cards import parse_cards
>>> reason_for(parse_cards("7H")[0], "box 3", parse_cards("7D"))
'camera sees 7H at box 3, the shoe dealt 7D'
>>> reason_for(parse_cards("7H")[0], "box 3", parse_cards("7D KS"))
'camera sees 7H at box 3, the shoe dealt 7D or KS there'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from controller.camera import (
    CameraObservation,
    Discrepancy,
    DiscrepancyKind,
    ExpectedZone,
    ZoneObservation,
    compare,
)
from controller.cards import Card
from controller.events import DealerExposedEarly, Event, Halt
from controller.games.rules import Face
from controller.table import Phase, TableState, can

__all__ = [
    "CAMERA",
    "CheckResult",
    "CrossCheck",
    "by_position",
    "card_faces",
    "expected_positions",
    "reason_for",
]

#: the actor id of every event the camera sends
CAMERA = "camera"

#: phases in which cards lie on the felt as the shoe dealt them (before the payout sweep)
_WATCHED = (Phase.DEALING, Phase.DECIDING, Phase.REVEAL)
#: phases before any reveal the dealer is doing now
_BEFORE_REVEAL = (Phase.DEALING, Phase.DECIDING)


def card_faces(state: TableState) -> list[tuple[str, Card, bool]]:
    """Every card of the round in play in deal order: (position, card, shown face up now).

    A card dealt face down counts as face up once its reveal is done (``dealer``,
    ``dealer_first`` for the dealer's first card, ``board``).
    """
    rnd = state.round
    if rnd is None:
        return []
    out = []
    dealer_seen = 0
    for position, card, face in rnd.cards:
        shown = face is Face.UP or position in rnd.revealed
        if position == "dealer":
            dealer_seen += 1
            shown = shown or (dealer_seen == 1 and "dealer_first" in rnd.revealed)
        out.append((position, card, shown))
    return out


def expected_positions(state: TableState) -> dict[str, ExpectedZone]:
    """What the shoe has dealt to each position of the round in play, face up or down.

    Faces as :func:`card_faces` gives them. The dealer and the board are always listed, so
    that a card seen there is explained or flagged.
    """
    if state.round is None:
        return {}
    up: dict[str, set[Card]] = {"dealer": set(), "board": set()}
    down: dict[str, set[Card]] = {"dealer": set(), "board": set()}
    for position, card, shown in card_faces(state):
        up.setdefault(position, set())
        down.setdefault(position, set())
        (up if shown else down)[position].add(card)
    return {p: ExpectedZone(frozenset(up[p]), frozenset(down[p])) for p in up}


def by_position(observation: CameraObservation, zones: Mapping[str, str]) -> CameraObservation:
    """The observation keyed by table position instead of zone id (zones of one position merge).

    Zones the mapping does not know, and cards outside every zone, go under ``""``.
    """
    cards: dict[str, set[Card]] = {}
    counts: dict[str, list[int]] = {}
    for zone in observation.zones:
        position = zones.get(zone.zone, "")
        cards.setdefault(position, set()).update(zone.cards)
        n = counts.setdefault(position, [0, 0])
        n[0] += zone.face_down
        n[1] += zone.unknown
    merged = tuple(
        ZoneObservation(p, frozenset(cards[p]), counts[p][0], counts[p][1]) for p in sorted(cards)
    )
    return CameraObservation(observation.frame, observation.time, merged)


def reason_for(seen: Card, position: str, candidates: Sequence[Card]) -> str:
    """The halt reason when the camera reads ``seen`` at ``position`` and the shoe did not.

    ``candidates`` are the cards the shoe dealt there that the camera sees nowhere: one of
    them is the card the camera or the shoe misread.
    """
    if len(candidates) == 1:
        shoe = f"the shoe dealt {candidates[0]}"
    elif candidates:
        shoe = f"the shoe dealt {' or '.join(c.code for c in candidates)} there"
    else:
        shoe = "the shoe dealt no such card there"
    return f"camera sees {seen} at {position}, {shoe}"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check: the events to submit (in order), every difference found, and notes.

    ``notes`` are what the camera could not confirm and does not halt for, as sentences for
    the dealer's console; ``discrepancies`` are keyed by position, not zone id.
    """

    events: tuple[Event, ...] = ()
    discrepancies: tuple[Discrepancy, ...] = ()
    notes: tuple[str, ...] = ()


_Key = tuple[str, str, int]  # (kind, position, card number or -1)


@dataclass(frozen=True, slots=True)
class _Finding:
    key: _Key
    event: str  # "halt" or "exposed"
    reason: str


@dataclass(frozen=True, slots=True)
class CrossCheck:
    """The camera-versus-shoe check of one table, and what it has already reported this round.

    ``zones`` maps each zone id of the layout to the position it watches (see
    ``config.camera.ZoneLayout.positions``); ``enabled`` is the table's camera switch.
    """

    zones: Mapping[str, str] = field(default_factory=dict, hash=False)
    enabled: bool = True
    round_key: tuple[str, int] | None = None  # (round id, redeals) the reported set is for
    reported: frozenset[_Key] = frozenset()
    since_frame: int = -1  # the deal in play is checked only on frames after this one
    last: int = -1  # the newest frame checked

    def check(
        self, state: TableState, observation: CameraObservation, now: float
    ) -> tuple[CrossCheck, CheckResult]:
        """Compare a stable observation with the table; the checker after it, and the result.

        Call it with every new stable observation, and again with the latest one after the
        table leaves a halt (findings held back while it was halted are reported then).
        """
        rnd = state.round
        if not self.enabled:
            return self, CheckResult()
        checker = replace(self, last=max(self.last, observation.frame))
        if rnd is None:
            return checker, CheckResult()
        key = (rnd.round_id, rnd.redeals)
        if self.round_key != key:  # a new deal: forget what was reported, wait for a new view
            checker = replace(checker, round_key=key, reported=frozenset(), since_frame=self.last)
        if observation.frame <= checker.since_frame or state.phase not in _WATCHED:
            return checker, CheckResult()
        seen = by_position(observation, self.zones)
        differences = compare(seen, expected_positions(state))
        findings, notes = _judge(state, seen, differences)
        fresh = [f for f in findings if f.key not in checker.reported]
        events: list[Event] = []
        sent: list[_Finding] = []
        exposed = [f for f in fresh if f.event == "exposed"]
        if exposed:  # the seed's irregularity path first; other findings wait for the ruling
            event: Event = DealerExposedEarly(actor=CAMERA)
            if can(state, event, now):
                events.append(event)
            else:  # every hand has decided: an early exposure changes nobody's decision
                notes += tuple(f"{f.reason} (every hand has decided)" for f in exposed)
            sent += exposed
        halts = [f for f in fresh if f.event == "halt"]
        if halts and not events:
            events.append(Halt(actor=CAMERA, reason="; ".join(f.reason for f in halts)))
            sent += halts
        checker = replace(checker, reported=checker.reported | {f.key for f in sent})
        return checker, CheckResult(tuple(events), differences, notes)


def _judge(
    state: TableState, seen: CameraObservation, differences: Iterable[Discrepancy]
) -> tuple[list[_Finding], tuple[str, ...]]:
    """Sort the differences into findings that stop the table and notes that do not."""
    rnd = state.round
    assert rnd is not None
    findings: list[_Finding] = []
    notes: list[str] = []
    before_reveal = state.phase in _BEFORE_REVEAL
    differences = list(differences)
    short = {d.zone for d in differences if d.kind is DiscrepancyKind.BACKS and d.seen < d.expected}
    for d in differences:
        card = d.card
        number = int(card) if card is not None else d.seen
        key: _Key = (d.kind.value, d.zone, number)
        if d.kind is DiscrepancyKind.BACKS and d.zone and d.seen > d.expected:
            # more backs than the shoe dealt there: nothing hides a card into view, so a card
            # went to the wrong place (another place is short) or did not pass the reader
            prefix = "broken sequence: " if short - {d.zone} else ""
            reason = (
                f"{prefix}camera sees {d.seen} face-down card{'s' * (d.seen != 1)} at {d.zone}, "
                f"the shoe dealt {d.expected} there face down"
            )
            findings.append(_Finding(key, "halt", reason))
            continue
        if d.zone == "" or card is None or d.kind is DiscrepancyKind.MISSING:
            where = "outside every zone" if d.zone == "" else ""
            notes.append(f"camera cannot confirm: {d.detail}" + (f" ({where})" if where else ""))
            continue
        match d.kind:
            case DiscrepancyKind.WRONG_CARD:
                candidates = [c for c in rnd.cards_of(d.zone) if seen.where(c) is None]
                reason = reason_for(card, d.zone, candidates)
                findings.append(_Finding(key, "halt", reason))
            case DiscrepancyKind.WRONG_ZONE:
                reason = (
                    f"broken sequence: camera sees {card} at {d.zone}, the shoe dealt it to "
                    f"{d.expected_zone}"
                )
                findings.append(_Finding(key, "halt", reason))
            case DiscrepancyKind.EXPOSED if before_reveal and d.zone == "dealer":
                reason = f"camera sees the dealer's {card} face up before the reveal"
                findings.append(_Finding(key, "exposed", reason))
            case DiscrepancyKind.EXPOSED if before_reveal and d.zone == "board":
                reason = f"camera sees board card {card} face up before the reveal"
                findings.append(_Finding(key, "halt", reason))
            case _:  # a player's own card turned up, or cards being revealed: it confirms
                pass
    return findings, tuple(notes)
