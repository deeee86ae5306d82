"""How fast each seat's commands are taken: a token bucket per seat, on the clock it is given.

A seat's command costs the table a journal row (a durable write), a step of the state
machine and a state published to every audience; a command it refuses before the table
sees it (one that is not JSON, say) costs the pit's console an event. A seat sending faster
than any person presses buttons (a client stuck in a loop, or a hostile one, as the
broker's access list lets a seat write its own command topic) would grow the journal
without bound and bury the pit's events. Each seat may send :attr:`CommandRate.burst`
commands at once and :attr:`CommandRate.per_second` after that; what comes faster is
refused at the door, unread, and the seat is told so each time. A flood is one episode:
the pit hears once when it starts and once when it ends, with how many commands were
refused meanwhile. A flood ends at the first command after the seat paused long enough for
its whole burst to come back (``burst / per_second`` seconds): a seat that keeps sending at
the limit, a command taken now and then between those refused, is one flood, not many.

Pure: the time is the caller's (``now``, seconds), and nothing here reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CommandRate", "Taken"]


@dataclass(frozen=True, slots=True)
class Taken:
    """What :meth:`CommandRate.take` decided for one command.

    ``ok``: the command is taken. ``refused``: while refused, how many commands the seat's
    flood has had refused so far, this one among them (1: the flood starts now); when taken,
    how many were refused in the flood that this command ends (0: it ends none, as there
    was none or it goes on).
    ``since``: when that flood started (its first refused command)."""

    ok: bool
    refused: int = 0
    since: float = 0.0

    @property
    def flood_starts(self) -> bool:
        """Whether this command is the first a flood has refused."""
        return not self.ok and self.refused == 1

    @property
    def flood_ends(self) -> bool:
        """Whether this command, taken, ends a flood."""
        return self.ok and self.refused > 0


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float  # when ``tokens`` was worked out
    refused: int = 0  # refused in the flood going on (0: none is)
    since: float = 0.0  # when that flood started


class CommandRate:
    """Each sender's commands taken at most ``per_second`` a second, ``burst`` at once.

    At most ``most`` senders are remembered. A sender whose bucket has filled up again is
    the same as one never seen, so such senders are forgotten first when that many are
    remembered; if none is full (as many senders all sending at once), the one that sent
    longest ago is forgotten, and it starts again with a full bucket."""

    def __init__(self, per_second: float, burst: int, *, most: int = 1024) -> None:
        if not per_second > 0 or burst < 1 or most < 1:
            raise ValueError(
                "expected a rate above 0 a second, a burst of at least 1 and room for at "
                f"least 1 sender; got {per_second!r} a second, a burst of {burst!r} and "
                f"{most!r} senders"
            )
        self.per_second = float(per_second)
        self.burst = int(burst)
        self.most = most
        self._buckets: dict[str, _Bucket] = {}

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, sender: str, now: float) -> Taken:
        """Take one command from ``sender`` at ``now``, or refuse it (see :class:`Taken`).
        A clock that went back refills nothing and takes nothing away."""
        bucket = self._buckets.get(sender)
        if bucket is None:
            if len(self._buckets) >= self.most:
                self._forget(now)
            bucket = self._buckets[sender] = _Bucket(float(self.burst), now)
        else:
            elapsed = max(0.0, now - bucket.at)
            bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.per_second)
            bucket.at = max(bucket.at, now)
        if bucket.tokens >= 1.0:
            rested = bucket.tokens >= self.burst  # paused long enough for a whole burst
            bucket.tokens -= 1.0
            if not rested or not bucket.refused:  # no flood, or one still going on
                return Taken(True)
            ended, since = bucket.refused, bucket.since
            bucket.refused = 0
            return Taken(True, ended, since)
        if bucket.refused == 0:
            bucket.since = now
        bucket.refused += 1
        return Taken(False, bucket.refused, bucket.since)

    def _forget(self, now: float) -> None:
        """Make room for one more sender (see the class's description)."""
        full = [
            who
            for who, b in self._buckets.items()
            if b.refused == 0 and b.tokens + max(0.0, now - b.at) * self.per_second >= self.burst
        ]
        for who in full:
            del self._buckets[who]
        if len(self._buckets) >= self.most:
            oldest = min(self._buckets, key=lambda who: self._buckets[who].at)
            del self._buckets[oldest]
