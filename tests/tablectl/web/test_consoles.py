"""The dealer's and the pit manager's consoles in a real headless Chromium.

The dealer console plays a whole round of a physical table (a real running table, its shoe
simulated on a pseudo-terminal, on the embedded broker): its buttons follow the table's
``can`` at every step, and each one it presses is applied by the table. The pit console
steps through a round of a real journal event by event, the layout at each step, and
exports it as a scenario file that plays to the journal's result. Neither the pit console
nor the index of tables draws its page again while nothing changed: a page drawn again
every few seconds swallows a click pressed meanwhile.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from config.tables import parse_table_text
from drivers.mqtt.client import BrokerAddress
from drivers.mqtt.embedded import EmbeddedBroker
from tablectl.running import RunningTable
from tablectl.scenario import play_scenario
from tablectl.web.server import WebServer
from tests.support import browser
from tests.support.browser import shown_offline, wait_for
from tests.support.journals import journal_from_scenarios, scenario_text

pytestmark = pytest.mark.skipif(
    not browser.available(), reason="Chromium and chromedriver are not installed"
)

#: the DOM's dealer command buttons against the dealer state's `can`: [name, enabled, can]
BUTTONS_AND_CAN = """
const s = window.__dealerState;
if (!s) return null;
const out = [];
for (const b of document.querySelectorAll('[data-command], [data-answer]')) {
  const name = b.dataset.command || b.dataset.answer;
  if (name in s.can) out.push([name, !b.disabled, s.can[name], s.phase]);
}
return out;
"""


@pytest.fixture(scope="module")
def chrome() -> Iterator[Any]:
    driver = browser.chrome(1600, 1000)
    driver.set_script_timeout(10)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("journal")
    return journal_from_scenarios(
        folder / "R1.journal", scenario_text("irregularity-misread-card-corrected.scn")
    )


@pytest.fixture(scope="module")
def site(journal: Path) -> Iterator[tuple[EmbeddedBroker, Any]]:
    with EmbeddedBroker() as broker:
        server = WebServer(
            BrokerAddress("127.0.0.1", broker.port), "127.0.0.1", 0, journals={"P1": journal}
        ).start()
        try:
            yield broker, server
        finally:
            server.stop()


def box_table(table_id: str, folder: Path, address: BrokerAddress) -> RunningTable:
    text = f"""
[table]
id = "{table_id}"
game = "texas-poker"
seating = "boxes"
boxes = 2
journal = "{table_id}.journal"
confirm_payments = true
[shoe]
kind = "simulated"
dialect = "framed"
rate = 40
seed = 5
"""
    config = parse_table_text(text, f"test table {table_id}")
    return RunningTable(config, folder, address, client_id=f"test-{table_id}")


def buttons_follow_can(chrome: Any) -> list[Any]:
    """Every dealer command button enabled exactly when the table's ``can`` says so."""
    pairs = wait_for(lambda: chrome.execute_script(BUTTONS_AND_CAN), 5, "the dealer state")
    wrong = [p for p in pairs if p[1] != p[2]]
    assert not wrong, f"buttons not following can: {wrong}"
    return list(pairs)


def click(chrome: Any, css: str, what: str, timeout: float = 10, avoid: str = "") -> str:
    """Click the first enabled element matching ``css`` (not one whose ``data-option`` is
    ``avoid``), once it is there: an element drawn again meanwhile is looked up again.
    Returns its ``data-option``."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    def clicked() -> str | None:
        try:
            found = [b for b in chrome.find_elements(By.CSS_SELECTOR, css) if b.is_enabled()]
            kept = [b for b in found if b.get_attribute("data-option") != avoid] or found
            if not kept:
                return None
            option = kept[0].get_attribute("data-option") or "-"
            kept[0].click()
            return str(option)
        except StaleElementReferenceException:
            return None

    return str(wait_for(clicked, timeout, what))


def type_into(chrome: Any, element_id: str, text: str) -> None:
    """Type ``text`` into the input ``element_id``: an input drawn again meanwhile (the
    consoles keep what was typed across a redraw) is looked up again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    def typed() -> bool:
        try:
            chrome.find_element(By.ID, element_id).send_keys(text)
            return True
        except StaleElementReferenceException:
            return False

    wait_for(typed, 5, f"the input {element_id}")


def phase(chrome: Any) -> str:
    """The phase the page shows (read in the page: it may be drawn again at any moment)."""
    shown = chrome.execute_script(
        "const p = document.querySelector('.felt [data-phase]'); return p ? p.dataset.phase : ''"
    )
    return str(shown)


