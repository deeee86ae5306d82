"""Browser displays: card publish -> drawn on a headless page; 200 displays on one table.

Three processes: this one publishes as the controller does (a card event, then the public
state, on a real Mosquitto with the shipped users and ACL, or the embedded broker where
Mosquitto is missing), ``tablectl web`` serves the pages, and Debian's headless Chromium
draws the player display.

1. **card -> visible**: a card event published -> its ``data-card`` element drawn in the
   page (a MutationObserver stamps it with the browser's clock, the same system clock as
   the publisher's), p50 / p99 over ``--cards`` cards (target: p99 within 50 ms), beside
   the bare MQTT round trip (publisher -> broker -> a subscriber in this process) measured
   in the same run, turn about;
2. **200 displays**: ``--displays`` WebSocket clients speaking what the page speaks
   (``GET /ws?table=T``), one table's public stream at ``--rate`` messages a second:
   every client checks the sequence (no gap) and the delay from publish to receipt, p99
   (target: under 100 ms).

    python benchmarks/displays.py [--cards 1000] [--displays 200] [--messages 500]
                                  [--rate 50] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp
import paho.mqtt.client as mqtt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drivers.mqtt.broker import MosquittoBroker, MosquittoNotFound  # noqa: E402
from drivers.mqtt.embedded import EmbeddedBroker  # noqa: E402
from tests.support import browser  # noqa: E402

TABLE = "B1"
BASE = f"tablectl/{TABLE}"

RECORDER = """
window.__drawn = {};
new MutationObserver((records) => {
  const now = performance.timeOrigin + performance.now();
  for (const r of records) for (const n of r.addedNodes) {
    if (!(n instanceof Element)) continue;
    const cards = n.matches('[data-card]') ? [n] : n.querySelectorAll('[data-card]');
    for (const c of cards) {
      const key = c.dataset.card;
      if (key !== 'back' && !(key in window.__drawn)) window.__drawn[key] = now;
    }
  }
}).observe(document.body, {childList: true, subtree: true});
"""


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Controller:
    """Publishes a table's public stream as the controller does (birth, seq, at)."""

    def __init__(self, port: int, user: str | None) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        if user:
            self.client.username_pw_set(user, f"{user}-dev")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.seq = 0
        self.cards: list[dict[str, Any]] = []

    def _doc(self, **more: Any) -> bytes:
        doc = {"v": 1, "table": TABLE, "birth": 1, "seq": self.seq, "at": time.time(), **more}
        self.seq = (self.seq + 1) % 65536
        return json.dumps(doc).encode()

    def state(self, retain: bool = True) -> None:
        payload = self._doc(
            type="state", audience="public", game="casino-holdem", title="Casino Hold'em",
            phase="dealing", round_id="B1-bench", abandoned=[], next="card to board",
            next_position="board", hands_in_play=["player"], cards=self.cards, timers=[],
            halted=False, last_round=None, limits={}, names={}, folded=[],
        )  # fmt: skip
        self.client.publish(f"{BASE}/state", payload, qos=1, retain=retain)

    def online(self) -> None:
        self.client.publish(f"{BASE}/status", b"online", qos=1, retain=True)

    def card(self, code: str) -> float:
        at = time.time()
        data = {"position": "board", "card": code, "face": "up", "label": ""}
        self.client.publish(f"{BASE}/events", self._doc(type="event", event="card", data=data), 1)
        self.cards.append(
            {"position": "board", "index": len(self.cards) + 1, "face": "up", "card": code}
        )
        self.state(retain=False)
        return at

    def event(self) -> None:
        self.client.publish(f"{BASE}/events", self._doc(type="event", event="phase", data={}), 1)

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class Bare:
    """The bare MQTT round trip: publisher -> broker -> subscriber, in this process."""

    def __init__(self, port: int, user: str | None) -> None:
        self.got = threading.Event()
        self.arrived = 0.0
        self.sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        if user:
            self.sub.username_pw_set("display", "display-dev")
            self.pub.username_pw_set(user, f"{user}-dev")
        self.sub.on_message = self._arrived
        subscribed = threading.Event()
        self.sub.on_subscribe = lambda *_: subscribed.set()
        for c in (self.sub, self.pub):
            c.connect("127.0.0.1", port)
            c.loop_start()
        self.sub.subscribe("tablectl/B0/events", 1)
        subscribed.wait(5)

    def _arrived(self, *_: Any) -> None:
        self.arrived = time.time()
        self.got.set()

    def measure(self, count: int) -> list[float]:
        """``count`` round trips, ms each."""
        out = []
        for _ in range(count):
            self.got.clear()
            t0 = time.time()
            self.pub.publish("tablectl/B0/events", b'{"v": 1}', qos=1)
            if self.got.wait(2):
                out.append((self.arrived - t0) * 1000)
            time.sleep(0.005)
        return out

    def stop(self) -> None:
        for c in (self.sub, self.pub):
            c.loop_stop()
            c.disconnect()


