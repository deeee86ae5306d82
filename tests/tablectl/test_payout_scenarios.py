"""Every paytable line of every game is reproduced by a shipped payout scenario.

The scenarios are played as ``tablectl scenario run`` plays them; the lines their
settlements name are compared with the paytables of the game files (every variant).
"""

from collections.abc import Iterable
from pathlib import Path

from config.schema import GAMES_DIR, load_game_file
from tablectl.scenario import play_scenario

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
PAYOUTS = sorted(SCENARIOS.glob("payout-*.scn"))

Line = tuple[str, str, str, str]  # game, paytable role, variant, line


def every_paytable_line() -> set[Line]:
    """Every line of every variant of every paytable, from ``config/games``."""
    lines: set[Line] = set()
    for path in sorted(GAMES_DIR.glob("*.toml")):
        model = load_game_file(path)
        for role, table in model.paytables.items():
            for variant, odds in table.variants.items():
                lines |= {(model.game.value, role, variant, line) for line in odds}
    return lines


def lines_paid(paths: Iterable[Path]) -> set[Line]:
    """The paytable lines the settlements of ``paths`` name, with the variant each table used."""
    paid: set[Line] = set()
    for path in paths:
        scenario, run = play_scenario(path.read_text(encoding="utf-8"), str(path))
        model = load_game_file(GAMES_DIR / f"{scenario.game}.toml")
        for action in run.actions:
            if action.kind != "settled":
                continue
            lines = action.data["lines"]
            assert isinstance(lines, list)
            for line in lines:
                role, name = line["spot"], line["paytable_line"]
                if name is None or role not in model.paytables:
                    continue  # even money, or a spot paid without a paytable
                variant = scenario.variants.get(role, model.paytables[role].use)
                paid.add((scenario.game, role, variant, name))
    return paid


def test_every_paytable_line_has_a_payout_scenario() -> None:
    missing = every_paytable_line() - lines_paid(PAYOUTS)
    assert not missing, "paytable lines no payout scenario pays: " + ", ".join(
        "/".join(line) for line in sorted(missing)
    )


def test_leaving_out_a_scenario_leaves_its_lines_uncovered() -> None:
    wanted = every_paytable_line()
    path = SCENARIOS / "payout-triple-action-bonus-paytable-b.scn"
    left = wanted - lines_paid(p for p in PAYOUTS if p != path)
    assert ("triple-action-holdem", "bonus", "B", "full_house") in left
