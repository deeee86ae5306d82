"""What each audience may see of the table, and the messages that tell it.

The :class:`Projector` turns every step of the table (the state before, the state after,
the actions) into MQTT messages, each built for one audience from what that audience may
see: the **public** (displays and every player), one **seat**, the **dealer** console and
the **pit**. Visibility is decided in one place, :func:`visible`:

- a card dealt face up is public, except in a dark box (seed 001: played unseen until the
  showdown);
- the dealer's face-down cards become public when the script reveals them (Triple Action
  shows his first card early); face-down board cards likewise;
- a player hand's face-down cards are seen by the seats that bet on it (not in a dark box)
  and become public at the showdown, unless the hand folded;
- a seat that folded with a side bet settled on the hand's cards sees them once settled
  (its settlement's ``hole_cards``), dark box included; nobody else is shown a folded hand;
- the pit sees every card; nobody else ever sees the shoe's undealt cards, removed or stray
  cards, corrections, halt reasons (which may name hidden cards) or other seats' money.

The projector keeps the sequence counters and the last round's summary; it does no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from controller.cards import Card
from controller.events import (
    Action,
    ClearBets,
    CloseTable,
    DealerExposedEarly,
    Double,
    Event,
    Halt,
    NoMoreBets,
    OpenTable,
    Rebet,
    Redeal,
    ResolveUndecided,
    RestoreSequence,
    Resume,
    RevealDone,
    SeatDeal,
    StartRound,
    UndoBet,
    VoidRound,
)
from controller.games.base import Game
from controller.games.rules import Face, Spot, exact, format_amount
from controller.hands import evaluate
from controller.messages import (
    SEQ_MODULO,
    CardView,
    DealerState,
    EventMessage,
    HandView,
    PitState,
    PublicState,
    Reply,
    RoundSummary,
    SeatState,
    StakeView,
    TimerView,
)
from controller.table import Phase, Round, Stake, TableState, can
from controller.topics import AudienceTopics, Topics

__all__ = ["PIT", "PUBLIC", "Outgoing", "Projector", "visible"]

PUBLIC = "public"
DEALER = "dealer"
PIT = "pit"

#: public event kinds, and the fields of their data the public may read
_PUBLIC_EVENTS: dict[str, tuple[str, ...]] = {
    "phase": ("phase", "next"),
    "no_more_bets": ("round_id",),
    "reveal": ("what", "cards"),
    "round_ended": ("round_id", "outcome"),
    "halted": ("round_id",),
    "resumed": ("round_id",),
    "deck_changed": (),
    # the cards on the layout were collected: a display clears them; from rules 4 the cards
    # dealt again are a new game, linked to the abandoned one
    "redeal": ("round_id", "abandoned_round"),
    "sequence_restored": (),  # the cards were reassigned: a display takes the next state
}
#: the side-bet spots, as settlements name them
_SIDE_SPOTS = frozenset(spot.value for spot in Spot if spot.is_side_bet)
#: event kinds a seat receives when they concern it
_SEAT_EVENTS = frozenset(
    {
        "bet",
        "bets_taken_back",
        "decision",
        "settled",
        "payment",
        "seat_disconnected",
        "seat_returned",
        "seat_ready",
        "alert",
    }
)
#: event kinds the dealer console receives in full
_DEALER_EVENTS = frozenset(
    {
        "phase",
        "no_more_bets",
        "bet",
        "bets_taken_back",
        "decision",
        "reveal",
        "settled",
        "payment",
        "round_ended",
        "halted",
        "resumed",
        "alert",
        "passenger_allowed",
        "seat_disconnected",
        "seat_returned",
        "seat_ready",
        "redeal",
        "sequence_restored",
        "deck_changed",
        "ruling",
    }
)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message to publish."""

    topic: str
    payload: bytes
    retain: bool
    audience: str  # "public", "dealer", "pit" or a seat id


def _is_dealer_card_shown(rnd: Round, index: int) -> bool:
    return "dealer" in rnd.revealed or (index == 1 and "dealer_first" in rnd.revealed)


def _showdown(rnd: Round) -> bool:
    return bool(rnd.settlements) or "showdown" in rnd.revealed


