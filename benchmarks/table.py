"""The state machine's speed: handle() latency per event, and replaying a journal's rounds.

Plays seeded studio rounds of Ultimate Texas Hold'em with seven seats (bets, decisions,
cards, reveal, settlement), timing every handle() call, then replays the same events from
scratch. Printed beside a baseline measured in the same run: the cost of one immutable
update of the table state (``dataclasses.replace``), the floor of any event.

    python benchmarks/table.py [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import time
from fractions import Fraction

from config.schema import load_game
from controller.events import (
    CardDrawn,
    Decide,
    Event,
    NoMoreBets,
    OpenTable,
    PlaceBet,
    RevealDone,
    StartRound,
)
from controller.games import Seating
from controller.games.rules import Spot
from controller.table import Phase, TableConfig, TableState, fold, handle, new_table

TARGET_P99_US = 100.0
TARGET_REPLAY_10K_S = 5.0
SEATS = tuple(f"seat:{i}" for i in range(1, 8))


def play(rounds: int, seed: int) -> tuple[list[tuple[Event, float]], list[float], TableConfig]:
    """Play ``rounds`` rounds; return the events with their times and each handle() time."""
    game = load_game("ultimate-texas-holdem")
    config = TableConfig("B1", game, Seating.SHARED, ("player",),
                         balances={s: Fraction(10**9) for s in SEATS})  # fmt: skip
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


def baseline(state: TableState, n: int = 20_000) -> float:
    """Seconds for one immutable update of the table state, the floor of any event."""
    started = time.perf_counter()
    for _ in range(n):
        dataclasses.replace(state, rounds_started=state.rounds_started)
    return (time.perf_counter() - started) / n


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    events, timings, config = play(args.rounds, args.seed)
    started = time.perf_counter()
    final = fold(new_table(config), events)
    replay_s = time.perf_counter() - started
    assert final.rounds_started == args.rounds
    floor = baseline(final)
    report = {
        "rounds": args.rounds,
        "events": len(events),
        "handle_us": {
            "p50": percentile(timings, 0.50) * 1e6,
            "p99": percentile(timings, 0.99) * 1e6,
            "max": max(timings) * 1e6,
        },
        "baseline_replace_us": floor * 1e6,
        "replay_s": replay_s,
        "replay_10k_rounds_s_estimate": replay_s * 10_000 / args.rounds,
        "targets": {
            "handle p99 <= 100 us": percentile(timings, 0.99) * 1e6 <= TARGET_P99_US,
            "replay of 10,000 rounds <= 5 s": replay_s * 10_000 / args.rounds
            <= TARGET_REPLAY_10K_S,
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    h = report["handle_us"]
    print(f"table state machine: {args.rounds:,} rounds, 7 seats, {len(events):,} events")
    spread = f"p50 {h['p50']:8.1f} us   p99 {h['p99']:8.1f} us   max {h['max']:8.1f} us"
    print(f"  handle() per event   {spread}")
    print(f"  baseline: one immutable state update  {floor * 1e6:8.1f} us")
    print(
        f"  replay of {args.rounds:,} rounds  {replay_s:6.2f} s  (10,000 rounds: "
        f"{report['replay_10k_rounds_s_estimate']:.2f} s estimated)"
    )
    for name, ok in report["targets"].items():
        print(f"  {'met ' if ok else 'MISSED'} {name}")


if __name__ == "__main__":
    main()
