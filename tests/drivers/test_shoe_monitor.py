import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest

from controller.cards import STANDARD_52
from drivers.shoe.jsonl import format_jsonl
from simulators.shoe import ShoeSimulator
from tablectl.cli import main
from tests.drivers.shoe_support import wait_for

TABLECTL = [sys.executable, "-m", "tablectl.cli"]


def lines_of(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def write_when_attached(master: int, data: bytes) -> threading.Thread:
    """Write ``data`` to the pty once a host has opened (and flushed) its side."""

    def writer() -> None:
        poller = select.poll()
        poller.register(master, select.POLLHUP)
        deadline = time.monotonic() + 10
        while poller.poll(0) and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.1)
        os.write(master, data)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    return thread


def test_monitor_decodes_bytes_written_to_a_pty(capsys: pytest.CaptureFixture[str]) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.close(slave)
    data = b"\x07noise [Game]<Card:AS>  [Game]<Game>  [GameAlarm]<Alarm:E3 Card Not Read> " + (
        b" [Manual Burn Cards]<Card:D10> <W0x01> [Game]<Card:9C> "
    )
    writer = write_when_attached(master, data)
    status = main(
        ["shoe", "monitor", "--port", path, "--dialect", "uspc", "--json", "--count", "3"]
    )
    writer.join(5)
    os.close(master)
    assert status == 0
    events = lines_of(capsys.readouterr().out)
    assert [e["event"] for e in events] == [
        "connected",
        "noise",
        "card",
        "read_failed",
        "alarm",
        "card",
        "warning",
        "card",
        "summary",
    ]
    assert [e["card"] for e in events if e["event"] == "card"] == ["AS", "TD", "9C"]
    assert events[-1]["cards"] == 3 and events[-1]["halting_events"] == 2


