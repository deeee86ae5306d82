"""``tablectl history``, ``replay`` and ``journal verify``: the pit manager's view of a table."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from config.tables import key_from_env, key_from_file
from controller.errors import TableError
from controller.events import event_to_json
from controller.journal import parse_head, utc_time
from controller.table import TableState
from drivers.storage.sqlite_journal import SqliteJournal
from simulators.display.terminal import settlement_words
from tablectl.progress import Bars
from tablectl.runtime import ReplayStep, replay

CHECKING = "checking the chain"
REPLAYING = "replaying the journal"


def register(subparsers: Any) -> None:
    """Add the ``history``, ``replay`` and ``journal`` commands."""
    history = subparsers.add_parser(
        "history",
        help="list the rounds in a table's journal",
        description=(
            "List every round in a table's journal: its id, when it started, its outcome, "
            "how many events it took and the money staked and returned. The journal's hash "
            "chain is checked first."
        ),
    )
    history.add_argument("--journal", type=Path, required=True, help="the table's journal file")
    history.add_argument("--json", action="store_true", help="one JSON object per round")
    history.set_defaults(run=run_history)

    again = subparsers.add_parser(
        "replay",
        help="every event of one round with the table's state after it (dispute view)",
        description=(
            "Replay a table's journal and print every event of one round, with the actions "
            "it caused and the table's state after it: what a dispute is settled on. The "
            "journal's hash chain is checked first."
        ),
    )
    again.add_argument("--journal", type=Path, required=True, help="the table's journal file")
    again.add_argument("--round", required=True, dest="round_id", help="the round id")
    again.add_argument("--json", action="store_true", help="one JSON object per event")
    again.add_argument(
        "--scenario",
        action="store_true",
        help="print the round as a scenario file instead ('tablectl scenario run' replays it)",
    )
    again.set_defaults(run=run_replay)

    journal = subparsers.add_parser("journal", help="journal maintenance")
    sub = journal.add_subparsers(dest="journal_command", metavar="WHAT", required=True)
    check = sub.add_parser(
        "verify",
        help="check the hash chain and the seals; name the first bad row",
        description=(
            "Check that no row of a table's journal, nor any of its columns, was changed, "
            "removed, reordered or added since it was written, and that no row was cut off "
            "its end: the hash chain, the kind stored beside each record, and the head the "
            "table sealed at each round's end (with its key) or the pit recorded. Exit 0 when "
            "all hold, 2 naming the first bad row and the kind of tampering."
        ),
    )
    check.add_argument("--journal", type=Path, required=True, help="the table's journal file")
    key = check.add_mutually_exclusive_group()
    key.add_argument(
        "--key-env",
        metavar="VARIABLE",
        help="the environment variable holding the table's journal key (its journal_key_env)",
    )
    key.add_argument("--key-file", metavar="FILE", help="a file holding the table's journal key")
    check.add_argument(
        "--head",
        metavar="ROWS:DIGEST",
        help="a head the pit recorded from the table's pit/journal topic: ROWS:DIGEST, or "
        "the message itself (JSON)",
    )
    check.set_defaults(run=run_verify)


def _open(path: Path) -> SqliteJournal:
    """A journal that is there, to read: one it would have to make (a new name, an empty
    file: a journal is never empty, its header is its first row) is refused, not made."""
    if not path.exists():
        raise TableError(f"{path}: no such journal file")
    if path.is_dir():
        raise TableError(f"{path}: expected a journal file; got a folder")
    if path.stat().st_size == 0:
        raise TableError(f"{path}: expected a table's journal; got an empty file, left as it is")
    return SqliteJournal(path)


def _replay(journal: SqliteJournal, path: Path, bars: Bars) -> Iterator[ReplayStep]:
    """The journal's steps, its check and its replay each shown as a bar on a terminal."""
    checked, replayed = bars.bar(CHECKING, "rows"), bars.bar(REPLAYING, "rows")
    return replay(journal, str(path), progress=replayed, check_progress=checked)


