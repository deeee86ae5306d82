"""The journal's model: append-only, hash-chained records of every input, written before use.

Row 0 is the table's configuration (the game's configuration file included, so a journal is
a self-contained record); every later row is one event with the time it was handled. Each
row's digest is SHA-256 over the previous row's digest and the row's own content, so
changing, removing or reordering any row breaks the chain from that row on.

A row's content is hashed in one canonical form: compact JSON with sorted keys (see
:func:`canonical`). A journal that stores each record in that form (:func:`record_text`)
lets :func:`verify` hash the stored text as it is, without writing the record out again.

A journal that stores a row's kind beside its record (to find rows by it) must store the
record's own kind: :func:`verify_kinds`. A chain recomputed after a change, or rows cut off
the end, leave a chain that holds; a :class:`Seal` of the head (row count and last digest,
HMAC-SHA256 under the table's key) finds them, and :func:`audit` checks a whole journal,
rows, kinds and seals, naming its first bad row and the kind of tampering.

>>> first = chain(GENESIS, 0, 10.0, {"kind": "table_configured"})
>>> second = chain(first.digest, 1, 11.0, {"kind": "open_table", "actor": "pit"})
>>> verify([first, second])
>>> tampered = Entry(1, 11.0, {"kind": "close_table", "actor": "pit"}, second.prev, second.digest)
>>> verify([first, tampered])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
controller.journal.JournalCorrupt: row 1: its digest does not match its content ...
>>> canonical(1, 11.0, second.record) == canonical_text(1, 11.0, record_text(second.record))
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import Any, Protocol, TypeVar

from controller.errors import InvalidSpec, TableError
from controller.work import Progress

__all__ = [
    "GENESIS",
    "ID_FIELD",
    "ID_KEY",
    "PROGRESS_ROWS",
    "SEAL_REASONS",
    "TAMPERS",
    "Audit",
    "Entry",
    "Finding",
    "Journal",
    "JournalCorrupt",
    "KindRow",
    "Record",
    "Row",
    "Seal",
    "audit",
    "canonical",
    "canonical_text",
    "chain",
    "kind_of",
    "parse_head",
    "parse_record",
    "record_text",
    "seal",
    "split_id",
    "utc_time",
    "verify",
    "verify_kinds",
    "verify_rows",
]

GENESIS = "0" * 64

#: the field of a row's record that carries the id its sender gave the command it journals
ID_FIELD = "command_id"
#: how a command's id begins in its row's text (compact JSON)
ID_KEY = f'"{ID_FIELD}":"'

#: rows checked between two progress reports (a few milliseconds of hashing)
PROGRESS_ROWS = 4096

#: the kinds of tampering :func:`audit` tells apart
CHANGED = "changed content"
KIND = "changed kind column"
MISSING = "missing or moved row"
CUT = "cut chain"
TRUNCATED = "truncated"
RECOMPUTED = "recomputed chain"
APPENDED = "rows added after the journal was closed"
BAD_SEAL = "altered seal"
NO_SEAL = "seals removed"
TAMPERS = (CHANGED, KIND, MISSING, CUT, TRUNCATED, RECOMPUTED, APPENDED, BAD_SEAL, NO_SEAL)

_T = TypeVar("_T")


class JournalCorrupt(TableError):
    """A journal whose chain is broken; the message names the first bad row and how.

    ``row`` is that row's number when one is named, ``what`` the kind of tampering found
    (one of :data:`TAMPERS`).
    """

    def __init__(self, message: str, row: int | None = None, what: str = "") -> None:
        super().__init__(message)
        self.row = row
        self.what = what


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal row: its number, when it was handled, the record, and the chain."""

    seq: int
    at: float
    record: dict[str, Any]
    prev: str
    digest: str
    # the text the journal stored and read the record from, when it stores text; verify
    # hashes it as it is when it hashes to the digest, and writes the record out otherwise
    text: str | None = field(default=None, repr=False, compare=False)