@pytest.mark.parametrize(
    ("dialect", "link", "faults"),
    [
        ("framed", "pty", "drop@3,badcrc@9,dup@12"),
        ("uspc", "tcp:0", "noise@3,split@9"),
        ("jsonl", "pty", "noise@4,split@10,dup@20"),
    ],
)
def test_monitor_decodes_every_dialect_from_the_simulator(
    dialect: str, link: str, faults: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--identify"] if dialect == "framed" else []
    with ShoeSimulator(dialect, link=link, seed=5, faults=faults, retransmit=0.01) as sim:
        status = main(
            ["shoe", "monitor", "--port", sim.device, "--dialect", dialect, "--json",
             "--count", "52", *extra]
        )  # fmt: skip
    assert status == 0
    events = lines_of(capsys.readouterr().out)
    assert [e["card"] for e in events if e["event"] == "card"] == [
        c.code for c in sim.expected_cards()
    ]
    summary = events[-1]
    assert summary["event"] == "summary" and summary["halting_events"] == 0
    if dialect == "framed":
        assert summary["status"]["bytes_out"] > 0  # acknowledgements went back
        assert summary["events"]["hello"] >= 2  # the boot HELLO and the answer to IDENTIFY


def test_monitor_human_output_and_a_bad_deck_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.close(slave)
    sim = ShoeSimulator("jsonl")
    uid = sim.deck_map.uid_for(STANDARD_52.cards[5])
    writer = write_when_attached(
        master, b"# hi\n" + format_jsonl({"type": "card", "seq": 1, "device_id": "r", "uid": uid})
    )
    status = main(["shoe", "monitor", "--port", path, "--dialect", "jsonl", "--count", "1"])
    writer.join(5)
    os.close(master)
    out = capsys.readouterr().out
    assert status == 0 and "card=3D" in out and "debug" in out and "summary: 1 cards" in out
    bad = tmp_path / "deck.txt"
    bad.write_text("04A1 AS\n04A2 AS\n")
    status = main(["shoe", "monitor", "--port", path, "--dialect", "jsonl", "--deck-map", str(bad)])
    assert status == 2 and "card AS is already tag 04A1" in capsys.readouterr().err


def test_monitor_without_reconnect_refuses_a_missing_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = str(tmp_path / "nothing")
    status = main(["shoe", "monitor", "--port", port, "--dialect", "framed", "--no-reconnect"])
    assert status == 2 and "cannot open" in capsys.readouterr().err
    status = main(["shoe", "monitor", "--port", port, "--dialect", "uspc", "--identify"])
    assert status == 2 and "--identify needs the framed dialect" in capsys.readouterr().err


@pytest.mark.skipif(
    shutil.which("socat") is None, reason="socat is not installed (.ci/run installs it)"
)
def test_socat_writes_raw_bytes_the_monitor_decodes_until_the_line_closes(tmp_path: Path) -> None:
    """A field engineer's set-up: a socat null-modem pair, the monitor on one end."""
    a, b = tmp_path / "ttyA", tmp_path / "ttyB"
    pair = subprocess.Popen(
        ["socat", f"PTY,raw,echo=0,link={a}", f"PTY,raw,echo=0,link={b}"],
        stderr=subprocess.DEVNULL,
    )
    monitor = None
    try:
        assert wait_for(lambda: a.exists() and b.exists())
        monitor = subprocess.Popen(
            [*TABLECTL, "shoe", "monitor", "--port", str(a), "--dialect", "uspc", "--json",
             "--no-reconnect"],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert monitor.stdout is not None
        first = json.loads(monitor.stdout.readline())
        assert first["event"] == "connected"
        payload = tmp_path / "bytes.bin"
        payload.write_bytes(b" [Game]<Card:KH>  [Game]<Card:10S> \x00\x13 [Game]<Card:KH> ")
        subprocess.run(
            ["socat", "-u", f"OPEN:{payload}", f"OPEN:{b},raw,echo=0"], timeout=10, check=True
        )
        cards = [json.loads(monitor.stdout.readline()) for _ in range(4)]
        # the ASCII shoe says nothing of decks: the repeated king is the table's to judge
        assert [e["event"] for e in cards] == ["card", "card", "noise", "card"]
        assert [cards[0]["card"], cards[1]["card"], cards[3]["card"]] == ["KH", "TS", "KH"]
        pair.terminate()  # the line goes away: without --reconnect the monitor ends with a summary
        out, _ = monitor.communicate(timeout=10)
        rest = lines_of(out)
        assert rest[-1]["event"] == "summary" and rest[-1]["cards"] == 3
        assert monitor.returncode == 0
    finally:
        pair.kill()
        pair.wait(5)
        if monitor is not None and monitor.poll() is None:
            monitor.kill()
            monitor.wait(5)


def test_sim_command_prints_its_device_and_deals_the_seeded_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim = subprocess.Popen(
        [*TABLECTL, "sim", "shoe", "--dialect", "jsonl", "--seed", "42", "--rate", "0",
         "--faults", "unreadable@7", "--exit-when-done"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert sim.stdout is not None
        device = sim.stdout.readline().strip()
        assert device.endswith("ttyShoe0")
        status = main(["shoe", "monitor", "--port", device, "--dialect", "jsonl", "--json",
                       "--count", "51"])  # fmt: skip
        _, err = sim.communicate(timeout=10)
    finally:
        if sim.poll() is None:
            sim.send_signal(signal.SIGTERM)
            sim.wait(5)
    assert status == 0 and sim.returncode == 0
    order = STANDARD_52.shuffled(random.Random(42))
    events = lines_of(capsys.readouterr().out)
    assert [e["card"] for e in events if e["event"] == "card"] == [
        c.code for i, c in enumerate(order) if i != 6
    ]
    assert [e["event"] for e in events].count("read_failed") == 1
    assert json.loads(err.strip().splitlines()[-1])["fates"] == {"read": 51, "unreadable": 1}


def test_sim_command_stops_cleanly_on_sigterm() -> None:
    sim = subprocess.Popen(
        [*TABLECTL, "sim", "shoe", "--dialect", "framed", "--link", "tcp:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert sim.stdout is not None
    assert sim.stdout.readline().startswith("socket://127.0.0.1:")
    sim.send_signal(signal.SIGTERM)
    _, err = sim.communicate(timeout=10)
    assert sim.returncode == 0 and '"drawn": 0' in err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_monitor_ends_with_a_summary_on_a_signal(signum: int) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.close(slave)
    monitor = subprocess.Popen(
        [*TABLECTL, "shoe", "monitor", "--port", path, "--dialect", "uspc", "--json"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert monitor.stdout is not None
        assert json.loads(monitor.stdout.readline())["event"] == "connected"
        time.sleep(0.1)
        os.write(master, b" [Game]<Card:8D> ")
        assert json.loads(monitor.stdout.readline())["card"] == "8D"
        monitor.send_signal(signum)
        out, _ = monitor.communicate(timeout=10)
    finally:
        if monitor.poll() is None:
            monitor.kill()
            monitor.wait(5)
        os.close(master)
    assert monitor.returncode == 0
    summary = lines_of(out)[-1]
    assert summary["event"] == "summary" and summary["cards"] == 1
