"""USPC / Bee-Tek card-reading shoe: ASCII tokens, no checksum, no sequence number.

Game mode reads ``[Game]<Card:4S>`` (rank then suit), manual burn mode
``[Manual Burn Cards]<Card:H3>`` (suit then rank); a failed read is ``[Game]<Game>``, an
alarm ``[GameAlarm]<Alarm:E3 Card Not Read>``, a warning ``<W0x01>``. Tokens are padded
with spaces; the ten may come as ``T`` or ``10``. Since the wire protects nothing, the host
reports a damaged token instead of guessing, and skips noise. The shoe says nothing of decks
or rounds, so every card read is delivered: whether it repeats one is the table's to judge,
which knows the round in play and shuffles a fresh deck for each.

>>> codec = UspcCodec()
>>> [e.to_dict()["event"] for e in codec.feed(b" [Game]<Card:4S>  [Manual Burn Cards]<Card:H10> ")]
['card', 'card']
>>> for event in codec.feed(b" [Game]<Game> [GameAlarm]<Alarm:E3 Card Not Read> <W0x01>"):
...     print(event)
ReadFailed(reason='card not read', record=None, device=None)
Alarm(code='E3', text='Card Not Read', record=None)
ShoeWarning(code='0x01')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from controller.cards import Card
from controller.errors import InvalidCard
from drivers.shoe.base import CodecStats
from drivers.shoe.events import (
    Alarm,
    CardRead,
    CorruptMessage,
    Noise,
    ReadFailed,
    ShoeEvent,
    ShoeWarning,
)

__all__ = ["UspcCodec", "format_uspc_card", "parse_uspc_card"]

_MODE_AT_END = re.compile(rb"\[([^\[\]<>]*)\][ \t\r\n\x00]*$")
_ALARM = re.compile(r"Alarm:\s*(\S+)\s*(.*)")
_WARNING = re.compile(r"W(0x[0-9A-Fa-f]+)")
_MAX_PENDING = 512
_BLANK = b" \t\r\n\x00"
_SUITS = "CDHS"
_CARD_MODES = {"": False, "game": False, "manual burn cards": True}
"""The mode tags a card token may carry (lower case), and whether each is a burn card."""


def parse_uspc_card(text: str) -> Card:
    """A card as the shoe writes it: ``4S`` or ``10H`` (game) or ``H3``, ``S10`` (burn).

    Rank letters and suit letters never overlap, so both orders are read without guessing.
    The shoe writes no blank inside a token: one there (``S 4``, `` 4S``) is a damaged or
    an inserted byte, refused, never read round.

    >>> parse_uspc_card("4S"), parse_uspc_card("H3"), parse_uspc_card("S10"), parse_uspc_card("TD")
    (Card('4S'), Card('3H'), Card('TS'), Card('TD'))
    >>> parse_uspc_card("S 4")
    Traceback (most recent call last):
    controller.errors.InvalidCard: bad card 'S 4': expected a rank and a suit, nothing between
    """
    if not text or any(c.isspace() for c in text):
        raise InvalidCard(f"bad card {text!r}: expected a rank and a suit, nothing between")
    code = text.upper()
    if len(code) >= 2 and code[0] in _SUITS:
        code = code[1:] + code[0]
    return Card.parse(code)


def format_uspc_card(card: Card, *, burn: bool = False, ten: str = "T") -> str:
    """The token of ``card`` as the shoe sends it, with its mode tag and padding.

    >>> format_uspc_card(Card.parse("4S")), format_uspc_card(Card.parse("TH"), burn=True, ten="10")
    (' [Game]<Card:4S> ', ' [Manual Burn Cards]<Card:H10> ')
    """
    rank = ten if card.code[0] == "T" else card.code[0]
    suit = card.code[1]
    if burn:
        return f" [Manual Burn Cards]<Card:{suit}{rank}> "
    return f" [Game]<Card:{rank}{suit}> "


@dataclass(slots=True)
class UspcCodec:
    """Decoder of the USPC / Bee-Tek ASCII stream."""

    stats: CodecStats = field(default_factory=CodecStats)
    _buffer: bytearray = field(default_factory=bytearray)

    def take_output(self) -> bytes:
        """This shoe takes no acknowledgements."""
        return b""

    def reset_link(self) -> None:
        """Forget a partial token."""
        self._buffer.clear()

    def feed(self, data: bytes, now: float = 0.0) -> list[ShoeEvent]:
        """Decode every token completed by ``data``."""
        self.stats.bytes_in += len(data)
        buf = self._buffer
        buf += data
        events: list[ShoeEvent] = []
        i = 0
        while True:
            end = buf.find(b">", i)
            if end < 0:
                break
            start = buf.rfind(b"<", i, end)
            if start < 0:
                self._junk(bytes(buf[i : end + 1]), events)
                i = end + 1
                continue
            prefix = bytes(buf[i:start])
            mode = _MODE_AT_END.search(prefix)
            self._junk(prefix[: mode.start()] if mode else prefix, events)
            mode_text: str | None = mode.group(1).decode("ascii", "replace") if mode else ""
            if not mode and (b"[" in prefix or b"]" in prefix):
                mode_text = None  # the remains of a mode tag: which mode is unknown
            self._token(mode_text, bytes(buf[start + 1 : end]), events)
            i = end + 1
        if len(buf) - i > _MAX_PENDING:  # no token closes: keep only a plausible tail
            cut = max(buf.rfind(b"<", i), buf.rfind(b"[", i), len(buf) - 64)
            if buf[cut : cut + 1] == b"<":  # with the mode tag just before it, if any
                mode = _MODE_AT_END.search(buf, max(i, cut - 64), cut)
                cut = mode.start() if mode else cut
            self._junk(bytes(buf[i:cut]), events)
            i = cut
        del buf[:i]
        return events

    def _junk(self, raw: bytes, events: list[ShoeEvent]) -> None:
        """Bytes outside any token: noise, unless they hold the remains of a token."""
        stripped = raw.strip(_BLANK)
        if not stripped:
            return
        if any(mark in stripped for mark in (b"<", b">", b"[", b"]")):
            # a token's remains (a lone bracket too: its mode tag's, so a burn card's tag
            # damaged never turns it into a card dealt)
            self.stats.corrupt += 1
            events.append(CorruptMessage("damaged token", stripped.decode("ascii", "replace")))
            return
        self.stats.noise_bytes += len(stripped)
        events.append(Noise(len(stripped)))

    def _token(self, mode: str | None, body: bytes, events: list[ShoeEvent]) -> None:
        shown = (
            f"[{mode}]<{body.decode('ascii', 'replace')}>"
            if mode
            else (f"<{body.decode('ascii', 'replace')}>")
        )
        if any(b < 0x20 or b > 0x7E for b in body):
            self.stats.corrupt += 1
            events.append(CorruptMessage("token holds bytes that are not printable ASCII", shown))
            return
        text = body.decode("ascii").strip()
        self.stats.messages += 1
        if text.startswith("Card:"):
            burn = None if mode is None else _CARD_MODES.get(mode.lower())
            if burn is None:  # a damaged mode tag: a burn card must never be dealt
                what = "after a damaged mode tag" if mode is None else f"in mode {mode!r}"
                self.stats.corrupt += 1
                events.append(
                    CorruptMessage(
                        f"card token {what}: expected [Game], [Manual Burn Cards] or no mode tag",
                        shown,
                    )
                )
                return
            try:
                card = parse_uspc_card(text[5:])
            except InvalidCard:
                self.stats.corrupt += 1
                events.append(CorruptMessage(f"bad card {text[5:]!r}", shown))
                return
            self.stats.cards += 1
            events.append(CardRead(card, burn=burn))
            return
        if text == "Game":
            events.append(ReadFailed("card not read"))
            return
        alarm = _ALARM.fullmatch(text)
        if alarm:
            events.append(Alarm(alarm.group(1), alarm.group(2).strip()))
            return
        warning = _WARNING.fullmatch(text)
        if warning:
            events.append(ShoeWarning(warning.group(1)))
            return
        self.stats.corrupt += 1
        events.append(CorruptMessage("unknown token", shown))
