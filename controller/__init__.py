"""tablectl's pure core: cards, hands, games, the table state machine and its messages.

Nothing here touches a port, a socket, a camera or a file, except the composition root
(``runtime``) and the command line (``cli`` and ``commands``).

The hot modules may also exist compiled (``setup.py`` builds them with Cython from the same
source). A compiled module is loaded only while the build's manifest, ``_compiled.json``,
holds the digest of its current source: a module edited since the build, or a build without
the manifest, runs from its source, so what runs is always what the source says.
``TABLECTL_PURE=1`` runs every module from its source. :func:`build` tells which ran.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["build"]

_HERE = Path(__file__).resolve().parent
_COMPILED_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def _manifest() -> dict[str, str]:
    try:
        loaded = json.loads((_HERE / "_compiled.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


class _SourceUnlessCompiledFromIt(importlib.abc.MetaPathFinder):
    """Import a ``controller`` module from its source when its compiled form beside it was
    not built from that very source (or when ``TABLECTL_PURE=1``)."""

    def __init__(self) -> None:
        self.pure = os.environ.get("TABLECTL_PURE") == "1"
        self.manifest = {} if self.pure else _manifest()
        self.compiled: list[str] = []  # loaded in compiled form
        self.from_source: list[str] = []  # had a compiled form that was not used

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("controller.") or not path:
            return None
        leaf = fullname.rpartition(".")[2]
        for entry in path:
            source = Path(entry) / f"{leaf}.py"
            if not source.is_file():
                continue
            folder = Path(entry)
            if not any((folder / f"{leaf}{suffix}").is_file() for suffix in _COMPILED_SUFFIXES):
                return None  # nothing compiled: the usual import
            wanted = self.manifest.get(fullname)
            if wanted is not None and wanted == hashlib.sha256(source.read_bytes()).hexdigest():
                self.compiled.append(fullname)
                return None  # the usual import, which prefers the compiled form
            self.from_source.append(fullname)
            if not self.pure:
                warnings.warn(
                    f"{fullname}: its compiled form was built from another source; running the "
                    "source (`make` rebuilds it)",
                    stacklevel=2,
                )
            return importlib.util.spec_from_file_location(fullname, source)
        return None


_FINDER = _SourceUnlessCompiledFromIt()
sys.meta_path.insert(0, _FINDER)


def build() -> dict[str, list[str]]:
    """Which ``controller`` modules imported so far run compiled, and which run from their
    source although a compiled form is there (edited since the build, or ``TABLECTL_PURE``)."""
    return {"compiled": sorted(_FINDER.compiled), "from_source": sorted(_FINDER.from_source)}
