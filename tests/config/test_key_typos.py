"""A mistyped key in a table, game or zones file is refused with the nearest known key.

Every key of every section of every configuration model gets generated typos (a letter left
out, added, changed, or two swapped); the refusal names the file, the key's path, the
unknown key, the suggestion (the key that was mistyped) and every key the section takes.
"""

from __future__ import annotations

import copy
import inspect
import json
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import config.camera
import config.schema
import config.tables
from config.camera import ZONES_DIR, load_zones
from config.schema import GAMES_DIR, parse_game_text
from config.tables import TABLES_DIR, parse_table_text
from controller.errors import ConfigError

LETTERS = "abcdefghijklmnopqrstuvwxyz_"


def toml_text(doc: dict[str, Any]) -> str:
    """``doc`` as TOML: each top-level key on its own line, nested values inline."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"

    return "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in doc.items())


def load_table_text(text: str, source: str) -> None:
    parse_table_text(text, source)


def load_game_text(text: str, source: str) -> None:
    parse_game_text(text, source)


def load_zones_text(text: str, source: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / source
        path.write_text(text, encoding="utf-8")
        load_zones(path)


TABLE = tomllib.loads((TABLES_DIR / "studio-ultimate.toml").read_text())
GAME = tomllib.loads((GAMES_DIR / "casino-holdem.toml").read_text())
ZONES = tomllib.loads((ZONES_DIR / "default.toml").read_text())


def with_section(doc: dict[str, Any], path: tuple[str | int, ...], section: Any) -> Any:
    doc = copy.deepcopy(doc)
    target: Any = doc
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = section
    return doc


#: (loader, a valid document, the path of a section in it, its model, how the error names it)
SECTIONS: list[tuple[Callable[[str, str], None], dict[str, Any], tuple[str | int, ...], type[BaseModel], str]] = [  # noqa: E501
    (load_table_text, TABLE, (), config.tables.TableFile, "the top level of the file"),
    (load_table_text, TABLE, ("table",), config.tables.TableSettings, "[table]"),
    (load_table_text, TABLE, ("broker",), config.tables.BrokerSettings,
     '[broker] (kind = "mqtt")'),
    (load_table_text, with_section(TABLE, ("broker",), {"kind": "embedded"}), ("broker",),
     config.tables.EmbeddedBrokerSettings, '[broker] (kind = "embedded")'),
    (load_table_text, with_section(TABLE, ("shoe",), {"kind": "serial", "port": "/dev/ttyS0"}),
     ("shoe",), config.tables.SerialShoe, '[shoe] (kind = "serial")'),
    (load_table_text, TABLE, ("shoe",), config.tables.SimulatedShoe,
     '[shoe] (kind = "simulated")'),
    (load_table_text, with_section(TABLE, ("shoe",), {"kind": "none"}), ("shoe",),
     config.tables.NoShoe, '[shoe] (kind = "none")'),
    (load_table_text, TABLE, ("camera",), config.tables.CameraSettings, "[camera]"),
    (load_game_text, GAME, (), config.schema.GameFile, "the top level of the file"),
    (load_game_text, GAME, ("limits", "ante"), config.schema.LimitModel, "[limits.ante]"),
    (load_game_text, GAME, ("paytables", "bonus"), config.schema.PaytableModel,
     "[paytables.bonus]"),
    (load_game_text, with_section(GAME, ("table",), {"max_payout": 5000}), ("table",),
     config.schema.TableModel, "[table]"),
    (load_game_text, GAME, ("buttons",), config.schema.ButtonsModel, "[buttons]"),
    (load_zones_text, ZONES, (), config.camera.ZoneLayout, "the top level of the file"),
    (load_zones_text, ZONES, ("zones", 2), config.camera.Zone, "[[zones]] number 3"),
]  # fmt: skip

CASES = [(n, key) for n, section in enumerate(SECTIONS) for key in section[3].model_fields]


def test_the_sections_cover_every_model_of_the_configuration_files() -> None:
    models = {
        cls
        for module in (config.tables, config.schema, config.camera)
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, BaseModel) and cls.__module__ == module.__name__ and cls.model_fields
    }
    assert models == {section[3] for section in SECTIONS}
    assert len(CASES) > 60


def typo(key: str, how: str, at: int, letter: str) -> str:
    """``key`` with one slip of the finger at ``at``."""
    at %= len(key) + (how == "insert")
    if how == "drop":
        return key[:at] + key[at + 1 :]
    if how == "insert":
        return key[:at] + letter + key[at:]
    if how == "change":
        return key[:at] + letter + key[at + 1 :]
    at = min(at, len(key) - 2)  # swap two neighbours
    return key[:at] + key[at + 1] + key[at] + key[at + 2 :]


def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): slips between two words."""
    rows = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, rows[i - 2][j - 2] + 1)
            rows[i][j] = best
    return rows[-1][-1]


