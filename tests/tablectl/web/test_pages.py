"""The pages in a real headless Chromium, fed by real tables on the embedded broker.

A whole demo round set of a game is played while the player display is open: every card
the table deals to the public appears on the page (recorded as it is drawn), and the
results of each round are on it at the end. A seat's page, logged in as its seat, bets and
decides with its buttons and the table applies them; the page never receives a frame of
another seat. A seat's betting buttons are the game's own, named as its document names them,
each enabled exactly by the seat's ``can``: seed 000's Deal and Rebet, Ultimate's Double once
a round. The sweep over every game is in ``make test-full``.
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from controller.games import GameId
from drivers.mqtt.client import BrokerAddress
from drivers.mqtt.embedded import EmbeddedBroker
from simulators.dealer.crew import Crew
from tablectl.commands.demo import run_table, table_id_of
from tablectl.running import RunningTable
from tablectl.web.server import WebServer
from tests.support import browser
from tests.support.browser import shown_offline, wait_for

pytestmark = pytest.mark.skipif(
    not browser.available(), reason="Chromium and chromedriver are not installed"
)

#: records every card element drawn inside a hand, as "hand|card", from the moment it runs
RECORDER = """
window.__seen = new Set();
const note = (node) => {
  if (!(node instanceof Element)) return;
  for (const c of node.matches('[data-card]') ? [node] : node.querySelectorAll('[data-card]')) {
    const hand = c.closest('[data-hand]');
    if (hand) window.__seen.add(hand.dataset.hand + '|' + c.dataset.card);
  }
};
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes) note(n);
}).observe(document.body, {childList: true, subtree: true});
note(document.body);
"""


@pytest.fixture(scope="module")
def chrome() -> Iterator[Any]:
    driver = browser.chrome(1600, 900)
    driver.set_script_timeout(10)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[EmbeddedBroker, WebServer]]:
    with EmbeddedBroker() as broker:
        server = WebServer(BrokerAddress("127.0.0.1", broker.port), "127.0.0.1", 0).start()
        try:
            yield broker, server
        finally:
            server.stop()


def demo_args(hands: int) -> argparse.Namespace:
    return argparse.Namespace(
        hands=hands, seed=7, players=3, rate=40.0, irregular=0.0, camera=False, quiet=True,
        betting_seconds=1.5, decision_seconds=2.0,
    )  # fmt: skip


def play_on_player_display(
    game: GameId, chrome: Any, site: tuple[Any, WebServer], mqtt_client: Any,
    tmp_path: Path, hands: int = 2, user: str | None = None,
) -> None:  # fmt: skip
    broker, server = site
    table = table_id_of(game)
    probe = mqtt_client(broker, "pit" if user else None)
    probe.subscribe(f"tablectl/{table}/events")
    chrome.get(f"{server.url}/table/{table}/player")
    wait_for(lambda: chrome.execute_script("return !!window.__frames"), 5, "the page's socket")
    chrome.execute_script(RECORDER)
    summary: dict[str, Any] = {}
    address = BrokerAddress("127.0.0.1", broker.port, user, f"{user}-dev" if user else None)
    runner = threading.Thread(
        target=lambda: summary.update(run_table(game, demo_args(hands), address, tmp_path, None))
    )
    runner.start()
    runner.join(60 + 20 * hands)
    assert summary.get("finished"), f"the {game.value} table did not finish its rounds"
    dealt = set()
    ended = []
    for message in probe.messages(f"tablectl/{table}/events"):
        doc = json.loads(message.payload)
        if doc["event"] == "card":
            data = doc["data"]
            dealt.add(f"{data['position']}|{data['card'] or 'back'}")
        elif doc["event"] == "round_ended":
            ended.append(doc["data"])
    assert dealt, "no card was dealt"
    seen = wait_for(
        lambda: (s := set(chrome.execute_script("return [...window.__seen]"))) >= dealt and s,
        5,
        "every dealt card on the page",
    )
    assert dealt <= seen, f"dealt but never drawn: {sorted(dealt - seen)}"
    # the results at the end: the last complete round's hands, names and dealer
    complete = [e["round_id"] for e in ended if e.get("outcome") == "complete"]
    if complete:
        last = complete[-1]
        wait_for(
            lambda: chrome.execute_script(
                "return document.querySelector(`[data-round='${arguments[0]}']`)", last
            ),
            5,
            f"round {last} in the history",
        )
        names = chrome.execute_script(
            "return [...document.querySelectorAll('.felt.ended .hand-name')]"
            ".map((e) => e.textContent.trim())"
        )
        assert names and any(n and n != "\u00a0" for n in names), names
        # every player hand ended with its result and the main bets' payouts, or folded
        hands = chrome.execute_script(
            "return [...document.querySelectorAll('.felt.ended .players [data-hand]')].map((h) =>"
            " [h.dataset.hand, h.dataset.folded || '',"
            " (h.querySelector('[data-result]') || {}).textContent || '',"
            " (h.querySelector('[data-payouts]') || {}).textContent || ''])"
        )
        assert hands, "no player hand on the ended round's layout"
        for hand, folded, result, payouts in hands:
            assert folded == "true" or (result and payouts), (hand, result, payouts)


@pytest.mark.timeout(180)
def test_the_player_display_draws_every_card_and_the_results(
    chrome: Any, site: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    play_on_player_display(GameId.CASINO_HOLDEM, chrome, site, mqtt_client, tmp_path, 1)


@pytest.mark.timeout(180)
def test_the_player_display_on_mosquitto_with_the_shipped_users_and_acl(
    chrome: Any, mosquitto: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    display = BrokerAddress("127.0.0.1", mosquitto.port, "display", "display-dev")
    with WebServer(display, "127.0.0.1", 0) as server:
        play_on_player_display(
            GameId.TEXAS_POKER, chrome, (mosquitto, server), mqtt_client, tmp_path, 1,
            user="controller",
        )  # fmt: skip
        assert server.feed is not None and server.feed.gateway == "connected"


@pytest.mark.full
@pytest.mark.timeout(600)
@pytest.mark.parametrize("game", [g for g in GameId if g is not GameId.CASINO_HOLDEM])
def test_the_player_display_of_every_game(
    game: GameId, chrome: Any, site: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    play_on_player_display(game, chrome, site, mqtt_client, tmp_path, hands=3)


def test_the_overlay_is_transparent_and_the_display_opaque(chrome: Any, site: Any) -> None:
    _, server = site
    backgrounds = []
    for page in ("overlay", "player"):
        chrome.get(f"{server.url}/table/X9/{page}")
        wait_for(lambda: chrome.execute_script("return !!window.__frames"), 5, "the page")
        backgrounds.append(
            chrome.execute_script(
                "const s = (e) => getComputedStyle(e);"
                "return [s(document.documentElement).backgroundColor,"
                " s(document.body).backgroundColor, s(document.body).backgroundImage];"
            )
        )
    overlay, player = backgrounds
    assert overlay == ["rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)", "none"], overlay
    assert "gradient" in player[2], player


def studio_table(
    table_id: str,
    folder: Path,
    address: BrokerAddress,
    game: str = "casino-holdem",
    betting_seconds: float = 4.0,
) -> RunningTable:
    text = f"""
