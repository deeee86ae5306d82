"""Table configuration files: every shipped one loads; a bad one names the field and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.tables import TABLES_DIR, SerialShoe, SimulatedShoe, load_table, parse_table_text
from controller.errors import ConfigError
from controller.games import GameId, Seating

MINIMAL = """
[table]
id = "T9"
game = "texas-poker"
seating = "boxes"
boxes = 3
journal = "T9.journal"
"""


@pytest.mark.parametrize("path", sorted(TABLES_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_table_file_loads(path: Path) -> None:
    table = load_table(path)
    assert table.table.game in set(GameId)
    assert table.table.journal_sync == "full"  # a power cut loses nothing unless one opts out
    # the journal is sealed with a key read from the environment, never written in the file
    assert table.table.journal_key_env == "TABLECTL_JOURNAL_KEY"
    assert table.table.journal_key_file is None
    if table.table.seating is Seating.SHARED:
        assert table.table.seats and table.table.hands == ("player",)
    else:
        assert table.table.hands == tuple(f"box {i}" for i in range(1, table.table.boxes + 1))


def test_the_shipped_files_cover_every_game() -> None:
    games = {load_table(p).table.game for p in TABLES_DIR.glob("*.toml")}
    assert games == set(GameId)


def test_defaults_and_the_shoe_kinds() -> None:
    table = parse_table_text(MINIMAL, "t.toml")
    assert table.shoe.kind == "none" and table.broker.kind == "embedded"
    assert not table.camera.enabled and table.table.balances is None
    serial = parse_table_text(MINIMAL + '[shoe]\nkind = "serial"\nport = "/dev/ttyUSB0"\n', "t")
    assert isinstance(serial.shoe, SerialShoe) and serial.shoe.baud == 9600
    simulated = parse_table_text(MINIMAL + '[shoe]\nkind = "simulated"\nrate = 0.5\n', "t")
    assert isinstance(simulated.shoe, SimulatedShoe) and simulated.shoe.rate == 0.5
    normal = parse_table_text(MINIMAL.replace("boxes = 3", 'journal_sync = "normal"'), "t")
    assert normal.table.journal_sync == "normal"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("boxes = 3", "boxes = 8"), "table.boxes: Input should be less than or equal to 7"),
        (('id = "T9"', 'id = "T/9"'), "table.id: String should match pattern"),
        (("boxes = 3", 'journal_sync = "off"'), "table.journal_sync: Input should be 'full'"),
        (('seating = "boxes"', 'seating = "shared"'), "a shared-hand table needs its remote"),
        (("boxes = 3", 'seats = ["1", "1"]'), "table.seats: Value error, seat ids must be unique"),
        (("boxes = 3", 'seats = ["a/b"]'), "seat id 'a/b': expected letters and digits"),
        (("boxes = 3", "colour = 1"), "table.colour: unknown key 'colour' in [table]; [table] "),
        (('game = "texas-poker"', 'game = "baccarat"'), "table.game: Input should be"),
        (("boxes = 3", 'balance = "100"'), "balances are for studio seats; list table.seats"),
    ],
)
def test_a_bad_file_names_the_field_and_the_reason(change: tuple[str, str], message: str) -> None:
    text = MINIMAL.replace(*change)
    assert text != MINIMAL
    with pytest.raises(ConfigError, match=r"^bad\.toml: ") as error:
        parse_table_text(text, "bad.toml")
    assert message in str(error.value)


def test_bad_shoe_kind_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="shoe: Input tag 'usb' found using 'kind'"):
        parse_table_text(MINIMAL + '[shoe]\nkind = "usb"\n', "t.toml")
    with pytest.raises(ConfigError, match=r"t\.toml: not valid TOML"):
        parse_table_text("[table\n", "t.toml")
    with pytest.raises(ConfigError, match="expected a file, found nothing"):
        load_table(tmp_path / "missing.toml")
