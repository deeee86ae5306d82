"""The MQTT topic tree of one table, and who a command topic speaks for.

Every topic lives under ``tablectl/<table>/``. Three audiences read what the controller
publishes: the public (displays, every player), one seat (its own bets, balance, cards and
settlement) and the pit (everything, hidden cards included); the dealer console has its own
view. Commands come in on one topic per sender, so the broker's ACL, not the payload, says
who sent a command: a seat can only write its own ``cmd`` topic.

>>> t = Topics("T1")
>>> t.state, t.seat("3").state, t.pit.alerts
('tablectl/T1/state', 'tablectl/T1/seat/3/state', 'tablectl/T1/pit/alerts')
>>> t.sender_of("tablectl/T1/seat/3/cmd")
Sender(role='seat', seat='3')
>>> t.sender_of("tablectl/T1/state") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ROOT", "SEAT_ID", "TABLE_ID", "AudienceTopics", "Sender", "Topics", "seat_segment"]

ROOT = "tablectl"
#: a table id as table files, topics and pages spell it: never an MQTT wildcard (+, #) or
#: a slash, which would name other topics than the table's
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: a seat id as the topics spell it
SEAT_ID = re.compile(r"[A-Za-z0-9_]{1,16}")


def seat_segment(seat: str) -> str:
    """A seat's topic segment, its bare id (the seat logs in to the broker as ``seat-3``).

    >>> seat_segment("3"), seat_segment("seat:3")
    ('3', '3')
    """
    return seat.removeprefix("seat:")


@dataclass(frozen=True, slots=True)
class AudienceTopics:
    """What the controller writes for one audience, and where that audience sends commands."""

    base: str

    @property
    def state(self) -> str:
        """Retained: the audience's whole current view."""
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        """The audience's event stream."""
        return f"{self.base}/events"

    @property
    def cmd(self) -> str:
        """Commands from this audience to the controller."""
        return f"{self.base}/cmd"

    @property
    def reply(self) -> str:
        """The controller's answer to each command, matched by its correlation id."""
        return f"{self.base}/reply"

    @property
    def alerts(self) -> str:
        """Halts, irregularities and hardware faults, for people who must act on them."""
        return f"{self.base}/alerts"

    @property
    def presence(self) -> str:
        """Retained ``online``/``offline`` of this audience's client (a remote seat's will)."""
        return f"{self.base}/presence"


@dataclass(frozen=True, slots=True)
class Sender:
    """Who a command topic speaks for: ``dealer``, ``pit`` or ``seat`` (with its id)."""

    role: str
    seat: str = ""


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one table."""

    table_id: str

    @property
    def base(self) -> str:
        """``tablectl/<table>``."""
        return f"{ROOT}/{self.table_id}"

    @property
    def status(self) -> str:
        """Retained ``online``/``offline``: the controller's availability, set by its will."""
        return f"{self.base}/status"

    @property
    def state(self) -> str:
        """Retained public table state."""
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        """The public event stream."""
        return f"{self.base}/events"

    @property
    def journal(self) -> str:
        """Retained, for the pit: the journal's head at the last checkpoint (row count, last
        digest, time), sealed with the table's key when it has one."""
        return f"{self.base}/pit/journal"

    @property
    def rebirth(self) -> str:
        """Anyone may ask for a rebirth: the controller republishes every state."""
        return f"{self.base}/rebirth"

    @property
    def dealer(self) -> AudienceTopics:
        """The dealer console's topics."""
        return AudienceTopics(f"{self.base}/dealer")

    @property
    def pit(self) -> AudienceTopics:
        """The pit manager's topics."""
        return AudienceTopics(f"{self.base}/pit")

    def seat(self, seat: str) -> AudienceTopics:
        """One seat's private topics."""
        return AudienceTopics(f"{self.base}/seat/{seat_segment(seat)}")

    @property
    def subscriptions(self) -> tuple[str, ...]:
        """What the controller subscribes to: every command topic, seat presence, rebirth."""
        return (*self.staff_subscriptions, *self.seat_subscriptions)

    @property
    def staff_subscriptions(self) -> tuple[str, ...]:
        """The dealer's and the pit manager's command topics. The controller reads them on
        a connection of their own: the broker queues a bounded number of messages for each
        connection and drops what comes past that, so on a connection shared with the seats'
        topics a seat's flood would make it drop the dealer's commands."""
        return (self.dealer.cmd, self.pit.cmd)

    @property
    def seat_subscriptions(self) -> tuple[str, ...]:
        """The seats' command and presence topics, and rebirth (anyone may write them)."""
        return (f"{self.base}/seat/+/cmd", f"{self.base}/seat/+/presence", self.rebirth)

    def sender_of(self, topic: str) -> Sender | None:
        """Who writes to ``topic`` if it is a command topic of this table, else None."""
        if topic == self.dealer.cmd:
            return Sender("dealer")
        if topic == self.pit.cmd:
            return Sender("pit")
        parts = topic.split("/")
        seat_cmd = len(parts) == 5 and topic.startswith(f"{self.base}/seat/") and parts[4] == "cmd"
        if seat_cmd and parts[3] and parts[3] not in ("+", "#"):
            return Sender("seat", parts[3])
        return None

    def presence_of(self, topic: str) -> str | None:
        """The seat whose presence ``topic`` carries, or None."""
        parts = topic.split("/")
        if len(parts) == 5 and topic.startswith(f"{self.base}/seat/") and parts[4] == "presence":
            return parts[3] or None
        return None
