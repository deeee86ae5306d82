from pathlib import Path

import pytest

from config.schema import GAMES_DIR, ConfigError, load_game, load_game_file
from controller.games import GameId, Seating
from controller.games.rules import Spot


@pytest.mark.parametrize("game", list(GameId))
def test_every_shipped_game_file_loads(game: GameId) -> None:
    rules = load_game(game)
    assert rules.info.id is game
    assert Spot.ANTE in rules.config.limits
    assert set(rules.paytable_roles) <= set(rules.config.paytables)


def test_seating_modes_are_config() -> None:
    assert load_game("texas-poker").config.seating == (Seating.BOXES,)
    assert Seating.SHARED in load_game("casino-holdem").config.seating


GOOD = (GAMES_DIR / "casino-holdem.toml").read_text()


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        (('flush = "2:1"', 'flush = "2-1"'), "paytables.ante", "bad odds '2-1'"),
        (('pair = "1:1"', 'pair_of_elephants = "1:1"'), "paytables.ante", "bad rank 'elephants'"),
        (('use = "standard"', 'use = "house"'), "paytables.ante", "use = 'house' names no variant"),
        (("max = 1000", "max = 0"), "limits.ante.max", "greater than 0"),
        (
            ("min = 1, max = 1000", "min = 2000, max = 1000"),
            "limits.ante",
            "min 2000 is above max 1000",
        ),
        (('seating = ["shared", "boxes"]', 'seating = ["round"]'), "seating.0", "Input should be"),
        (('game = "casino-holdem"', 'game = "blackjack"'), "game", "Input should be"),
        (("[limits]", "colour = 1\n[limits]"), "colour", "unknown key 'colour' in the top level"),
        (("[limits]", "[limits]\ncall = { min = 1, max = 2 }"), None, None),
    ],
)
def test_a_bad_file_is_refused_with_file_field_and_reason(
    tmp_path: Path, change: tuple[str, str], field: str | None, reason: str | None
) -> None:
    assert change[0] in GOOD
    path = tmp_path / "casino-holdem.toml"
    path.write_text(GOOD.replace(change[0], change[1], 1))
    if field is None:  # limits for a spot the player cannot bet on first are harmless
        load_game("casino-holdem", path)
        return
    with pytest.raises(ConfigError) as caught:
        load_game("casino-holdem", path)
    message = str(caught.value)
    assert str(path) in message and field in message and reason in message


def test_unknown_rule_options_and_named_lines_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    path.write_text(GOOD + "\n[rules]\nante_pays_from = 'straight'\n")
    with pytest.raises(
        ConfigError, match=r"unknown rule options \['ante_pays_from'\]: expected none"
    ):
        load_game("casino-holdem", path)
    bonus = (GAMES_DIR / "texas-holdem-bonus.toml").read_text().replace("aces = ", "queens = ")
    path.write_text(bonus)
    with pytest.raises(ConfigError, match=r"unknown lines \['queens'\]"):
        load_game("texas-holdem-bonus", path)


def test_the_wrong_game_broken_toml_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    path.write_text(GOOD)
    with pytest.raises(ConfigError, match="the file is for casino-holdem, not texas-poker"):
        load_game("texas-poker", path)
    path.write_text("game = ")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_game_file(path)
    with pytest.raises(ConfigError, match="expected a file, found nothing"):
        load_game_file(tmp_path / "nothing.toml")


def test_paytable_variants_are_selectable_by_name() -> None:
    a = load_game("triple-action-holdem").hand_paytable("bonus")
    b = load_game("triple-action-holdem", variants={"bonus": "B"}).hand_paytable("bonus")
    assert (a.name, b.name) == ("A", "B")
    assert a.odds_by_line()["full_house"] == 9 and b.odds_by_line()["full_house"] == 8
    with pytest.raises(Exception, match="no variant 'C'"):
        load_game("triple-action-holdem", variants={"bonus": "C"})
