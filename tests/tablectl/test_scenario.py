"""Scenario files: every shipped one passes, and a failed expectation names its line."""

from pathlib import Path

import pytest

from config.schema import load_game
from tablectl.cli import main
from tablectl.scenario import ScenarioError, ScenarioFailed, parse_scenario, run_scenario

SHIPPED = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.scn"))


def test_there_is_a_scenario_for_every_irregularity_path() -> None:
    names = {p.stem for p in SHIPPED}
    for path in (
        "card-when-none-due", "broken-sequence-restored", "broken-sequence-redeal",
        "dealer-card-exposed", "dealer-opened-early", "dealer-opened-early-fold",
        "misread-card-corrected", "wrong-payment", "deck-change", "malfunction-void",
        "bet-after-no-more-bets",
    ):  # fmt: skip
        assert f"irregularity-{path}" in names
    for path in ("wrong-card", "dealer-exposed", "wrong-box", "wrong-box-face-down", "off"):
        assert f"camera-{path}" in names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_shipped_scenario_passes(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "run", str(path)]) == 0, capsys.readouterr().out
    assert "expectations held" in capsys.readouterr().out


def test_a_failed_expectation_names_the_line_and_what_was_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (SHIPPED[0].parent / "payout-casino-holdem-no-qualify-flush.scn").read_text()
    bad = tmp_path / "bad.scn"
    bad.write_text(
        text.replace(
            "expect line player seat:1 ante win 20", "expect line player seat:1 ante win 30"
        )
    )
    assert main(["scenario", "run", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL")
    assert "bad.scn:12: expected ante win 30; found win paid 20 returned 30" in out
    scenario = parse_scenario(bad.read_text(), "bad.scn")
    with pytest.raises(ScenarioFailed, match=r"bad\.scn:12"):
        run_scenario(scenario, load_game("casino-holdem"), "bad.scn")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("at 0 dealer start_round", "no 'table' line"),
        ("table T casino-holdem round player", "seating is 'shared' or 'boxes'"),
        (
            "table T casino-holdem shared player\nat x dealer start_round",
            r"x\.scn:2: at takes a number of seconds from 0 to 604800 \(a week\); got 'x'",
        ),
        # nan, inf and a negative time or timer were taken: a step at nan ran out of order,
        # a timer of -5 closed betting at once
        ("table T casino-holdem shared player\nat nan dealer start_round", "got 'nan'"),
        ("table T casino-holdem shared player\nat inf dealer start_round", "got 'inf'"),
        ("table T casino-holdem shared player\nat -1 dealer start_round", "got '-1'"),
        (
            "table T casino-holdem shared player\noption betting_seconds -5",
            r"option betting_seconds takes a number of seconds above 0 and at most 604800",
        ),
        ("table T casino-holdem shared player\noption decision_seconds 0", "got '0'"),
        ("table T casino-holdem shared player\noption decision_seconds nan", "got 'nan'"),
        (
            "table T casino-holdem shared player\noption confirm_payments maybe",
            "option confirm_payments takes yes or no, not 'maybe'",
        ),
        ("table T casino-holdem shared player\nat 1 dealer shuffle", "unknown command 'shuffle'"),
        (
            "table T casino-holdem shared player\nat 1 seat:1 bet player",
            "bet takes HAND SEAT SPOT AMOUNT",
        ),
        ("table T casino-holdem shared player\nshoe AS ZZ", "bad card code 'ZZ'"),
        ("table T casino-holdem shared player\nfrobnicate", "unknown statement 'frobnicate'"),
        ("table T casino-holdem shared player\npaytable bonus", "paytable takes ROLE VARIANT"),
        # nan and 5,000 digits raised ValueError (a traceback)
        (
            "table T casino-holdem shared player\nbalance seat:1 nan",
            r"x\.scn:2: expected an amount such as 25 or 12\.5; got 'nan'",
        ),
        (
            "table T casino-holdem shared player\nbalance seat:1 " + "9" * 5000,
            r"expected an amount such as .*; got '9{40}…'",
        ),
    ],
)
def test_bad_scenario_files_are_refused_with_the_line(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text, "x.scn")


def test_json_lists_every_settlement(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    path = SHIPPED[0].parent / "irregularity-wrong-payment.scn"
    assert main(["scenario", "run", str(path), "--json"]) == 0
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    settled = [d for d in docs if d["kind"] == "settled"]
    assert {(d["hand"], d["seat"]) for d in settled} == {("box 1", "ann"), ("box 2", "bob")}
    assert all("lines" in d for d in settled)


def test_a_paytable_variant_the_game_lacks_is_refused() -> None:
    from tablectl.scenario import play_scenario

    with pytest.raises(ScenarioError, match=r"x\.scn: .*no variant 'C'"):
        play_scenario("table T triple-action-holdem shared player\npaytable bonus C", "x.scn")


def test_there_is_a_scenario_for_every_studio_button_sentence() -> None:
    names = {p.stem for p in SHIPPED}
    for path in (
        "bonus-poker-rebet-double", "ultimate-double-once", "ultimate-up-to-the-maximum",
        "ultimate-repeat-undo", "casino-holdem-rebet-double-undo",
        "casino-holdem-double-up-to-credit",
    ):  # fmt: skip
        assert f"buttons-{path}" in names


def test_expect_bets_names_what_is_on_the_layout(tmp_path: Path) -> None:
    text = (SHIPPED[0].parent / "buttons-ultimate-repeat-undo.scn").read_text()
    bad = tmp_path / "bad.scn"
    bad.write_text(
        text.replace("expect bets player seat:1 ante=10\n", "expect bets player seat:1\n")
    )
    scenario = parse_scenario(bad.read_text(), "bad.scn")
    with pytest.raises(
        ScenarioFailed, match="expected bets none for seat:1 on player; found ante=10"
    ):
        run_scenario(scenario, load_game("ultimate-texas-holdem"), "bad.scn")
