"""The state machine's speed: handle() latency per event, and replaying a journal's rounds.

Plays seeded studio rounds of Ultimate Texas Hold'em with seven seats (bets, decisions,
cards, reveal, settlement), timing every handle() call (again with the garbage collector
paused, to show its share; and by kind of event, as the tail is the settlement at
``reveal_done``), then replays ``--replay-rounds`` rounds (the target's 10,000 by default,
measured, not scaled up from fewer: a long journal costs the garbage collector more per
row) from scratch twice: from memory (``fold``), and from a real SQLite journal file
written with the same events (``rebuild``, as a restart does, in a fresh process: reading
the rows, decoding each event, handling it, the hash chain checked meanwhile by a second
process), with that time split into its parts, and the running table's whole restart (its
projector told of every row in the same pass).
Printed beside a baseline measured in the same run: the cost of one immutable update of
the table state (``dataclasses.replace``), the floor of any event before the state records
were copied by their dictionaries; the figures depend on the machine and on what else runs
on it, the ratio to the baseline much less.

    python benchmarks/table.py [--rounds N] [--replay-rounds N] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

from config.schema import load_game
from controller import hands, table, views
from controller.events import (
    CardDrawn,
    Decide,
    Event,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    RevealDone,
    StartRound,
    event_from_json,
    event_to_json,
)
from controller.games import Seating
from controller.games.rules import Spot
from controller.journal import ID_FIELD, parse_record, split_id
from controller.table import Phase, TableConfig, TableState, fold, handle, new_table
from controller.topics import Topics
from controller.views import Projector
from drivers.storage.chain_check import check_file
from drivers.storage.sqlite_journal import SqliteJournal
from tablectl.answers import Answers
from tablectl.runtime import header_record, rebuild

TARGET_P99_US = 100.0
RESTART = "with the projector, as a running table restarts"
TARGET_REPLAY_10K_S = 5.0
SEATS = tuple(f"seat:{i}" for i in range(1, 8))

#: the core's caches, each kept because a target needs it, with its plain, uncached form: the
#: target figures are measured again with the plain form in the cache's place
CACHES = {
    "walks": (table, "_walked", table._walk_through),
    "deal script": (table, "_expand", table._expand.__wrapped__),
    "hand names": (hands, "describe", hands.describe.__wrapped__),
}
GAME = "ultimate-texas-holdem"
BALANCE = Fraction(10**9)


def play(rounds: int, seed: int) -> tuple[list[tuple[Event, float]], list[float], TableConfig]:
    """Play ``rounds`` rounds; return the events with their times and each handle() time (in
    the order of the events)."""
    game = load_game(GAME)
    config = TableConfig("B1", game, Seating.SHARED, ("player",),
                         balances=dict.fromkeys(SEATS, BALANCE))  # fmt: skip
    rng = random.Random(seed)
    state = new_table(config)
    now = 1_790_000_000.0
    events: list[tuple[Event, float]] = []
    timings: list[float] = []

    def send(event: Event) -> None:
        nonlocal state, now
        now += 0.5
        events.append((event, now))
        started = time.perf_counter()
        state, _ = handle(state, event, now)
        timings.append(time.perf_counter() - started)

    send(OpenTable(actor="pit:bench"))
    deck = list(game.info.deck.cards)
    for _ in range(rounds):
        send(StartRound(actor="dealer"))
        for seat in SEATS:
            send(
                PlaceBet(actor=seat, hand="player", seat=seat, spot=Spot.ANTE, amount=Fraction(10))
            )
            if rng.random() < 0.4:
                send(PlaceBet(actor=seat, hand="player", seat=seat, spot=Spot.BEST_FIVE,
                              amount=Fraction(5)))  # fmt: skip
        send(NoMoreBets(actor="dealer"))
        rng.shuffle(deck)
        cards = iter(deck)
        while state.phase is not Phase.IDLE:
            if state.phase is Phase.DEALING:
                send(CardDrawn(actor="shoe", card=next(cards)))
            elif state.phase is Phase.DECIDING:
                point = state.round.due.point  # type: ignore[union-attr]
                assert point is not None
                for stake in state.round.stakes:  # type: ignore[union-attr]
                    if state.phase is not Phase.DECIDING:
                        break
                    walk = game.walk(stake.totals(), stake.decisions)
                    if walk.pending is not None and walk.pending.name == point.name:
                        option = rng.choice(point.options).name
                        send(
                            Decide(actor=stake.seat, hand="player", seat=stake.seat, option=option)
                        )
            elif state.phase is Phase.REVEAL:
                send(RevealDone(actor="dealer"))
            else:
                raise AssertionError(state.phase)
    return events, timings, config


@contextlib.contextmanager
def without(cache: str | None) -> Iterator[None]:
    """Run the core with the plain form of ``cache`` (one of :data:`CACHES`) in its place."""
    if cache is None:
        yield
        return
    module, name, plain = CACHES[cache]
    cached = getattr(module, name)
    setattr(module, name, plain)
    try:
        yield
    finally:
        setattr(module, name, cached)


def write_journal(path: Path, events: list[tuple[Event, float]]) -> None:
    """The events as a table's journal file, written row by row as a table writes it (without
    the flush per row, which changes nothing in the file and would take minutes here): each
    command with the id its console gave it, as a running table journals it."""
    journal = SqliteJournal(path, sync="normal")
    try:
        header = header_record("B1", GAME, Seating.SHARED, ("player",),
                               balances=dict.fromkeys(SEATS, BALANCE))  # fmt: skip
        journal.append(header, events[0][1] - 1.0)
        for n, (event, at) in enumerate(events):
            record = event_to_json(event)
            if event.actor not in ("shoe", "timer", "system"):  # a console's command
                record[ID_FIELD] = f"{event.actor}-{n}"
            journal.append(record, at)
    finally:
        journal.close()


def outcome(state: TableState) -> dict[str, object]:
    """What a table's state comes to after its rounds, to compare two replays by."""
    return {
        "phase": state.phase.value,
        "rounds_started": state.rounds_started,
        "balances": [[seat, str(balance)] for seat, balance in state.balances],
        "last_round": [list(last) for last in state.last_round],
    }


