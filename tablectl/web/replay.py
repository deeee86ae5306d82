"""The pit's dispute replay, from a table's journal (read-only): the round list, one round
step by step with the layout after each step, and the round as a scenario file.

The journal is opened read-only and replayed by the table's own replay
(:func:`tablectl.runtime.replay`, its hash chain checked first); the round list and the
steps of one round are those of ``tablectl history`` and ``tablectl replay``
(:func:`tablectl.commands.journal.history`, :func:`~tablectl.commands.journal.of_round`).

Each step says who did what in words (every card with its source: the shoe, the camera, the
dealer's restored sequence, the pit manager's correction; every decision, a timer's
automatic ones included; every halt, ruling and settlement) and the layout after it: the
phase, what is due next, every position's cards, every stake's bets and decisions, the
halt's reason. The scenario export (:func:`round_scenario`, the language of
``docs/scenarios.md``) opens the table with the round's balances and options and sends every
input of the round at its time, so ``tablectl scenario run`` plays it to the same result.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.errors import TableError
from controller.events import Event, event_to_json
from controller.games import Seating
from controller.games.rules import format_amount
from controller.journal import Row, utc_time
from controller.table import TableState
from drivers.storage.chain_check import ROWS_QUERY
from simulators.display.terminal import settlement_words
from tablectl.commands.journal import action_words, history, of_round
from tablectl.runtime import ReplayStep, replay

__all__ = ["ReadOnlyJournal", "layout", "round_scenario", "round_steps", "rounds"]

#: at most this many rounds listed (the latest), and steps shown of one round
MAX_ROUNDS = 2000
MAX_STEPS = 5000


class ReadOnlyJournal:
    """A journal file opened read-only: a running table may write it meanwhile."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise TableError(f"{path}: no such journal file")
        self.path = path
        try:
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        except sqlite3.Error as error:
            raise TableError(f"{path}: cannot open the journal: {error}") from None

    def rows(self) -> list[Row]:
        """Every row as stored."""
        try:
            rows: list[Row] = self._db.execute(ROWS_QUERY).fetchall()
        except sqlite3.Error as error:
            raise TableError(f"{self.path}: cannot read the journal: {error}") from None
        return rows

    def close(self) -> None:
        """Close the file."""
        self._db.close()


@contextlib.contextmanager
def _steps(path: Path) -> Iterator[Iterator[ReplayStep]]:
    journal = ReadOnlyJournal(path)
    with contextlib.closing(journal):
        yield replay(journal, str(path))  # type: ignore[arg-type]


def rounds(path: Path) -> list[dict[str, Any]]:
    """The journal's rounds, as ``tablectl history --json`` lists them (the latest
    :data:`MAX_ROUNDS`)."""
    with _steps(path) as steps:
        return history(steps)[-MAX_ROUNDS:]


# ---------------------------------------------------------------------- one round, in steps


def _who(actor: str) -> str:
    """An actor in words: the shoe, the camera, the dealer, pit manager ann, seat 3, ..."""
    if actor.startswith("pit:"):
        return f"pit manager {actor[4:]}"
    if actor.startswith("seat:"):
        return f"seat {actor[5:]}"
    return {"timer": "the timer", "system": "the system"}.get(actor, f"the {actor}")


def _source(actor: str, kind: str) -> str:
    """Where a card came from: the shoe, the camera, the dealer (a restored sequence), the
    pit manager (a correction)."""
    if kind == "restore_sequence":
        return "dealer"
    if kind == "correct_card":
        return "pit manager"
    return actor.split(":", 1)[0]


def layout(state: TableState) -> dict[str, Any]:
    """The table after a step: phase, what is due, each position's cards, the stakes."""
    rnd = state.round
    doc: dict[str, Any] = {"phase": state.phase.value, "next": state.next_due}
    positions: dict[str, list[str]] = {}
    stakes: list[dict[str, Any]] = []
    if rnd is not None:
        doc["round_id"] = rnd.round_id
        doc["abandoned"] = list(rnd.abandoned)
        doc["halt_reason"] = rnd.halt_reason
        for position in (*rnd.in_play, "dealer", "board"):
            positions[position] = []
        for position, card, _ in rnd.cards:
            positions.setdefault(position, []).append(card.code)
        stakes = [
            {
                "hand": s.hand,
                "seat": s.seat,
                "bets": {k.value: format_amount(v) for k, v in s.totals().items()},
                "decisions": list(s.decisions),
            }
            for s in rnd.stakes
        ]
    doc["positions"] = positions
    doc["stakes"] = stakes
    doc["balances"] = {seat: format_amount(b) for seat, b in state.balances}
    return doc