def _folded(rnd: Round, hand: str, also: Iterable[Action] = ()) -> bool:
    """Whether ``hand`` folded: every stake on it folded (on a shared hand one seat's fold
    leaves the hand in play for the others, and their showdown shows it); ``also``: the
    settlements of the step being applied, not in ``rnd`` yet."""
    folded = {seat for h, seat, s in rnd.settlements if h == hand and s.folded}
    folded |= {
        str(a.data.get("seat"))
        for a in also
        if a.kind == "settled" and a.data.get("hand") == hand and a.data.get("folded")
    }
    seats = [stake.seat for stake in rnd.stakes if stake.hand == hand]
    return bool(folded) and all(seat in folded for seat in seats)


def side_bets_stand(game: Game) -> bool:
    """Whether ``game`` settles a side bet on a folded hand's cards: every game does (seeds
    000, 002, 003, 004; seed 001 as decided in its configuration), unless its rules let the
    side bet fall with the hand (texas-poker's ``bonus_stands_after_fold = false``)."""
    return game.option("bonus_stands_after_fold") is not False


def _side_bet_settled(rnd: Round, hand: str, seat: str) -> bool:
    """Whether ``seat`` folded on ``hand`` and its side bet there was settled on the cards."""
    for h, s, settlement in rnd.settlements:
        if h == hand and s == seat:
            return settlement.folded and any(line.spot.is_side_bet for line in settlement.lines)
    return False


def visible(
    rnd: Round,
    position: str,
    index: int,
    face: Face,
    audience: str,
    *,
    showdown: bool = False,
    stand: bool = True,
) -> bool:
    """Whether ``audience`` may see the ``index``-th card of ``position`` now.

    ``audience`` is ``public``, ``dealer``, ``pit`` or a seat id (``seat:3``); ``stand``:
    whether the game settles a side bet on a folded hand's cards (:func:`side_bets_stand`).
    """
    if audience == PIT:
        return True
    shown_down = showdown or _showdown(rnd)
    if position == "dealer":
        return face is Face.UP or _is_dealer_card_shown(rnd, index)
    if position == "board":
        return face is Face.UP or "board" in rnd.revealed
    # a player hand
    dark = position in rnd.dark
    if shown_down and not _folded(rnd, position):
        return True
    if face is Face.UP and not dark:
        return True
    if audience in (PUBLIC, DEALER):
        return False
    if stand and _side_bet_settled(rnd, position, audience):
        return True  # its side bet was settled on these cards: its own seat sees why
    if dark:
        return False
    return any(s.hand == position and s.seat == audience for s in rnd.stakes)


def _card_views(
    rnd: Round, audience: str, only: Callable[[str], bool] | None = None, stand: bool = True
) -> list[CardView]:
    out: list[CardView] = []
    count: dict[str, int] = {}
    for position, card, face in rnd.cards:
        index = count[position] = count.get(position, 0) + 1
        if only is not None and not only(position):
            continue
        shown = visible(rnd, position, index, face, audience, stand=stand)
        out.append(
            CardView(
                position=position, index=index, face=face.value, card=card.code if shown else None
            )
        )
    return out


def _names(cards: list[CardView], folded: list[str], game: Game) -> dict[str, str]:
    """Each position's best hand of the cards this audience sees (with the board's), once
    there are five; a folded hand gets none."""
    shown: dict[str, list[Card]] = {}
    for view in cards:
        if view.card is not None:
            shown.setdefault(view.position, []).append(Card.parse(view.card))
    board = shown.pop("board", [])
    names: dict[str, str] = {}
    for position, own in shown.items():
        held = (*own, *board)
        if position in folded or not 5 <= len(held) <= 7:
            continue
        names[position] = evaluate(held, game.info.ranking).name
    return names


def _stake_view(state: TableState, rnd: Round, stake: Stake) -> StakeView:
    options: list[str] = []
    due = rnd.due
    if state.phase is Phase.DECIDING and due is not None and due.point is not None:
        walk = state.config.game.walk(stake.totals(), stake.decisions)
        if walk.pending is not None and walk.pending.name == due.point.name:
            options = [o.name for o in due.point.options]
    return StakeView(
        hand=stake.hand,
        seat=stake.seat,
        bets={spot.value: format_amount(amount) for spot, amount in stake.totals().items()},
        decisions=list(stake.decisions),
        options=options,
        dark=stake.hand in rnd.dark,
    )