def replay_journal(
    path: Path, cache: str | None = None
) -> tuple[float, dict[str, object], dict[str, float]]:
    """Seconds to rebuild the table from its journal file as a restart does, in a process of
    its own as a restart is (not in this one, whose memory holds the rounds just played), the
    state's :func:`outcome`, and the time's parts (and a running table's whole restart: its
    projector told of every row in the same pass); with ``cache``, only the rebuild's time, the
    cache's plain form in its place."""
    plain = ["--without", cache] if cache else []
    done = subprocess.run(
        [sys.executable, __file__, "--time-restart", str(path), *plain],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    found = json.loads(done.stdout)
    return found["total"], found["outcome"], found["parts"]


def time_restart(path: Path, cache: str | None) -> None:
    """Print, as JSON, what :func:`replay_journal` returns, measured in this process."""
    journal = SqliteJournal(path)
    try:
        started = time.perf_counter()
        with without(cache):  # as a restart does, the latest commands' answers included
            state = rebuild(journal, str(path), answers=Answers())
        total = time.perf_counter() - started
        if cache:
            print(json.dumps({"total": total, "outcome": outcome(state), "parts": {}}))
            return
        # the same work in its parts (each timed alone): the chain's check as the second
        # process makes it beside the replay on a long journal (reading every column,
        # hashing every row), each distinct record decoded; the rest is this process reading
        # times and records, and handle()
        aside = len(journal) >= SqliteJournal.CHECK_ASIDE_ROWS
        started = time.perf_counter()
        assert "rows" in check_file(path)
        check = time.perf_counter() - started
        rows = journal.rows()
        started = time.perf_counter()
        texts = {split_id(text)[0] for _, _, text, _, _ in rows[1:]}
        for text in texts:
            event_from_json(parse_record(text))
        decode = time.perf_counter() - started
        distinct = len(texts)
        del rows, texts
        gc.collect()
        projector = Projector(Topics(state.config.table_id))
        started = time.perf_counter()
        again = rebuild(journal, str(path), projector.observe, Answers())
        restart = time.perf_counter() - started
        assert again == state
    finally:
        journal.close()
    where = "in a second process, beside the replay" if aside else "before the replay"
    parts = {f"the chain read and checked ({where})": check,
             f"decode {distinct} records": decode, RESTART: restart}  # fmt: skip
    print(json.dumps({"total": total, "outcome": outcome(state), "parts": parts}))


def time_states(
    config: TableConfig, events: list[tuple[Event, float]], rounds: int, buttons: bool = True
) -> list[float]:
    """Seconds to build every audience's state (the public, the dealer, the pit and the seven
    seats) after each input of the first ``rounds`` rounds that leaves the table betting: the
    states a betting input publishes; ``buttons=False``: with the seats' betting buttons
    (``can``, asked of the table for each seat) left out, the same run's baseline."""
    ask = views._seat_can
    if not buttons:
        views._seat_can = lambda state, seat, now: ([], {})  # type: ignore[assignment]
    try:
        projector = Projector(Topics(config.table_id))
        state = new_table(config)
        timings: list[float] = []
        for event, now in events:
            state, _ = handle(state, event, now)
            if state.rounds_started > rounds:
                break
            if state.phase is Phase.BETTING:
                started = time.perf_counter()
                projector.states(state, now)
                timings.append(time.perf_counter() - started)
        return timings
    finally:
        views._seat_can = ask


def baseline(state: TableState, n: int = 20_000) -> float:
    """Seconds for one immutable update of the table state, the floor of any event."""
    started = time.perf_counter()
    for _ in range(n):
        dataclasses.replace(state, rounds_started=state.rounds_started)
    return (time.perf_counter() - started) / n


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def spread(timings: list[float]) -> dict[str, float]:
    """p50, p99 and max of ``timings``, in microseconds."""
    return {
        "p50": percentile(timings, 0.50) * 1e6,
        "p99": percentile(timings, 0.99) * 1e6,
        "max": max(timings) * 1e6,
    }


def by_kind(events: list[tuple[Event, float]], timings: list[float]) -> dict[str, dict[str, float]]:
    """:func:`spread` of the handle() times of each kind of event, with its count and its share
    of all the time, the most costly kind first."""
    times: dict[str, list[float]] = {}
    for (event, _), took in zip(events, timings, strict=True):
        times.setdefault(event.kind, []).append(took)
    total = sum(timings)
    out = {
        kind: {"events": len(t), **spread(t), "share": sum(t) / total} for kind, t in times.items()
    }
    return dict(sorted(out.items(), key=lambda item: -item[1]["share"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2_000, help="rounds timed event by event")
    parser.add_argument(
        "--replay-rounds", type=int, default=10_000, help="rounds of the journal replayed"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--time-restart", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--without", choices=CACHES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.time_restart:
        time_restart(args.time_restart, args.without)
        return

    events, timings, config = play(args.rounds, args.seed)
    gc.collect()
    gc.disable()  # the same play with the collector paused: what the collector adds
    try:
        _, paused, _ = play(args.rounds, args.seed)
    finally:
        gc.enable()
    # the replays: a journal of --replay-rounds rounds (the target's 10,000 by default)
    journaled = events
    if args.replay_rounds != args.rounds:
        journaled, _, _ = play(args.replay_rounds, args.seed)
    gc.collect()
    started = time.perf_counter()
    final = fold(new_table(config), journaled)
    replay_s = time.perf_counter() - started
    assert final.rounds_started == args.replay_rounds
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.journal"
        write_journal(path, journaled)
        del journaled
        gc.collect()
        journal_s, rebuilt, parts = replay_journal(path)
        assert rebuilt == outcome(final), "the journal's replay must rebuild the same table"
        # each cache's worth: the target figures again with its plain form in its place
        plain: dict[str, dict[str, float]] = {}
        for cache in CACHES:
            with without(cache):
                _, timed, _ = play(args.rounds, args.seed)
            gc.collect()
            took, rebuilt, _ = replay_journal(path, cache)
            assert rebuilt == outcome(final), f"without the {cache} cache, the same table"
            plain[cache] = {"handle_p99_us": spread(timed)["p99"], "journal_replay_s": took}
    states_rounds = min(args.rounds, 200)
    with_buttons = spread(time_states(config, events, states_rounds))
    without_buttons = spread(time_states(config, events, states_rounds, buttons=False))
    floor = baseline(final)
    scale = 10_000 / args.replay_rounds
    how = "measured" if scale == 1 else "estimated"
    handled = spread(timings)
    report = {
        "rounds": args.rounds,
        "events": len(events),
        "handle_us": handled,
        "handle_us_collector_paused": spread(paused),
        "handle_us_by_event": by_kind(events, timings),
        "baseline_replace_us": floor * 1e6,
        "replay_rounds": args.replay_rounds,
        "replay_s": replay_s,
        f"replay_10k_rounds_s_{how}": replay_s * scale,
        "journal_replay_s": journal_s,
        f"journal_replay_10k_rounds_s_{how}": journal_s * scale,
        "journal_replay_parts_s": parts,
        "without_cache": plain,
        "states_per_betting_input_us": with_buttons,
        "states_per_betting_input_us_without_seat_buttons": without_buttons,
        "targets": {
            "handle p99 <= 100 us": handled["p99"] <= TARGET_P99_US,
            "replay of 10,000 rounds <= 5 s": replay_s * scale <= TARGET_REPLAY_10K_S,
            "journal replay of 10,000 rounds <= 5 s": journal_s * scale <= TARGET_REPLAY_10K_S,
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return

    def line(h: dict[str, float]) -> str:
        ratio = h["p99"] / (floor * 1e6)
        return (
            f"p50 {h['p50']:8.1f} us   p99 {h['p99']:8.1f} us ({ratio:5.1f}x baseline)   "
            f"max {h['max']:8.1f} us"
        )

    print(f"table state machine: {args.rounds:,} rounds, 7 seats, {len(events):,} events")
    print(f"  handle() per event                   {line(handled)}")
    print(f"    with the garbage collector paused  {line(report['handle_us_collector_paused'])}")
    for kind, h in report["handle_us_by_event"].items():
        print(f"    {kind:<16} {h['events']:>6,} events {h['share']:6.1%} of the time  {line(h)}")
    print(f"  baseline: one immutable state update  {floor * 1e6:8.1f} us")
    print(
        f"  every audience's states after a betting input ({states_rounds} rounds, 7 seats): "
        f"p50 {with_buttons['p50']:7.1f} us  p99 {with_buttons['p99']:7.1f} us; "
        f"baseline without the seats' buttons p50 {without_buttons['p50']:7.1f} us  "
        f"p99 {without_buttons['p99']:7.1f} us"
    )
    rows = final.rounds_started * len(events) / args.rounds  # about as many events a round
    print(
        f"  replay of {args.replay_rounds:,} rounds from memory   {replay_s:6.2f} s  "
        f"(10,000 rounds: {replay_s * scale:.2f} s {how}, "
        f"{replay_s / rows / floor:.1f}x baseline an event)"
    )
    print(
        f"  replay of {args.replay_rounds:,} rounds from a journal file  {journal_s:6.2f} s  "
        f"(10,000 rounds: {journal_s * scale:.2f} s {how}, "
        f"{journal_s / rows / floor:.1f}x baseline an event)"
    )
    restart = parts.pop(RESTART)
    print("    of which, timed alone: " + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items()))
    print(f"    {RESTART}: {restart:.2f} s (10,000 rounds: {restart * scale:.2f} s {how})")
    print("  the core's caches: the target figures with each, and without it (its plain form)")
    for cache, figures in plain.items():
        print(
            f"    {cache:<12} handle() p99 {handled['p99']:6.1f} us, "
            f"without {figures['handle_p99_us']:6.1f} us"
            f"   journal replay {journal_s * scale:5.2f} s, without "
            f"{figures['journal_replay_s'] * scale:5.2f} s (10,000 rounds, {how})"
        )
    for name, ok in report["targets"].items():
        print(f"  {'met ' if ok else 'MISSED'} {name}")


if __name__ == "__main__":
    main()
