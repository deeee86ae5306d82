"""Imports run one way: controller → config → drivers → simulators → tablectl.

The contracts live in pyproject.toml (``[tool.importlinter]``) and ``lint-imports`` checks
them; these tests run it on the project as it is, and on copies of the project with one
wrong import added, to show that each kind of mistake is caught and named.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "config", "drivers", "simulators", "tablectl")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``root``, found there before any installed copy."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def copy_of_the_project(into: Path) -> Path:
    """The packages' Python files and pyproject.toml, copied under ``into``."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            into / package,
            ignore=lambda folder, names: [
                n for n in names if not (n.endswith(".py") or (Path(folder) / n).is_dir())
            ],
        )
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def test_the_project_keeps_every_import_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "forbidden"),
    [
        # upward across the layers
        ("simulators/shoe/faults.py", "import tablectl.cli", "tablectl"),
        ("drivers/shoe/base.py", "from simulators.shoe import ShoeSimulator", "simulators"),
        ("config/schema.py", "import drivers.mqtt.client", "drivers"),
        ("controller/table.py", "from config.schema import load_game", "config"),
        # input and output inside the pure core
        ("controller/table.py", "import time", "time"),
        ("controller/hands.py", "from concurrent.futures import ThreadPoolExecutor", "concurrent"),
        ("controller/events.py", "import sqlite3", "sqlite3"),
    ],
)
def test_a_wrong_import_breaks_a_contract_and_is_named(
    tmp_path: Path, module: str, line: str, forbidden: str
) -> None:
    root = copy_of_the_project(tmp_path)
    path = root / module
    path.write_text(path.read_text("utf-8") + f"\n{line}  # the wrong import\n", "utf-8")
    result = lint_imports(root)
    assert result.returncode != 0
    layer = module.split("/")[0]
    assert f"{layer} is not allowed to import {forbidden}" in result.stdout
    assert module.removesuffix(".py").replace("/", ".") in result.stdout
