"""Every ``tablectl`` subcommand's ``--help``, found by walking the parser itself.

Each help must render (argparse formats help strings with ``%``), show the text as a reader
should see it (no doubled ``%%``, no reStructuredText ``literal`` markup from a docstring), name
the subcommand's whole path in its usage line, and describe that subcommand and no other.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from tablectl.cli import build_parser, main

Path = tuple[str, ...]


def _children(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """Each subcommand of ``parser``: its name, its one-line help, its parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, child in action.choices.items():
                yield name, helps.get(name, ""), child


def _walk(
    parser: argparse.ArgumentParser, path: Path = ()
) -> Iterator[tuple[Path, argparse.ArgumentParser]]:
    """Every parser under ``parser`` (itself first), with the words that reach it."""
    yield path, parser
    for name, _, child in _children(parser):
        yield from _walk(child, (*path, name))


PARSERS = dict(_walk(build_parser()))
SUBCOMMANDS = [path for path in PARSERS if path]


def _words(text: str | None) -> str:
    return " ".join((text or "").split())


def _render(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    with pytest.raises(SystemExit) as exited:
        main([*path, "--help"])
    out, err = capsys.readouterr()
    assert exited.value.code == 0, err
    assert err == ""
    return out


def test_the_walk_finds_every_level_of_subcommand() -> None:
    assert ("journal", "verify") in PARSERS and ("cards", "calibrate") in PARSERS
    assert ("send",) in PARSERS and ("watch",) in PARSERS and ("rtp",) in PARSERS
    assert len(SUBCOMMANDS) > 20


@pytest.mark.parametrize("path", list(PARSERS), ids=lambda p: " ".join(p) or "tablectl")
def test_every_help_renders_as_plain_text(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    out = _render(capsys, path)
    assert out.startswith(f"usage: {' '.join(('tablectl', *path))}"), out.splitlines()[0]
    assert "%%" not in out and "%(" not in out
    assert "``" not in out, "reStructuredText markup in the help"
    description = PARSERS[path].description
    if description:
        # as written (with lines broken anywhere, even after a hyphen)
        assert re.sub(r"\s", "", description) in re.sub(r"\s", "", out)


@pytest.mark.parametrize("path", SUBCOMMANDS, ids=" ".join)
def test_every_command_describes_itself_and_no_sibling(path: Path) -> None:
    parser = PARSERS[path]
    siblings = {name: help for name, help, _ in _children(PARSERS[path[:-1]])}
    assert siblings[path[-1]], f"{' '.join(path)} has no help in its parent's list"
    if next(_children(parser), None) is not None:
        return  # a group: its help lists its subcommands, each described on its own
    description = _words(parser.description)
    assert description, f"{' '.join(path)} --help has no description"
    # a sentence that begins with another command's name (as a docstring does: "``watch``
    # prints ...") describes that command, not this one
    for sentence in re.split(r"(?<=[.;:!?])\s+", description):
        first = re.match(r"[`'\"]*([\w-]+)", sentence)
        named = first.group(1) if first else ""
        assert named == path[-1] or named not in siblings, (
            f"{' '.join(path)} --help describes {named!r}: {sentence!r}"
        )


def test_no_command_carries_another_commands_description() -> None:
    described = {path: _words(p.description) for path, p in PARSERS.items() if p.description}
    for path, text in described.items():
        for other, other_text in described.items():
            if other != path:
                assert other_text not in text, (
                    f"{' '.join(path)} --help carries the description of {' '.join(other)}"
                )
