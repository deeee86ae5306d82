from pathlib import Path

import pytest

from config.camera import DEFAULT_ZONES, ZoneKind, load_zones
from controller.errors import ConfigError


def test_shipped_layouts_load() -> None:
    layout = load_zones()
    assert [z.box for z in layout.zones if z.kind is ZoneKind.BOX] == list(range(1, 8))
    shared = load_zones(DEFAULT_ZONES.with_name("shared-hand.toml"))
    assert {z.kind for z in shared.zones} == {ZoneKind.DEALER, ZoneKind.BOARD, ZoneKind.PLAYER}


def test_zone_lookup_by_normalised_point() -> None:
    layout = load_zones()
    dealer = layout.get("dealer")
    xs = [p[0] for p in dealer.polygon]
    ys = [p[1] for p in dealer.polygon]
    found = layout.zone_at((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    assert found is not None and found.id == "dealer"
    assert layout.zone_at(0.01, 0.01) is None
    with pytest.raises(ConfigError, match="no zone 'box9'"):
        layout.get("box9")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('name = "t"\n[[zones]]\nid = "a"\nkind = "box"\npolygon = [[0,0],[1,0],[1,1]]\n',
         "needs a box number"),
        ('name = "t"\n[[zones]]\nid = "a"\nkind = "board"\npolygon = [[0,0],[1,0],[2,1]]\n',
         "less than or equal to 1"),
        ('name = "t"\n[[zones]]\nid = "a"\nkind = "board"\npolygon = [[0,0],[0.5,0.5],[1,1]]\n',
         "polygon has no area"),
        ('name = "t"\n[[zones]]\nid = "a"\nkind = "board"\npolygon = [[0,0],[1,0],[1,1]]\n'
         '[[zones]]\nid = "a"\nkind = "dealer"\npolygon = [[0,0],[1,0],[1,1]]\n',
         "zone id 'a' appears twice"),
        ('name = "t"\n[[zones]]\nid = "a"\nkind = "table"\npolygon = [[0,0],[1,0],[1,1]]\n',
         "zones.0.kind"),
        ("name = ", "expected valid TOML"),
    ],
)  # fmt: skip
def test_bad_zone_files_are_refused_with_the_reason(
    tmp_path: Path, body: str, message: str
) -> None:
    path = tmp_path / "zones.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as info:
        load_zones(path)
    assert str(path) in str(info.value)


def test_missing_zone_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="found nothing"):
        load_zones(tmp_path / "none.toml")
