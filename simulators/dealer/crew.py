"""The people round a simulated table: a scripted dealer, a pit manager and players.

Each is an MQTT client that reads only what its role may read (the dealer console's state,
the pit's state, one seat's state and the public state) and answers with commands on its
own command topic, as the real consoles do. Their policies are plain functions of the JSON
they receive, so the same people drive the demo, the end-to-end tests and
hardware-in-the-loop rigs. The dealer also commits irregularities now and then (a card
exposed while dealing, a short payment, a halt to check the layout), the pit manager
resolves every halt, and players sometimes bet late, send a malformed command or undo.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from config.schema import load_game
from controller.cards import Card
from controller.games import GameId
from controller.games.base import Game
from controller.games.rules import Spot
from controller.games.strategy import View, strategy
from controller.topics import Topics
from drivers.mqtt.client import BrokerAddress, MqttLink

__all__ = ["Agent", "Crew", "DealerPolicy", "PitPolicy", "SeatPolicy"]

Command = dict[str, Any]

#: a console sends a command again, with its id, when no reply came within this many seconds
RETRY_SECONDS = 1.0

#: how many times a console sends one command before it gives up on it
TRIES = 5


@dataclass(slots=True)
class _Awaited:
    """A command sent and not yet answered."""

    agent: Agent
    topic: str
    command: Command
    sent: float
    tries: int = 1


class Agent:
    """One MQTT client of the crew: subscribes to its topics, publishes its commands.

    It logs in as ``username`` (the broker's ACL gives that user only its role's topics) and
    hands every JSON object that arrives to ``on_message`` (in the network thread).
    """

    _ids = itertools.count(1)

    def __init__(
        self,
        address: BrokerAddress,
        username: str,
        password: str | None,
        subscriptions: list[str],
        on_message: Callable[[str, dict[str, Any]], None],
        *,
        will: tuple[str, bytes] | None = None,
    ) -> None:
        self.username = username
        self.handler = on_message
        self.sent = 0
        self.link = MqttLink(
            replace(address, username=username, password=password),
            f"crew-{username}-{next(self._ids)}-{random.getrandbits(24):06x}",
            subscriptions=subscriptions,
            will=will,
            on_message=self._on_message,
            backoff=(1, 3),
        )

    def start(self) -> None:
        """Connect in the background."""
        self.link.start()

    def wait_connected(self, timeout: float) -> bool:
        """Wait until the broker accepted the login and its subscriptions; whether in time."""
        return self.link.wait_connected(timeout) and self.link.wait_subscribed(timeout)

    def stop(self) -> None:
        """Disconnect."""
        self.link.stop()

    def send(self, topic: str, command: Command) -> None:
        """Publish one command (QoS 1)."""
        self.sent += 1
        self.link.publish(topic, json.dumps(command).encode())

    def _on_message(self, topic: str, payload: bytes) -> None:
        try:
            doc = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return
        if isinstance(doc, dict):
            self.handler(topic, doc)


# ------------------------------------------------------------------------------ policies


@dataclass
class DealerPolicy:
    """The dealer: starts rounds, closes betting, turns cards, confirms payments.

    ``rounds`` is how many rounds to start; ``irregular`` the chance per round that he
    commits one of the irregularities a dealer does commit.
    """

    rounds: int
    rng: random.Random
    irregular: float = 0.0
    studio: bool = False
    betting_pause: float = 0.6
    started: int = 0
    seen: set[str] = field(default_factory=set)
    done: set[str] = field(default_factory=set)
    irregularities: list[str] = field(default_factory=list)
    _plan: dict[str, str] = field(default_factory=dict)
    _betting_since: float = 0.0

    def plan(self, round_id: str) -> str:
        """The irregularity this round will see ("" for none), chosen once per round."""
        if round_id not in self._plan:
            kinds = ["exposed", "short_payment", "check_layout"]
            self._plan[round_id] = (
                self.rng.choice(kinds) if self.rng.random() < self.irregular else ""
            )
        return self._plan[round_id]

    def act(self, view: dict[str, Any], now: float) -> list[Command]:
        """The dealer's commands for the console state ``view``."""
        phase, rid = view.get("phase"), view.get("round_id") or ""
        if rid and not view.get("abandoned"):  # a redeal's new game is no new round started
            self.seen.add(rid)
        self.started = len(self.seen)
        # once per view; again after a restart (a new birth), when a command sent to the
        # controller that died may never have been taken, as a dealer presses again
        key = f"{rid}|{phase}|{view.get('next')}|{len(view.get('cards', []))}|{view.get('birth')}"
        if phase == "idle":  # a refused start (the table still closed) is tried again
            key = f"idle|{self.started}|{view.get('birth')}|{view.get('seq')}"
        if key in self.done:
            return []
        out: list[Command] = []
        if phase in ("idle", "betting") and "change the deck" in str(view.get("next")):
            # a game dealt from a new deck each game: the dealer puts one in the shoe first
            out.append({"command": "change_deck", "deck_id": f"D-{self.started + 1:04d}"})
            if phase == "idle" and self.started < self.rounds:
                out.append({"command": "start_round"})
        elif phase == "idle" and self.started < self.rounds:
            out.append({"command": "start_round"})
        elif phase == "betting":
            if self._betting_since == 0.0:
                self._betting_since = now
            if self.studio or now - self._betting_since < self.betting_pause:
                return []  # the studio's timer closes betting; a dealer waits for the chips
            self._betting_since = 0.0
            out.append({"command": "no_more_bets"})
        elif phase == "dealing" and self.plan(rid) == "exposed" and view.get("cards"):
            dealer_cards = [c for c in view["cards"] if c["position"] == "dealer"]
            if len(dealer_cards) == 1 and f"{rid}:exposed" not in self.done:
                self.done.add(f"{rid}:exposed")
                self.irregularities.append("dealer card exposed: redeal")
                out.append({"command": "dealer_exposed_early"})
        elif phase == "deciding" and self.plan(rid) == "check_layout":
            if f"{rid}:halt" not in self.done:
                self.done.add(f"{rid}:halt")
                self.irregularities.append("dealer halted to check the layout")
                out.append({"command": "halt", "reason": "checking the layout"})
        elif phase == "reveal":
            out.append({"command": "reveal_done"})
        elif phase == "settling":
            for due in view.get("payments_due", []):
                amount = Fraction(due["amount"])
                if self.plan(rid) == "short_payment" and f"{rid}:short" not in self.done:
                    self.done.add(f"{rid}:short")
                    self.irregularities.append("short payment flagged, then corrected")
                    out.append(
                        {
                            "command": "confirm_payment",
                            "hand": due["hand"],
                            "seat": due["seat"],
                            "paid": str(amount - 1),
                        }
                    )
                out.append(
                    {
                        "command": "confirm_payment",
                        "hand": due["hand"],
                        "seat": due["seat"],
                        "paid": due["amount"],
                    }
                )
        if out:
            self.done.add(key)
        return out