def canonical(seq: int, at: float, record: dict[str, Any]) -> bytes:
    """The exact bytes a row's digest covers."""
    return json.dumps(
        {"seq": seq, "at": repr(float(at)), "record": record},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode()


def record_text(record: dict[str, Any]) -> str:
    """A record in the canonical form of its row's digest: compact JSON, sorted keys."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_text(seq: int, at: float, text: str) -> bytes:
    """:func:`canonical` of the row whose record's canonical text is ``text``.

    The same bytes, put together around the text: keys in sorted order ``at``, ``record``,
    ``seq``; the time as the JSON string of its ``repr`` (digits, sign, point, exponent,
    ``inf`` or ``nan``: nothing that JSON escapes).
    """
    return _canonical_str(seq, at, text).encode()


def _canonical_str(seq: int, at: float, text: str) -> str:
    return f'{{"at":"{float(at)!r}","record":{text},"seq":{int(seq)}}}'


def _digest(prev: str, content: bytes) -> str:
    return hashlib.sha256(prev.encode() + content).hexdigest()


def chain(prev: str, seq: int, at: float, record: dict[str, Any]) -> Entry:
    """The row that follows a row whose digest is ``prev``."""
    text = record_text(record)
    digest = _digest(prev, canonical_text(seq, at, text))
    return Entry(seq, at, record, prev, digest, text)


#: a row as stored, its record unparsed: (seq, at, text, prev, digest)
Row = tuple[int, float, str, str, str]
#: what a replay needs of a row: (at, text)
Record = tuple[float, str]


def parse_record(text: str) -> dict[str, Any]:
    """The record a row stores as ``text``; an unreadable one as ``{"kind": "unreadable"}``
    with the text (it cannot hash to its digest, and no event has that kind).

    >>> parse_record('{"actor":"dealer","kind":"start_round"}')["kind"], parse_record("{x")
    ('start_round', {'kind': 'unreadable', 'text': '{x'})
    """
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # nested past the parser: no record is
        return {"kind": "unreadable", "text": text}
    return doc if isinstance(doc, dict) else {"kind": "unreadable", "text": text}


def split_id(text: str) -> tuple[str, str | None]:
    """A journal row's record text → (the text without its command id, the id or None).

    The table writes records in canonical JSON (compact, sorted keys), where the id is one
    plain member; the text without it is the command as it would be journaled without an
    id, so a replay decodes each distinct command once however many ids it came with. This
    finds the member in the text instead of parsing it (a parse is 7 µs a row: a second
    on a long journal); an id written with escapes, or a record in another JSON form, is
    parsed and written out again.

    >>> split_id('{"actor":"dealer","command_id":"c-17","kind":"start_round"}')
    ('{"actor":"dealer","kind":"start_round"}', 'c-17')
    >>> split_id('{"actor":"seat:1","command_id":"x","spot":"ante"}')
    ('{"actor":"seat:1","spot":"ante"}', 'x')
    >>> split_id('{"actor":"dealer","kind":"start_round"}')
    ('{"actor":"dealer","kind":"start_round"}', None)
    """
    head, key, tail = text.partition(ID_KEY)
    if not key:
        return text, None
    # Inside a JSON string every quote is escaped, so the key's quotes are structure and
    # the id's value ends at the next quote, unless it has escapes. (Should the member found
    # be one of a nested object, the record keeps its own id, and reading it as an event
    # fails on that unknown field: never a wrong event.)
    value, quote, rest = tail.partition('"')
    if not quote or "\\" in value:
        return _split_parsed(text)
    if rest[:1] == ",":
        return head + rest[1:], value
    if head[-1:] == ",":  # the last member: its comma goes with it
        return head[:-1] + rest, value
    return head + rest, value  # the only member


def _split_parsed(text: str) -> tuple[str, str | None]:
    """:func:`split_id` by parsing the record (ids with escapes, other JSON forms)."""
    doc = parse_record(text)
    value = doc.pop(ID_FIELD, None)
    if value is None:
        return text, None
    return record_text(doc), str(value)


def verify(entries: Iterable[Entry], progress: Progress | None = None) -> None:
    """Raise :class:`JournalCorrupt` at the first row that breaks the chain; ``progress(done,
    total)`` is told of the rows checked, every :data:`PROGRESS_ROWS` rows and at the end."""
    entries = _sized(entries, progress)
    rows = ((e.seq, e.at, e.text, e.prev, e.digest, e.record) for e in entries)
    _verify(rows, progress, len(entries) if isinstance(entries, Sized) else 0)


def verify_rows(rows: Iterable[Row], progress: Progress | None = None) -> None:
    """:func:`verify` for rows as stored (a record is parsed only where its text does not
    hash to the digest)."""
    rows = _sized(rows, progress)
    stored = ((seq, at, text, prev, digest, None) for seq, at, text, prev, digest in rows)
    _verify(stored, progress, len(rows) if isinstance(rows, Sized) else 0)


def _sized(items: Iterable[_T], progress: Progress | None) -> Iterable[_T]:
    """``items`` as they are, or as a list when progress needs their number and they have none."""
    if progress is None or isinstance(items, Sized):
        return items
    return list(items)


#: a row as :func:`_check` takes it: (seq, at, stored text, prev, digest, record if parsed)
_Checked = tuple[int, float, str | None, str, str, dict[str, Any] | None]


def _verify(rows: Iterable[_Checked], progress: Progress | None, total: int) -> None:
    """Check rows, reporting to ``progress`` (if any) between runs of :data:`PROGRESS_ROWS`."""
    if progress is None:
        _check(rows, GENESIS, 0)
        return
    progress(0, total)
    pending = iter(rows)
    prev, done = _check(islice(pending, PROGRESS_ROWS), GENESIS, 0)
    while True:
        progress(done, total)
        prev, checked = _check(islice(pending, PROGRESS_ROWS), prev, done)
        if checked == done:
            return
        done = checked


def _check(rows: Iterable[_Checked], prev: str, expected_seq: int) -> tuple[str, int]:
    """Check rows that follow the row numbered ``expected_seq - 1`` whose digest is ``prev``;
    return the last row's digest and the number the next row must have."""
    sha256 = hashlib.sha256
    for seq, at, text, row_prev, digest, record in rows:
        if seq != expected_seq:
            raise JournalCorrupt(
                f"row {seq}: expected row {expected_seq} here (a row is missing or moved)",
                expected_seq,
                MISSING,
            )
        if row_prev != prev:
            raise JournalCorrupt(
                f"row {seq}: it does not follow row {seq - 1} (the chain is cut)", seq, CUT
            )
        # A stored text that hashes to the digest is the very content that was hashed (the
        # usual case, checked in one step: UTF-8 encodes a concatenation as the concatenation
        # of the encodings); otherwise (another JSON form, or a change) the record is written
        # out in the canonical form and hashed.
        if (
            text is None
            or sha256((prev + _canonical_str(seq, at, text)).encode()).hexdigest() != digest
        ):
            if record is None:  # a row as stored: its record, as the journal reads it
                record = parse_record(text or "")
            if _digest(prev, canonical(seq, at, record)) != digest:
                raise JournalCorrupt(
                    f"row {seq}: its digest does not match its content "
                    "(changed after it was written)",
                    seq,
                    CHANGED,
                )
        prev, expected_seq = digest, expected_seq + 1
    return prev, expected_seq


# ---------------------------------------------------------------------------- the kind column

#: a row's stored kind beside its record's text: (seq, kind, text)
KindRow = tuple[int, str, str]


def kind_of(record: dict[str, Any]) -> str:
    """The kind a journal stores beside ``record`` (to find a row by its kind).

    >>> kind_of({"kind": "card_drawn", "card": "AS"}), kind_of({})
    ('card_drawn', '')
    """
    return str(record.get("kind", ""))


def verify_kinds(rows: Iterable[KindRow]) -> None:
    """Raise :class:`JournalCorrupt` at the first row whose stored kind is not its record's.

    The kind is stored beside the record only to find rows by it (the last card a restarted
    table goes on from); the record, inside the chain, says what the row is.

    >>> verify_kinds([(0, "open_table", '{"kind":"open_table"}')])
    >>> verify_kinds([(4, "void_round", '{"card":"AS","kind":"card_drawn"}')])
    Traceback (most recent call last):
    ...
    controller.journal.JournalCorrupt: row 4: its kind column says 'void_round', its record says 'card_drawn' (the kind column was changed after it was written)
    """  # noqa: E501
    known: dict[str, str] = {}  # a journal repeats a few hundred distinct records
    for seq, stored, text in rows:
        kind = known.get(text)
        if kind is None:
            # A record the table wrote is canonical JSON of plain members: a kind with no
            # quote or backslash in it is the record's when the text holds it as a member
            # (a command's text is its own, with its id: this spares splitting it off).
            if '"' not in stored and "\\" not in stored and f'"kind":"{stored}"' in text:
                continue
            command = split_id(text)[0]  # whatever ids its commands came with
            kind = known.get(command)
            if kind is None:
                kind = kind_of(parse_record(command))
                if len(known) < 65536:
                    known[command] = kind
        if stored != kind:
            raise JournalCorrupt(
                f"row {seq}: its kind column says {stored!r}, its record says {kind!r} "
                "(the kind column was changed after it was written)",
                seq,
                KIND,
            )


# ---------------------------------------------------------------------------- the seal

#: what a seal's code covers first, so it can be mistaken for nothing else
SEAL_DOMAIN = "tablectl journal seal 1"
#: when a table seals its journal: on opening it to write, at each checkpoint, on closing it
SEAL_REASONS = ("open", "checkpoint", "close")


def utc_time(at: float) -> str:
    """A row's or a seal's time for a person: ``2026-09-21 14:13:20 UTC``."""
    try:
        return datetime.fromtimestamp(at, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):
        return f"time {at!r}"


@dataclass(frozen=True, slots=True)
class Seal:
    """A journal's head at one moment: its row count and last digest, with the time and why.

    ``mac`` is HMAC-SHA256, under the table's key, of all four (see :meth:`signed`), in hex;
    a head published by a table that has no key has none, and vouches for nothing by itself.

    >>> s = seal(b"k" * 32, 3, "ab" * 32, 1790000000.0)
    >>> s.genuine(b"k" * 32), s.genuine(b"j" * 32), Seal(3, "ab" * 32, 1790000000.0).genuine(b"k")
    (True, False, False)
    """

    rows: int
    head: str
    at: float
    why: str = "checkpoint"
    mac: str = ""

    def signed(self) -> bytes:
        """The bytes the code covers: the domain, why, the row count, the head and the time."""
        parts = (SEAL_DOMAIN, self.why, str(int(self.rows)), self.head, repr(float(self.at)))
        return "\n".join(parts).encode()

    def genuine(self, key: bytes) -> bool:
        """Whether the seal was made with ``key`` (and nothing in it changed since)."""
        expected = hmac.new(key, self.signed(), hashlib.sha256).hexdigest()
        return bool(self.mac) and hmac.compare_digest(self.mac.lower(), expected)

    @property
    def when(self) -> str:
        """The seal's time, for a person."""
        return utc_time(self.at)

    def to_json(self, table_id: str) -> dict[str, Any]:
        """The head as a table publishes it, retained, on its pit's journal topic."""
        return {
            "table": table_id,
            "rows": self.rows,
            "head": self.head,
            "at": self.at,
            "why": self.why,
            "mac": self.mac or None,
        }


def seal(key: bytes | None, rows: int, head: str, at: float, why: str = "checkpoint") -> Seal:
    """The head of ``rows`` rows ending at ``head``, sealed with ``key`` (none: unsealed)."""
    unsealed = Seal(rows, head, at, why)
    if key is None:
        return unsealed
    return Seal(rows, head, at, why, hmac.new(key, unsealed.signed(), hashlib.sha256).hexdigest())


def parse_head(text: str) -> Seal:
    """A head a pit recorded: ``ROWS:DIGEST``, or the JSON a table publishes (see
    :meth:`Seal.to_json`), its code checked when a key is at hand.

    >>> parse_head("12:" + "a" * 64).rows
    12
    >>> parse_head("twelve")
    Traceback (most recent call last):
    ...
    controller.errors.InvalidSpec: head 'twelve': expected ROWS:DIGEST (a row count, a colon and 64 hex digits) or the JSON the table publishes on its pit's journal topic
    """  # noqa: E501
    wanted = (
        f"head {text[:80]!r}: expected ROWS:DIGEST (a row count, a colon and 64 hex digits) "
        "or the JSON the table publishes on its pit's journal topic"
    )
    text = text.strip()
    try:
        if text.startswith("{"):
            doc = json.loads(text)
            rows, head = int(doc["rows"]), str(doc["head"])
            at, why, mac = float(doc.get("at") or 0.0), str(doc.get("why") or ""), doc.get("mac")
        else:
            count, _, head = text.partition(":")
            rows, at, why, mac = int(count), 0.0, "", None
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError):
        raise InvalidSpec(wanted) from None  # (1e400 rows, JSON nested past the parser)
    if rows < 0 or len(head) != 64 or any(c not in "0123456789abcdef" for c in head.lower()):
        raise InvalidSpec(wanted)
    return Seal(rows, head.lower(), at, why or "recorded", str(mac) if mac else "")