[table]
id = "{table_id}"
game = "{game}"
seating = "shared"
boxes = 1
journal = "{table_id}.journal"
betting_seconds = {betting_seconds}
decision_seconds = 6.0
yellow_seconds = 1
seats = ["1", "2", "3"]
balance = "1000"
confirm_payments = false
[shoe]
kind = "simulated"
dialect = "framed"
rate = 40
seed = 11
"""
    config = parse_table_text(text, f"test table {table_id}")
    return RunningTable(config, folder, address, client_id=f"test-{table_id}")


def click(chrome: Any, css: str) -> Any:
    """Click the first enabled button matching ``css``; its option (or True), or None."""
    return chrome.execute_script(
        "const b = [...document.querySelectorAll(arguments[0])].find((b) => !b.disabled);"
        "if (!b) return null; b.click(); return b.dataset.option || true;",
        css,
    )


def timer(chrome: Any) -> tuple[int, str] | None:
    """The timer's seconds left and light, while one runs."""
    got = chrome.execute_script(
        "const t = document.querySelector('[data-timer]');"
        "return t && t.dataset.timer !== '' ? [t.dataset.timer, t.dataset.light] : null;"
    )
    return None if got is None else (int(got[0]), str(got[1]))


def seat_frames(chrome: Any) -> dict[str, int]:
    counts: dict[str, int] = chrome.execute_script("return window.__frames.byTopic")
    return counts