@dataclass
class PitPolicy:
    """The pit manager: opens the table and resolves every halt (resume, or void)."""

    rng: random.Random
    void_chance: float = 0.0
    done: set[str] = field(default_factory=set)
    rulings: list[str] = field(default_factory=list)

    def act(self, view: dict[str, Any], now: float) -> list[Command]:
        """The pit's commands for the pit state ``view``."""
        phase, rid = view.get("phase"), view.get("round_id") or ""
        key = (
            f"{rid}|{phase}|{view.get('halt_reason')}|{view.get('birth')}"  # again after a restart
        )
        if key in self.done:
            return []
        out: list[Command] = []
        if phase == "closed" and "open" not in self.done:
            self.done.add("open")
            out.append({"command": "open_table", "by": "sim"})
        elif phase == "halted":
            reason = str(view.get("halt_reason", ""))
            if "exposed during the deal" in reason:  # seed 001: the cards are dealt again
                self.rulings.append(f"redealt: {reason}")
                out.append({"command": "redeal", "by": "sim", "reason": "dealer's card exposed"})
            elif self.rng.random() < self.void_chance:
                self.rulings.append(f"voided: {reason}")
                void: Command = {
                    "command": "void_round",
                    "by": "sim",
                    "reason": f"pit ruling on: {reason}",
                }
                if view.get("payments_confirmed"):  # the console shows them: he confirms
                    void["confirm_paid"] = True
                out.append(void)
            else:
                self.rulings.append(f"resumed: {reason}")
                out.append({"command": "resume", "by": "sim", "note": "layout checked"})
        if out:
            self.done.add(key)
        return out


