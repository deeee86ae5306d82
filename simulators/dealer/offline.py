"""The crew playing a table with no broker and no clock: for leak tests and benchmarks.

The same dealer, pit manager and players as over MQTT, fed the same views (built by the
:class:`~controller.views.Projector`), answering with the same commands (parsed as the
service parses them); cards come from a seeded shuffle whenever one is due. Every step
yields what the controller would publish.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from config.schema import load_game
from controller.cards import Card
from controller.events import Action, CardDrawn, Event, Tick
from controller.games import GameId, Seating
from controller.inbound import CommandRejected, parse_command
from controller.table import Phase, TableConfig, TableState, handle, new_table
from controller.topics import Sender, Topics
from controller.views import Outgoing, Projector
from simulators.dealer.crew import DealerPolicy, PitPolicy, SeatPolicy, seats_for

__all__ = ["Step", "play_offline"]


@dataclass(frozen=True, slots=True)
class Step:
    """One handled input and what was published for it."""

    event: Event
    before: TableState
    after: TableState
    actions: list[Action]
    published: list[Outgoing]


def play_offline(
    game_id: GameId | str,
    seating: Seating,
    rounds: int,
    *,
    seed: int = 0,
    players: int = 3,
    irregular: float = 0.2,
    mischief: float = 0.2,
    void_chance: float = 0.1,
    max_steps: int = 100_000,
) -> Iterator[Step]:
    """Play ``rounds`` rounds; yield every step with its published messages."""
    game = load_game(str(game_id))
    rng = random.Random(seed)
    seats = seats_for(seating.value, players)
    studio = seating is Seating.SHARED
    hands = tuple(sorted({h for _, h in seats}))
    config = TableConfig(
        "OFF", game, seating, hands if not studio else ("player",),
        betting_seconds=2.0 if studio else None, decision_seconds=3.0 if studio else None,
        confirm_payments=not studio,
        balances={f"seat:{s}": Fraction(10_000) for s, _ in seats} if studio else None,
    )  # fmt: skip
    topics = Topics("OFF")
    projector = Projector(topics)
    viewer = Projector(topics)  # builds what the people see, outside the published streams
    state = new_table(config)
    dealer = DealerPolicy(rounds, random.Random(seed + 1), irregular, studio, betting_pause=1.0)
    pit = PitPolicy(random.Random(seed + 2), void_chance)
    people = {s: SeatPolicy(f"seat:{s}", h, game, random.Random(seed + 10 + i), mischief)
              for i, (s, h) in enumerate(seats)}  # fmt: skip
    deck: list[Card] = []
    dealt_for = ""
    now = 1_790_000_000.0
    ended = 0

    def apply(event: Event) -> Step:
        nonlocal state
        before = state
        state, actions = handle(state, event, now)
        viewer.observe(before, state, actions)
        return Step(event, before, state, actions, projector.step(before, state, actions, now))

    for _ in range(max_steps):
        if ended >= rounds and state.phase is Phase.IDLE:
            return
        now += 0.25
        commands: list[tuple[Sender, dict[str, object]]] = []
        pit_view = json.loads(viewer.pit_state(state, now).model_dump_json())
        commands += [(Sender("pit"), c) for c in pit.act(pit_view, now)]
        dealer_view = json.loads(viewer.dealer_state(state, now).model_dump_json())
        commands += [(Sender("dealer"), c) for c in dealer.act(dealer_view, now)]
        public = json.loads(viewer.public_state(state, now).model_dump_json())
        for seat, person in people.items():
            person.see_public(public)
            view = json.loads(viewer.seat_state(state, f"seat:{seat}", now).model_dump_json())
            commands += [(Sender("seat", seat), c) for c in person.act(view, now)]
        progressed = False
        for number, (sender, command) in enumerate(commands):
            payload = json.dumps({"v": 1, "id": f"c{number}", **command}).encode()
            try:
                _, event = parse_command(sender, payload)
            except CommandRejected:
                continue
            step = apply(event)
            progressed = True
            ended += sum(1 for a in step.actions if a.kind == "round_ended")
            yield step
        if state.phase is Phase.DEALING and state.round is not None:
            if dealt_for != state.round.round_id or not deck:  # a fresh shuffle each round
                dealt_for, deck = state.round.round_id, list(game.info.deck.shuffled(rng))
            yield apply(CardDrawn(actor="shoe", card=deck.pop()))
            progressed = True
        if not progressed:  # nobody acts: let the clock run the timers
            now += 1.0
            step = apply(Tick(actor="timer"))
            ended += sum(1 for a in step.actions if a.kind == "round_ended")
            yield step
    raise RuntimeError(f"the offline table did not finish {rounds} rounds in {max_steps} steps")
