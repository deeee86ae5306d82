"""The distribution: every package of the source tree listed, and a wheel that holds what runs.

The wheel is built for real (``pip wheel``, offline, with the project's own build backend)
and read back: the five packages, the one compiled kernel, the shipped configuration and the
camera's built-in profile; nothing left of a build step that is gone.
"""

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
TOP = PYPROJECT["tool"]["importlinter"]["root_packages"]


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in TOP
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found == listed, f"missing: {sorted(found - listed)}; stale: {sorted(listed - found)}"


def test_the_wheel_holds_the_packages_the_kernel_and_the_data(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "--quiet", "--wheel-dir", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("tablectl-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for top in TOP:
        assert f"{top}/__init__.py" in names
    assert "tablectl/cli.py" in names
    assert [n for n in names if n.startswith("controller/_handeval") and n.endswith(".so")]
    assert {f"config/games/{p.name}" for p in (ROOT / "config/games").glob("*.toml")} <= set(names)
    assert "config/mosquitto/acl" in names
    assert "drivers/camera/data/builtin.npz" in names
    assert "drivers/camera/data/index_reader.onnx" in names  # the learned index reader
    # the only compiled module is the kernel: no other extension, C file or build manifest
    assert len([n for n in names if n.endswith(".so")]) == 1
    assert [n for n in names if n.endswith((".c", ".json"))] == ["controller/_handeval.c"]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "tablectl = tablectl.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