@dataclass
class SeatPolicy:
    """A player: bets the table minimum and the side bet, decides by the published strategy.

    ``hand`` is the player hand it bets on (``player`` at a shared table, ``box N``);
    ``mischief`` the chance per round of a late bet or a malformed command.
    """

    seat: str
    hand: str
    game: Game
    rng: random.Random
    mischief: float = 0.0
    done: set[str] = field(default_factory=set)
    board: tuple[Card, ...] = ()
    dealer_up: tuple[Card, ...] = ()

    def see_public(self, view: dict[str, Any]) -> None:
        """Remember the board and the dealer's shown cards from the public state."""
        cards = view.get("cards", [])
        self.board = tuple(
            Card.parse(c["card"]) for c in cards if c["position"] == "board" and c["card"]
        )
        self.dealer_up = tuple(
            Card.parse(c["card"]) for c in cards if c["position"] == "dealer" and c["card"]
        )

    def act(self, view: dict[str, Any], now: float) -> list[Command]:
        """The player's commands for its own seat state ``view``."""
        phase, rid = view.get("phase"), view.get("round_id") or ""
        stakes = [s for s in view.get("stakes", []) if s["hand"] == self.hand]
        out: list[Command] = []
        if phase == "betting" and not stakes and f"{rid}:bet" not in self.done:
            self.done.add(f"{rid}:bet")
            limits = self.game.config.limits
            out.append(self._bet(Spot.ANTE, limits[Spot.ANTE].minimum))
            side = next((s for s in self.game.initial_spots if s.is_side_bet), None)
            if side is not None and self.rng.random() < 0.5:
                out.append(self._bet(side, limits[side].minimum))
            if self.rng.random() < self.mischief:
                out.append(
                    {"command": "place_bet", "hand": self.hand, "spot": "ante", "amount": "a lot"}
                )
        elif phase == "dealing" and f"{rid}:late" not in self.done:
            self.done.add(f"{rid}:late")
            if self.rng.random() < self.mischief:  # "no more bets" has been called: refused
                out.append(self._bet(Spot.ANTE, self.game.config.limits[Spot.ANTE].minimum))
        elif phase == "deciding":
            for stake in stakes:
                if not stake["options"]:
                    continue
                # once per state message: a refused decision (the table halted) is retried
                key = f"{rid}:{len(stake['decisions'])}:{view.get('birth')}:{view.get('seq')}"
                if key in self.done:
                    continue
                self.done.add(key)
                hole = tuple(
                    Card.parse(c["card"])
                    for c in view.get("cards", [])
                    if c["position"] == self.hand and c["card"]
                )
                point = self._point(stake)
                if point is None or len(hole) < self.game.info.hole_cards:
                    continue
                seen = View(
                    self.game, hole, self.board, self.dealer_up, self.rng.randrange(1 << 30)
                )
                option = strategy(self.game.info.id).decide(point, seen)
                if option not in stake["options"]:
                    option = stake["options"][0]
                out.append({"command": "decide", "hand": self.hand, "option": option})
        return out

    def _point(self, stake: dict[str, Any]) -> str | None:
        bets = {Spot(k): Fraction(v) for k, v in stake["bets"].items()}
        walk = self.game.walk(bets, tuple(stake["decisions"]))
        return None if walk.pending is None else walk.pending.name

    def _bet(self, spot: Spot, amount: Fraction | int) -> Command:
        return {
            "command": "place_bet",
            "hand": self.hand,
            "spot": spot.value,
            "amount": str(amount),
        }


# ------------------------------------------------------------------------------ the crew


