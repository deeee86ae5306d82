"""Card-shoe drivers: a pure codec per wire dialect and one serial transport.

:func:`make_codec` builds the codec of a :class:`~drivers.shoe.base.Dialect`;
:class:`~drivers.shoe.transport.SerialTransport` feeds it from a port in its own thread.
"""

from __future__ import annotations

from controller.errors import UnknownName
from drivers.shoe.base import CodecStats, DeckInventory, Dialect, ShoeCodec
from drivers.shoe.deckmap import DeckMap, demo_deck_map, load_deck_map
from drivers.shoe.framed import FramedHostCodec
from drivers.shoe.jsonl import JsonlCodec
from drivers.shoe.uspc import UspcCodec

__all__ = [
    "CodecStats",
    "DeckInventory",
    "DeckMap",
    "Dialect",
    "ShoeCodec",
    "demo_deck_map",
    "load_deck_map",
    "make_codec",
]


def make_codec(dialect: Dialect | str, deck_map: DeckMap | None = None) -> ShoeCodec:
    """A fresh codec for ``dialect`` (``deck_map`` is used by the JSON-lines readers)."""
    try:
        kind = Dialect(dialect)
    except ValueError:
        choices = ", ".join(d.value for d in Dialect)
        raise UnknownName(f"unknown shoe dialect {dialect!r}: expected one of {choices}") from None
    if kind is Dialect.FRAMED:
        return FramedHostCodec()
    if kind is Dialect.USPC:
        return UspcCodec()
    return JsonlCodec(deck_map or demo_deck_map())
