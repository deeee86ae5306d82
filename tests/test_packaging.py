"""The distribution lists every package of the source tree (a forgotten one is not installed)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("controller", "drivers", "config", "simulators")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found == listed, f"missing: {sorted(found - listed)}; stale: {sorted(listed - found)}"
