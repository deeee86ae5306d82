"""Build script for tablectl's compiled parts; everything else is declared in pyproject.toml.

- The hand evaluator kernel, written in C (``controller/_handeval.c``).
- The pure core's hot modules (the state machine, events, hands, games, journal), compiled
  from their unchanged Python source by Cython when it is installed (it is a build
  requirement): a third less time per event. The source stays the reference, and runs as
  it is wherever the build is missing or out of date: ``controller/__init__.py`` loads a
  module's compiled form only while ``_compiled.json`` (written here, after the build)
  holds the digest of its current source.
"""

import hashlib
import json
import os
import platform

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The kernel counts bits; every x86-64 CPU since 2008 has an instruction for it.
POPCOUNT = ["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else []

#: the modules compiled from their Python source (those every event runs through)
COMPILED = (
    "controller/table.py",
    "controller/events.py",
    "controller/hands.py",
    "controller/cards.py",
    "controller/journal.py",
    "controller/runtime.py",
    "controller/games/rules.py",
    "controller/games/base.py",
    "controller/games/paytable.py",
    "controller/games/casino_holdem.py",
    "controller/games/texas_holdem_bonus.py",
    "controller/games/texas_poker.py",
    "controller/games/triple_action_holdem.py",
    "controller/games/ultimate_texas_holdem.py",
)
MANIFEST = "_compiled.json"

KERNEL = Extension(
    "controller._handeval",
    sources=["controller/_handeval.c"],
    extra_compile_args=[
        "-O3",
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror=implicit-function-declaration",
        *POPCOUNT,
    ],
)


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def digest(path: str) -> str:
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def core_extensions() -> list[Extension]:
    """The hot modules as extensions, or none when Cython is not installed."""
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    extensions = [Extension(module_name(path), [path]) for path in COMPILED]
    return cythonize(
        extensions,
        # Python's own semantics: annotations are not C types, functions are true functions
        # (signatures, docstrings and doctests as in the source)
        compiler_directives={
            "language_level": 3,
            "annotation_typing": False,
            "binding": True,
            "autotestdict": False,  # doctests are found in the docstrings, once
        },
        quiet=True,
    )


class BuildExt(build_ext):
    """build_ext, then the manifest of the compiled modules: each one's source digest."""

    def run(self) -> None:
        super().run()
        built = {
            module_name(path): digest(path)
            for path in COMPILED
            if any(ext.name == module_name(path) for ext in self.extensions)
        }
        package = os.path.dirname(self.get_ext_fullpath("controller._handeval"))
        os.makedirs(package, exist_ok=True)
        with open(os.path.join(package, MANIFEST), "w", encoding="utf-8") as out:
            json.dump(built, out, indent=1, sort_keys=True)


setup(ext_modules=[KERNEL, *core_extensions()], cmdclass={"build_ext": BuildExt})
