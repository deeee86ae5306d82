"""Screenshots of the browser pages for docs/displays.md, from a live table (``make screenshots``).

A Casino Hold'em table (the real controller, the shoe simulator, the simulated dealer and two
players) runs on the embedded broker with ``tablectl web``'s server; seat 3 is played in a
headless Chromium through its own page, and the pages are photographed mid-round and at the
end of a round:

    python -m tests.support.screenshots [FOLDER]   (default docs/screenshots)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from config.tables import parse_table_text
from drivers.mqtt.client import BrokerAddress
from drivers.mqtt.embedded import EmbeddedBroker
from simulators.dealer.crew import Crew
from tablectl.running import RunningTable
from tablectl.web.server import WebServer
from tests.support import browser
from tests.support.browser import wait_for

TABLE = "T1"
TABLE_FILE = """
[table]
id = "T1"
game = "casino-holdem"
seating = "shared"
boxes = 1
journal = "T1.journal"
betting_seconds = 5.0
decision_seconds = 8.0
yellow_seconds = 2
seats = ["1", "2", "3"]
balance = "1000"
confirm_payments = false
[shoe]
kind = "simulated"
dialect = "framed"
rate = 6
seed = 21
"""


def click(driver: Any, css: str) -> Any:
    """Click the first enabled button matching ``css`` (None when there is none)."""
    return driver.execute_script(
        "const b = [...document.querySelectorAll(arguments[0])].find((b) => !b.disabled);"
        "if (!b) return null; b.click(); return b.dataset.option || true;",
        css,
    )


def count(driver: Any, css: str) -> int:
    """How many elements match ``css``."""
    return int(driver.execute_script("return document.querySelectorAll(arguments[0]).length", css))


def main(folder: Path) -> int:
    """Play two rounds and photograph every page into ``folder``."""
    if not browser.available():
        raise SystemExit("screenshots: install chromium and chromium-driver first")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work, EmbeddedBroker() as broker:
        address = BrokerAddress("127.0.0.1", broker.port)
        server = WebServer(address, "127.0.0.1", 0).start()
        table = RunningTable(parse_table_text(TABLE_FILE, "screenshots"), Path(work), address)
        tv = browser.chrome(1920, 1080)
        seat = browser.chrome(1600, 1000)
        phone = browser.chrome(390, 844, scale=2)
        crew: Crew | None = None
        try:
            base = f"{server.url}/table/{TABLE}"
            tv.get(f"{base}/player")
            phone.get(f"{base}/player")
            seat.get(f"{base}/seat")
            wait_for(lambda: count(seat, "#login"), 5, "the seat's login")
            seat.find_element("id", "seat").send_keys("3")
            seat.find_element("id", "password").send_keys("seat-3-dev")
            seat.find_element("id", "login-button").click()
            wait_for(lambda: count(seat, "#logout"), 5, "the seat's page")
            table.start()
            crew = Crew(
                address, TABLE, "casino-holdem", [("1", "player"), ("2", "player")],
                rounds=2, seed=5, studio=True,
                on_round_end=lambda data: table.simulator.new_deck(),
            )  # fmt: skip
            crew.start()
            for round_no in (1, 2):
                wait_for(
                    lambda: click(seat, "[data-command='place_bet'][data-spot='ante']"),
                    20,
                    "the betting phase",
                )
                time.sleep(0.3)
                click(seat, "[data-command='place_bet'][data-spot='bonus']")
                wait_for(lambda: count(seat, "[data-command='decide']"), 30, "a decision")
                time.sleep(1.0)
                if round_no == 1:
                    seat.save_screenshot(str(folder / "seat.png"))
                    tv.save_screenshot(str(folder / "player.png"))
                else:
                    phone.save_screenshot(str(folder / "player-phone.png"))
                    tv.execute_cdp_cmd(
                        "Emulation.setDefaultBackgroundColorOverride",
                        {"color": {"r": 0, "g": 0, "b": 0, "a": 0}},
                    )
                    tv.save_screenshot(str(folder / "overlay.png"))
                click(seat, "[data-command='decide'][data-option='call']") or click(
                    seat, "[data-command='decide']"
                )
                wait_for(lambda: count(tv, ".felt.ended"), 30, "the end of the round")
                time.sleep(0.5)
                if round_no == 1:
                    tv.save_screenshot(str(folder / "player-results.png"))
                    tv.get(f"{base}/overlay")
            tv.get(f"{server.url}/")
            wait_for(lambda: count(tv, "[data-table]"), 5, "the index")
            tv.save_screenshot(str(folder / "index.png"))
            crew.finished.wait(30)
        finally:
            if crew is not None:
                crew.stop()
            table.stop()
            for driver in (tv, seat, phone):
                driver.quit()
            server.stop()
    for png in sorted(folder.glob("*.png")):
        print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")))
