"""Reading an operator's file whole: bounded, and every refusal in words.

A table's configuration, its zones, a shoe's deck map, a journal key, and the camera's
labels, profiles and images are read whole, bounded, before they are parsed. A path that
names a folder, a device, a file too large, one that cannot be read or is not UTF-8 text
is refused naming the file, what was expected and what was found, never with a traceback
(``tablectl run --config`` given a folder or a binary file printed one). The folders and
files commands write to are checked so before their work."""

from __future__ import annotations

from pathlib import Path

from controller.errors import ConfigError

__all__ = ["MAX_CONFIG_BYTES", "folder", "output_file", "read_bytes", "read_text", "write_text"]

#: the largest configuration file read: a table's file takes about 2 kB, a deck map of
#: 52 cards with several tags each a few
MAX_CONFIG_BYTES = 1024 * 1024


def read_bytes(
    path: Path,
    what: str,
    *,
    limit: int = MAX_CONFIG_BYTES,
    error: type[Exception] = ConfigError,
    kind: str = "a file",
) -> bytes:
    """The bytes of the file at ``path`` (``what``: how refusals name it, such as "zones
    file x.toml"; ``kind``: what it should be, such as "a CSV file"), at most ``limit`` of
    them; ``error`` (a :class:`ConfigError` unless given) says why it cannot be read. A
    folder, a device (``/dev/zero`` never ends) or a pipe (it may block) is refused unread,
    and so is a file whose size is past the bound."""
    try:
        if path.is_dir():
            raise error(f"{what}: expected {kind}, found a folder")
        if path.exists() and not path.is_file():
            raise error(f"{what}: expected {kind}, found a device or a pipe")
        if (size := path.stat().st_size) > limit:
            raise error(f"{what}: expected {kind} of at most {limit:,} bytes, found {size:,}")
        with path.open("rb") as f:
            data = f.read(limit + 1)  # no more than the bound, however large it has grown
    except FileNotFoundError:
        raise error(f"{what}: expected {kind}, found nothing") from None
    except OSError as cause:
        raise error(f"{what}: cannot read it ({cause.strerror or cause})") from None
    if len(data) > limit:
        raise error(f"{what}: expected {kind} of at most {limit:,} bytes, found more")
    return data


def read_text(
    path: Path,
    what: str,
    *,
    limit: int = MAX_CONFIG_BYTES,
    error: type[Exception] = ConfigError,
    kind: str = "a file",
) -> str:
    """:func:`read_bytes` as UTF-8 text (a byte-order mark dropped); a file that is not
    UTF-8 is refused naming the first byte that is not."""
    data = read_bytes(path, what, limit=limit, error=error, kind=kind)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as cause:
        raise error(
            f"{what}: expected UTF-8 text, found byte 0x{data[cause.start]:02x} at "
            f"offset {cause.start}"
        ) from None


def folder(
    path: Path,
    what: str,
    *,
    error: type[Exception] = ConfigError,
    purpose: str = "to write in",
) -> Path:
    """``path`` made a folder ``purpose`` (with its parents), or ``error`` saying why it
    cannot be (``what``, the option that named it, leads the refusal): asked before the
    work whose files go there, not when the first is written (``math report --out`` under
    a file failed after its computing)."""
    named = f"{what} {path}" if what else str(path)
    if path.exists() and not path.is_dir():
        raise error(f"{named}: expected a folder {purpose}, found a file")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as cause:
        raise error(
            f"{named}: expected a folder {purpose}, cannot make it ({cause.strerror or cause})"
        ) from None
    return path


def output_file(path: Path, what: str, *, error: type[Exception] = ConfigError) -> Path:
    """``path`` checked as a file to write (its folder made): a folder there, or a folder
    that cannot be made, is refused with ``error`` before the work."""
    if path.is_dir():
        raise error(f"{what} {path}: expected a file to write, found a folder")
    folder(path.parent, what, error=error)
    return path


def write_text(path: Path, text: str, what: str, *, error: type[Exception] = ConfigError) -> None:
    """Write ``text`` (UTF-8) to ``path``, or ``error`` saying why it cannot be."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as cause:
        raise error(f"{what} {path}: cannot write it ({cause.strerror or cause})") from None