# ---------------------------------------------------------------------------- the audit


@dataclass(frozen=True, slots=True)
class Finding:
    """One kind of tampering found: ``what`` (one of :data:`TAMPERS`), in words, and the first
    bad row (``row``; to ``last`` when only the rows between two seals can be named)."""

    what: str
    message: str
    row: int | None = None
    last: int | None = None


@dataclass(frozen=True, slots=True)
class Audit:
    """What :func:`audit` found of a whole journal: its findings, the first bad row first."""

    rows: int
    head: str
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
    #: the latest seal the rows bear out (None: no seal holds)
    sealed: Seal | None
    seals: int
    keyed: bool

    @property
    def intact(self) -> bool:
        """Whether no tampering was found."""
        return not self.findings


def audit(
    rows: Sequence[Row],
    kinds: Iterable[KindRow],
    seals: Sequence[Seal],
    key: bytes | None = None,
    recorded: Seal | None = None,
    progress: Progress | None = None,
) -> Audit:
    """Check a whole journal: the chain of its ``rows``, the stored ``kinds`` beside them, its
    ``seals`` (in the order they were written), against the table's ``key`` when given, and
    against a head the pit ``recorded``.

    The chain finds a row changed, removed, moved or cut where it stands. A chain recomputed
    after a change, and rows cut off the end, leave a chain that holds: only a sealed head
    finds them, at the rows between the last seal that holds and the first that does not
    (a table seals at the end of each round, so these are one round's rows).
    """
    n = len(rows)
    found: list[Finding] = []
    broken: int | None = None
    try:
        verify_rows(rows, progress)
    except JournalCorrupt as error:
        broken = error.row
        found.append(Finding(error.what or CHANGED, str(error), error.row))
    try:
        verify_kinds(kinds)
    except JournalCorrupt as error:
        found.append(Finding(KIND, str(error), error.row))
    notes: list[str] = []
    trusted = list(seals)
    if key is not None:
        trusted = [s for s in seals if s.genuine(key)]
        forged = [s for s in seals if not s.genuine(key)]
        if forged:
            found.append(
                Finding(
                    BAD_SEAL,
                    f"{len(forged)} of the {len(seals)} seals do not match the key (the first: "
                    f"{forged[0].why} of {forged[0].when}, said to cover {forged[0].rows} rows): "
                    "each was altered or made without the key, or the key given is not the "
                    "table's",
                )
            )
    digests = [row[4] for row in rows]

    def head_at(count: int) -> str:
        return digests[count - 1] if count else GENESIS

    sealed: Seal | None = None
    covered, whole = 0, True
    for s in sorted(trusted, key=lambda s: s.rows):
        if s.rows > n:
            s = max(trusted, key=lambda s: s.rows)  # the seal that covers the most
            found.append(
                Finding(
                    TRUNCATED,
                    f"rows {n}–{s.rows - 1} were removed: the seal of {s.when} covers "
                    f"{s.rows} rows, the file has {n}",
                    n,
                    s.rows - 1,
                )
            )
            whole = False
            break
        if head_at(s.rows) != s.head:
            if broken is None or not covered <= broken < s.rows:  # else the break says it
                found.append(
                    Finding(
                        RECOMPUTED,
                        f"rows {covered}–{s.rows - 1}: the chain was recomputed after they "
                        f"were written: row {s.rows - 1}'s digest is not the head sealed at "
                        f"{s.when}; one of these rows was changed, removed or added",
                        covered,
                        s.rows - 1,
                    )
                )
            whole = False
            break
        covered, sealed = s.rows, s
    latest = next((s for s in reversed(trusted) if s.rows <= n), None) if whole else None
    if latest is not None and latest.why == "close" and n > latest.rows:
        found.append(
            Finding(
                APPENDED,
                f"rows {latest.rows}–{n - 1} were added after the table closed its journal "
                f"(its closing seal of {latest.when} covers {latest.rows} rows); a table "
                "seals its journal again when it opens it, before it writes a row",
                latest.rows,
                n - 1,
            )
        )
    elif whole and sealed is not None and n > covered:
        notes.append(
            f"rows {covered}–{n - 1} come after the last seal ({sealed.why}, {sealed.when}): "
            "they chain on from it, but no seal vouches for them yet. That is normal for the "
            "round in play, or for the rows of a round a table was writing when it stopped "
            "without closing its journal"
        )
    if recorded is not None:
        # only seals checked against the key narrow down where a recomputed chain was changed
        checked = trusted if key is not None else []
        found += _against_recorded(recorded, n, head_at, checked, key, notes)
    if seals and key is None:
        notes.append(
            f"the {len(seals)} seals were compared with the rows but not checked against the "
            "key: anyone holding the file could have rewritten them along with a recomputed "
            "chain (give the key, or a head the pit recorded)"
        )
    elif not seals and key is not None and n:
        found.append(
            Finding(
                NO_SEAL,
                "the journal holds no seal, but a key was given: a table with a key seals its "
                "journal when it opens it and at the end of every round, so its seals were "
                "removed (or the table ran without its key)",
            )
        )
    elif not seals:
        notes.append(
            "the journal holds no seal (its table has no key, or it is from an earlier "
            "version): a chain recomputed after a change, or rows cut off its end, can only "
            "be found against a head the pit recorded"
        )
    elif sealed is not None and not found:
        notes.append(
            f"the seals match the key: rows 0–{sealed.rows - 1} are those the table sealed "
            f"at {sealed.when}"
        )
    found.sort(key=lambda f: (f.row is None, f.row or 0))
    return Audit(n, head_at(n), tuple(found), tuple(notes), sealed, len(seals), key is not None)