def _round_of(step: ReplayStep, previous: TableState | None) -> str | None:
    """The round an event belongs to: the round in play before it, or the one it started."""
    if previous is not None and previous.round is not None:
        return previous.round.round_id
    return step.state.round.round_id if step.state.round is not None else None


def history(steps: Iterable[ReplayStep]) -> list[dict[str, Any]]:
    """The rounds of a journal's replayed steps: id, start, end, outcome, events, money (a
    redealt game: abandoned, ``continued_as`` the new one, which is ``redeal_of`` it)."""
    rounds: dict[str, dict[str, Any]] = {}
    previous: TableState | None = None
    for step in steps:
        rid = _round_of(step, previous)
        if rid is not None:
            info = rounds.setdefault(
                rid, {"round_id": rid, "started": utc_time(step.at), "events": 0,
                      "outcome": "in play", "staked": "0", "returned": "0"},
            )  # fmt: skip
            info["events"] += 1
            for action in step.actions:
                if action.kind == "redeal" and action.data.get("abandoned_round") == rid:
                    # the cards dealt again are a new game, linked to this abandoned one
                    new = str(action.data["round_id"])
                    info["outcome"] = "abandoned"
                    info["ended"] = utc_time(step.at)
                    info["continued_as"] = new
                    rounds[new] = {"round_id": new, "started": utc_time(step.at), "events": 0,
                                   "outcome": "in play", "staked": "0", "returned": "0",
                                   "redeal_of": rid}  # fmt: skip
                if action.kind in ("seat_disconnected", "seat_returned"):
                    # a remote seat lost and regained its connection during this round
                    gone = "away" if action.kind == "seat_disconnected" else "back"
                    note = f"{action.data['seat']} {gone} {utc_time(step.at)}"
                    info.setdefault("seats", []).append(note)
                if action.kind == "round_ended" and action.data.get("round_id") == rid:
                    info["outcome"] = action.data["outcome"]
                    info["ended"] = utc_time(step.at)
                    info["staked"] = action.data.get("staked", "0")
                    info["returned"] = action.data.get("returned", "0")
        previous = step.state
    return list(rounds.values())


def of_round(
    steps: Iterable[ReplayStep], round_id: str
) -> Iterator[tuple[TableState | None, ReplayStep]]:
    """The steps of one round (from the redeal that opened it, for a redealt game), each
    with the table's state before it."""
    previous: TableState | None = None
    for step in steps:
        opened = any(
            a.kind == "redeal" and a.data.get("round_id") == round_id for a in step.actions
        )
        if opened or _round_of(step, previous) == round_id:
            yield previous, step
        previous = step.state


def run_history(args: argparse.Namespace) -> int:
    """List the rounds."""
    journal = _open(args.journal)
    with contextlib.closing(journal), Bars() as bars:
        rounds = history(_replay(journal, args.journal, bars))
    for info in rounds:
        if args.json:
            print(json.dumps(info))
        else:
            money = f"staked {info['staked']:>8}  returned {info['returned']:>8}"
            link = (f"  continued as {info['continued_as']}" if "continued_as" in info else "") + (
                f"  redeal of {info['redeal_of']}" if "redeal_of" in info else ""
            )
            print(
                f"{info['round_id']}  {info['started']}  {info['outcome']:<9} "
                f"events {info['events']:>3}  {money}{link}"
            )
    if not rounds and not args.json:
        print("no rounds")
    return 0


def _summary(state: TableState) -> dict[str, Any]:
    rnd = state.round
    doc: dict[str, Any] = {"phase": state.phase.value, "next": state.next_due}
    if rnd is not None:
        doc["round_id"] = rnd.round_id
        if rnd.abandoned:
            doc["abandoned"] = list(rnd.abandoned)
        doc["cards"] = [f"{pos}:{card.code}" for pos, card, _ in rnd.cards]
        doc["stakes"] = [
            {
                "hand": s.hand,
                "seat": s.seat,
                "bets": {k.value: str(v) for k, v in s.totals().items()},
                "decisions": list(s.decisions),
            }
            for s in rnd.stakes
        ]
    return doc


