"""Scenario files: a table, a stacked shoe, timed commands and expectations, in plain text.

A scenario reproduces a round exactly, for hardware-in-the-loop rigs and for disputes: it
is played through the real state machine, and the first expectation that does not hold
stops it with the line number and what was expected and found. The format is documented
in ``docs/scenarios.md``; in short, one statement a line, ``#`` starts a comment::

    table S1 casino-holdem shared player          # id, game, seating, hands
    balance seat:1 1000                           # studio seats' balances (optional)
    shoe AH QC 2H JD 5H 9H KH 3C 7D               # the stacked shoe, drawn when a card is due
    at 0 pit:ann open_table
    at 1 dealer start_round
    at 2 seat:1 bet player ante 10
    at 3 dealer no_more_bets                      # cards are drawn from the shoe as due
    at 9 seat:1 decide player call
    at 12 dealer reveal_done
    expect phase idle
    expect line player seat:1 ante win 20         # spot, result, amount paid
    expect net player seat:1 20

The overhead camera takes part through ``at SECONDS camera sees ZONE:CARD ...`` lines (a
stable view of the felt, checked against the shoe by :mod:`controller.crosscheck`), the
``zones`` statement and ``option camera on|off``.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from config.camera import ZoneLayout, table_layout
from config.schema import load_game
from controller.camera import CameraObservation, ZoneObservation
from controller.cards import Card, parse_cards
from controller.crosscheck import CheckResult, CrossCheck
from controller.errors import ConfigError, TableError
from controller.events import (
    Action,
    AllowPassenger,
    CardDrawn,
    ChangeDeck,
    ClearBets,
    CloseTable,
    ConfirmPayment,
    CorrectCard,
    DealerExposedEarly,
    Decide,
    Double,
    Event,
    Halt,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    Rebet,
    Redeal,
    ResolveUndecided,
    RestoreSequence,
    Resume,
    RevealDone,
    SeatDeal,
    SeatDisconnected,
    SeatReturned,
    StartRound,
    Tick,
    UndoBet,
    VoidRound,
    parse_amount,
)
from controller.games import Seating
from controller.games.base import Game
from controller.games.rules import Spot, format_amount
from controller.table import Phase, TableConfig, TableState, handle, new_table
from tablectl.workers import shown

__all__ = [
    "Scenario",
    "ScenarioError",
    "ScenarioFailed",
    "parse_scenario",
    "play_scenario",
    "run_scenario",
    "scenario_game",
]

T0 = 1_790_000_000.0  # scenario time 0, a fixed UTC instant, so round ids are reproducible


class ScenarioError(TableError):
    """A scenario file that cannot be read: the message names the line and the problem."""


class ScenarioFailed(TableError):
    """An expectation that did not hold: the message names the line, the wanted and the found."""


@dataclass(frozen=True, slots=True)
class Step:
    """One timed command or one expectation, with its line number."""

    line: int
    at: float | None  # commands only
    event: Event | None = None
    expect: tuple[str, ...] = ()
    observation: CameraObservation | None = None  # what the camera sees (``camera sees``)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A parsed scenario."""

    table_id: str
    game: str
    seating: Seating
    hands: tuple[str, ...]
    balances: dict[str, Fraction] = field(default_factory=dict)
    shoe: tuple[Card, ...] = ()
    steps: tuple[Step, ...] = ()
    options: dict[str, float | bool] = field(default_factory=dict)
    zones: str = ""  # the camera's zone layout: a shipped name or a path ("" = by seating)
    variants: dict[str, str] = field(default_factory=dict)  # paytable variant by role


