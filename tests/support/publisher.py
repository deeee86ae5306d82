"""A publisher that keeps what the table gives it, for tests of the service without a broker."""

from __future__ import annotations


class Collected:
    """Keeps every (topic, payload) published, and sends at once."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, bytes]] = []

    def publish(self, topic: str, payload: bytes, *, retain: bool = False, qos: int = 1) -> bool:
        """Keep the message."""
        self.messages.append((topic, payload))
        return True

    def flush(self, timeout: float) -> bool:
        """Nothing waits: every message is kept at once."""
        return True

    def texts(self, fragment: str) -> list[str]:
        """The payloads, as text, of the topics with ``fragment`` in their name."""
        return [p.decode() for t, p in self.messages if fragment in t]
