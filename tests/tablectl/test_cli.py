import json
import subprocess
import sys

import pytest

from tablectl.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_hands_json_names_categories_best_five_and_winners(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys, "hands", "AS KS 4D 4C 9H 2S 4H", "AH AD 4S 9C 9D 2C 3C", "QS JS TS 9S 8S", "--json"
    )
    assert status == 0
    doc = json.loads(out)
    assert [h["category"] for h in doc["hands"]] == [
        "three_of_a_kind",
        "two_pair",
        "straight_flush",
    ]
    assert doc["hands"][0]["cards"] == ["AS", "KS", "4D", "4C", "9H", "2S", "4H"]
    assert sorted(doc["hands"][0]["best_five"]) == sorted(["4D", "4C", "4H", "AS", "KS"])
    assert doc["winners"] == [2]


def test_hands_ties_list_every_winner(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "hands", "AS KD 9C 7H 5S 2C 3D", "AS KD 9C 7H 5S 4C 3H", "--json")
    assert json.loads(out)["winners"] == [0, 1]
    status, out, _ = run(capsys, "hands", "AS KD 9C 7H 5S 2C 3D", "AS KD 9C 7H 5S 4C 3H")
    assert status == 0 and out.count("tie") == 2


def test_hands_for_triple_action_uses_its_deck_and_ranking(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(
        capsys,
        "hands",
        "8S 9S JS QS AS",
        "AC AD AH AS KS",
        "--game",
        "triple-action-holdem",
        "--json",
    )
    assert json.loads(out)["winners"] == [0]  # a flush beats quads in Triple Action
    status, _, err = run(capsys, "hands", "2S 9S JS QS AS", "--game", "triple-action-holdem")
    assert status == 2 and "2S is not in the 28-card deck" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hands", "AS KS QS"], "5 to 7 cards; 'AS KS QS' has 3"),
        (["hands", "AS KS QS JS ZZ"], "bad card code 'ZZ'"),
        (["hands", "AS KS QS JS as"], "AS appears twice"),
    ],
)
def test_hands_refuses_bad_input_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and message in err


def test_math_counts_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "math", "counts", "--cards", "5", "--json")
    doc = json.loads(out)
    assert status == 0 and doc["total"] == 2_598_960
    assert doc["counts"]["royal_flush"] == 4 and doc["counts"]["high_card"] == 1_302_540
    _, out, _ = run(
        capsys,
        "math",
        "counts",
        "--cards",
        "5",
        "--deck",
        "stripped28",
        "--ranking",
        "triple-action",
        "--json",
    )
    doc = json.loads(out)
    assert doc["total"] == 98_280 and list(doc["counts"])[:3] == [
        "royal_flush",
        "straight_flush",
        "flush",
    ]


def test_math_counts_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "math", "counts", "--cards", "5", "--deck", "stripped28")
    assert status == 0 and "3,060" in out and "98,280" in out


def test_deal_deals_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "--hands", "2", "--seed", "11")
    assert status == 0
    for title in (
        "Texas Hold'em Bonus",
        "Texas poker",
        "Ultimate",
        "Casino Hold'em",
        "Triple Action",
    ):
        assert title in out
    assert out.count("round 2:") == 5
    assert out.count("player result") == 5 and "ante" in out and "net" in out


def test_deal_refuses_boxes_for_a_studio_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "deal", "--game", "casino-holdem", "--boxes", "2")
    assert status == 2
    assert "--boxes 2: expected a game played on boxes (texas-poker, triple-action-holdem)" in err
    assert "casino-holdem is dealt to one shared hand" in err
    status, out, _ = run(capsys, "deal", "--hands", "1", "--boxes", "2")
    assert status == 0 and out.count("not used: a studio game deals one shared hand") == 3
    status, out, _ = run(capsys, "deal", "--game", "texas-poker", "--hands", "1", "--boxes", "2")
    assert status == 0 and "box 2" in out and "box 3" not in out


def test_console_script_runs_as_a_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "hands", "AS KS QS JS TS", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hands"][0]["category"] == "royal_flush"