def _event(actor: str, verb: str, args: list[str], where: str) -> Event:
    def need(n: int, usage: str) -> None:
        if len(args) != n:
            raise ScenarioError(f"{where}: {verb} takes {usage}; got {' '.join(args) or 'nothing'}")

    simple: dict[str, Callable[[], Event]] = {
        "open_table": lambda: OpenTable(actor=actor),
        "close_table": lambda: CloseTable(actor=actor),
        "start_round": lambda: StartRound(actor=actor),
        "no_more_bets": lambda: NoMoreBets(actor=actor),
        "reveal_done": lambda: RevealDone(actor=actor),
        "dealer_exposed_early": lambda: DealerExposedEarly(actor=actor),
        "tick": lambda: Tick(actor=actor),
    }
    if verb in simple:
        need(0, "no arguments")
        return simple[verb]()
    text = " ".join(args)
    try:
        match verb:
            case "bet":
                dark = len(args) == 5 and args[4] == "dark"
                if not dark:
                    need(4, "HAND SEAT SPOT AMOUNT [dark] (a hand with a space is quoted: 'box 2')")
                return PlaceBet(actor=actor, hand=args[0], seat=args[1], spot=Spot(args[2]),
                                amount=Fraction(args[3]), dark=dark)  # fmt: skip
            case "allow_passenger":
                need(2, "HAND SEAT (the box, and the passenger its owner lets on)")
                return AllowPassenger(actor=actor, hand=args[0], passenger=args[1])
            case "disconnected":
                need(1, "SEAT (as 'at T system disconnected SEAT')")
                return SeatDisconnected(actor=actor, seat=args[0])
            case "returned":
                need(1, "SEAT (as 'at T system returned SEAT')")
                return SeatReturned(actor=actor, seat=args[0])
            case "deal":
                need(1, "SEAT (the seat that presses Deal: 'at T seat:1 deal seat:1')")
                return SeatDeal(actor=actor, seat=args[0])
            case "undo" | "clear" | "rebet" | "double":
                need(2, "HAND SEAT")
                cls = {"undo": UndoBet, "clear": ClearBets, "rebet": Rebet, "double": Double}[verb]
                return cls(actor=actor, hand=args[0], seat=args[1])
            case "decide":
                if len(args) == 2:  # decide HAND OPTION: the actor's own seat (or the box owner)
                    args = [args[0], actor, args[1]]
                need(3, "HAND [SEAT] OPTION")
                return Decide(actor=actor, hand=args[0], seat=args[1], option=args[2])
            case "card":
                need(1, "CARD")
                return CardDrawn(actor=actor, card=Card.parse(args[0]))
            case "pay":
                need(3, "HAND SEAT AMOUNT")
                paid = Fraction(args[2])
                return ConfirmPayment(actor=actor, hand=args[0], seat=args[1], paid=paid)
            case "halt":
                return Halt(actor=actor, reason=text)
            case "resume":
                return Resume(actor=actor, note=text)
            case "void":  # void [confirm_paid] TEXT: confirm_paid after a confirmed payment
                confirm = bool(args) and args[0] == "confirm_paid"
                reason = " ".join(args[1:]) if confirm else text
                return VoidRound(actor=actor, reason=reason, confirm_paid=confirm)
            case "redeal":
                return Redeal(actor=actor, reason=text)
            case "restore":
                return RestoreSequence(actor=actor, cards=text)
            case "rule":
                need(1, "return|fold")
                return ResolveUndecided(actor=actor, ruling=args[0])
            case "correct":
                if len(args) < 4:
                    raise ScenarioError(f"{where}: correct takes POSITION INDEX CARD REASON...")
                return CorrectCard(actor=actor, position=args[0], index=int(args[1]),
                                   card=Card.parse(args[2]), reason=" ".join(args[3:]))  # fmt: skip
            case "change_deck":
                need(1, "DECK_ID")
                return ChangeDeck(actor=actor, deck_id=args[0])
    except (ValueError, TableError) as error:
        if isinstance(error, ScenarioError):
            raise
        raise ScenarioError(f"{where}: {verb} {text}: {error}") from None
    raise ScenarioError(f"{where}: unknown command {verb!r}")


