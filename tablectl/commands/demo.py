"""``tablectl demo``: a whole simulated table, live, on an MQTT broker.

For each game: the real controller (journal, state machine, publisher) runs with the shoe
simulator on a pseudo-terminal speaking the framed protocol; a scripted dealer, a pit
manager and remote players act through their own MQTT command topics (the dealer commits
an irregularity now and then, players sometimes bet late or send a malformed command); a
player display draws what a player sees, and a checking display verifies the public stream
(sequence, contradictions, hidden data). Without ``--broker`` an embedded broker runs in
the process. A summary follows; the exit status is 0 when every round ended and the
checking display found nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from config.files import folder as writable_folder
from config.tables import parse_table_text
from controller.games import GameId
from controller.journal import verify
from drivers.mqtt.broker import dev_password, seat_user
from drivers.mqtt.client import BrokerAddress, parse_broker_url
from drivers.mqtt.embedded import EmbeddedBroker
from drivers.storage.sqlite_journal import SqliteJournal
from simulators.dealer.crew import Crew, seats_for
from simulators.display.live import LiveDisplay
from tablectl.running import RunningTable
from tablectl.workers import int_from, number_from

__all__ = ["register", "run_table"]

#: the most rounds per game (each takes a few seconds)
MAX_HANDS = 10_000
#: the most players: a boxes table has at most 7 boxes
MAX_PLAYERS = 7
#: the fastest deal, cards per second
MAX_RATE = 1000
#: the longest --linger, seconds (a day)
MAX_LINGER = 86_400

#: how each game is set up in the demo: studio (shared hand, remote seats) or boxes
SETUP = {
    GameId.TEXAS_HOLDEM_BONUS: "shared",
    GameId.TEXAS_POKER: "boxes",
    GameId.ULTIMATE_TEXAS_HOLDEM: "shared",
    GameId.CASINO_HOLDEM: "shared",
    GameId.TRIPLE_ACTION_HOLDEM: "boxes",
}


def register(subparsers: Any) -> None:
    """Add the ``demo`` command."""
    parser = subparsers.add_parser(
        "demo",
        help="run a whole simulated table on MQTT (shoe, dealer, pit, players, displays)",
        # the module's description, literal markup as quotes
        description=__doc__.split("\n\n", 1)[1].replace("``", "'") if __doc__ else None,
    )
    parser.add_argument(
        "--game", choices=[g.value for g in GameId], help="one game only (default: all five)"
    )
    parser.add_argument(
        "--hands",
        type=int_from(1, MAX_HANDS),
        default=3,
        metavar="N",
        help=f"rounds per game, 1 to {MAX_HANDS} (default: 3)",
    )
    parser.add_argument("--seed", type=int, default=2026, help="seed of shoe and people")
    parser.add_argument("--broker", help="mqtt://[user[:password]@]host[:port] (default: embedded)")
    parser.add_argument(
        "--players",
        type=int_from(1, MAX_PLAYERS),
        default=3,
        metavar="N",
        help=f"players per table, 1 to {MAX_PLAYERS} (default: 3)",
    )
    parser.add_argument(
        "--rate",
        type=number_from(0, MAX_RATE, above=True),
        default=8.0,
        help=f"shoe cards per second, above 0 and at most {MAX_RATE} (default: 8)",
    )
    parser.add_argument(
        "--irregular",
        type=number_from(0, 1),
        default=0.3,
        metavar="CHANCE",
        help="chance per round of a dealer irregularity, 0 to 1 (default: 0.3)",
    )
    parser.add_argument(
        "--camera",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a simulated overhead camera renders each table and cross-checks the shoe",
    )
    parser.add_argument("--journal-dir", type=Path, help="keep the journals here")
    parser.add_argument("--quiet", action="store_true", help="no player display")
    parser.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="serve the tables' pages in the browser (player display, overlay, seat, consoles)",
    )
    parser.add_argument(
        "--linger",
        type=number_from(0, MAX_LINGER),
        default=0.0,
        metavar="SECONDS",
        help=(
            "with --web: keep serving the last state this long after the rounds end, "
            f"0 to {MAX_LINGER} (default: 0)"
        ),
    )
    parser.set_defaults(run=run)


def table_id_of(game: GameId) -> str:
    """The demo's table id of ``game``: D1 to D5 in the games' order."""
    return f"D{list(GameId).index(game) + 1}"


def _serve(
    args: argparse.Namespace, address: BrokerAddress, folder: Path, games: list[GameId]
) -> Any:
    """The web server for the demo's tables (the display login on a broker with users)."""
    from tablectl.commands.web import parse_listen
    from tablectl.web.server import WebServer

    host, port = parse_listen(args.web)
    login = address
    if address.username:
        login = replace(address, username="display", password=dev_password("display"))
    journals = {table_id_of(g): folder / f"{table_id_of(g)}.journal" for g in games}
    try:
        server = WebServer(login, host, port, journals=journals).start()
    except OSError as error:  # the port is taken: any free one will do for a demo
        print(f"cannot serve on {args.web} ({error.strerror}): taking a free port", flush=True)
        server = WebServer(login, host, 0, journals=journals).start()
    print(f"web pages on {server.url}/ (every table and page)", flush=True)
    return server


