"""Screenshots of the dealer's and the pit manager's consoles for docs/displays.md, from a
live physical table (``make screenshots``).

A Texas poker table with three boxes (the real controller, the shoe simulator, the simulated
dealer, pit manager and players) runs on the embedded broker with ``tablectl web``'s server
and its journal; the dealer console and the pit console are open in headless Chromium,
photographed mid-round, and the pit's dispute replay of the first round after the rounds:

    python -m tests.support.console_screenshots [FOLDER]   (default docs/screenshots)
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
from simulators.dealer.crew import Crew, seats_for
from tablectl.running import RunningTable
from tablectl.web.server import WebServer
from tests.support import browser
from tests.support.browser import wait_for
from tests.support.screenshots import click, count

TABLE = "P1"
TABLE_FILE = """
[table]
id = "P1"
game = "texas-poker"
seating = "boxes"
boxes = 3
journal = "P1.journal"
confirm_payments = true
[shoe]
kind = "simulated"
dialect = "framed"
rate = 4
seed = 8
"""


def _login(driver: Any, fields: dict[str, str]) -> None:
    wait_for(lambda: count(driver, "#login"), 5, "the login form")
    for name, value in fields.items():
        box = driver.find_element("id", name)
        box.clear()
        box.send_keys(value)
    driver.find_element("id", "login-button").click()
    wait_for(lambda: count(driver, "#logout"), 5, "the console")


def main(folder: Path) -> int:
    """Play two rounds and photograph the consoles into ``folder``."""
    if not browser.available():
        raise SystemExit("screenshots: install chromium and chromium-driver first")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work, EmbeddedBroker() as broker:
        address = BrokerAddress("127.0.0.1", broker.port)
        journal = Path(work) / f"{TABLE}.journal"
        server = WebServer(address, "127.0.0.1", 0, journals={TABLE: journal}).start()
        table = RunningTable(parse_table_text(TABLE_FILE, "screenshots"), Path(work), address)
        dealer = browser.chrome(1366, 900)
        pit = browser.chrome(1366, 900)
        crew: Crew | None = None
        try:
            dealer.get(f"{server.url}/table/{TABLE}/dealer")
            _login(dealer, {"password": "dealer-dev"})
            table.start()
            pit.get(f"{server.url}/pit")
            _login(pit, {"by": "ann", "password": "pit-dev"})
            crew = Crew(
                address, TABLE, "texas-poker", seats_for("boxes", 3), rounds=2, seed=4,
                studio=False, irregular=0.0,
                on_round_end=lambda data: table.simulator.new_deck(),
            )  # fmt: skip
            crew.start()
            wait_for(lambda: count(dealer, ".felt [data-phase='dealing']"), 30, "the deal")
            time.sleep(2.0)
            dealer.save_screenshot(str(folder / "dealer.png"))
            wait_for(lambda: click(pit, f".table-card[data-table='{TABLE}']"), 10, "the table")
            wait_for(
                lambda: count(pit, ".felt [data-phase='deciding'], .felt [data-phase='dealing']"),
                60,
                "a round in play on the pit console",
            )
            time.sleep(1.0)
            pit.save_screenshot(str(folder / "pit.png"))
            crew.finished.wait(90)
            pit.refresh()
            wait_for(lambda: click(pit, f".table-card[data-table='{TABLE}']"), 10, "the table")
            wait_for(lambda: click(pit, "#rounds [data-round]:last-child"), 20, "the history")
            wait_for(lambda: count(pit, "#dispute"), 20, "the dispute replay")
            for _ in range(16):
                click(pit, "#replay-next")
            time.sleep(0.3)
            pit.save_screenshot(str(folder / "pit-replay.png"))
        finally:
            if crew is not None:
                crew.stop()
            table.stop()
            for driver in (dealer, pit):
                driver.quit()
            server.stop()
    for name in ("dealer.png", "pit.png", "pit-replay.png"):
        print(folder / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")))
