"""Properties every codec keeps: any split, any idle-line noise, the same cards out."""

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import Card
from drivers.shoe import make_codec
from drivers.shoe.deckmap import demo_deck_map
from drivers.shoe.events import CardRead, must_halt
from drivers.shoe.framed import MessageType, card_payload, encode_frame, hello_payload
from drivers.shoe.jsonl import format_jsonl
from drivers.shoe.uspc import format_uspc_card

DECK = demo_deck_map()
LINE_NOISE = st.binary(max_size=12).map(
    lambda b: bytes(x for x in b if x not in b"<>[]{}\n#\r" and x >= 0x20)
)


def message(dialect: str, i: int, card: Card) -> bytes:
    if dialect == "framed":
        return encode_frame(i & 0xFF, MessageType.CARD, card_payload(i + 2, card, 90))
    if dialect == "uspc":
        return format_uspc_card(card, burn=i % 7 == 0, ten="10" if i % 2 else "T").encode()
    return format_jsonl({"type": "card", "seq": i + 2, "device_id": "r", "uid": DECK.uid_for(card)})


def opening(dialect: str) -> bytes:
    if dialect == "framed":
        return encode_frame(0, MessageType.HELLO, hello_payload(1, 1, "m", "s", "f"))
    if dialect == "jsonl":
        return format_jsonl({"type": "boot", "seq": 1, "device_id": "r"})
    return b""


@settings(max_examples=60, deadline=None)
@given(
    dialect=st.sampled_from(["framed", "uspc", "jsonl"]),
    order=st.permutations([Card(i) for i in range(52)]),
    noise=st.lists(st.one_of(st.binary(max_size=16), LINE_NOISE), min_size=52, max_size=52),
    cuts=st.lists(st.integers(min_value=0, max_value=5000), max_size=40),
)
def test_noise_and_any_split_change_nothing(
    dialect: str, order: list[Card], noise: list[bytes], cuts: list[int]
) -> None:
    stream = bytearray(opening(dialect))
    for i, card in enumerate(order):
        gap = noise[i]
        if dialect != "framed":  # the line dialects see noise only on an idle line
            gap = bytes(x for x in gap if x not in b"<>[]{}\n#\r" and x >= 0x20)
        stream += gap + message(dialect, i, card)
    stream += b" \n"  # a line ends the last jsonl line's noise, if any
    codec = make_codec(dialect, DECK)
    events = []
    start = 0
    for cut in [*sorted({c % (len(stream) + 1) for c in cuts}), len(stream)]:
        events.extend(codec.feed(bytes(stream[start:cut])))
        start = max(start, cut)
    assert [e.card for e in events if isinstance(e, CardRead)] == order
    assert not [e for e in events if must_halt(e)]
