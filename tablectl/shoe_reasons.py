"""A shoe's fault as the table's halt reason: in words, and in the round's terms.

The shoe's driver knows what went wrong at the device; the table knows where the round
stood: the card that was due (``card 9 of the round (box 3's second card) was due``), or
that none was. A halt reason says both, for the dealer and the pit manager, in words: no
JSON, no raw bytes, and nothing a device wrote but letters, digits and plain punctuation
(what a device sends is cut short and stripped of anything else). The shoe's sequence
numbers are the device's own: a halt reason counts cards in the round.

>>> from drivers.shoe.events import Alarm
>>> shoe_reason(Alarm("E3", "Card Not Read"), None)
'the shoe raised alarm E3 (Card Not Read)'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from controller.table import Phase, TableState
from drivers.shoe.events import (
    Alarm,
    CorruptMessage,
    Disconnected,
    ReadFailed,
    Rebooted,
    SequenceGap,
    ShoeEvent,
    UnknownTag,
)

__all__ = ["due_words", "said", "shoe_reason"]

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")

#: what a device's own text keeps: letters, digits, spaces and plain punctuation
_UNSAID = re.compile(r"[^\w .,:;!?'()+\-]+")


def said(text: object, limit: int = 60) -> str:
    """What a device wrote, as words: anything but letters, digits, spaces and plain
    punctuation dropped, runs of spaces made one, cut at ``limit`` characters.

    Nothing said (None, where a driver had no text) is nothing, never the word "None".

    >>> said('{"type": "card", "uid": "04A1"}'), said("E3  Card\\nNot Read"), said(None)
    ('type: card, uid: 04A1', 'E3 Card Not Read', '')
    """
    if text is None:
        return ""
    words = " ".join(_UNSAID.sub("", " ".join(str(text).split())).split())
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"


def due_words(state: TableState | None) -> str:
    """Where the round stands for a card, in its terms: ``card 9 of the round (box 3's
    second card) was due``, or ``no card was due (deciding: …)``; empty with no round."""
    rnd = state.round if state is not None else None
    if state is None or rnd is None:
        return ""
    due = rnd.due
    if state.phase is not Phase.DEALING or due is None or due.kind != "card":
        if state.phase is Phase.HALTED:
            return "no card was due (the table was halted)"
        return f"no card was due ({state.phase}: waiting for {state.next_due})"
    n = 1 + sum(1 for position, _, _ in rnd.cards if position == due.position)
    nth = _ORDINALS[n - 1] if n <= len(_ORDINALS) else f"{n}th"
    return f"card {len(rnd.cards) + 1} of the round ({due.position}'s {nth} card) was due"


def _aside(text: object) -> str:
    """What a device wrote (:func:`said`) in brackets after a space, or nothing where it
    wrote nothing (never empty brackets)."""
    words = said(text)
    return f" ({words})" if words else ""


def _read_failed(e: Any) -> str:
    return f"a card passed the shoe's reader unread{_aside(e.reason)}: find it on the layout"


def _alarm(e: Any) -> str:
    return f"the shoe raised alarm {said(e.code, 20)}{_aside(e.text)}"


def _rebooted(e: Any) -> str:
    return f"the shoe restarted{_aside(e.reason)}: a card it read just before may be lost"


def _gap(e: Any) -> str:
    n = len(e.missing)
    which = "message" if n == 1 else f"{n} messages"
    return (
        f"the shoe's {which} never arrived (numbered {e.missing[0]}"
        + (f" to {e.missing[-1]}" if n > 1 else "")
        + " by the shoe): a card may have been read and lost"
    )


def _unknown_tag(e: Any) -> str:
    return (
        f"the shoe read tag {said(e.uid, 30)}, which is not in the deck's tag table: a card of "
        "another deck, or a damaged tag"
    )


def _corrupt(e: Any) -> str:
    return (
        f"the shoe sent a damaged message that cannot be sent again{_aside(e.reason)}: a card "
        "may have been lost"
    )


def _disconnected(e: Any) -> str:
    return (
        f"the shoe was disconnected{_aside(e.reason)}: a card may have been read while it was away"
    )


#: the words for each kind of shoe event that halts (an event of another kind says its own
#: ``message``, or is named by its kind)
WORDS: dict[type[ShoeEvent], Callable[[Any], str]] = {
    ReadFailed: _read_failed,
    Alarm: _alarm,
    Rebooted: _rebooted,
    SequenceGap: _gap,
    UnknownTag: _unknown_tag,
    CorruptMessage: _corrupt,
    Disconnected: _disconnected,
}


def shoe_reason(event: ShoeEvent, state: TableState | None) -> str:
    """``event``'s halt reason in words, then where the round stood when it came."""
    words = WORDS.get(type(event))
    if words is not None:
        text = words(event)
    else:
        message = getattr(event, "message", None)
        text = said(message, 300) if isinstance(message, str) else ""
        text = text or f"the shoe reported {event.kind.value.replace('_', ' ')}"
    where = due_words(state)
    return f"{text}; {where}" if where else text