def serve(port: int, user: str | None) -> tuple[subprocess.Popen[str], str]:
    login = "display:display-dev@" if user else ""
    process = subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", "web", "--broker",
         f"mqtt://{login}127.0.0.1:{port}", "--listen", "127.0.0.1:0"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    url = line.rsplit(" on ", 1)[-1].strip().rstrip("/")
    if not url.startswith("http"):
        process.kill()
        raise SystemExit(f"tablectl web did not start: {line!r}")
    return process, url


def card_to_visible(url: str, port: int, user: str | None, cards: int) -> dict[str, Any]:
    """Cards published -> drawn in the page; and the bare round trip, turn about."""
    controller = Controller(port, user)
    controller.online()
    controller.state()
    driver = browser.chrome(1920, 1080)
    pair = Bare(port, user)
    page: list[float] = []
    bare: list[float] = []
    try:
        driver.get(f"{url}/table/{TABLE}/player")
        deadline = time.monotonic() + 10
        while not driver.execute_script("return !!document.querySelector('[data-phase]')"):
            if time.monotonic() > deadline:
                raise SystemExit("the player display did not draw the table")
            time.sleep(0.05)
        codes = [r + s for r in "23456789TJQKA" for s in "CDHS"]
        per_round = 10
        rounds = (cards + per_round - 1) // per_round
        for r in range(rounds):
            controller.cards = []
            controller.state(retain=True)
            time.sleep(0.05)
            driver.execute_script(RECORDER)
            sent: dict[str, float] = {}
            for i in range(per_round):
                code = codes[(r * 7 + i * 5) % 52]
                while code in sent:
                    code = codes[(codes.index(code) + 1) % 52]
                sent[code] = controller.card(code)
                time.sleep(0.03)
            deadline = time.monotonic() + 3
            drawn = driver.execute_script("return window.__drawn")
            while len(set(sent) & set(drawn)) < len(sent) and time.monotonic() < deadline:
                time.sleep(0.02)
                drawn = driver.execute_script("return window.__drawn")
            for code, at in sent.items():
                if code in drawn:
                    page.append(drawn[code] - at * 1000)
            bare += pair.measure(per_round)
    finally:
        pair.stop()
        driver.quit()
        controller.stop()
    return {
        "cards": cards,
        "drawn": len(page),
        "page_ms": {"p50": pct(page, 50), "p99": pct(page, 99), "max": max(page)},
        "bare_mqtt_ms": {"p50": pct(bare, 50), "p99": pct(bare, 99), "max": max(bare)},
    }