#: the betting buttons that take a hand, and how each is asked of the table for a seat
_HAND_BUTTONS: tuple[tuple[str, Callable[[str, str], Event]], ...] = (
    ("rebet", lambda hand, seat: Rebet(actor=seat, hand=hand, seat=seat)),
    ("double", lambda hand, seat: Double(actor=seat, hand=hand, seat=seat)),
    ("undo_bet", lambda hand, seat: UndoBet(actor=seat, hand=hand, seat=seat)),
    ("clear_bets", lambda hand, seat: ClearBets(actor=seat, hand=hand, seat=seat)),
)


def _seat_can(state: TableState, seat: str, now: float) -> tuple[list[str], dict[str, list[str]]]:
    """The seat's betting buttons the table would accept now (:func:`controller.table.can`):
    the commands (deal among them), and by hand those that take one. Asked during betting only
    (no betting command applies otherwise), on the hands the seat bet on this round or last
    round (no other hand has bets to repeat, double, undo or clear)."""
    rnd = state.round
    if state.phase is not Phase.BETTING or rnd is None:
        return [], {}
    hands = dict.fromkeys(s.hand for s in rnd.stakes if s.seat == seat)
    hands.update(dict.fromkeys(h for h, s, _ in state.last_bets if s == seat))
    if not hands:
        return [], {}  # nothing to repeat, double, undo or clear, and no ante to deal in
    by_hand: dict[str, list[str]] = {}
    for hand in hands:
        names = [name for name, make in _HAND_BUTTONS if can(state, make(hand, seat), now)]
        if names:
            by_hand[hand] = names
    names = ["deal"] if can(state, SeatDeal(actor=seat, seat=seat), now) else []
    names += [name for name, _ in _HAND_BUTTONS if any(name in n for n in by_hand.values())]
    return names, by_hand