@pytest.mark.timeout(150)
def test_the_dealer_console_plays_a_round_its_buttons_following_can(
    chrome: Any, site: Any, mqtt_client: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    broker, server = site
    address = BrokerAddress("127.0.0.1", broker.port)
    table = box_table("B1", tmp_path, address)
    chrome.get(f"{server.url}/table/B1/dealer")
    wait_for(lambda: chrome.find_elements(By.ID, "login"), 5, "the login form")
    type_into(chrome, "password", "dealer-dev")
    chrome.find_element(By.ID, "login-button").click()
    wait_for(lambda: chrome.find_elements(By.ID, "logout"), 5, "the dealer's console")
    table.start()
    try:
        wait_for(lambda: phase(chrome) == "closed", 10, "the closed table")
        closed = dict((n, e) for n, e, _, _ in buttons_follow_can(chrome))
        assert closed["start_round"] is False and not any(closed.values()), closed
        pit = mqtt_client(broker)
        command = {"v": 1, "id": "open-1", "command": "open_table", "by": "ann"}
        pit.publish("tablectl/B1/pit/cmd", json.dumps(command).encode())
        click(chrome, "[data-command='start_round']", "start round enabled once open")
        wait_for(lambda: phase(chrome) == "betting", 10, "betting")
        betting = dict((n, e) for n, e, _, _ in buttons_follow_can(chrome))
        assert betting["start_round"] is False and betting["halt"] is True, betting
        Select(chrome.find_element(By.ID, "bet-hand")).select_by_value("box 1")
        type_into(chrome, "bet-seat", "ann")
        type_into(chrome, "bet-amount", "100")
        chrome.find_element(By.CSS_SELECTOR, "#bet-form [data-command='place_bet']").click()
        wait_for(
            lambda: chrome.find_elements(By.CSS_SELECTOR, "[data-stake='box 1|ann']"),
            10,
            "the bet the table took",
        )
        # a halt: its reason, who stopped the round, the answers the rules allow the dealer
        type_into(chrome, "why-halt", "chips to count")
        click(chrome, "[data-command='halt']", "halt")
        wait_for(lambda: phase(chrome) == "halted", 10, "the halt")
        text, by = chrome.execute_script(  # read in the page at once: it may be drawn again
            "const h = document.querySelector('[data-halt]'); return [h.innerText, h.dataset.halt]"
        )
        assert "chips to count" in text and by == "dealer", (text, by)
        answers = {n: e for n, e, _, _ in buttons_follow_can(chrome) if n != "halt"}
        assert answers["resume"] is True and answers["start_round"] is False, answers
        click(chrome, "[data-answer='resume']", "resume, an answer the rules allow")
        wait_for(lambda: phase(chrome) == "betting", 10, "betting again")
        assert not chrome.find_elements(By.CSS_SELECTOR, "[data-halt]")
        click(chrome, "[data-command='no_more_bets']", "no more bets")
        # the shoe deals; the box's decision is due: the dealer enters the player's choice
        chosen = click(chrome, "[data-command='decide']", "box 1's decision", 20, avoid="fold")
        assert chosen != "fold"
        buttons_follow_can(chrome)
        click(chrome, "[data-command='reveal_done']", "cards revealed, once every card is out", 20)

        def settled() -> bool:
            if chrome.find_elements(By.CSS_SELECTOR, "[data-command='confirm_payment']"):
                click(chrome, "[data-command='confirm_payment']", "a payment due", 5)
            return phase(chrome) == "idle"

        wait_for(settled, 20, "the round settled and paid")
        idle = dict((n, e) for n, e, _, _ in buttons_follow_can(chrome))
        assert idle["start_round"] is True and idle["reveal_done"] is False, idle
    finally:
        table.stop()
    # stopped: shown offline, its last state kept, and no command offered to it
    shown_offline(chrome, "the table shown offline once stopped")
    offered = chrome.execute_script(
        "return [...document.querySelectorAll('[data-command], [data-answer]')]"
        ".filter((b) => !b.disabled && b.offsetParent !== null).map((b) => b.textContent)"
    )
    assert offered == [], offered
    replies = chrome.execute_script(
        "return [...document.querySelectorAll('[data-reply]')].map((e) => e.textContent)"
    )
    for done in ("start round: done", "place bet: done", "halt: done", "resume: done",
                 "no more bets: done", "decide: done"):  # fmt: skip
        assert any(done in r for r in replies), (done, replies)
    assert any("reveal done: done" in r for r in replies), replies
    ended = [r for r in replies if "round B1-" in r and "ended: complete" in r]
    assert ended, replies
    # the page received the dealer's topics and the public ones, nothing of the pit's
    counts = chrome.execute_script("return window.__frames.byTopic")
    assert counts.get("dealer/state", 0) > 0
    assert not [t for t in counts if t.startswith(("pit", "seat"))], counts


@pytest.mark.timeout(90)
def test_the_pit_console_steps_through_a_round_and_exports_it(
    chrome: Any, site: Any, journal: Path, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    _, server = site
    chrome.get(f"{server.url}/pit")
    wait_for(lambda: chrome.find_elements(By.ID, "login"), 5, "the login form")
    type_into(chrome, "by", "ann")
    type_into(chrome, "password", "pit-dev")
    chrome.find_element(By.ID, "login-button").click()
    click(chrome, ".table-card[data-table='P1']", "table P1 at a glance", 15)
    # P1 is a journal only: it never ran on this broker, and its card says so, not
    # "Connecting…" for ever
    shown_offline(chrome, "table P1 said not heard from", ".table-card[data-table='P1']")
    words = chrome.execute_script(
        "return document.querySelector(\".table-card[data-table='P1'] [data-status]\").innerText"
    )
    assert words == "Not heard from", words
    rid = chrome.execute_script(
        "const r = document.querySelector('#rounds [data-round]'); return r && r.dataset.round"
    ) or wait_for(
        lambda: chrome.execute_script(
            "const r = document.querySelector('#rounds [data-round]'); return r && r.dataset.round"
        ),
        15,
        "the round history of table P1",
    )
    click(chrome, f"#rounds [data-round='{rid}']", "the round in the history")
    wait_for(lambda: chrome.find_elements(By.ID, "dispute"), 10, "the dispute replay")

    def where() -> tuple[str, str, str]:
        # read in the page at once: the panel may be drawn again between two lookups
        step, text = chrome.execute_script(
            "const w = document.getElementById('replay-where');"
            "const t = document.getElementById('step-text');"
            "return [w ? w.dataset.step : '', t ? t.innerText : ''];"
        )
        return str(step), str(text), phase(chrome)

    def can_step() -> bool:
        return bool(
            chrome.execute_script(
                "const b = document.getElementById('replay-next'); return !!b && !b.disabled"
            )
        )

    seen = [where()]
    sources: set[str] = set()
    cards_at: list[int] = []
    for _ in range(200):  # bounded: the round has fewer steps
        if not can_step():
            break
        click(chrome, "#replay-next", "the replay's next step")
        seen.append(where())
        sources |= set(
            chrome.execute_script(
                "return [...document.querySelectorAll('[data-action][data-source]')]"
                ".map((e) => e.dataset.source)"
            )
        )
        cards_at.append(len(chrome.find_elements(By.CSS_SELECTOR, ".layout [data-card]")))
    steps = [int(s) for s, _, _ in seen]
    assert steps == list(range(1, len(steps) + 1)) and len(steps) > 10, steps
    assert seen[0][2] == "betting" and seen[-1][2] == "idle", seen
    assert {"shoe", "pit manager"} <= sources, sources  # dealt cards and the correction
    assert max(cards_at) >= 4 and cards_at[-1] == 0, cards_at  # the layout at each step
    # back one step: the same step as before
    click(chrome, "#replay-prev", "the replay's step back")
    assert where() == seen[-2]
    # the export: a scenario file that plays to the journal's result
    href = chrome.execute_script(
        "window.__export = document.getElementById('replay-export'); return window.__export.href"
    )
    assert href.endswith(f"/api/P1/rounds/{rid}/scenario")
    text = chrome.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {credentials: 'same-origin'}).then((r) => r.text()).then(done);",
        href,
    )
    assert text.startswith(f"# round {rid}"), text[:200]
    play_scenario(text)
    # another table comes up and sends its states: the pit's page draws that table's card,
    # and not again the replay the pit manager is clicking in (a redraw swallows a click
    # pressed meanwhile); the tables are looked up every 3 s
    broker, _ = site
    other = box_table("Z9", tmp_path, BrokerAddress("127.0.0.1", broker.port))
    other.start()
    try:
        wait_for(
            lambda: chrome.execute_script(
                "const c = document.querySelector(\".table-card[data-table='Z9'] [data-phase]\");"
                "return c && c.dataset.phase === 'closed'"
            ),
            15,
            "table Z9 at a glance, closed",
        )
        time.sleep(0.5)  # its later states too
        assert chrome.execute_script(
            "return document.getElementById('replay-export') === window.__export"
        ), "the replay was drawn again for another table's state"
        click(chrome, "#replay-first", "the replay's first step")
        assert where()[0] == "1"
    finally:
        other.stop()
    # stopped, it is shown offline at a glance, not live at its last state
    shown_offline(chrome, "table Z9 shown offline once stopped", ".table-card[data-table='Z9']")
    click(chrome, ".table-card[data-table='Z9']", "table Z9 at a glance")
    banner = wait_for(
        lambda: chrome.execute_script(
            "const b = document.querySelector(\".felt [data-status='offline']\");"
            "return b && b.innerText"
        ),
        5,
        "the offline table's banner",
    )
    assert "Table offline" in banner and "last state" in banner, banner
    # its last state allowed opening it: no command is offered to a table that is not there
    disabled = chrome.execute_script(
        "return [...document.querySelectorAll('[data-command]')].map((b) => b.disabled)"
    )
    assert disabled and all(disabled), disabled
    chrome.save_screenshot(str(Path(journal).parent / "pit.png"))