class Crew:
    """The dealer, the pit manager and the players of one table, each on its own link.

    Each person's link only stores the latest view it received; one thread looks at every
    view a few times a second and sends what each person would do, so a person who waits
    (the dealer letting the chips settle) acts without a new message.
    """

    def __init__(
        self,
        address: BrokerAddress,
        table_id: str,
        game_id: GameId | str,
        seats: list[tuple[str, str]],
        *,
        rounds: int,
        seed: int = 0,
        studio: bool = False,
        irregular: float = 0.0,
        mischief: float = 0.0,
        void_chance: float = 0.0,
        passwords: dict[str, str] | None = None,
        on_round_end: Callable[[dict[str, Any]], None] | None = None,
        tick: float = 0.05,
    ) -> None:
        self.address = address
        self.topics = Topics(table_id)
        self.game = load_game(str(game_id))
        self.passwords = passwords or {}
        self.dealer = DealerPolicy(rounds, random.Random(seed + 1), irregular, studio)
        self.pit = PitPolicy(random.Random(seed + 2), void_chance)
        self.on_round_end = on_round_end
        self.tick = tick
        self.rounds_ended: list[dict[str, Any]] = []
        self.replies: list[dict[str, Any]] = []
        self.finished = threading.Event()
        self._views: dict[str, dict[str, Any]] = {}
        self._fresh = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        # user: the command it awaits a reply to, where it went, when it was last sent, tries
        self._outstanding: dict[str, _Awaited] = {}
        self.retries = 0  # commands sent again (same id) when no reply came in time
        self.seats = {
            seat: SeatPolicy(
                f"seat:{seat}", hand, self.game, random.Random(seed + 10 + i), mischief
            )
            for i, (seat, hand) in enumerate(seats)
        }
        t = self.topics
        self.agents: list[Agent] = []
        self._dealer = self._agent("dealer", [t.dealer.state, t.dealer.reply, t.events])
        self._pit = self._agent("pit", [t.pit.state, t.pit.reply])
        self._seat_agents = {
            seat: self._agent(
                f"seat-{seat}",
                [t.seat(seat).state, t.seat(seat).reply, t.state],
                will=(t.seat(seat).presence, b"offline"),
            )
            for seat in self.seats
        }

    def _agent(self, user: str, subs: list[str], will: tuple[str, bytes] | None = None) -> Agent:
        agent = Agent(
            self.address,
            user,
            self.passwords.get(user),
            subs,
            lambda topic, doc: self._received(user, topic, doc),
            will=will,
        )
        self.agents.append(agent)
        return agent

    def start(self, timeout: float = 10.0) -> None:
        """Connect everyone; players announce they are online; start acting."""
        for agent in self.agents:
            agent.start()
        for agent in self.agents:
            if not agent.wait_connected(timeout):
                raise TimeoutError(f"{agent.username} could not connect to the broker")
        for seat, agent in self._seat_agents.items():
            agent.link.publish(self.topics.seat(seat).presence, b"online", retain=True)
        self._thread = threading.Thread(target=self._run, name="crew", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop acting and disconnect everyone."""
        self._stop.set()
        self._fresh.set()
        if self._thread is not None:
            self._thread.join(2.0)
        for agent in self.agents:
            agent.stop()

    def _received(self, user: str, topic: str, doc: dict[str, Any]) -> None:
        with self._lock:
            if topic.endswith("/reply"):
                self.replies.append(doc)
                awaited = self._outstanding.get(user)
                if awaited is not None and awaited.command["id"] == doc.get("id"):
                    del self._outstanding[user]
                return
            if topic == self.topics.events:
                if doc.get("event") == "round_ended":
                    self.rounds_ended.append(doc["data"])
                    if self.on_round_end is not None:
                        self.on_round_end(doc["data"])
                    if len(self.rounds_ended) >= self.dealer.rounds:
                        self.finished.set()
                return
            if topic == self.topics.state:
                seat = user.removeprefix("seat-")
                if seat in self.seats:
                    self.seats[seat].see_public(doc)
                return
            self._views[user] = doc
        self._fresh.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._fresh.wait(self.tick)
            self._fresh.clear()
            now = time.monotonic()
            with self._lock:
                again = self._overdue(now)
                views = {u: v for u, v in self._views.items() if u not in self._outstanding}
                sends: list[tuple[Agent, str, list[Command]]] = []
                if "dealer" in views:
                    sends.append(
                        (
                            self._dealer,
                            self.topics.dealer.cmd,
                            self.dealer.act(views["dealer"], now),
                        )
                    )
                if "pit" in views:
                    sends.append((self._pit, self.topics.pit.cmd, self.pit.act(views["pit"], now)))
                for seat, policy in self.seats.items():
                    view = views.get(f"seat-{seat}")
                    if view is not None:
                        sends.append(
                            (
                                self._seat_agents[seat],
                                self.topics.seat(seat).cmd,
                                policy.act(view, now),
                            )
                        )
            for awaited in again:  # the same command, the same id: applied once at most
                awaited.agent.send(awaited.topic, awaited.command)
            for agent, topic, commands in sends:
                for command in commands:
                    command = {"v": 1, "id": f"{agent.username}-{next(self._ids)}", **command}
                    with self._lock:
                        self._outstanding[agent.username] = _Awaited(agent, topic, command, now)
                    agent.send(topic, command)

    def _overdue(self, now: float) -> list[_Awaited]:
        """The commands to send again now (no reply within :data:`RETRY_SECONDS`), as a
        console does; one sent :data:`TRIES` times unanswered is given up (its person acts
        on the next view). Called with the lock held."""
        again: list[_Awaited] = []
        for user, awaited in list(self._outstanding.items()):
            if now - awaited.sent < RETRY_SECONDS:
                continue
            if awaited.tries >= TRIES:
                del self._outstanding[user]
                continue
            awaited.sent, awaited.tries = now, awaited.tries + 1
            self.retries += 1
            again.append(awaited)
        return again

    @property
    def irregularities(self) -> list[str]:
        """What the dealer did wrong, and how the pit ruled."""
        return self.dealer.irregularities + self.pit.rulings


def seats_for(seating: str, count: int) -> list[tuple[str, str]]:
    """``count`` players: at a boxes table each on its own box, else on the shared hand."""
    if seating == "boxes":
        return [(str(i), f"box {i}") for i in range(1, count + 1)]
    return [(str(i), "player") for i in range(1, count + 1)]
