"""The core's hot modules run compiled only when built from the source that is there.

``setup.py`` compiles them with Cython and records each one's source digest; the package's
import hook loads a compiled module only while that digest is its source's. An edited module
runs from its source (with a warning) until it is built again, and ``TABLECTL_PURE=1`` runs
every module from its source.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "controller" / "_compiled.json"

PROBE = textwrap.dedent(
    """
    import json, warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import controller, controller.table, controller.hands
        from controller.table import handle
    print(json.dumps({**controller.build(), "file": controller.table.__file__,
                      "warnings": [str(w.message) for w in caught]}))
    """
)


def _built() -> dict[str, str]:
    # Cython is a build requirement (pyproject.toml) and `make` builds the core: a build
    # without its compiled modules is a broken build, not a reason to skip
    assert MANIFEST.exists(), "the core is not built: run `make` (controller/_compiled.json)"
    manifest: dict[str, str] = json.loads(MANIFEST.read_text())
    assert "controller.table" in manifest, f"the build compiled only {sorted(manifest)}"
    return manifest


def _probe(package_root: Path, **env: str) -> dict[str, object]:
    environment = {k: v for k, v in os.environ.items() if k != "TABLECTL_PURE"}
    environment.update(PYTHONPATH=f"{package_root}{os.pathsep}{ROOT}", **env)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=environment, cwd=package_root, capture_output=True,
        text=True, timeout=60, check=True,
    )  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_this_build_runs_the_core_compiled() -> None:
    _built()
    import controller.table

    state = controller.build()
    assert "controller.table" in state["compiled"], state
    assert state["from_source"] == [], state


def test_a_module_edited_since_the_build_runs_from_its_source(tmp_path: Path) -> None:
    _built()
    copy = tmp_path / "controller"
    shutil.copytree(ROOT / "controller", copy, ignore=shutil.ignore_patterns("*.c", "__pycache__"))
    assert _probe(tmp_path)["compiled"] == _probe(ROOT)["compiled"]  # the copy as built
    table = copy / "table.py"
    table.write_text(table.read_text() + "\nEDITED = True\n")
    seen = _probe(tmp_path)
    assert seen["from_source"] == ["controller.table"]
    assert seen["file"] == str(table)
    assert "controller.hands" in seen["compiled"]  # the others, unchanged, still compiled
    assert any("controller.table: its compiled form was built from another source" in w
               for w in seen["warnings"])  # fmt: skip
    (copy / "_compiled.json").unlink()  # a build that left no manifest: nothing compiled runs
    seen = _probe(tmp_path)
    assert seen["compiled"] == [] and "controller.hands" in seen["from_source"]


def test_tablectl_pure_runs_every_module_from_its_source() -> None:
    _built()
    seen = _probe(ROOT, TABLECTL_PURE="1")
    assert seen["compiled"] == [] and seen["file"] == str(ROOT / "controller" / "table.py")
    assert "controller.table" in seen["from_source"] and seen["warnings"] == []