def run_table(
    game: GameId, args: argparse.Namespace, address: BrokerAddress, folder: Path, live: Any
) -> dict[str, Any]:
    """Run one game's table for ``args.hands`` rounds; return its summary."""
    seating = SETUP[game]
    table_id = table_id_of(game)
    seats = [str(i) for i in range(1, args.players + 1)]
    studio = seating == "shared"
    text = f"""
[table]
id = "{table_id}"
game = "{game.value}"
seating = "{seating}"
boxes = {max(args.players, 1)}
journal = "{table_id}.journal"
{f"betting_seconds = {getattr(args, 'betting_seconds', 3.0)}" if studio else ""}
{f"decision_seconds = {getattr(args, 'decision_seconds', 4.0)}" if studio else ""}
yellow_seconds = 1
{f"seats = {json.dumps(seats)}" if studio else ""}
{'balance = "1000"' if studio else ""}
confirm_payments = {"false" if studio else "true"}
[shoe]
kind = "simulated"
dialect = "framed"
rate = {args.rate}
seed = {args.seed}
[camera]
enabled = {"true" if getattr(args, "camera", False) else "false"}
source = "simulated"
fps = 3
"""
    config = parse_table_text(text, f"demo table {table_id}")
    journal = folder / f"{table_id}.journal"
    if journal.exists():
        journal.unlink()
    table = RunningTable(config, folder, address, client_id=f"tablectl-demo-{table_id}")
    users = ["dealer", "pit", *(seat_user(s) for s in seats)]
    passwords = {user: dev_password(user) for user in users}
    display_login = replace(address, username="display", password=dev_password("display"))
    display = LiveDisplay(
        display_login if address.username else address,
        table_id,
        screen=live,
        quiet=args.quiet,
        client_id=f"demo-display-{table_id}",
    )
    if not display.start():
        raise SystemExit(f"the player display could not connect to {address.url()}")
    started = time.monotonic()
    table.start()
    crew = Crew(
        address,
        table_id,
        game,
        seats_for(seating, args.players),
        rounds=args.hands,
        seed=args.seed,
        studio=studio,
        irregular=args.irregular,
        mischief=0.1,
        void_chance=0.2,
        passwords=passwords if address.username else None,
        on_round_end=lambda data: table.simulator.new_deck(),
    )
    crew.start()
    finished = crew.finished.wait(30 + 20 * args.hands)
    time.sleep(0.3)  # the last messages reach the displays
    crew.stop()
    table.stop()
    display.stop()
    with contextlib.closing(SqliteJournal(journal)) as reopened:
        entries = list(reopened.entries())
    verify(entries)
    report = display.checker.report()
    return {
        "table": table_id,
        "game": game.value,
        "seating": seating,
        "rounds": crew.rounds_ended,
        "finished": finished,
        "seconds": round(time.monotonic() - started, 1),
        "irregularities": crew.irregularities,
        "refused": [r["reason"] for r in crew.replies if not r.get("ok")],
        "display": report,
        "journal": {"rows": len(entries), "chain": "intact"},
        "camera": None
        if table.watcher is None
        else {
            "frames": table.watcher.frames,
            "dropped": table.watcher.status()["dropped"],
            "halts": [
                str(e.record.get("reason", e.record.get("kind")))
                for e in entries
                if e.record.get("actor") == "camera"
            ],
        },
    }


def run(args: argparse.Namespace) -> int:
    """Run every chosen game's table in turn and print the summary."""
    games = [GameId(args.game)] if args.game else list(GameId)
    stack = contextlib.ExitStack()
    with stack:
        if args.broker:
            address = parse_broker_url(args.broker)
            if address.username and address.password is None:
                address = replace(address, password=dev_password(address.username))
        else:
            broker = stack.enter_context(EmbeddedBroker())
            address = BrokerAddress("127.0.0.1", broker.port)
            print(f"embedded MQTT broker on {broker.url}", flush=True)
        folder = args.journal_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        writable_folder(folder, "--journal-dir")
        live = None
        if sys.stdout.isatty() and not args.quiet:
            from rich.live import Live

            live = stack.enter_context(Live(refresh_per_second=8, transient=True))
        server = _serve(args, address, folder, games) if args.web else None
        if server is not None:
            stack.callback(server.stop)
        summaries = []
        for game in games:
            if server is not None:
                base = f"{server.url}/table/{table_id_of(game)}"
                print(
                    f"{game.value}: player display {base}/player  overlay {base}/overlay  "
                    f"seat {base}/seat  dealer {base}/dealer  pit {server.url}/pit",
                    flush=True,
                )
            summaries.append(run_table(game, args, address, folder, live))
            s = summaries[-1]
            if live is not None:
                live.update("")
            outcomes = [r["outcome"] for r in s["rounds"]]
            print(
                f"\n=== {s['game']} (table {s['table']}, {s['seating']}): "
                f"{len(outcomes)} rounds in {s['seconds']} s: {', '.join(outcomes)}"
            )
            for note in s["irregularities"]:
                print(f"  irregularity: {note}")
            for reason in s["refused"]:
                print(f"  refused: {reason}")
            d = s["display"]
            print(
                f"  player display: {d['messages']} messages, {d['gaps']} gaps, "
                f"findings: {d['findings'] or 'none'}"
            )
            print(f"  journal: {s['journal']['rows']} rows, hash chain intact")
            camera = s["camera"]
            if camera is not None:
                verdict = "; ".join(camera["halts"]) or "it agreed with the shoe on every card"
                print(f"  camera: {camera['frames']} frames read: {verdict}")
        if server is not None:
            if args.linger > 0:
                print(f"serving the last state on {server.url}/ for {args.linger:g} s", flush=True)
                time.sleep(args.linger)
            server.stop()
    ok = all(s["finished"] and not s["display"]["findings"] for s in summaries)
    print("\ndemo " + ("complete" if ok else "FAILED: see above"))
    return 0 if ok else 1
