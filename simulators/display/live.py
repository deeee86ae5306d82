"""A live player display on MQTT: subscribes like a real display, checks and draws the stream.

:class:`LiveDisplay` logs in as a display does (public topics only), feeds every message to
a :class:`~simulators.display.checker.DisplayChecker` (which asks for a rebirth on a gap,
and shows the table online only once the controller is heard live) and, unless quiet, draws
what a player sees: redrawn in place on a terminal (a rich
``Live``), one line per change elsewhere. The demo runs one per table; a
hardware-in-the-loop rig can run one against a real table and read ``checker.report()``.
"""

from __future__ import annotations

from typing import Any, Protocol

from drivers.mqtt.client import BrokerAddress, MqttLink
from simulators.display.checker import DisplayChecker
from simulators.display.terminal import Ticking, round_line, summary_line

__all__ = ["LiveDisplay"]


class Screen(Protocol):
    """Where a redrawn display goes (rich's ``Live`` is one)."""

    def update(self, renderable: Any) -> None: ...


class LiveDisplay:
    """One table's player display and checking display, on one subscriber link."""

    def __init__(
        self,
        address: BrokerAddress,
        table_id: str,
        *,
        screen: Screen | None = None,
        quiet: bool = False,
        client_id: str | None = None,
    ) -> None:
        self.checker = DisplayChecker(table_id)
        self.screen = screen
        self.quiet = quiet
        self.last_line = ""
        self.last_round = ""  # the round whose end was printed last
        self.link = MqttLink(
            address,
            client_id or f"display-{table_id}",
            subscriptions=self.checker.subscriptions,
            on_message=self._on_message,
            on_retained=self._on_retained,
            on_disconnected=lambda reason: self.checker.link_lost(),
            backoff=(1, 2),
        )
        self.checker.request_rebirth = lambda: self.link.publish(self.checker.topics.rebirth, b"{}")

    def start(self, timeout: float = 5.0) -> bool:
        """Connect and subscribe; whether the broker accepted the display in ``timeout``."""
        self.link.start()
        return self.link.wait_connected(timeout) and self.link.wait_subscribed(timeout)

    def stop(self) -> None:
        """Disconnect."""
        self.link.stop()

    def _on_retained(self, topic: str, payload: bytes) -> None:
        self._on_message(topic, payload, retained=True)

    def _on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        shown = self.checker.status
        self.checker.receive(topic, payload, retained)
        state = self.checker.state
        changed = self.checker.status != shown  # "online" once confirmed, or lost
        if state is None or self.quiet or not (topic.endswith("/state") or changed):
            return
        if self.screen is not None:
            self.screen.update(Ticking(state, self.checker.status))
            return
        last = state.get("last_round") or {}
        if last.get("round_id") and last["round_id"] != self.last_round:
            self.last_round = last["round_id"]
            ended = round_line(state)
            if ended is not None and self.last_line:  # a round ended while this display ran
                print(ended, flush=True)
        line = summary_line(state)
        if line != self.last_line:
            self.last_line = line
            print(line, flush=True)
