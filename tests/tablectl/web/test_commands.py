"""``tablectl web`` and ``tablectl demo --web`` as an operator runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main

ROOT = Path(__file__).resolve().parents[3]


def run_cli(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


@pytest.mark.timeout(90)
def test_the_demo_prints_the_pages_and_serves_them_while_it_plays(tmp_path: Path) -> None:
    demo = run_cli(
        "demo", "--game", "casino-holdem", "--hands", "1", "--quiet", "--no-camera",
        "--web", "127.0.0.1:0", "--linger", "1", "--journal-dir", str(tmp_path),
    )  # fmt: skip
    assert demo.stdout is not None
    try:
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if "player display http://" in line:
                break
        url = lines[-1].split("player display ", 1)[1].split()[0]
        status, page = get(url)
        assert status == 200 and "/static/player.js" in page
        base = url.split("/table/")[0]
        status, script = get(f"{base}/static/cards.js")
        assert status == 200 and "export function cardSvg" in script
        out, err = demo.communicate(timeout=60)
    finally:
        demo.kill()
    assert demo.returncode == 0, err
    assert "serving the last state" in out and "demo complete" in out


def test_web_refuses_a_journal_that_is_not_there(capsys: Any, tmp_path: Path) -> None:
    missing = tmp_path / "T1.journal"
    code = main(["web", "--broker", "mqtt://127.0.0.1:1", "--journal", f"T1={missing}"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"expected a journal file; {missing} does not exist" in err


def test_web_refuses_a_listen_address_without_a_port(capsys: Any) -> None:
    assert main(["web", "--broker", "mqtt://127.0.0.1:1", "--listen", "localhost"]) == 2
    assert "expected HOST:PORT such as 127.0.0.1:8080" in capsys.readouterr().err


def test_web_stops_at_once_when_the_broker_refuses_its_login(mosquitto: Any) -> None:
    web = run_cli(
        "web", "--broker", f"mqtt://display:wrong@127.0.0.1:{mosquitto.port}",
        "--listen", "127.0.0.1:0",
    )  # fmt: skip
    try:
        out, err = web.communicate(timeout=20)
    finally:
        web.kill()
    assert web.returncode == 2, (out, err)
    assert "could not log in" in err and "display login" in err


def test_web_serves_the_tables_of_a_broker(embedded_broker: Any) -> None:
    web = run_cli(
        "web", "--broker", f"mqtt://127.0.0.1:{embedded_broker.port}", "--listen", "127.0.0.1:0"
    )
    assert web.stdout is not None
    try:
        line = web.stdout.readline()
        base = line.rsplit(" on ", 1)[1].strip().rstrip("/")
        status, doc = get(f"{base}/api/tables")
        assert status == 200 and json.loads(doc) == {"tables": []}
        status, page = get(f"{base}/table/T1/seat")
        assert status == 200 and "/static/seat.js" in page
    finally:
        web.terminate()
        web.wait(10)
    assert web.returncode == 0