def refusal(case: int, key: str, wrong: str) -> str:
    """The message that refuses the section of ``case`` with ``wrong`` beside its keys."""
    load, doc, path, _, _ = SECTIONS[case]
    doc = copy.deepcopy(doc)
    section: Any = doc
    for part in path:
        section = section[part]
    section[wrong] = copy.deepcopy(section.get(key, 1))
    source = "typo.toml"
    with pytest.raises(ConfigError) as refused:
        load(toml_text(doc), source)
    message = str(refused.value)
    assert f"{source}: " in message  # the file is named
    return message


def check(case: int, key: str, wrong: str) -> None:
    _, _, path, model, name = SECTIONS[case]
    message = refusal(case, key, wrong)
    where = ".".join(str(p) for p in [*path, wrong])
    keys = ", ".join(model.model_fields)
    hint = f"(did you mean {key!r}?)"
    expected = f"{where}: unknown key {wrong!r} in {name} {hint}; {name} takes {keys}"
    assert expected in message, message


@pytest.mark.parametrize(("case", "key"), CASES)
def test_a_letter_left_out_or_two_swapped_suggests_the_key(case: int, key: str) -> None:
    known = set(SECTIONS[case][3].model_fields)
    slips = {typo(key, "swap", 0, ""), typo(key, "drop", len(key) - 1, "")} - known
    for wrong in slips:
        check(case, key, wrong)


def unambiguous(wrong: str, key: str, known: set[str]) -> bool:
    """A slip that is a slip of ``key`` and of no other key of the section."""
    folded = wrong.lower()
    return folded not in {k.lower() for k in known} and all(
        distance(folded, other) >= 3 for other in known - {key}
    )


slips = st.tuples(
    st.sampled_from(CASES),
    st.sampled_from(["drop", "insert", "change", "swap"]),
    st.integers(0, 40),
    st.sampled_from(LETTERS),
    st.booleans(),
)


def generated(slip: tuple[tuple[int, str], str, int, str, bool]) -> None:
    (case, key), how, at, letter, upper = slip
    wrong = typo(key, how, at, letter)
    wrong = wrong.capitalize() if upper else wrong
    assume(unambiguous(wrong, key, set(SECTIONS[case][3].model_fields)))
    check(case, key, wrong)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slips)
def test_generated_typos_of_every_key_suggest_the_key(
    slip: tuple[tuple[int, str], str, int, str, bool],
) -> None:
    generated(slip)


@pytest.mark.full
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slips)
def test_many_generated_typos_of_every_key_suggest_the_key(
    slip: tuple[tuple[int, str], str, int, str, bool],
) -> None:
    generated(slip)


def test_a_key_like_no_other_names_the_keys_it_could_be() -> None:
    message = refusal(1, "id", "colour")
    assert "table.colour: unknown key 'colour' in [table]; [table] takes id, game," in message
    assert "did you mean" not in message


@pytest.mark.parametrize(
    ("change", "hint"),
    [
        (("shoe",), "shoe: Input tag 'serail' found using 'kind'"),
        (("table", "journal_sync"), "table.journal_sync: Input should be 'full' or 'normal'"),
    ],
)
def test_a_mistyped_choice_suggests_the_nearest_choice(change: tuple[str, ...], hint: str) -> None:
    doc = copy.deepcopy(TABLE)
    if change == ("shoe",):
        doc["shoe"]["kind"] = "serail"
        wanted = "serial"
    else:
        doc["table"]["journal_sync"] = "ful"
        wanted = "full"
    with pytest.raises(ConfigError) as refused:
        parse_table_text(toml_text(doc), "t.toml")
    assert f"{hint}" in str(refused.value)
    assert f"(did you mean {wanted!r}?)" in str(refused.value)


def test_a_field_inside_a_tagged_section_is_named_as_the_file_writes_it() -> None:
    doc = with_section(TABLE, ("shoe",), {"kind": "serial"})
    with pytest.raises(ConfigError, match=r"t\.toml: shoe\.port: Field required"):
        parse_table_text(toml_text(doc), "t.toml")


def test_a_section_without_its_kind_names_the_kinds_it_may_be() -> None:
    doc = with_section(TABLE, ("shoe",), {"port": "/dev/ttyS0"})
    with pytest.raises(ConfigError) as refused:
        parse_table_text(toml_text(doc), "t.toml")
    expected = 'shoe: expected a kind key saying which one this is: kind = "serial" or kind = '
    assert expected in str(refused.value)


def test_a_mistyped_bet_spot_suggests_the_spot() -> None:
    doc = copy.deepcopy(GAME)
    doc["limits"]["bonsu"] = doc["limits"].pop("bonus")
    with pytest.raises(ConfigError) as refused:
        parse_game_text(toml_text(doc), "g.toml")
    message = str(refused.value)
    assert message.startswith("g.toml: limits.bonsu (the name): Input should be 'ante'")
    assert message.endswith("(did you mean 'bonus'?)")