async def swarm(url: str, port: int, user: str | None, displays: int, messages: int,
                rate: float) -> dict[str, Any]:  # fmt: skip
    """``displays`` WebSocket clients on one table; the stream at ``rate`` a second."""
    controller = Controller(port, user)
    controller.online()
    controller.cards = []
    controller.state()
    delays: list[float] = []
    gaps = 0
    received = [0] * displays
    ready = asyncio.Event()
    joined = 0
    done = asyncio.Event()

    async def client(i: int, http: aiohttp.ClientSession) -> None:
        nonlocal gaps, joined
        last: int | None = None
        async with http.ws_connect(f"{url}/ws?table={TABLE}", max_msg_size=1 << 20) as ws:
            joined += 1
            if joined == displays:
                ready.set()
            async for message in ws:
                now = time.time()
                frame = json.loads(message.data)
                doc = frame.get("payload")
                if frame.get("topic") != "events" or not isinstance(doc, dict):
                    continue
                if last is not None and doc["seq"] != (last + 1) % 65536:
                    gaps += 1
                last = doc["seq"]
                delays.append((now - doc["at"]) * 1000)
                received[i] += 1
                if doc.get("event") == "end":
                    return

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        tasks = [asyncio.create_task(client(i, http)) for i in range(displays)]
        await asyncio.wait_for(ready.wait(), 30)
        await asyncio.sleep(0.5)

        def publish() -> None:
            for _ in range(messages):
                controller.event()
                time.sleep(1 / rate)
            payload = controller._doc(type="event", event="end", data={})
            controller.client.publish(f"{BASE}/events", payload, 1)

        await asyncio.get_running_loop().run_in_executor(None, publish)
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        done.set()
    controller.stop()
    return {
        "displays": displays,
        "messages": messages + 1,
        "rate": rate,
        "deliveries": sum(received),
        "missing": (messages + 1) * displays - sum(received),
        "gaps": gaps,
        "delay_ms": {"p50": pct(delays, 50), "p99": pct(delays, 99), "max": max(delays)},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--displays", type=int, default=200)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--rate", type=float, default=50.0, help="messages a second")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not browser.available():
        raise SystemExit("install chromium and chromium-driver (apt-get install ...)")
    try:
        broker: Any = MosquittoBroker(auth=True).start()
        user: str | None = "controller"
        kind = "Mosquitto (shipped users and ACL)"
    except MosquittoNotFound:
        broker, user, kind = EmbeddedBroker().start(), None, "the embedded broker"
    server, url = serve(broker.port, user)
    try:
        figures = {
            "machine": (
                f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
            ),
            "broker": kind,
            "load_before": os.getloadavg()[0],
            "card_to_visible": card_to_visible(url, broker.port, user, args.cards),
            "swarm": asyncio.run(
                swarm(url, broker.port, user, args.displays, args.messages, args.rate)
            ),
        }
    finally:
        server.terminate()
        server.wait(10)
        broker.stop()
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    c, s = figures["card_to_visible"], figures["swarm"]
    print(
        f"{figures['machine']}; broker: {kind}; load average before the run "
        f"{figures['load_before']:.1f} (other work on the machine shows in the tails)"
    )
    print(
        f"card published -> drawn in a headless player display: {c['drawn']}/{c['cards']} cards, "
        f"p50 {c['page_ms']['p50']:.1f} ms, p99 {c['page_ms']['p99']:.1f} ms "
        f"(max {c['page_ms']['max']:.1f}); target p99 <= 50 ms"
    )
    print(
        f"  bare MQTT round trip, same run: p50 {c['bare_mqtt_ms']['p50']:.2f} ms, "
        f"p99 {c['bare_mqtt_ms']['p99']:.2f} ms"
    )
    print(
        f"{s['displays']} player displays (WebSocket) on one table, {s['messages']} messages at "
        f"{s['rate']:g}/s: {s['deliveries']} deliveries, {s['missing']} missing, "
        f"{s['gaps']} gaps; delay p50 {s['delay_ms']['p50']:.1f} ms, "
        f"p99 {s['delay_ms']['p99']:.1f} ms (max {s['delay_ms']['max']:.1f}); "
        "target no gap, p99 < 100 ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