def _observation(args: list[str], where: str, frame: int) -> CameraObservation:
    """``ZONE:CARD``, ``ZONE:back`` or ``ZONE:unknown`` words as one stable camera view."""
    cards: dict[str, set[Card]] = {}
    counts: dict[str, list[int]] = {}
    for word in args:
        zone, colon, what = word.rpartition(":")
        if not colon or not zone:
            raise ScenarioError(
                f"{where}: camera sees ZONE:CARD, ZONE:back or ZONE:unknown; got {word!r}"
            )
        cards.setdefault(zone, set())
        n = counts.setdefault(zone, [0, 0])
        if what == "back":
            n[0] += 1
        elif what == "unknown":
            n[1] += 1
        else:
            try:
                card = Card.parse(what)
            except TableError as error:
                raise ScenarioError(f"{where}: {error}") from None
            if any(card in seen for seen in cards.values()):
                raise ScenarioError(f"{where}: the camera sees {card} twice")
            cards[zone].add(card)
    zones = tuple(
        ZoneObservation(z, frozenset(cards[z]), counts[z][0], counts[z][1]) for z in sorted(cards)
    )
    return CameraObservation(frame, float(frame), zones)


def _words(line: str) -> list[str]:
    """Split a line on spaces; double quotes group words ("box 2"); ``#`` starts a comment.

    An apostrophe is an ordinary character, so free text reads naturally (can't, dealer's).
    """
    lexer = shlex.shlex(line, posix=True)
    lexer.whitespace_split = True
    lexer.quotes = '"'
    lexer.commenters = "#"
    return list(lexer)


def parse_scenario(text: str, source: str = "scenario") -> Scenario:
    """Parse a scenario file's text; :class:`ScenarioError` names the line of any problem."""
    table: tuple[str, str, Seating, tuple[str, ...]] | None = None
    balances: dict[str, Fraction] = {}
    shoe: list[Card] = []
    steps: list[Step] = []
    options: dict[str, float | bool] = {}
    variants: dict[str, str] = {}
    zones = ""
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{source}:{number}"
        try:
            words = _words(raw)
        except ValueError as error:
            raise ScenarioError(f"{where}: {error}") from None
        if not words:
            continue
        head, rest = words[0], words[1:]
        if head == "table":
            if len(rest) < 4:
                raise ScenarioError(f"{where}: table takes ID GAME SEATING HAND [HAND ...]")
            try:
                table = (rest[0], rest[1], Seating(rest[2]), tuple(rest[3:]))
            except ValueError:
                raise ScenarioError(
                    f"{where}: seating is 'shared' or 'boxes', not {rest[2]!r}"
                ) from None
        elif head == "balance":
            if len(rest) != 2:
                raise ScenarioError(f"{where}: balance takes SEAT AMOUNT")
            balances[rest[0]] = _amount(rest[1], where)
        elif head == "option":
            known = ("betting_seconds", "decision_seconds", "confirm_payments", "camera")
            if len(rest) != 2 or rest[0] not in known:
                raise ScenarioError(
                    f"{where}: option takes betting_seconds N, decision_seconds N, "
                    "confirm_payments yes|no or camera on|off"
                )
            if rest[0] == "camera":
                if rest[1] not in ("on", "off"):
                    raise ScenarioError(f"{where}: option camera takes on or off, not {rest[1]!r}")
                options["camera"] = rest[1] == "on"
            elif rest[0] == "confirm_payments":
                if rest[1] not in ("yes", "no"):
                    raise ScenarioError(
                        f"{where}: option confirm_payments takes yes or no, not {rest[1]!r}"
                    )
                options[rest[0]] = rest[1] == "yes"
            else:
                options[rest[0]] = _seconds(rest[1], where, f"option {rest[0]}", least=False)
        elif head == "paytable":
            if len(rest) != 2:
                raise ScenarioError(f"{where}: paytable takes ROLE VARIANT (paytable bonus B)")
            variants[rest[0]] = rest[1]
        elif head == "zones":
            if len(rest) != 1:
                raise ScenarioError(f"{where}: zones takes NAME (default, shared-hand) or a path")
            zones = rest[0]
        elif head == "shoe":
            try:
                shoe += parse_cards(" ".join(rest))
            except TableError as error:
                raise ScenarioError(f"{where}: {error}") from None
        elif head == "at":
            if len(rest) < 3:
                raise ScenarioError(f"{where}: at takes SECONDS ACTOR COMMAND [ARGS]")
            at = _seconds(rest[0], where, "at", least=True)
            if rest[2] == "sees":
                if rest[1] != "camera":
                    raise ScenarioError(f"{where}: only the camera sees: 'at T camera sees ...'")
                frame = sum(1 for s in steps if s.observation is not None) + 1
                view = _observation(rest[3:], where, frame)
                steps.append(Step(number, at, observation=view))
                continue
            steps.append(Step(number, at, _event(rest[1], rest[2], rest[3:], where)))
        elif head == "expect":
            if not rest:
                raise ScenarioError(f"{where}: expect takes WHAT ...")
            steps.append(Step(number, None, expect=tuple(rest)))
        else:
            raise ScenarioError(f"{where}: unknown statement {head!r}")
    if table is None:
        raise ScenarioError(f"{source}: no 'table' line")
    return Scenario(
        *table, balances=balances, shoe=tuple(shoe), steps=tuple(steps), options=options,
        zones=zones, variants=variants,
    )  # fmt: skip