@pytest.mark.timeout(30)
def test_the_pits_history_is_refused_without_a_pit_login(site: Any) -> None:
    import urllib.error
    import urllib.request

    _, server = site
    for path in ("/api/P1/rounds", "/api/P1/rounds/x/scenario", "/api/pit/tables"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{server.url}{path}", timeout=5)
        assert refused.value.code == 401
        assert "expected a login as the pit manager" in refused.value.read().decode()


@pytest.mark.timeout(60)
def test_the_index_lists_each_table_and_draws_its_rows_again_only_when_they_change(
    chrome: Any, site: Any, tmp_path: Path
) -> None:
    broker, server = site
    table = box_table("X2", tmp_path, BrokerAddress("127.0.0.1", broker.port))
    table.start()
    try:
        chrome.get(f"{server.url}/")
        row = "document.querySelector(\"#tables tr[data-table='X2']\")"
        shown = wait_for(
            lambda: chrome.execute_script(
                f"const r = {row}; if (!r || !r.textContent.includes('online')) return null;"
                "window.__row = r; return r.textContent;"
            ),
            15,
            "table X2 online on the index",
        )
        links = chrome.execute_script(
            f"return [...{row}.querySelectorAll('a')].map((a) => a.getAttribute('href'))"
        )
        assert "/table/X2/dealer" in links and "/pit" in links, links
        # the list is fetched every 2 s; with nothing new the row stays the same element
        time.sleep(4.5)
        assert chrome.execute_script(f"return {row} === window.__row"), shown
    finally:
        table.stop()
    wait_for(
        lambda: "offline" in chrome.execute_script(f"return {row}.textContent"),
        15,
        "table X2 shown offline once stopped",
    )


UPDATE_CHECK = """
const done = arguments[arguments.length - 1];
import('/static/common.js').then(({ el, update }) => {
  const root = document.createElement('div');
  let pressed = [];
  const draw = (amount, note) => [
    el('h2', {}, 'Payments due'),
    el('div', { class: 'row' },
      el('button', { 'data-amount': 10, onclick: () => pressed.push('kept') }, 'Paid 10'),
      el('span', {}, note)),
    el('button', { 'data-amount': amount, onclick: () => pressed.push(`new ${amount}`) },
      `Paid ${amount}`),
    null, '',
  ];
  update(root, draw(20, 'a'));
  const [title, row, last] = root.children;
  const first = row.children[0];
  update(root, draw(20, 'b'));  // only the note's text changed
  const kept = root.children[0] === title && root.children[1] === row
    && row.children[0] === first && root.children[2] === last
    && row.children[1].textContent === 'b';
  update(root, draw(30, 'b'));  // the last button's amount changed: it is drawn again
  const redrawn = root.children[2] !== last && root.children[2].dataset.amount === '30';
  root.children[1].children[0].click();
  root.children[2].click();
  update(root, [el('p', {}, 'none due')]);  // other children altogether: replaced
  done([kept, redrawn, pressed, root.innerHTML]);
});
"""


@pytest.mark.timeout(30)
def test_a_page_draws_again_only_what_changed(chrome: Any, site: Any) -> None:
    _, server = site
    chrome.get(f"{server.url}/")
    kept, redrawn, pressed, html = chrome.execute_async_script(UPDATE_CHECK)
    assert kept, "an element drawn the same was replaced, or a changed text not shown"
    assert redrawn, "a button whose amount changed was kept"
    assert pressed == ["kept", "new 30"], pressed  # each button answers as it shows
    assert html == "<p>none due</p>", html


def test_a_journal_that_cannot_be_read_is_told_by_its_name_not_the_servers_folders() -> None:
    from controller.errors import TableError
    from tablectl.web.pages.consoles import _unreadable

    path = Path("/srv/studio/journals/P1.journal")
    response = _unreadable("P1", path, TableError(f"{path}: no such journal file"))
    assert response.status == 500
    body = json.loads(response.text or "")
    assert body == {"error": "the journal of P1 cannot be read: P1.journal: no such journal file"}