def _said(step: ReplayStep) -> list[dict[str, Any]]:
    """What a step did, action by action, in words: cards with their source, decisions
    (automatic ones marked), halts, rulings, settlements."""
    out: list[dict[str, Any]] = []
    event = step.event
    for action in step.actions:
        data = action.data
        item: dict[str, Any] = {"kind": action.kind}
        if action.kind == "card":
            code = data["card"] if isinstance(data["card"], str) else data["card"].code
            source = _source(event.actor, event.kind)
            item.update(card=code, position=data.get("position"), source=source)
            item["text"] = (
                f"{code} to {data.get('position')} ({data.get('face')}), from the {source}"
            )
        elif action.kind == "card_corrected":
            item.update(card=data.get("now"), position=data.get("position"), source="pit manager")
            item["text"] = (
                f"card {data.get('index')} of {data.get('position')} corrected from "
                f"{data.get('was')} to {data.get('now')} by {data.get('by')}: {data.get('reason')}"
            )
        elif action.kind == "decision":
            automatic = bool(data.get("automatic"))
            item.update(automatic=automatic, option=data.get("option"))
            by = "automatically, the decision timer ran out" if automatic else "by the seat"
            item["text"] = f"{data.get('seat')} on {data.get('hand')}: {data.get('option')} ({by})"
        elif action.kind == "settled":
            item["text"] = settlement_words(data)
        elif action.kind == "bet":
            follows = (
                f" (automatically, following {data.get('follows')})"
                if data.get("automatic")
                else ""
            )
            item["text"] = (
                f"bet taken: {data.get('spot')} {data.get('amount')} on {data.get('hand')} for "
                f"{data.get('seat')}{follows}"
            )
        elif action.kind == "payment":
            item["text"] = "payment " + ", ".join(
                f"{k} {v}" for k, v in data.items() if v not in (None, "", [], {})
            )
        elif action.kind == "reveal":
            item["text"] = f"revealed: {data.get('what')}"
        else:
            said = action_words({"kind": action.kind, **data})
            if said is None:
                continue
            item["text"] = said
        out.append(item)
    return out


def _event_words(event: Event) -> str:
    fields = {k: v for k, v in event_to_json(event).items() if k not in ("kind", "actor")}
    details = ", ".join(f"{k} {v}" for k, v in fields.items() if v not in (None, "", False))
    return f"{_who(event.actor)}: {event.kind.replace('_', ' ')}" + (
        f" ({details})" if details else ""
    )


def round_steps(path: Path, round_id: str) -> dict[str, Any]:
    """One round, event by event: each step's row, time, input (in words and as recorded),
    what it did and the layout after it."""
    steps: list[dict[str, Any]] = []
    with _steps(path) as replayed:
        for _, step in of_round(replayed, round_id):
            if len(steps) >= MAX_STEPS:
                break
            steps.append(
                {
                    "row": step.seq,
                    "at": step.at,
                    "time": utc_time(step.at),
                    "actor": step.event.actor,
                    "event": event_to_json(step.event),
                    "text": _event_words(step.event),
                    "actions": _said(step),
                    "layout": layout(step.state),
                }
            )
    if not steps:
        raise KeyError(round_id)
    return {"round_id": round_id, "steps": steps}


# ---------------------------------------------------------------------- as a scenario file


def _quote(word: object) -> str:
    """A word of a scenario line: quoted when it holds a space or a character the language
    reads (``#``, a double quote)."""
    text = " ".join(str(word).split())
    if text and not any(c in text for c in ' #"\\'):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def scenario_words(event: Event) -> list[str] | None:
    """An input as a scenario's command words (after ``at T ACTOR``); None for an input the
    language does not write (a fault record)."""
    d = event_to_json(event)
    kind = event.kind
    simple = ("open_table", "close_table", "start_round", "no_more_bets", "reveal_done",
              "dealer_exposed_early", "tick")  # fmt: skip
    if kind in simple:
        return [kind]
    verbs: dict[str, tuple[str, ...]] = {
        "place_bet": ("bet", "hand", "seat", "spot", "amount"),
        "allow_passenger": ("allow_passenger", "hand", "passenger"),
        "undo_bet": ("undo", "hand", "seat"),
        "clear_bets": ("clear", "hand", "seat"),
        "rebet": ("rebet", "hand", "seat"),
        "double": ("double", "hand", "seat"),
        "card_drawn": ("card", "card"),
        "decide": ("decide", "hand", "seat", "option"),
        "confirm_payment": ("pay", "hand", "seat", "paid"),
        "halt": ("halt", "reason"),
        "resume": ("resume", "note"),
        "redeal": ("redeal", "reason"),
        "restore_sequence": ("restore", "cards"),
        "resolve_undecided": ("rule", "ruling"),
        "correct_card": ("correct", "position", "index", "card", "reason"),
        "change_deck": ("change_deck", "deck_id"),
        "seat_disconnected": ("disconnected", "seat"),
    }
    if kind == "void_round":
        words = ["void"] + (["confirm_paid"] if d.get("confirm_paid") else [])
        return [*words, _quote(d.get("reason", ""))]
    if kind not in verbs:
        return None
    verb, *names = verbs[kind]
    words = [verb, *(_quote(d.get(name, "")) for name in names)]
    if kind == "place_bet" and d.get("dark"):
        words.append("dark")
    if kind == "restore_sequence":  # its text is several words, each POSITION:CARD
        words = ["restore", *(_quote(w) for w in str(d.get("cards", "")).split())]
    return words