@dataclass
class Run:
    """A scenario being played: the table, the shoe, the clock and everything that came out."""

    state: TableState
    shoe: list[Card]
    now: float = T0
    actions: list[Action] = field(default_factory=list)
    log: list[tuple[Event, float]] = field(default_factory=list)
    last: list[Action] = field(default_factory=list)  # what the last command produced
    camera: CrossCheck = field(default_factory=CrossCheck)
    seen: CameraObservation | None = None  # the camera's latest stable view
    checked: CheckResult = field(default_factory=CheckResult)  # its latest cross-check

    def apply(self, event: Event, now: float) -> list[Action]:
        """Handle one event, then draw from the stacked shoe while cards are due.

        When the event takes the table out of a halt, the camera's latest view is checked
        again (findings held back during the halt are reported then).
        """
        self.now = now
        halted = self.state.phase is Phase.HALTED
        out = self._one(event) + self._draw()
        if halted and self.state.phase is not Phase.HALTED and self.seen is not None:
            out += self._check()
        self.last = out
        return out

    def observe(self, observation: CameraObservation, now: float) -> list[Action]:
        """A new stable view from the camera: cross-check it and submit what it finds."""
        self.now = now
        self.seen = observation
        self.last = self._check()
        return self.last

    def _check(self) -> list[Action]:
        assert self.seen is not None
        self.camera, self.checked = self.camera.check(self.state, self.seen, self.now)
        out: list[Action] = []
        for event in self.checked.events:
            out += self._one(event) + self._draw()
        return out

    def _draw(self) -> list[Action]:
        out: list[Action] = []
        while self.state.phase is Phase.DEALING and self.shoe:
            out += self._one(CardDrawn(actor="shoe", card=self.shoe.pop(0)))
        return out

    def _one(self, event: Event) -> list[Action]:
        self.log.append((event, self.now))
        self.state, out = handle(self.state, event, self.now)
        self.actions += out
        return out

    def settled(self, hand: str, seat: str) -> dict[str, object]:
        """The last settlement of ``seat``'s stake on ``hand``."""
        found = [a.data for a in self.actions if a.kind == "settled"
                 and a.data.get("hand") == hand and a.data.get("seat") == seat]  # fmt: skip
        if not found:
            raise KeyError((hand, seat))
        return found[-1]


#: the longest time a scenario names (a step's time, a timer): a week, in seconds
MAX_SECONDS = 7 * 24 * 3600.0


