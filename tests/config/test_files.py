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
        r"at most 4,096 bytes, found 5,000",
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


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_device_or_a_pipe_given_for_a_file_is_refused_unread(
    special: str, tmp_path: Path
) -> None:
    """/dev/zero given as a profile or a labels file was read until the memory ran out (its
    size is 0, so no size check caught it); a pipe would wait for ever."""
    import os

    from controller.errors import CalibrationError, CameraError, ImageError, ProfileError
    from drivers.camera.calibrate import read_labels as calibration_labels
    from drivers.camera.evaluate import read_labels
    from drivers.camera.imageio import read_image
    from drivers.camera.profile import load_profile

    path = Path(special)
    if special == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    readers = [
        (lambda: read_text(path, "t"), ConfigError, "expected a file, found a device or a pipe"),
        (lambda: load_profile(path), ProfileError, "expected a .npz profile, found a device"),
        (lambda: read_labels([path]), CameraError, "expected a CSV file, found a device"),
        (lambda: calibration_labels(path), CalibrationError, "expected a CSV file, found a dev"),
        (lambda: read_image(path), ImageError, "expected an image file, found a device"),
    ]
    for read, error, words in readers:
        with pytest.raises(error, match=words):
            read()


def test_toml_nested_past_the_parser_and_a_broker_url_it_cannot_split_are_refused(
    tmp_path: Path,
) -> None:
    from drivers.mqtt.client import parse_broker_url

    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 50_000, encoding="utf-8")  # RecursionError in tomllib
    with pytest.raises(ConfigError, match="not valid TOML: nested deeper than any setting"):
        load_table(deep)
    with pytest.raises(ConfigError, match="expected TOML nested as zones are"):
        load_zones(deep)
    with pytest.raises(ConfigError, match=r"'mqtt://\[::1': expected mqtt://host\[:port\]; "):
        parse_broker_url("mqtt://[::1")  # ValueError from urlsplit
    with pytest.raises(ConfigError, match="expected a host name of at most 253 characters"):
        parse_broker_url("mqtt://" + "a" * 300)  # UnicodeError in paho's thread, later


def test_a_journal_header_no_controller_wrote_is_refused_in_words() -> None:
    """A header changed (its chain's digests computed again) raised KeyError, ValueError,
    TypeError or AttributeError at `history`, `replay` and `run`."""
    from controller.errors import TableError
    from controller.games import Seating
    from tablectl.runtime import config_from_header, header_record

    good = header_record("T1", "ultimate-texas-holdem", Seating.BOXES, ("box1", "box2"))
    assert config_from_header(good, "j").table_id == "T1"
    forged = [
        ("lacks 'table_id'", {k: v for k, v in good.items() if k != "table_id"}),
        ("holds a bad value", {**good, "seating": "nosuch"}),
        ("holds a bad value", {**good, "hands": None}),
        ("holds a bad value", {**good, "balances": "x"}),
    ]
    for words, record in forged:
        with pytest.raises(TableError, match=rf"^j: row 0, the table's header, {words}"):
            config_from_header(record, "j")


IN_A_FILE = "expected a folder to write in, found a file"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["math", "report", "--hands", "10", "--out", "FILE/x.md"], IN_A_FILE),
        (["math", "report", "--hands", "10", "--out", "DIR"], "expected a file to write, found"),
        (["topics", "--schemas", "FILE"], IN_A_FILE),
        (["demo", "--journal-dir", "FILE", "--hands", "1"], IN_A_FILE),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_the_work(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # math report --out under a file failed with FileExistsError after 10 s of computing;
    # topics --schemas and demo --journal-dir raised at once
    (tmp_path / "FILE").write_text("a file", encoding="utf-8")
    (tmp_path / "DIR").mkdir()
    given = [str(tmp_path / a) if a.split("/")[0] in ("FILE", "DIR") else a for a in argv]
    assert main(given) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert (tmp_path / "FILE").read_text(encoding="utf-8") == "a file"


def test_pages_that_cannot_be_served_where_asked_are_refused_in_words() -> None:
    # '[::1' raised socket.gaierror, a port taken an OSError's traceback
    import asyncio
    import socket

    from drivers.mqtt.client import BrokerAddress
    from tablectl.commands.web import parse_listen
    from tablectl.web.server import WebServer

    with pytest.raises(ConfigError, match=r"--listen '\[::1': expected HOST:PORT"):
        parse_listen("[::1")
    assert parse_listen("[::1]:8080") == ("::1", 8080)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = WebServer(BrokerAddress("127.0.0.1", 1), "127.0.0.1", port)
        with pytest.raises(ConfigError, match=rf"cannot serve the pages on 127\.0\.0\.1:{port}: "):
            asyncio.run(server.run())
