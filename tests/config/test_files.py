"""An operator's files (a table's configuration, zones, a deck map, a journal key) read
bounded, every refusal in words: no traceback for a folder, a binary file or a huge one."""

from pathlib import Path

import pytest

from config import files
from config.camera import load_zones
from config.files import read_bytes, read_text
from config.tables import key_from_file, load_table
from controller.errors import ConfigError, ProtocolError
from drivers.shoe import load_deck_map
from tablectl.cli import main


def test_a_file_is_read_whole_within_its_bound_or_refused_saying_why(tmp_path: Path) -> None:
    text = tmp_path / "table.toml"
    text.write_bytes("\ufeff[table]\nname = 'Ré'\n".encode())
    assert read_text(text, "table file") == "[table]\nname = 'Ré'\n"  # the BOM dropped
    size = text.stat().st_size
    assert read_bytes(text, "t", limit=size) == text.read_bytes()
    refusals = {
        tmp_path / "nothing.toml": r"^t: expected a file, found nothing$",
        tmp_path: r"^t: expected a file, found a folder$",
    }
    for path, message in refusals.items():
        with pytest.raises(ConfigError, match=message):
            read_text(path, "t")
    with pytest.raises(ConfigError, match=rf"^t: expected a file of at most {size - 1} bytes"):
        read_bytes(text, "t", limit=size - 1)
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0 a JPEG")
    with pytest.raises(
        ProtocolError, match=r"^t: expected UTF-8 text, found byte 0xff at offset 0$"
    ):
        read_text(binary, "t", error=ProtocolError)


def test_every_reader_of_an_operators_file_refuses_in_words(tmp_path: Path) -> None:
    binary = tmp_path / "junk.bin"
    binary.write_bytes(bytes(range(128, 256)))
    with pytest.raises(ConfigError, match=r"junk\.bin: expected UTF-8 text, found byte 0x80"):
        load_table(binary)
    with pytest.raises(ConfigError, match=r"zones file .*: expected a file, found a folder"):
        load_zones(tmp_path)
    with pytest.raises(ProtocolError, match=r"deck map .*junk\.bin.: expected UTF-8 text"):
        load_deck_map(binary)
    key = tmp_path / "journal.key"
    key.write_text("0123456789abcdef" * 4 + "\n", encoding="ascii")
    assert key_from_file(key, "table.journal_key_file") == b"0123456789abcdef" * 4
    key.write_bytes(b"k" * 5000)  # a key file is a key, not a dump of something else
    with pytest.raises(
        ConfigError,
        match=r"table\.journal_key_file: .*journal\.key: the journal key: expected a file of "
        r"at most 4,096 bytes, found more",
    ):
        key_from_file(key, "table.journal_key_file")
    assert len(read_bytes(key, "k")) == 5000 <= files.MAX_CONFIG_BYTES  # the others' bound


@pytest.mark.parametrize("command", [["run", "--config"], ["scenario", "run"]])
@pytest.mark.parametrize("given", ["folder", "binary", "missing"])
def test_a_command_given_a_file_that_is_no_text_file_says_so_without_a_traceback(
    command: list[str], given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = {"folder": tmp_path, "binary": tmp_path / "t.bin", "missing": tmp_path / "t.toml"}
    (tmp_path / "t.bin").write_bytes(b"\x00\x9f\x92\x96")
    expected = {
        "folder": "expected a file, found a folder",
        "binary": "expected UTF-8 text, found byte 0x9f at offset 1",
        "missing": "expected a file, found nothing",
    }
    status = main([*command, str(path[given])])
    err = capsys.readouterr().err
    assert status == 2 and f"{path[given]}: {expected[given]}" in err
    assert "Traceback" not in err