def _against_recorded(
    recorded: Seal,
    n: int,
    head_at: Callable[[int], str],
    trusted: list[Seal],
    key: bytes | None,
    notes: list[str],
) -> list[Finding]:
    """What a head the pit recorded says of the rows (see :func:`audit`)."""
    if key is not None and recorded.mac and not recorded.genuine(key):
        return [
            Finding(
                BAD_SEAL,
                f"the head the pit recorded ({recorded.rows} rows) does not match the key: it "
                "was altered, or the key given is not the table's",
            )
        ]
    if recorded.rows > n:
        return [
            Finding(
                TRUNCATED,
                f"rows {n}–{recorded.rows - 1} were removed: the head the pit recorded covers "
                f"{recorded.rows} rows, the file has {n}",
                n,
                recorded.rows - 1,
            )
        ]
    if head_at(recorded.rows) != recorded.head:
        since = max(
            (s.rows for s in trusted if s.rows < recorded.rows and head_at(s.rows) == s.head),
            default=0,
        )
        return [
            Finding(
                RECOMPUTED,
                f"rows {since}–{recorded.rows - 1}: the chain was recomputed after they were "
                f"written: row {recorded.rows - 1}'s digest is not the head the pit recorded; "
                "one of these rows was changed, removed or added",
                since,
                recorded.rows - 1,
            )
        ]
    notes.append(
        f"the head the pit recorded ({recorded.rows} rows) is the file's: rows "
        f"0–{recorded.rows - 1} are those the table had written then"
    )
    return []


class Journal(Protocol):
    """Where the table's inputs are kept: append before applying, read back to replay."""

    def append(self, record: dict[str, Any], at: float) -> Entry:
        """Write one record durably and return its row."""
        ...

    def entries(self) -> Iterator[Entry]:
        """Every row, in order."""
        ...

    def rows(self) -> list[Row]:
        """Every row as stored, its record unparsed, in order (for a replay, which parses
        each distinct record once)."""
        ...

    def checked_records(self) -> AbstractContextManager[list[Record]]:
        """Every row's time and record text, in order, for a restart's replay: the chain is
        checked by the time the context ends (:class:`JournalCorrupt` otherwise), perhaps
        beside the replay rather than before it."""
        ...

    def last_of(self, kind: str) -> dict[str, Any] | None:
        """The record of the latest row of ``kind``, or None (a restarted table asks for the
        last card it kept, to go on from the shoe's record after it)."""
        ...

    def quiet(self) -> Seal | None:
        """The table has a quiet moment (a round ended): do deferred housekeeping now, and
        return the journal's head as it is now (sealed when the journal has a key), or None
        when the journal keeps no head."""
        ...

    def close(self) -> None:
        """Release the storage."""
        ...
