"""The journal's canonical form: hashing a record's stored text is hashing its content."""

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal import (
    GENESIS,
    ID_FIELD,
    Entry,
    JournalCorrupt,
    canonical,
    canonical_text,
    chain,
    record_text,
    verify,
    verify_kinds,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
RECORDS = st.dictionaries(st.text(), JSON, max_size=6)
TIMES = st.floats(allow_nan=False) | st.sampled_from([1_790_000_000.5, 0.1, 1e-7, 2.0**60])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**12), TIMES, RECORDS)
def test_the_canonical_text_gives_the_canonical_bytes(
    seq: int, at: float, record: dict[str, Any]
) -> None:
    assert canonical_text(seq, at, record_text(record)) == canonical(seq, at, record)
    assert json.loads(record_text(record)) == record


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(TIMES, RECORDS), min_size=1, max_size=5), st.data())
def test_a_changed_row_is_found_in_any_form(
    rows: list[tuple[float, dict[str, Any]]], data: st.DataObject
) -> None:
    entries, prev = [], GENESIS
    for seq, (at, record) in enumerate(rows):
        entry = chain(prev, seq, at, record)
        entries.append(entry)
        prev = entry.digest
    verify(entries)
    # the same rows carrying no text, or a text in another form, verify from their records
    verify([Entry(e.seq, e.at, e.record, e.prev, e.digest) for e in entries])
    verify([Entry(e.seq, e.at, e.record, e.prev, e.digest, json.dumps(e.record)) for e in entries])
    # a row changed after it was written is found, whatever form its text is stored in
    i = data.draw(st.integers(0, len(entries) - 1))
    bad = entries[i]
    changed = {**bad.record, "changed": True}
    for text in (record_text(changed), json.dumps(changed), None):
        tampered = Entry(bad.seq, bad.at, changed, bad.prev, bad.digest, text)
        with pytest.raises(JournalCorrupt, match=f"row {i}: its digest does not match"):
            verify([*entries[:i], tampered, *entries[i + 1 :]])


@pytest.mark.parametrize(
    "stored",
    ["void_round", "card", "card_drawn\\", 'card_drawn","read', 'card_drawn","read":3,"x', ""],
)
def test_a_kind_column_that_is_not_the_records_own_is_found(stored: str) -> None:
    """However the kind column was changed (another kind, a part of the kind, a value that
    would complete the record's text as another member), the row is named."""
    text = record_text({"actor": "shoe", "card": "AS", "kind": "card_drawn", "read": 3})
    command = record_text({"actor": "seat:1", "kind": "card_drawn", ID_FIELD: "c-1", "read": 3})
    for row in (text, command):
        verify_kinds([(7, "card_drawn", row)])
        with pytest.raises(JournalCorrupt, match="row 7: its kind column says"):
            verify_kinds([(7, stored, row)])