def _seconds(at: float, start: float, ceil: bool) -> float:
    """A step's time from the scenario's start, in microseconds (a timer's tick rounded up,
    so it never comes before the deadline it answered)."""
    micro = (at - start) * 1_000_000
    return (math.ceil(micro - 1e-3) if ceil else math.floor(micro + 1e-3)) / 1_000_000


def _previous_bets(before: TableState, steps: list[ReplayStep]) -> list[str]:
    """A round whose buttons repeat the round before's bets (Rebet, Repeat, Double): those
    bets placed again in a round voided at once, so the buttons find them."""
    if not before.last_bets or not any(s.event.kind in ("rebet", "double") for s in steps):
        return []
    studio = before.config.seating is Seating.SHARED
    lines = ["# the round before's bets, which Rebet, Repeat and Double repeat"]
    lines.append("at 0 dealer start_round")
    for hand, seat, bets in before.last_bets:
        actor = seat if studio else "dealer"
        for spot, amount in bets:
            lines.append(
                f"at 0 {actor} bet {_quote(hand)} {seat} {spot.value} {format_amount(amount)}"
            )
    lines.append('at 0 pit:replay void "the round before, for its bets"')
    return lines


def round_scenario(path: Path, round_id: str) -> str:
    """The round as a scenario file: the table, the balances before the round, and every
    input of the round at its time; a redealt game from the start of the first game it
    replaced (its cards and bets came from there)."""
    with _steps(path) as replayed:
        all_steps = list(replayed)
    first = next(
        (s for s in all_steps if s.state.round is not None and s.state.round.round_id == round_id),
        None,
    )
    if first is None:
        raise KeyError(round_id)
    assert first.state.round is not None
    origin = first.state.round.abandoned[0] if first.state.round.abandoned else round_id
    wanted = {origin, *first.state.round.abandoned, round_id}
    picked: list[tuple[TableState | None, ReplayStep]] = []
    for rid in dict.fromkeys([origin, *first.state.round.abandoned, round_id]):
        picked += [p for p in of_round(all_steps, rid) if p not in picked]
    picked.sort(key=lambda p: p[1].seq)
    before, opening = picked[0]
    if before is None:
        raise TableError(f"round {round_id}: the journal holds no table before it")
    config = before.config
    hands = " ".join(_quote(h) for h in config.hands)
    lines = [
        f"# round {round_id} of table {config.table_id}, exported from its journal",
        f"# rows {picked[0][1].seq} to {picked[-1][1].seq}; started {utc_time(opening.at)}",
    ]
    if origin != round_id:
        lines.append(f"# a redeal: played from the start of game {origin}")
    lines.append(
        f"table {config.table_id} {config.game.info.id.value} {config.seating.value} {hands}"
    )
    for seat, amount in before.balances:
        lines.append(f"balance {seat} {format_amount(amount)}")
    if config.betting_seconds:
        lines.append(f"option betting_seconds {config.betting_seconds:g}")
    if config.decision_seconds:
        lines.append(f"option decision_seconds {config.decision_seconds:g}")
    if config.confirm_payments:
        lines.append("option confirm_payments yes")
    lines.append("# the camera's findings are replayed as the inputs it sent to the table")
    lines.append("at 0 pit:replay open_table")
    lines += _previous_bets(before, [step for _, step in picked])
    start = opening.at
    last = 0.0
    ended: list[str] = []
    for _, step in picked:
        words = scenario_words(step.event)
        if words is None:
            lines.append(f"# row {step.seq}: {step.event.kind} (not replayable: skipped)")
            continue
        at = max(last, _seconds(step.at, start, step.event.kind == "tick"))
        last = at
        lines.append(f"at {at:.6f} {step.event.actor} {' '.join(words)}".replace(".000000 ", " "))
        for action in step.actions:
            if action.kind == "round_ended" and action.data.get("round_id") in wanted:
                ended.append(str(action.data.get("outcome")))
    if ended:
        lines.append(f"expect outcome {ended[-1]}")
    nets: dict[tuple[str, str], str] = {}  # each stake's last settlement (a correction redoes it)
    for _, step in picked:
        for action in step.actions:
            if action.kind == "settled":
                nets[(str(action.data["hand"]), str(action.data["seat"]))] = str(action.data["net"])
    for (hand, seat), net in nets.items():
        lines.append(f"expect net {_quote(hand)} {seat} {net}")
    for seat, amount in picked[-1][1].state.balances:
        lines.append(f"expect balance {seat} {format_amount(amount)}")
    return "\n".join(lines) + "\n"
