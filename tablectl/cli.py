"""The ``tablectl`` command line: one entry point, one subcommand per tool.

Each tool lives in a module with ``register(subparsers)``; the module list below is the
only place a new command is wired in. Errors the product raises on purpose
(:class:`~controller.errors.TableError`) end the command with exit status 2 and a
message saying what was expected and what arrived; nothing else is printed.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from controller.errors import TableError

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

#: modules that add subcommands, in the order ``tablectl --help`` lists them
COMMAND_MODULES: tuple[str, ...] = (
    "tablectl.commands.hands",
    "tablectl.commands.math",
    "tablectl.commands.games",
    "tablectl.commands.rtp",
    "tablectl.commands.journal",
    "tablectl.commands.scenario",
    "tablectl.commands.deal",
    "tablectl.commands.run",
    "tablectl.commands.console",
    "tablectl.commands.topics",
    "tablectl.commands.demo",
    "tablectl.commands.web",
    "tablectl.commands.shoe",
    "tablectl.commands.sim",
    "tablectl.commands.cards",
)


def _version() -> str:
    try:
        return version("tablectl")
    except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, every registered command included."""
    parser = argparse.ArgumentParser(
        prog="tablectl",
        description="Live-dealer poker table controller: hands, game math, drivers, the table.",
    )
    parser.add_argument("--version", action="version", version=f"tablectl {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tablectl`` with ``argv`` (default: the process arguments); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except TableError as error:
        print(f"tablectl {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tablectl {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        return 0
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