def _seconds(text: str, where: str, what: str, *, least: bool) -> float:
    """A time in seconds from a scenario's ``text``: finite, at most :data:`MAX_SECONDS`,
    from 0 (``least``: a step's time) or above 0 (a timer); else refused in words (``nan``
    was taken, and a step at nan never ran in order; a timer of -5 closed betting at once)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and (value >= 0 if least else value > 0) and value <= MAX_SECONDS):
        bound = "from 0 to" if least else "above 0 and at most"
        raise ScenarioError(
            f"{where}: {what} takes a number of seconds {bound} {MAX_SECONDS:.0f} (a week); "
            f"got {shown(text)}"
        )
    return value


def _amount(text: str, where: str) -> Fraction:
    """An amount a scenario writes, as the table reads one (25, 12.5, 25/2), or
    :class:`ScenarioError` saying so (``nan`` and a number of 5,000 digits raised
    ValueError)."""
    try:
        return parse_amount(text)
    except ValueError as error:
        raise ScenarioError(f"{where}: {error}") from None


def _check(run: Run, step: Step, source: str) -> None:
    where = f"{source}:{step.line}"
    what, args = step.expect[0], list(step.expect[1:])

    def fail(wanted: str, found: object) -> ScenarioFailed:
        return ScenarioFailed(f"{where}: expected {wanted}; found {found}")

    recent = run.last
    match what:
        case "phase":
            if run.state.phase.value != args[0]:
                raise fail(f"phase {args[0]}", run.state.phase.value)
        case "next":
            wanted = " ".join(args)
            if wanted not in run.state.next_due:
                raise fail(f"next {wanted!r}", repr(run.state.next_due))
        case "refused" | "alert" | "halted":
            text = " ".join(args)
            key = {"refused": "reason", "alert": "message", "halted": "reason"}[what]
            texts = [str(a.data.get(key, "")) for a in recent if a.kind == what]
            if not any(text in t for t in texts):
                raise fail(f"a {what} saying {text!r}", texts or f"no {what}")
        case "line":
            hand, seat, spot, result, amount = args
            try:
                lines = run.settled(hand, seat)["lines"]
            except KeyError:
                raise fail(f"a settlement for {seat} on {hand}", "none") from None
            assert isinstance(lines, list)
            line = next((ln for ln in lines if ln["spot"] == spot), None)
            if line is None:
                raise fail(f"a {spot} line for {seat} on {hand}", [ln["spot"] for ln in lines])
            got = (line["result"], line["paid"] if result == "win" else line["returned"])
            if got != (result, amount):
                found = f"{line['result']} paid {line['paid']} returned {line['returned']}"
                raise fail(f"{spot} {result} {amount}", found)
        case "net":
            hand, seat, amount = args
            try:
                net = run.settled(hand, seat)["net"]
            except KeyError:
                raise fail(f"a settlement for {seat} on {hand}", "none") from None
            if net != amount:
                raise fail(f"net {amount} for {seat} on {hand}", net)
        case "balance":
            seat, amount = args
            balance = run.state.balance(seat)
            if balance != _amount(amount, where):
                raise fail(f"balance {amount} for {seat}", balance)
        case "bets":
            hand, seat, *spots = args
            rnd = run.state.round
            stake = rnd.stake(hand, seat) if rnd else None
            on = {str(k): v for k, v in stake.totals().items()} if stake else {}
            held = " ".join(f"{k}={format_amount(v)}" for k, v in sorted(on.items()))
            try:
                asked = {k: Fraction(v) for k, v in (spot.split("=", 1) for spot in spots)}
            except ValueError:
                usage = "expect bets takes HAND SEAT [SPOT=AMOUNT ...]"
                raise ScenarioError(f"{where}: {usage}") from None
            if {k: Fraction(v) for k, v in on.items()} != asked:
                raise fail(f"bets {' '.join(spots) or 'none'} for {seat} on {hand}", held or "none")
        case "hand":
            position, *name = args
            rnd = run.state.round
            cards = rnd.cards_of(position) if rnd else ()
            wanted = " ".join(name)
            held = " ".join(c.code for c in cards)
            if held != wanted:
                raise fail(f"{position} holding {wanted}", held or "no cards")
        case "camera":
            checked = run.checked
            details = [d.detail for d in checked.discrepancies] + list(checked.notes)
            if args == ["confirms"]:
                if details:
                    raise fail("the camera to confirm the table", details)
            elif not any(" ".join(args) in t for t in details):
                raise fail(f"the camera to find {' '.join(args)!r}", details or "nothing")
        case "outcome":
            ended = [a.data for a in recent if a.kind == "round_ended"]
            wanted = " ".join(args)
            if not ended or ended[-1]["outcome"] != wanted:
                found = ended[-1]["outcome"] if ended else "not ended"
                raise fail(f"the round to end {wanted}", found)
        case "game":
            rnd = run.state.round
            number = int(rnd.round_id.rsplit("-", 1)[1]) if rnd else None
            wanted = " ".join(args)
            if number is None or str(number) != wanted:
                raise fail(f"game number {wanted} in play", number or "no round in play")
        case "abandoned":
            rnd = run.state.round
            numbers = [str(int(rid.rsplit("-", 1)[1])) for rid in (rnd.abandoned if rnd else ())]
            if numbers != args:
                wanted = " ".join(args) or "none"
                raise fail(f"abandoned games {wanted}", " ".join(numbers) or "none")
        case "away":
            away = list(run.state.away)
            if away != sorted(args):
                wanted = " ".join(sorted(args)) or "none"
                raise fail(f"seats disconnected: {wanted}", " ".join(away) or "none")
        case "ready":
            rnd = run.state.round
            ready = sorted(rnd.ready) if rnd else []
            if ready != sorted(args):
                wanted = " ".join(sorted(args)) or "none"
                raise fail(f"seats that pressed Deal: {wanted}", " ".join(ready) or "none")
        case _:
            raise ScenarioError(f"{where}: unknown expectation {what!r}")


def run_scenario(scenario: Scenario, game: Game, source: str = "scenario") -> Run:
    """Play ``scenario`` through the real state machine; raise at the first failed expectation."""
    config = TableConfig(
        scenario.table_id, game, scenario.seating, scenario.hands,
        betting_seconds=float(scenario.options.get("betting_seconds", 0)) or None,
        decision_seconds=float(scenario.options.get("decision_seconds", 0)) or None,
        confirm_payments=bool(scenario.options.get("confirm_payments", False)),
        balances=scenario.balances or None,
    )  # fmt: skip
    run = Run(new_table(config), list(scenario.shoe))
    if scenario.zones or any(step.observation is not None for step in scenario.steps):
        layout = _layout(scenario, source)
        run.camera = CrossCheck(layout.positions(), enabled=bool(scenario.options.get("camera", 1)))
    for step in scenario.steps:
        if step.event is not None or step.observation is not None:
            assert step.at is not None
            at = T0 + step.at
            if at < run.now:
                raise ScenarioError(f"{source}:{step.line}: time {step.at} is before the last step")
            if step.event is not None:
                run.apply(step.event, at)
            else:
                assert step.observation is not None
                run.observe(step.observation, at)
        else:
            _check(run, step, source)
    return run


def scenario_game(scenario: Scenario, source: str = "scenario") -> Game:
    """The game a scenario plays: the shipped rules, with the paytable variants it names."""
    try:
        return load_game(scenario.game, variants=scenario.variants or None)
    except ConfigError as error:
        raise ScenarioError(f"{source}: {error}") from None


def play_scenario(text: str, source: str = "scenario") -> tuple[Scenario, Run]:
    """Parse and play a scenario file's text (what ``tablectl scenario run`` does for a file)."""
    scenario = parse_scenario(text, source)
    return scenario, run_scenario(scenario, scenario_game(scenario, source), source)


def _layout(scenario: Scenario, source: str) -> ZoneLayout:
    """The camera's zone layout for a scenario: named, or the shipped one for its seating."""
    try:
        return table_layout(
            scenario.zones or None, scenario.seating is Seating.SHARED, scenario.hands
        )
    except ConfigError as error:
        raise ScenarioError(f"{source}: {error}") from None