class Projector:
    """Builds every audience's messages from the table's steps; keeps the sequence counters."""

    def __init__(
        self,
        topics: Topics,
        *,
        birth: int = 0,
        yellow_seconds: float = 5.0,
        hardware: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.topics = topics
        self.birth = birth
        self.yellow_seconds = yellow_seconds
        self.hardware = hardware or dict
        self._seq: dict[str, int] = {}
        self._last_round: RoundSummary | None = None
        self._last_settlements: dict[str, list[dict[str, Any]]] = {}
        self._pit_settlements: list[dict[str, Any]] = []
        self._seats: set[str] = set()
        # the balances and stakes whose seats are in _seats already (records are immutable:
        # the same object has the same seats, and a step that changes neither makes none)
        self._seats_from: tuple[object, object] = ((), ())

    # ------------------------------------------------------------------ streams

    def _next(self, stream: str) -> int:
        seq = self._seq.get(stream, -1) + 1
        seq %= SEQ_MODULO
        self._seq[stream] = seq
        return seq

    def _envelope(self, stream: str, now: float) -> dict[str, Any]:
        return {
            "table": self.topics.table_id,
            "birth": self.birth,
            "seq": self._next(stream),
            "at": now,
        }

    @staticmethod
    def _encode(model: BaseModel) -> bytes:
        return model.model_dump_json(exclude_none=False).encode()

    def _topics_of(self, audience: str) -> AudienceTopics | None:
        if audience == PUBLIC:
            return None
        if audience == DEALER:
            return self.topics.dealer
        if audience == PIT:
            return self.topics.pit
        return self.topics.seat(audience)

    def add_seat(self, seat: str) -> None:
        """A seat came online: its own view is published from now on."""
        self._seats.add(seat)

    def new_birth(self, birth: int) -> None:
        """A new connection to the broker: every stream starts again at 0."""
        self.birth = birth
        self._seq.clear()

    # ------------------------------------------------------------------ states

    def _timers(self, state: TableState, now: float) -> list[TimerView]:
        rnd = state.round
        timers: list[TimerView] = []
        if rnd is None:
            return timers
        named: tuple[tuple[Literal["betting", "decision"], float | None, bool], ...] = (
            ("betting", rnd.betting_deadline, state.phase is Phase.BETTING),
            ("decision", rnd.decision_deadline, state.phase is Phase.DECIDING),
        )
        for name, deadline, running in named:
            if deadline is None or not running:
                continue
            remaining = max(0.0, deadline - now)
            light: Literal["green", "yellow", "red"] = (
                "red"
                if remaining <= 0
                else "yellow"
                if remaining <= self.yellow_seconds
                else "green"
            )
            timers.append(
                TimerView(
                    name=name,
                    deadline=deadline,
                    remaining=round(remaining, 3),
                    light=light,
                    yellow_seconds=self.yellow_seconds,
                )
            )
        return timers

    def public_state(self, state: TableState, now: float) -> PublicState:
        """The public view of the table."""
        rnd = state.round
        due = rnd.due if rnd is not None else None
        game = state.config.game
        limits = {
            spot.value: [format_amount(lim.minimum), format_amount(lim.maximum)]
            for spot, lim in game.config.limits.items()
        }
        cards = _card_views(rnd, PUBLIC) if rnd else []
        folded = [h for h in rnd.in_play if _all_folded(game, rnd, h)] if rnd else []
        return PublicState(
            **self._envelope(PUBLIC, now),
            game=game.info.id.value,
            title=game.info.title,
            phase=state.phase.value,
            round_id=rnd.round_id if rnd else None,
            abandoned=list(rnd.abandoned) if rnd else [],
            next="halted" if state.phase is Phase.HALTED else state.next_due,
            next_position=(
                due.position
                if due is not None and due.kind == "card" and state.phase is Phase.DEALING
                else None
            ),
            hands_in_play=list(rnd.in_play) if rnd else [],
            cards=cards,
            timers=self._timers(state, now),
            halted=state.phase is Phase.HALTED,
            halt_words=public_halt_words(rnd.halted_by)
            if rnd is not None and state.phase is Phase.HALTED
            else "",
            last_round=self._last_round,
            limits=limits,
            buttons=dict(game.config.buttons.labels) if game.config.buttons else {},
            names=_names(cards, folded, game),
            folded=folded,
        )

    def seat_state(self, state: TableState, seat: str, now: float) -> SeatState:
        """One seat's own view."""
        rnd = state.round
        balance = state.balance(seat)
        mine = [s for s in rnd.stakes if s.seat == seat] if rnd else []
        hands = {s.hand for s in mine}
        can_now, can_hands = _seat_can(state, seat, now)
        return SeatState(
            **self._envelope(seat, now),
            seat=seat,
            phase=state.phase.value,
            round_id=rnd.round_id if rnd else None,
            abandoned=list(rnd.abandoned) if rnd else [],
            balance=None if balance is None else format_amount(balance),
            stakes=[_stake_view(state, rnd, s) for s in mine] if rnd else [],
            cards=(
                _card_views(rnd, seat, hands.__contains__, side_bets_stand(state.config.game))
                if rnd
                else []
            ),
            settlements=self._last_settlements.get(seat, []),
            can=can_now,
            can_hands=can_hands,
        )

    def dealer_state(self, state: TableState, now: float) -> DealerState:
        """The dealer console's view: the layout and the money, no hidden card faces."""
        rnd = state.round
        due = rnd.due if rnd is not None else None
        payments: list[dict[str, str]] = []
        if rnd is not None and state.phase is Phase.SETTLING:
            paid = {(h, s) for h, s, _ in rnd.paid}
            payments = [
                {"hand": h, "seat": s, "amount": format_amount(st.returned)}
                for h, s, st in rnd.settlements
                if st.returned > 0 and (h, s) not in paid
            ]
        return DealerState(
            **self._envelope(DEALER, now),
            phase=state.phase.value,
            round_id=rnd.round_id if rnd else None,
            abandoned=list(rnd.abandoned) if rnd else [],
            next=state.next_due,
            next_position=(
                due.position
                if due is not None and due.kind == "card" and state.phase is Phase.DEALING
                else None
            ),
            halt_reason=rnd.halt_reason if rnd else "",
            halted_by=rnd.halted_by if rnd else "",
            cards=_card_views(rnd, DEALER) if rnd else [],
            stakes=[_stake_view(state, rnd, s) for s in rnd.stakes] if rnd else [],
            payments_due=payments,
            can=_can(state, now, _dealer_commands(state)),
            hardware=self.hardware(),
        )

    def pit_state(self, state: TableState, now: float) -> PitState:
        """Everything."""
        rnd = state.round
        return PitState(
            **self._envelope(PIT, now),
            phase=state.phase.value,
            round_id=rnd.round_id if rnd else None,
            abandoned=list(rnd.abandoned) if rnd else [],
            next=state.next_due,
            halt_reason=rnd.halt_reason if rnd else "",
            halted_by=rnd.halted_by if rnd else "",
            deck_id=state.deck_id,
            cards=_card_views(rnd, PIT) if rnd else [],
            stakes=[_stake_view(state, rnd, s) for s in rnd.stakes] if rnd else [],
            balances={seat: format_amount(b) for seat, b in state.balances},
            settlements=self._pit_settlements,
            payments_confirmed=[
                {"hand": h, "seat": s, "amount": format_amount(exact(amount))}
                for h, s, amount in (rnd.paid if rnd else ())
            ],
            corrections=[
                {"position": p, "index": i, "was": w, "now": n, "by": who, "reason": why}
                for p, i, w, n, who, why in (rnd.corrections if rnd else ())
            ],
            removed=[c.code for c in rnd.removed] if rnd else [],
            stray=[c.code for c in rnd.stray] if rnd else [],
            hardware=self.hardware(),
            rounds_started=state.rounds_started,
            seats_away=list(state.away),
            seats_ready=sorted(rnd.ready) if rnd else [],
            can=_can(state, now, _PIT_COMMANDS),
        )

    def _note_seats(self, state: TableState) -> None:
        """Add the seats of ``state`` (its balances, its round's stakes) to those seen."""
        balances = state.balances
        stakes = state.round.stakes if state.round is not None else ()
        seen_balances, seen_stakes = self._seats_from
        if balances is not seen_balances:
            self._seats.update([seat for seat, _ in balances])
        if stakes is not seen_stakes:
            self._seats.update([s.seat for s in stakes])
        self._seats_from = (balances, stakes)

    def states(
        self, state: TableState, now: float, only: Collection[str] | None = None
    ) -> list[Outgoing]:
        """Every audience's retained state (a birth or a rebirth), or only those in ``only``.

        Only the states returned take a sequence number, so an audience whose state is not
        republished sees no gap.
        """
        self._note_seats(state)
        wanted = None if only is None else set(only)
        out = []
        staff: list[tuple[str, str, Callable[[TableState, float], BaseModel]]] = [
            (PUBLIC, self.topics.state, self.public_state),
            (DEALER, self.topics.dealer.state, self.dealer_state),
            (PIT, self.topics.pit.state, self.pit_state),
        ]
        for audience, topic, build in staff:
            if wanted is None or audience in wanted:
                out.append(Outgoing(topic, self._encode(build(state, now)), True, audience))
        for seat in sorted(self._seats):
            if wanted is None or seat in wanted:
                message = self.seat_state(state, seat, now)
                out.append(
                    Outgoing(self.topics.seat(seat).state, self._encode(message), True, seat)
                )
        return out

    # ------------------------------------------------------------------ steps

    def event(
        self, audience: str, topic: str, kind: str, data: dict[str, Any], now: float
    ) -> Outgoing:
        """One event message on ``audience``'s stream."""
        message = EventMessage(**self._envelope(audience, now), event=kind, data=data)
        return Outgoing(topic, self._encode(message), False, audience)

    def observe(self, before: TableState, after: TableState, actions: Iterable[Action]) -> None:
        """Keep what later views need (the last round's summary, the settlements)."""
        actions = list(actions)
        settled_now: list[Action] = []
        ended: Action | None = None
        for action in actions:
            if action.kind == "settled":
                settled_now.append(action)
            elif action.kind == "round_ended" and ended is None:
                ended = action
        if settled_now:
            self._record_settlements(settled_now, before, after, actions)
        if ended is not None:
            self._last_round = self._summary(before, actions, ended)
        self._note_seats(after)

    def step(
        self, before: TableState, after: TableState, actions: Iterable[Action], now: float
    ) -> list[Outgoing]:
        """The messages for one handled input: events per audience, then changed states."""
        actions = list(actions)
        out = self.step_events(before, after, actions, now)
        return out + self.states(after, now) if actions else out

    def step_events(
        self, before: TableState, after: TableState, actions: Iterable[Action], now: float
    ) -> list[Outgoing]:
        """The event messages of one handled input, per audience (the states follow apart).

        A publisher sends these before it builds the states: a display learns of a card as
        soon as the controller knows it, not after every audience's state is rendered.
        """
        return list(self.iter_events(before, after, actions, now))

    def iter_events(
        self, before: TableState, after: TableState, actions: Iterable[Action], now: float
    ) -> Iterator[Outgoing]:
        """:meth:`step_events` one message at a time, each built when it is asked for (a
        publisher sends the public card event before the other audiences' are built)."""
        actions = list(actions)
        snapshot = after.round or before.round
        self.observe(before, after, actions)
        for action in actions:
            yield from self._route(before, after, snapshot, action, now)

    def _route(
        self,
        before: TableState,
        after: TableState,
        snapshot: Round | None,
        action: Action,
        now: float,
    ) -> Iterator[Outgoing]:
        kind, data = action.kind, action.data
        if kind == "card":
            yield (
                self.event(
                    PUBLIC,
                    self.topics.events,
                    kind,
                    self._card_for(after, snapshot, data, PUBLIC),
                    now,
                )
            )
            rnd = after.round or snapshot
            seats = {s.seat for s in rnd.stakes if s.hand == data["position"]} if rnd else set()
            for seat in sorted(seats):
                yield (
                    self.event(
                        seat,
                        self.topics.seat(seat).events,
                        kind,
                        self._card_for(after, snapshot, data, seat),
                        now,
                    )
                )
        elif kind == "card_corrected":  # a misread corrected: the public sees the new face
            rnd = after.round or snapshot
            public = {"position": data["position"], "index": data["index"], "card": None}
            cards = [(f, c) for p, c, f in rnd.cards if p == data["position"]] if rnd else []
            index = int(data["index"])
            if rnd is not None and index <= len(cards):
                face = cards[index - 1][0]
                if visible(rnd, str(data["position"]), index, face, PUBLIC):
                    public["card"] = data["now"]
            yield (self.event(PUBLIC, self.topics.events, kind, public, now))
        elif kind in _PUBLIC_EVENTS:
            public = {k: data[k] for k in _PUBLIC_EVENTS[kind] if k in data}
            if kind == "phase" and after.phase is Phase.HALTED:
                public["next"] = "halted"
            yield (self.event(PUBLIC, self.topics.events, kind, public, now))
        if kind in _SEAT_EVENTS:
            target = data.get("seat") or data.get("audience")
            if isinstance(target, str) and target.startswith("seat:"):
                seat = target
                copy = self._seat_copy(seat, kind, data)
                yield (self.event(seat, self.topics.seat(seat).events, kind, copy, now))
        if kind == "card":
            yield (
                self.event(
                    DEALER,
                    self.topics.dealer.events,
                    kind,
                    self._card_for(after, snapshot, data, DEALER),
                    now,
                )
            )
        elif kind in _DEALER_EVENTS:
            yield (
                self.event(DEALER, self.topics.dealer.events, kind, _staff_copy(kind, data), now)
            )
        yield (self.event(PIT, self.topics.pit.events, kind, data, now))
        if kind in ("halted", "alert"):
            yield (self.event(PIT, self.topics.pit.alerts, kind, data, now))

    @staticmethod
    def _card_for(
        after: TableState, snapshot: Round | None, data: dict[str, Any], audience: str
    ) -> dict[str, Any]:
        """A card event as ``audience`` may see it: the face hidden unless it may see it."""
        out = dict(data)
        rnd = after.round or snapshot
        position = str(data["position"])
        index = sum(1 for p, _, _ in rnd.cards if p == position) if rnd is not None else 0
        stand = side_bets_stand(after.config.game)
        face = Face(data["face"])
        if rnd is None or not visible(rnd, position, max(index, 1), face, audience, stand=stand):
            out["card"] = None
        return out

    def _seat_copy(self, seat: str, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        """An event for ``seat``: a settlement as kept for its state (see
        :meth:`_record_settlements`), anything else as the staff see it."""
        if kind == "settled":
            hand = data.get("hand")
            kept = self._last_settlements.get(seat, [])
            copy = next((d for d in kept if d.get("hand") == hand), None)
            if copy is not None:
                return copy
        return _staff_copy(kind, data)

    def _record_settlements(
        self, settled: list[Action], before: TableState, after: TableState, actions: list[Action]
    ) -> None:
        """Keep each seat's copy of the settlements (a folded stake's side bet settled on the
        hand's cards carries them as ``hole_cards``: its seat sees why it was paid or lost)."""
        by_seat: dict[str, list[dict[str, Any]]] = {}
        stand = side_bets_stand(after.config.game)
        for action in settled:
            seat = str(action.data.get("seat"))
            copy = _staff_copy("settled", action.data)
            if stand and _side_bet_on_fold(action.data):
                hole = _dealt_to(before, after, actions, str(action.data.get("hand")))
                copy = {**copy, "hole_cards": hole}
            by_seat.setdefault(seat, []).append(copy)
        self._last_settlements = by_seat
        self._pit_settlements = [a.data for a in settled]

    def _summary(self, before: TableState, actions: list[Action], ended: Action) -> RoundSummary:
        rnd = before.round
        outcome = str(ended.data.get("outcome", ""))
        round_id = str(ended.data.get("round_id", ""))
        if rnd is None or outcome != "complete":
            return RoundSummary(round_id=round_id, outcome=outcome)
        cards: list[tuple[str, Any, Any]] = list(rnd.cards)
        cards += [
            (str(a.data["position"]), a.data["card"], a.data["face"])
            for a in actions
            if a.kind == "card"
        ]
        # every stake's settlement, by hand: this step's, then those made earlier in the round
        settled: dict[str, list[dict[str, Any]]] = {}
        done: set[tuple[str, str]] = set()
        for a in actions:
            if a.kind == "settled":
                key = (str(a.data["hand"]), str(a.data.get("seat")))
                done.add(key)
                settled.setdefault(key[0], []).append(a.data)
        for h, seat, s in rnd.settlements:
            if (h, seat) not in done:
                settled.setdefault(h, []).append({"folded": s.folded, **s.to_json()})

        def codes(position: str) -> list[str]:
            return [c if isinstance(c, str) else c.code for p, c, _ in cards if p == position]

        hands: list[HandView] = []
        dealer_name: str | None = None
        for hand in rnd.in_play:
            docs = settled.get(hand, [])
            folded = _folded(rnd, hand, actions)
            played = [d for d in docs if not d.get("folded")]
            name = None
            for doc in docs:
                if "dealer_hand" in doc:
                    dealer_name = str(doc["dealer_hand"]["name"])
            shown = next((d for d in played if "player_hand" in d), None)
            if shown is not None and not folded:
                name = str(shown["player_hand"]["name"])
            # the main bet's result: the same for every stake played on the hand
            mains = {
                str(ln.get("result"))
                for d in played
                for ln in d.get("lines", [])
                if ln.get("spot") == Spot.ANTE.value
            }
            result = mains.pop() if len(mains) == 1 and not folded else None
            hand_cards: list[str | None] = (
                [None] * len(codes(hand)) if folded else list(codes(hand))
            )
            hands.append(
                HandView(
                    hand=hand,
                    cards=hand_cards,
                    name=name,
                    folded=folded,
                    result=result,
                    # a folded hand's bets would tell its category: never public
                    payouts=[] if folded else _payouts(played),
                )
            )
        dealer = HandView(hand="dealer", cards=list(codes("dealer")), name=dealer_name)
        return RoundSummary(
            round_id=round_id, outcome=outcome, dealer=dealer, board=codes("board"), hands=hands
        )

    # ------------------------------------------------------------------ replies

    def reply(
        self,
        audience: str,
        command_id: str,
        command: str,
        ok: bool,
        reason: str,
        now: float,
        *,
        repeated: bool = False,
    ) -> Outgoing:
        """The answer to one command, on the sender's reply topic (``repeated``: the first
        answer to a command sent again with the same id, not applied again)."""
        topics = self._topics_of(audience)
        assert topics is not None, "the public sends no commands"
        message = Reply(
            **self._envelope(audience, now),
            id=command_id,
            command=command,
            ok=ok,
            reason=reason,
            repeated=repeated,
        )
        return Outgoing(topics.reply, self._encode(message), False, audience)


def _all_folded(game: Game, rnd: Round, hand: str) -> bool:
    """Whether every stake on ``hand`` folded already (a fold decided, or settled folded)."""
    stakes = [s for s in rnd.stakes if s.hand == hand]
    if stakes and all(s.decisions and game.walk(s.totals(), s.decisions).folded for s in stakes):
        return True
    return _folded(rnd, hand)


def _payouts(docs: list[dict[str, Any]]) -> list[dict[str, str | None]]:
    """The main game's bets on a hand, from the settlements (their JSON) of the stakes played
    on it: each spot's result and the odds paid on a win, once each; no amount and no side
    bet (those are the seats' own)."""
    out: list[dict[str, str | None]] = []
    seen: set[tuple[Any, ...]] = set()
    for doc in docs:
        for line in doc.get("lines", ()):
            spot = str(line.get("spot"))
            key = (spot, line.get("result"), line.get("odds"))
            if spot in _SIDE_SPOTS or key in seen:
                continue
            seen.add(key)
            out.append({"spot": spot, "result": line.get("result"), "odds": line.get("odds")})
    return out


#: the pit's commands a console offers as buttons, by name (the name is the button's)
_PIT = "pit:console"
_PIT_COMMANDS: tuple[tuple[str, Event], ...] = (
    ("open_table", OpenTable(actor=_PIT)),
    ("close_table", CloseTable(actor=_PIT)),
    ("resume", Resume(actor=_PIT, note="")),
    ("void_round", VoidRound(actor=_PIT, reason="void")),
    ("redeal", Redeal(actor=_PIT, reason="redeal")),
    ("rule_return", ResolveUndecided(actor=_PIT, ruling="return")),
    ("rule_fold", ResolveUndecided(actor=_PIT, ruling="fold")),
)


def _dealer_commands(state: TableState) -> list[tuple[str, Event]]:
    """The dealer's commands a console offers as buttons (the sequence restored as dealt)."""
    rnd = state.round
    dealt = " ".join(f"{p}:{c.code}" for p, c, _ in rnd.cards) if rnd is not None else ""
    return [
        ("start_round", StartRound(actor=DEALER)),
        ("no_more_bets", NoMoreBets(actor=DEALER)),
        ("reveal_done", RevealDone(actor=DEALER)),
        ("halt", Halt(actor=DEALER, reason="halt")),
        ("resume", Resume(actor=DEALER, note="")),
        ("restore_sequence", RestoreSequence(actor=DEALER, cards=dealt)),
        ("redeal", Redeal(actor=DEALER, reason="redeal")),
        ("dealer_exposed_early", DealerExposedEarly(actor=DEALER)),
    ]


def _can(state: TableState, now: float, commands: Iterable[tuple[str, Event]]) -> dict[str, bool]:
    """Whether the table would take each command now (:func:`controller.table.can`)."""
    return {name: can(state, event, now) for name, event in commands}


#: why a round stopped, as the public may read it: by who stopped it, never the reason's text
#: (a halt's reason can name a face-down card or an amount: the pit's state has it whole)
_PUBLIC_HALTS = {
    "shoe": "the card shoe reported a card out of sequence or a fault; the dealer and the pit "
    "manager are checking it",
    "camera": "the camera and the card shoe disagree about a card; the pit manager is checking it",
    "dealer": "the dealer stopped the round to check the table",
    "pit": "the pit manager stopped the round to check the table",
    "system": "the table restarted during the round; the pit manager is checking it before "
    "the round goes on",
}


def public_halt_words(halted_by: str) -> str:
    """Why a round is halted, in words any player may read (who stopped it; no card, no amount).

    >>> public_halt_words("pit:ann")
    'the pit manager stopped the round to check the table'
    >>> public_halt_words("")
    'the round is stopped while the table is checked'
    """
    role = halted_by.partition(":")[0]
    return _PUBLIC_HALTS.get(role, "the round is stopped while the table is checked")


def _side_bet_on_fold(data: dict[str, Any]) -> bool:
    """Whether a settlement (its JSON) is a folded stake's with a side bet settled."""
    return bool(data.get("folded")) and any(
        line.get("spot") in _SIDE_SPOTS for line in data.get("lines", ())
    )


def _dealt_to(before: TableState, after: TableState, actions: list[Action], hand: str) -> list[str]:
    """The cards dealt to ``hand`` in the round of this step (the step may end the round)."""
    if after.round is not None:
        return [card.code for card in after.round.cards_of(hand)]
    dealt = [card.code for card in before.round.cards_of(hand)] if before.round else []
    for action in actions:
        if action.kind == "card" and action.data.get("position") == hand:
            card = action.data["card"]
            dealt.append(card if isinstance(card, str) else card.code)
    return dealt


def _staff_copy(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event for the dealer or a seat: no removed or corrected card faces, no folded cards."""
    if kind in ("redeal", "sequence_restored"):
        return {
            k: v for k, v in data.items() if k in ("by", "reason", "round_id", "abandoned_round")
        }
    if kind == "settled" and data.get("folded"):
        return {k: v for k, v in data.items() if k != "player_hand"}
    return data
