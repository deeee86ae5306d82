"""The MQTT payloads: versioned pydantic models, one per message an audience receives.

Every message the controller publishes carries the schema version ``v``, the table, the
``birth`` counter (one more each time the controller connects to the broker, as in
Sparkplug B) and ``seq``, a sequence number that wraps at 65,536 and counts every message of
one audience's stream (its state, events and replies). A subscriber that sees a gap asks for
a rebirth and resynchronises on the next state message. Commands come in as
:class:`Command`; each gets one :class:`Reply` with the same correlation ``id``.

The JSON Schema of every model is exported to ``docs/schemas/`` by
``tablectl topics schemas``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "MESSAGE_MODELS",
    "SCHEMA_VERSION",
    "SEQ_MODULO",
    "CardView",
    "Command",
    "DealerState",
    "EventMessage",
    "HandView",
    "PitState",
    "PublicState",
    "Reply",
    "RoundSummary",
    "SeatState",
    "StakeView",
    "TimerView",
]

SCHEMA_VERSION: Literal[1] = 1
SEQ_MODULO = 65_536


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Envelope(_Model):
    v: Literal[1] = Field(default=SCHEMA_VERSION, description="schema version")
    table: str = Field(description="table id")
    birth: int = Field(ge=0, description="the controller's birth counter")
    seq: int = Field(ge=0, lt=SEQ_MODULO, description="sequence number in this stream")
    at: float = Field(description="the table time of the input this message answers (Unix s)")


class CardView(_Model):
    """One dealt card as an audience sees it: ``card`` is null while it is hidden from it."""

    position: str = Field(description="box 3, player, dealer or board")
    index: int = Field(ge=1, description="1 for the position's first card")
    face: Literal["up", "down"]
    card: str | None = Field(description="the card code (AS, TD, ...), or null while hidden")


class TimerView(_Model):
    """A running timer: betting (traffic lights) or decisions."""

    name: Literal["betting", "decision"]
    deadline: float
    remaining: float = Field(ge=0)
    light: Literal["green", "yellow", "red"]
    yellow_seconds: float = Field(
        default=0, ge=0, description="the light turns yellow this many seconds before the deadline"
    )


class HandView(_Model):
    """A player hand (or the dealer's) at the showdown, as far as this audience may see it."""

    hand: str
    cards: list[str | None]
    name: str | None = Field(description="the hand's spoken name, once its cards are shown")
    folded: bool = False
    result: str | None = Field(
        default=None, description="the main bet's result for this hand: win, lose or push"
    )
    payouts: list[dict[str, str | None]] = Field(
        default_factory=list,
        description="the main game's bets on this hand at the showdown: spot, result and the "
        "odds paid on a win (no amount, no side bet: those are the seats' own)",
    )


class RoundSummary(_Model):
    """How the last round ended."""

    round_id: str
    outcome: str = Field(description="complete, void or no bets")
    dealer: HandView | None = None
    board: list[str] = Field(default_factory=list)
    hands: list[HandView] = Field(default_factory=list)


class PublicState(_Envelope):
    """Retained on ``tablectl/<t>/state``: what any display and any player may see."""

    type: Literal["state"] = "state"
    audience: Literal["public"] = "public"
    game: str
    title: str
    phase: str
    round_id: str | None
    abandoned: list[str] = Field(
        default_factory=list,
        description="the games this round replaced, oldest first (a redeal opens a new game)",
    )
    next: str = Field(description="what the table waits for, in words")
    next_position: str | None = Field(description="the position the next card goes to")
    hands_in_play: list[str]
    cards: list[CardView]
    timers: list[TimerView]
    halted: bool
    halt_words: str = Field(
        default="",
        description="while halted, why in words a player may read: who stopped the round and "
        "what is being checked, never a card or an amount (the pit's state has the reason)",
    )
    last_round: RoundSummary | None
    limits: dict[str, list[str]] = Field(description="bet spot: [minimum, maximum]")
    buttons: dict[str, str] = Field(
        default_factory=dict,
        description="the game's betting buttons a seat's page shows, by command (deal, rebet, "
        "double, undo_bet, clear_bets), named as its document names them, in its order; empty: "
        "a game whose document names no buttons",
    )
    names: dict[str, str] = Field(
        default_factory=dict,
        description="each position's best hand of the cards shown so far (its own and the "
        "board's, five or more), by position: player, box 3, dealer",
    )
    folded: list[str] = Field(
        default_factory=list, description="the hands of this round that folded (every stake)"
    )


class StakeView(_Model):
    """One seat's bets on one hand, its decisions, and what it may decide now."""

    hand: str
    seat: str
    bets: dict[str, str]
    decisions: list[str]
    options: list[str] = Field(description="what this stake may decide now (empty: nothing)")
    dark: bool = False


class SeatState(_Envelope):
    """Retained on ``tablectl/<t>/seat/seat-<id>/state``: one seat's own view."""

    type: Literal["state"] = "state"
    audience: Literal["seat"] = "seat"
    seat: str
    phase: str
    round_id: str | None
    abandoned: list[str] = Field(
        default_factory=list,
        description="the games this round replaced, oldest first (a redeal opens a new game)",
    )
    balance: str | None = Field(
        description="null at a table that keeps no balances (a physical table: chips on the felt)"
    )
    stakes: list[StakeView]
    cards: list[CardView] = Field(description="the cards of this seat's hands it may see")
    settlements: list[dict[str, Any]] = Field(description="this seat's settlements, last round")
    can: list[str] = Field(
        default_factory=list,
        description="the betting buttons this seat may press now, by command (deal, rebet, "
        "double, undo_bet, clear_bets): those the table would accept now, for at least one of "
        "its hands (by hand in can_hands); empty outside betting",
    )
    can_hands: dict[str, list[str]] = Field(
        default_factory=dict,
        description="by hand of this seat (its bets this round or last round), the commands "
        "taking a hand (rebet, double, undo_bet, clear_bets) the table would accept now",
    )


class DealerState(_Envelope):
    """Retained on ``tablectl/<t>/dealer/state``: the dealer console (no hidden card faces)."""

    type: Literal["state"] = "state"
    audience: Literal["dealer"] = "dealer"
    phase: str
    round_id: str | None
    abandoned: list[str] = Field(
        default_factory=list,
        description="the games this round replaced, oldest first (a redeal opens a new game)",
    )
    next: str
    next_position: str | None
    halt_reason: str
    halted_by: str = Field(
        default="", description="who halted the round: shoe, camera, dealer, pit:NAME or system"
    )
    cards: list[CardView]
    stakes: list[StakeView]
    payments_due: list[dict[str, str]] = Field(description="hand, seat, amount to pay")
    can: dict[str, bool] = Field(
        default_factory=dict,
        description="each dealer command without a choice to make (start_round, "
        "no_more_bets, reveal_done, halt, resume, restore_sequence with the cards as dealt, "
        "redeal, dealer_exposed_early): whether the table would take it now",
    )
    hardware: dict[str, Any] = Field(
        description="status of the shoe, camera, broker link and journal (write_ms: the last "
        "durable write, slowest_ms: the slowest of the latest 1,024 to 2,048)"
    )


class PitState(_Envelope):
    """Retained on ``tablectl/<t>/pit/state``: everything, hidden cards included."""

    type: Literal["state"] = "state"
    audience: Literal["pit"] = "pit"
    phase: str
    round_id: str | None
    abandoned: list[str] = Field(
        default_factory=list,
        description="the games this round replaced, oldest first (a redeal opens a new game)",
    )
    next: str
    halt_reason: str
    halted_by: str = Field(
        default="", description="who halted the round: shoe, camera, dealer, pit:NAME or system"
    )
    deck_id: str
    cards: list[CardView]
    stakes: list[StakeView]
    balances: dict[str, str]
    settlements: list[dict[str, Any]]
    payments_confirmed: list[dict[str, str]] = Field(
        default_factory=list,
        description="hand, seat, amount: the payments the dealer confirmed in this round "
        "(a void then needs the pit manager's confirm_paid)",
    )
    corrections: list[dict[str, Any]]
    removed: list[str]
    stray: list[str]
    hardware: dict[str, Any] = Field(
        description="status of the shoe, camera, broker link and journal (write_ms: the last "
        "durable write, slowest_ms: the slowest of the latest 1,024 to 2,048)"
    )
    rounds_started: int
    seats_away: list[str] = Field(
        default_factory=list,
        description="remote seats disconnected and not back (a return is journaled: seat_returned)",
    )
    seats_ready: list[str] = Field(
        default_factory=list,
        description="the seats that pressed Deal in this round (betting closes once every seat "
        "with a bet is among them)",
    )
    can: dict[str, bool] = Field(
        default_factory=dict,
        description="each pit command without a choice to make (open_table, close_table, "
        "resume, void_round, redeal, resolve_undecided as return and as fold): whether the "
        "table would take it now",
    )


class EventMessage(_Envelope):
    """One event on an audience's event stream (``events`` or, for the pit, ``alerts``)."""

    type: Literal["event"] = "event"
    event: str = Field(description="card, phase, reveal, round_ended, halted, settled, ...")
    data: dict[str, Any]


class Reply(_Envelope):
    """The answer to one command, on the sender's ``reply`` topic."""

    type: Literal["reply"] = "reply"
    id: str = Field(description="the command's correlation id")
    command: str
    ok: bool
    reason: str = Field(default="", description="why the command was refused")
    repeated: bool = Field(
        default=False,
        description=(
            "the command's id was already answered: this is that first answer again, and the "
            "command was not applied again"
        ),
    )


class Command(_Model):
    """A command on a ``cmd`` topic: the event's own fields beside these three.

    ``{"v": 1, "id": "c-17", "command": "place_bet", "hand": "player", "spot": "ante",
    "amount": "10"}``. The topic says who sends it; a seat's own id is filled in.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    v: Literal[1] = SCHEMA_VERSION
    id: str = Field(min_length=1, max_length=64, description="correlation id for the reply")
    command: str = Field(min_length=1, max_length=40)
    by: str | None = Field(default=None, max_length=40, description="pit manager's name")


#: every published model and its schema file name under docs/schemas/
MESSAGE_MODELS: dict[str, type[BaseModel]] = {
    "public-state": PublicState,
    "seat-state": SeatState,
    "dealer-state": DealerState,
    "pit-state": PitState,
    "event": EventMessage,
    "reply": Reply,
    "command": Command,
}
