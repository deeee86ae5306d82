"""Camera configuration: the per-table switch and settings, and the table's zones as polygons.

Zones are polygons in normalised image coordinates; a table's ``[camera]`` settings (whether
the camera cross-checks the shoe at all, its source, zones and profile) are
:class:`config.tables.CameraSettings`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from config.files import read_text
from config.schema import describe_errors
from controller.errors import ConfigError

__all__ = [
    "DEFAULT_ZONES",
    "ZONES_DIR",
    "Zone",
    "ZoneKind",
    "ZoneLayout",
    "is_shipped_zones",
    "load_zones",
    "table_layout",
    "zones_path",
]

#: the shipped zone layouts
ZONES_DIR = Path(__file__).with_name("zones")

#: the shipped layout of a seven-box table, used when no zones file is given
DEFAULT_ZONES = ZONES_DIR / "default.toml"

Point = Annotated[list[Annotated[float, Field(ge=0.0, le=1.0)]], Field(min_length=2, max_length=2)]


class ZoneKind(StrEnum):
    """What a zone holds: a player's box, the dealer's hand, the board, or a shared hand."""

    BOX = "box"
    DEALER = "dealer"
    BOARD = "board"
    PLAYER = "player"


class Zone(BaseModel):
    """One zone: an id, its kind, the box number for boxes, and its outline."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    kind: ZoneKind
    box: int | None = Field(default=None, ge=1, le=12)
    polygon: list[Point] = Field(min_length=3)

    @model_validator(mode="after")
    def _box_number(self) -> Zone:
        if (self.kind is ZoneKind.BOX) != (self.box is not None):
            raise ValueError(
                f"zone {self.id!r}: a zone of kind 'box' needs a box number and no other "
                f"kind may have one (kind {self.kind.value!r}, box {self.box!r})"
            )
        return self

    @field_validator("polygon")
    @classmethod
    def _non_degenerate(cls, polygon: list[list[float]]) -> list[list[float]]:
        area2 = 0.0
        for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
            area2 += x0 * y1 - x1 * y0
        if abs(area2) < 1e-6:
            raise ValueError("polygon has no area: expected at least three points not in a line")
        return polygon

    def contains(self, x: float, y: float) -> bool:
        """Whether the normalised point (x, y) lies inside the polygon (even-odd rule)."""
        inside = False
        pts = self.polygon
        j = len(pts) - 1
        for i in range(len(pts)):
            xi, yi = pts[i]
            xj, yj = pts[j]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                inside = not inside
            j = i
        return inside


class ZoneLayout(BaseModel):
    """A table layout: its name and zones; a point belongs to the first zone containing it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    description: str = ""
    zones: list[Zone] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> ZoneLayout:
        seen: set[str] = set()
        for zone in self.zones:
            if zone.id in seen:
                raise ValueError(f"zone id {zone.id!r} appears twice: expected unique ids")
            seen.add(zone.id)
        boxes = [z.box for z in self.zones if z.box is not None]
        if len(boxes) != len(set(boxes)):
            raise ValueError(f"box numbers repeat ({sorted(boxes)}): expected one zone per box")
        return self

    def positions(self) -> dict[str, str]:
        """Each zone id with the table position it watches: ``box3`` → ``box 3``, ``dealer``…

        These are the position names of the state machine's deal (``box N``, ``player``,
        ``dealer``, ``board``); several zones may watch one position.
        """
        return {
            z.id: f"box {z.box}" if z.kind is ZoneKind.BOX else z.kind.value for z in self.zones
        }

    def zone_at(self, x: float, y: float) -> Zone | None:
        """The first zone that contains the normalised point (x, y), or None."""
        for zone in self.zones:
            if zone.contains(x, y):
                return zone
        return None

    def get(self, zone_id: str) -> Zone:
        """The zone called ``zone_id``."""
        for zone in self.zones:
            if zone.id == zone_id:
                return zone
        raise ConfigError(
            f"no zone {zone_id!r} in layout {self.name!r}: expected one of "
            f"{', '.join(z.id for z in self.zones)}"
        )


def table_layout(name: str | None, shared: bool, hands: Iterable[str]) -> ZoneLayout:
    """A table's zone layout: ``name`` (shipped or a path), by default the shipped one for its
    seating (``shared``: the shared-hand studio); refused unless it watches every hand."""
    layout = load_zones(zones_path(name or ("shared-hand" if shared else "default")))
    watched = set(layout.positions().values())
    missing = [hand for hand in hands if hand not in watched]
    if missing:
        raise ConfigError(
            f"the zones {layout.name!r} watch no {', '.join(missing)}: expected a zone for "
            "every player hand"
        )
    return layout


def is_shipped_zones(name: str) -> bool:
    """Whether ``name`` is a shipped layout's name (``default``, ``shared-hand``), not a path."""
    return "/" not in name and (ZONES_DIR / f"{name}.toml").is_file()


def zones_path(name: str) -> Path:
    """A zones file by shipped name (``default``, ``shared-hand``) or by path."""
    return ZONES_DIR / f"{name}.toml" if is_shipped_zones(name) else Path(name)


def load_zones(path: Path | str | None = None) -> ZoneLayout:
    """Read and validate a zones TOML file (default: the shipped seven-box layout)."""
    source = Path(path) if path is not None else DEFAULT_ZONES
    text = read_text(source, f"zones file {source}")
    try:
        data = tomllib.loads(text)
    except RecursionError:  # arrays or tables nested past the parser's own depth
        raise ConfigError(f"zones file {source}: expected TOML nested as zones are") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"zones file {source}: expected valid TOML ({error})") from None
    try:
        return ZoneLayout.model_validate(data)
    except ValidationError as error:
        problems = describe_errors(error, ZoneLayout)
        raise ConfigError(f"zones file {source}: {problems}") from None