def test_rtp_json_for_an_exact_side_bet(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rtp", "--game", "casino-holdem", "--bet", "bonus", "--json")
    doc = json.loads(out)
    assert status == 0
    for key in ("game", "bet", "rtp", "house_edge", "hit_frequency", "method", "ci95", "hands"):
        assert key in doc
    assert doc["method"] == "exact" and round(doc["rtp"], 5) == 0.93742 and doc["ci95"] is None
    assert doc["rtp"] + doc["house_edge"] == pytest.approx(1.0)


def test_rtp_what_if_and_variants(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys, "rtp", "--game", "ultimate-texas-holdem", "--bet", "best-five", "--json"
    )
    base = json.loads(out)["rtp"]
    _, out, _ = run(
        capsys, "rtp", "--game", "ultimate-texas-holdem", "--bet", "best-five",
        "--pay", "best-five.flush=6", "--json",
    )  # fmt: skip
    doc = json.loads(out)
    assert doc["rtp"] < base and doc["paytables"]["best_five"]["flush"] == "6:1"
    assert doc["published"] == []
    _, out, _ = run(
        capsys, "rtp", "--game", "triple-action-holdem", "--bet", "bonus", "--paytable", "B"
    )
    assert "94.6113%" in out and "paytable B" in out and "paytable A" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--game", "casino-holdem", "--bet", "main", "--exact"],
            "use --hands N instead of --exact",
        ),
        (["--game", "casino-holdem", "--bet", "best-five"], "no bet 'best-five'"),
        (["--game", "casino-holdem", "--bet", "bonus", "--pay", "bonus.pair_of_aces"], "bad --pay"),
        (
            ["--game", "casino-holdem", "--bet", "bonus", "--pay", "bonus.kings=3"],
            "no line 'kings'",
        ),
        (
            ["--game", "casino-holdem", "--bet", "main", "--strategy", "lucky"],
            "no strategy 'lucky'",
        ),
        (
            ["--game", "casino-holdem", "--bet", "bonus", "--paytable", "Z"],
            "no paytable variant 'Z'",
        ),
    ],
)
def test_rtp_refusals(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, _, err = run(capsys, "rtp", *argv)
    assert status == 2 and message in err


def test_rtp_simulates_a_main_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "rtp", "--game", "ultimate-texas-holdem", "--bet", "main", "--hands", "600",
        "--seed", "2", "--workers", "1", "--json",
    )  # fmt: skip
    doc = json.loads(out)
    assert status == 0 and doc["method"] == "monte-carlo" and doc["hands"] == 600
    assert doc["ci95"][0] < doc["rtp"] < doc["ci95"][1] and doc["strategy"] == "optimal"


def test_games_lists_every_game_with_its_script(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "games", "--json")
    docs = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and [d["game"] for d in docs] == [
        "texas-holdem-bonus", "texas-poker", "ultimate-texas-holdem", "casino-holdem",
        "triple-action-holdem",
    ]  # fmt: skip
    poker = docs[1]
    assert poker["limits"]["bonus"] == {
        "min": "50",
        "max": "30000",
        "step": "50",
        "at_most": "ante",
    }
    assert poker["table_max_payout"] == "1000000"
    assert any("decision 'flop': bet (bet 2x), fold" in step for step in poker["script"])
    status, out, _ = run(capsys, "games", "triple-action-holdem")
    assert "reveal dealer first" in out and "paytable bonus (A)" in out


def test_games_shows_each_studio_games_buttons(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "games", "--json")
    assert status == 0
    buttons = {d["game"]: d["buttons"] for d in map(json.loads, out.splitlines())}
    assert buttons["texas-poker"] is None  # the physical table's dealer enters every bet
    assert buttons["texas-holdem-bonus"]["rebet"] == "previous_ante"
    assert buttons["ultimate-texas-holdem"]["double_once_per_round"] is True
    assert buttons["casino-holdem"]["undo"] == "last_action"
    status, out, _ = run(capsys, "games", "casino-holdem")
    assert status == 0
    assert "button undo: cancels the last action whole (a chip, a Rebet or a Double)" in out
    assert "button double: doubles what this round's Rebet placed" in out
