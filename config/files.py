"""Reading an operator's file whole: bounded, and every refusal in words.

A table's configuration, its zones, a shoe's deck map and a journal key are read whole
before they are parsed. A path that names a folder, a file too large, one that cannot be
read or is not UTF-8 text is refused naming the file, what was expected and what was found,
never with a traceback (``tablectl run --config`` given a folder or a binary file printed
one)."""

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
) -> bytes:
    """The bytes of the file at ``path`` (``what``: how refusals name it, such as "zones
    file x.toml"), at most ``limit`` of them; ``error`` (a :class:`ConfigError` unless
    given) says why it cannot be read."""
    try:
        if path.is_dir():
            raise error(f"{what}: expected a file, found a folder")
        if path.exists() and not path.is_file():  # /dev/zero never ends, a pipe may block
            raise error(f"{what}: expected a file, found a device or a pipe")
        with path.open("rb") as f:
            data = f.read(limit + 1)  # no more than the bound, however large the file
    except FileNotFoundError:
        raise error(f"{what}: expected a file, found nothing") from None
    except OSError as cause:
        raise error(f"{what}: cannot read it ({cause.strerror or cause})") from None
    if len(data) > limit:
        raise error(f"{what}: expected a file of at most {limit:,} bytes, found more")
    return data


def read_text(
    path: Path,
    what: str,
    *,
    limit: int = MAX_CONFIG_BYTES,
    error: type[Exception] = ConfigError,
) -> str:
    """:func:`read_bytes` as UTF-8 text (a byte-order mark dropped); a file that is not
    UTF-8 is refused naming the first byte that is not."""
    data = read_bytes(path, what, limit=limit, error=error)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as cause:
        raise error(
            f"{what}: expected UTF-8 text, found byte 0x{data[cause.start]:02x} at "
            f"offset {cause.start}"
        ) from None


def folder(path: Path, what: str, *, error: type[Exception] = ConfigError) -> Path:
    """``path`` made a folder to write in (with its parents), or ``error`` saying why it
    cannot be: asked before the work whose files go there, not when the first is written
    (``math report --out`` under a file failed after its computing)."""
    if path.exists() and not path.is_dir():
        raise error(f"{what} {path}: expected a folder to write in, found a file")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as cause:
        raise error(
            f"{what} {path}: expected a folder to write in, cannot make it "
            f"({cause.strerror or cause})"
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
