"""A seeded generator of hostile command payloads, as a sloppy or malicious seat sends them.

Each kind is a way a command can be wrong: too large, too deep, numbers no table takes, not
JSON at all, JSON of the wrong shape, fields a seat may not set, commands a seat may not
send, and noise. Every payload is built from the seed alone, so a failure names the seed
and the payload's index to replay it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator

Payload = tuple[str, bytes]


def _bet(rng: random.Random, **fields: object) -> bytes:
    doc: dict[str, object] = {
        "v": 1,
        "id": f"h{rng.randrange(10**6)}",
        "command": "place_bet",
        "hand": "box 1",
        "spot": "ante",
        "amount": "10",
    }
    doc.update(fields)
    return json.dumps(doc).encode()


def _raw_amount(rng: random.Random, amount: str) -> bytes:
    return (
        b'{"v": 1, "id": "h%d", "command": "place_bet", "hand": "box 1", "spot": "ante", '
        b'"amount": %s}' % (rng.randrange(10**6), amount.encode())
    )


def _nested(depth: int, opener: str) -> bytes:
    closer = {"[": "]", "{": "}"}[opener]
    inner = "1" if opener == "[" else ""
    body = (opener + ('"a":' if opener == "{" else "")) * depth + inner + closer * depth
    return body.encode()


KINDS: dict[str, Callable[[random.Random], bytes]] = {
    "huge integer": lambda r: _raw_amount(r, "9" * r.randrange(25, 4000)),
    "integer past Python's limit": lambda r: _raw_amount(r, "9" * r.randrange(4301, 6000)),
    "deep arrays": lambda r: _nested(r.randrange(4, 20_000), "["),
    "deep objects": lambda r: _nested(r.randrange(4, 10_000), "{"),
    "unclosed brackets": lambda r: b"[" * r.randrange(100, 20_000),
    "huge payload": lambda r: _bet(r, note="x" * r.randrange(5_000, 60_000)),
    "exponent number": lambda r: _raw_amount(r, f"1e{r.randrange(2, 100_000)}"),
    "exponent in text": lambda r: _bet(r, amount=f"1e{r.randrange(2, 10**9)}"),
    "NaN or Infinity": lambda r: _raw_amount(r, r.choice(["NaN", "Infinity", "-Infinity"])),
    "negative amount": lambda r: _bet(r, amount=-r.randrange(1, 1000)),
    "words for an amount": lambda r: _bet(r, amount=r.choice(["a lot", "all in", "ten", ""])),
    "wrong type of amount": lambda r: _bet(r, amount=r.choice([[1], {"n": 1}, True, None])),
    "wrong type of field": lambda r: _bet(r, hand=r.choice([[1], 5, None, {"b": 1}])),
    "not UTF-8": lambda r: b'{"v": 1, "id": "' + bytes([0xFF, 0xFE, r.randrange(128, 256)]) + b'"}',
    "random bytes": lambda r: r.randbytes(r.randrange(0, 600)),
    "truncated JSON": lambda r: _bet(r)[: r.randrange(0, 60)],
    "not an object": lambda r: r.choice([b"[]", b"null", b"true", b"42", b'"place_bet"', b""]),
    "unknown command": lambda r: _bet(r, command=r.choice(["steal", "pay_me", "drop_table"])),
    "no command": lambda r: json.dumps({"v": 1, "id": "h"}).encode(),
    "wrong version": lambda r: _bet(r, v=r.choice([0, 2, "1", None])),
    "id too long": lambda r: _bet(r, id="i" * r.randrange(65, 3000)),
    "another seat": lambda r: _bet(r, seat=f"seat:{r.randrange(2, 9)}"),
    "the actor or kind": lambda r: _bet(r, **{r.choice(["actor", "kind"]): "pit:boss"}),
    "a pit command": lambda r: _bet(r, command=r.choice(["void_round", "correct_card"])),
    "a shoe's card": lambda r: _bet(r, command="card_drawn", card=r.choice(["AS", "KD"])),
    "unknown fields": lambda r: _bet(r, colour="red", **{f"f{r.randrange(99)}": 1}),
    "control characters": lambda r: _bet(r, hand="box\u0000 1\u202e", spot="ante\n"),
    "lone surrogate": lambda r: _raw_amount(r, '"10", "hand": "\\ud800"'),
}


def hostile_payloads(seed: int, count: int) -> Iterator[Payload]:
    """``count`` payloads from ``seed``, every kind in turn, each built anew."""
    rng = random.Random(seed)
    names = list(KINDS)
    for i in range(count):
        name = names[i % len(names)]
        yield name, KINDS[name](rng)
