"""Table files for tests that run a whole table: the physical Texas poker table of seed 001."""

from __future__ import annotations

from pathlib import Path


def boxes_table(
    table_id: str, journal: str | Path = "j.db", *, boxes: int = 2, more: str = ""
) -> str:
    """A table file of seed 001's game at ``boxes`` boxes; ``more`` goes on from the
    ``[table]`` section's last line (more of its keys, then other sections)."""
    return f"""
[table]
id = "{table_id}"
game = "texas-poker"
seating = "boxes"
boxes = {boxes}
journal = "{journal}"
{more.strip()}
"""