@pytest.mark.timeout(120)
def test_a_seat_bets_and_decides_with_its_buttons_and_sees_no_other_seat(
    chrome: Any, site: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    broker, server = site
    table_id = "S1"
    address = BrokerAddress("127.0.0.1", broker.port)
    table = studio_table(table_id, tmp_path, address)
    chrome.get(f"{server.url}/table/{table_id}/seat")
    wait_for(lambda: chrome.find_elements(By.ID, "login"), 5, "the login form")
    chrome.find_element(By.ID, "seat").send_keys("3")
    chrome.find_element(By.ID, "password").send_keys("seat-3-dev")
    chrome.find_element(By.ID, "login-button").click()
    wait_for(lambda: chrome.find_elements(By.ID, "logout"), 5, "the seat's page")
    table.start()
    crew = Crew(
        address, table_id, "casino-holdem", [("1", "player"), ("2", "player")], rounds=1,
        seed=3, studio=True, on_round_end=lambda data: table.simulator.new_deck(),
    )  # fmt: skip
    crew.start()
    try:
        # the page redraws on every frame: each button is found and clicked in one step
        wait_for(
            lambda: click(chrome, "[data-command='place_bet'][data-spot='ante']"),
            10,
            "the ante button enabled by the betting phase",
        )
        wait_for(
            lambda: chrome.find_elements(By.CSS_SELECTOR, "[data-stake='player']"),
            5,
            "the ante the table took on the seat's page",
        )
        # the betting timer counts down in the browser, green then yellow
        first = wait_for(lambda: timer(chrome), 5, "the betting timer")
        assert first[1] == "green", first
        wait_for(lambda: (t := timer(chrome)) and t[0] < first[0], 3, "the timer's tick")
        wait_for(lambda: (t := timer(chrome)) and t[1] == "yellow", 4, "the yellow light")
        chosen = wait_for(
            lambda: click(chrome, "[data-command='decide']"),
            20,
            "the decision buttons the seat's options enable",
        )
        wait_for(
            lambda: chrome.find_elements(By.CSS_SELECTOR, "[data-settled='player']"),
            20,
            "the seat's result",
        )
        assert crew.finished.wait(20)
    finally:
        crew.stop()
        table.stop()
    counts = seat_frames(chrome)
    assert counts.get("seat/3/state", 0) > 0 and counts.get("seat/3/reply", 0) >= 2
    others = [t for t in counts if t.startswith(("seat/1", "seat/2", "dealer", "pit"))]
    assert others == [], f"seat 3's page received {others}"
    replies = chrome.execute_script(
        "return [...document.querySelectorAll('[data-reply]')].map((e) => e.textContent)"
    )
    assert any(r.startswith("place bet: done") for r in replies), replies
    assert any(r.startswith("decide: done") for r in replies), replies
    chrome.save_screenshot(str(tmp_path / "seat.png"))
    row = chrome.execute_script(  # read in the page at once: it may be drawn again meanwhile
        "return document.querySelector(\"[data-settled='player']\").innerText"
    )
    assert "net" in row, row
    assert chosen


def game_buttons(chrome: Any) -> list[tuple[str, str, bool]]:
    """The seat page's betting buttons: command, name, enabled."""
    got = chrome.execute_script(
        "return [...document.querySelectorAll('.game-buttons button')]"
        ".map((b) => [b.dataset.command, b.textContent, !b.disabled])"
    )
    return [(str(c), str(n), bool(e)) for c, n, e in got]


def enabled(chrome: Any) -> list[str]:
    return [c for c, _, on in game_buttons(chrome) if on]


def seat_page(chrome: Any, server: WebServer, table_id: str) -> None:
    from selenium.webdriver.common.by import By

    chrome.get(f"{server.url}/table/{table_id}/seat")
    wait_for(lambda: chrome.find_elements(By.ID, "login"), 5, "the login form")
    chrome.find_element(By.ID, "seat").send_keys("3")
    chrome.find_element(By.ID, "password").send_keys("seat-3-dev")
    chrome.find_element(By.ID, "login-button").click()
    wait_for(lambda: chrome.find_elements(By.ID, "logout"), 5, "the seat's page")


def replies(chrome: Any) -> list[str]:
    got = chrome.execute_script(
        "return [...document.querySelectorAll('[data-reply]')].map((e) => e.textContent)"
    )
    return [str(r) for r in got]


def page_phase(chrome: Any) -> str:
    return str(
        chrome.execute_script(
            "const p = document.querySelector('.felt [data-phase]');return p ? p.dataset.phase : ''"
        )
    )


def stake_text(chrome: Any) -> str:
    return str(
        chrome.execute_script(
            "const s = document.querySelector('[data-stake]'); return s ? s.textContent : ''"
        )
    )


class Staff:
    """The dealer's and the pit manager's commands, sent on their topics."""

    def __init__(self, client: Any, table_id: str) -> None:
        self.client = client
        self.table_id = table_id
        self.count = 0

    def send(self, role: str, command: str, **fields: str) -> None:
        self.count += 1
        doc = {"v": 1, "id": f"staff-{self.count}", "command": command, **fields}
        if role == "pit":
            doc["by"] = "ann"
        self.client.publish(f"tablectl/{self.table_id}/{role}/cmd", json.dumps(doc).encode())


def seat_at_betting(
    chrome: Any, site: Any, mqtt_client: Any, tmp_path: Path, table_id: str, game: str
) -> tuple[RunningTable, Staff]:
    """A studio table of ``game`` (60 s of betting) started with seat 3's page open on it,
    opened by the pit and its first round started by the dealer, the page showing betting.
    The caller stops the table (stopped here where it never reaches betting)."""
    broker, server = site
    table = studio_table(
        table_id, tmp_path, BrokerAddress("127.0.0.1", broker.port), game, betting_seconds=60
    )
    seat_page(chrome, server, table_id)
    table.start()
    staff = Staff(mqtt_client(broker), table_id)
    try:
        # the table's first state: it is up and listens to its command topics
        wait_for(lambda: page_phase(chrome) == "closed", 10, "the closed table")
        staff.send("pit", "open_table")
        wait_for(lambda: page_phase(chrome) == "idle", 10, "the open table")
        staff.send("dealer", "start_round")
        wait_for(lambda: page_phase(chrome) == "betting", 10, "betting")
    except BaseException:
        table.stop()
        raise
    return table, staff


@pytest.mark.timeout(90)
def test_the_seats_deal_and_rebet_follow_can_and_the_table_applies_them(
    chrome: Any, site: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    table, staff = seat_at_betting(chrome, site, mqtt_client, tmp_path, "S2", "texas-holdem-bonus")
    try:
        # the game's own buttons, named as seed 000 names them; nothing to deal or repeat yet
        shown = game_buttons(chrome)
        assert [(c, n) for c, n, _ in shown] == [
            ("clear_bets", "Clear Bet"), ("double", "Double Bet"), ("rebet", "Rebet"),
            ("deal", "Deal"),
        ], shown  # fmt: skip
        assert enabled(chrome) == [], shown
        wait_for(
            lambda: click(chrome, "[data-command='place_bet'][data-spot='ante']"), 10, "the ante"
        )
        # Deal appears once the ante is on the layout; Rebet has no last round to repeat
        wait_for(lambda: "deal" in enabled(chrome), 10, "Deal enabled by the seat's can")
        ante = stake_text(chrome)
        assert ante.startswith("Player") and "ante" in ante, ante
        assert enabled(chrome) == ["clear_bets", "deal"], game_buttons(chrome)
        assert click(chrome, ".game-buttons [data-command='deal']")
        wait_for(lambda: "Deal: done" in replies(chrome), 10, "the table's answer to Deal")
        # the only seat with a bet pressed Deal: betting closed, its buttons with it
        wait_for(lambda: page_phase(chrome) != "betting", 10, "the deal")
        wait_for(lambda: enabled(chrome) == [], 5, "no betting button outside betting")
        staff.send("pit", "void_round", reason="test of the seat's buttons")
        wait_for(lambda: page_phase(chrome) == "idle", 10, "the voided round")
        staff.send("dealer", "start_round")
        wait_for(lambda: page_phase(chrome) == "betting", 10, "betting again")
        # the last round's ante may be repeated (and doubled); Deal waits for an ante
        wait_for(lambda: "rebet" in enabled(chrome), 10, "Rebet enabled by the seat's can")
        assert enabled(chrome) == ["double", "rebet"], game_buttons(chrome)
        assert click(chrome, ".game-buttons [data-command='rebet']")
        wait_for(lambda: "Rebet: done" in replies(chrome), 10, "the table's answer to Rebet")
        # seed 000's Rebet places the last ante and deals the seat in
        wait_for(lambda: stake_text(chrome) == ante, 10, "the last round's ante, repeated")
        wait_for(lambda: page_phase(chrome) != "betting", 10, "the deal by the Rebet")
    finally:
        table.stop()


@pytest.mark.timeout(60)
def test_a_seat_is_offered_no_bet_while_its_table_is_not_heard(
    chrome: Any, site: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    table, _ = seat_at_betting(chrome, site, mqtt_client, tmp_path, "S4", "casino-holdem")
    ante = "[data-command='place_bet'][data-spot='ante']"
    offered = f'const b = document.querySelector("{ante}"); return !!b && !b.disabled'
    try:
        wait_for(lambda: chrome.execute_script(offered), 10, "the ante offered while betting")
    finally:
        table.stop()
    # stopped while betting: its last state stays shown, and the seat is told it is offline
    # and offered no bet (one sent would go unanswered)
    shown_offline(chrome, "the table shown offline")
    assert page_phase(chrome) == "betting"
    assert not chrome.execute_script(offered)


@pytest.mark.timeout(90)
def test_ultimates_double_is_enabled_once_a_round(
    chrome: Any, site: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    game = "ultimate-texas-holdem"
    table, _ = seat_at_betting(chrome, site, mqtt_client, tmp_path, "S3", game)
    try:
        shown = [(c, n) for c, n, _ in game_buttons(chrome)]
        assert shown == [
            ("double", "Double"), ("rebet", "Repeat"), ("undo_bet", "Undo"),
            ("clear_bets", "Clear"),
        ], shown  # fmt: skip
        assert enabled(chrome) == []
        wait_for(
            lambda: click(chrome, "[data-command='place_bet'][data-spot='ante']"), 10, "the ante"
        )
        wait_for(lambda: "double" in enabled(chrome), 10, "Double enabled once a bet is placed")
        single = stake_text(chrome)
        assert "ante" in single, single
        assert click(chrome, ".game-buttons [data-command='double']")
        wait_for(lambda: "Double: done" in replies(chrome), 10, "the table's answer to Double")
        wait_for(lambda: stake_text(chrome) != single, 10, "the doubled ante")
        doubled = stake_text(chrome)
        # used once: disabled for the rest of the round, an Undo gives no second Double
        wait_for(lambda: "double" not in enabled(chrome), 10, "Double disabled once used")
        assert enabled(chrome) == ["undo_bet", "clear_bets"], game_buttons(chrome)
        assert click(chrome, ".game-buttons [data-command='undo_bet']")
        wait_for(lambda: "Undo: done" in replies(chrome), 10, "the table's answer to Undo")
        wait_for(lambda: stake_text(chrome) != doubled, 10, "a bet taken back by the Undo")
        assert "double" not in enabled(chrome), game_buttons(chrome)
    finally:
        table.stop()