def run_replay(args: argparse.Namespace) -> int:
    """Print every event of one round with the state after it (``--scenario``: the round
    as a scenario file)."""
    if args.scenario:
        from tablectl.web.replay import round_scenario

        print(round_scenario(args.journal, args.round_id), end="")
        return 0
    journal = _open(args.journal)
    shown = 0
    with contextlib.closing(journal), Bars() as bars:
        for _, step in of_round(_replay(journal, args.journal, bars), args.round_id):
            shown += 1
            event = event_to_json(step.event)
            after = _summary(step.state)
            actions = [{"kind": a.kind, **a.data} for a in step.actions]
            if args.json:
                row = {"row": step.seq, "at": utc_time(step.at), "event": event}
                print(json.dumps({**row, "actions": actions, "after": after}))
            else:
                fields = " ".join(f"{k}={v}" for k, v in event.items() if k != "kind")
                print(f"#{step.seq:<5} {utc_time(step.at)}  {event['kind']} {fields}")
                for action in actions:
                    said = action_words(action)
                    if said:
                        print(f"        -> {said}")
                print(f"        after: {after['phase']}; next: {after['next']}")
    if not shown:
        raise TableError(f"round {args.round_id!r} is not in {args.journal}")
    return 0


#: the actions the dispute view prints besides settlements and automatic decisions
_DISPUTE_KINDS = frozenset(
    {"refused", "halted", "resumed", "redeal", "alert", "round_ended", "ruling",
     "card_corrected", "sequence_restored", "deck_changed", "seat_disconnected", "seat_returned",
     "bets_taken_back"}
)  # fmt: skip


def action_words(action: dict[str, Any]) -> str | None:
    """What the dispute view prints of an action, in words (None: nothing)."""
    kind = action["kind"]
    if kind == "settled":
        return f"settled: {settlement_words(action)}"
    if kind == "decision" and action.get("automatic"):
        return (
            f"automatic decision (the decision timer ran out): {action.get('option')} for "
            f"{action.get('seat')} on {action.get('hand')}"
        )
    if kind in _DISPUTE_KINDS:
        fields = ", ".join(
            f"{k} {v}" for k, v in action.items() if k != "kind" and v not in (None, "", [], {})
        )
        return f"{kind}: {fields}"
    return None


#: what a seal cannot tell, said after every verification
UNPROVEN = (
    "What the seal does not prove: it cannot tell rows written by whoever holds the key from "
    "the table's own (keep the key from everyone but the table and the auditors); rows after "
    "the last seal are chained but not sealed; and seals removed together with the rows "
    "they covered leave no trace in the file: only a head the pit recorded (--head) finds "
    "that."
)


def run_verify(args: argparse.Namespace) -> int:
    """Check every row, every stored column and the seals; name the first bad row."""
    key = _key(args)
    recorded = parse_head(args.head) if args.head else None
    journal = _open(args.journal)
    with contextlib.closing(journal), Bars() as bars:
        found = journal.audit(key, recorded, bars.bar(CHECKING, "rows"))
    if found.intact:
        print(f"{args.journal}: {found.rows} rows, chain intact")
        for note in found.notes:
            print(f"  {note}")
        print(UNPROVEN)
        return 0
    first = found.findings[0]
    print(f"{args.journal}: tampered ({first.what}): {first.message}", file=sys.stderr)
    for more in found.findings[1:]:
        print(f"  also ({more.what}): {more.message}", file=sys.stderr)
    for note in found.notes:
        print(f"  {note}", file=sys.stderr)
    print(UNPROVEN, file=sys.stderr)
    return 2


def _key(args: argparse.Namespace) -> bytes | None:
    """The journal key named on the command line, read as a table reads it."""
    if args.key_env is not None:  # an empty name is a mistake, refused: not "no key"
        return key_from_env(args.key_env, "--key-env")
    if args.key_file is not None:
        return key_from_file(Path(args.key_file), "--key-file")
    return None
