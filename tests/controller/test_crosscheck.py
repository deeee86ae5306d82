"""The camera's cross-check of the shoe, driven through the real state machine."""

from pathlib import Path

import pytest

from config.camera import load_zones, zones_path
from config.schema import load_game
from config.tables import CameraSettings
from controller.camera import CameraObservation, ZoneObservation
from controller.cards import parse_cards
from controller.crosscheck import CAMERA, CrossCheck, by_position, expected_positions
from controller.events import DealerExposedEarly, Halt, Resume
from controller.table import Phase
from tablectl.scenario import Run, ScenarioError, parse_scenario, run_scenario


def play(text: str) -> Run:
    scenario = parse_scenario(text, "test.scn")
    return run_scenario(scenario, load_game(scenario.game), "test.scn")


CASINO = """
table S1 casino-holdem shared player
balance seat:1 1000
shoe {shoe}
at 0 pit:ann open_table
at 1 dealer start_round
at 1 dealer change_deck D-1
at 2 seat:1 bet player seat:1 ante 10
at 3 dealer no_more_bets
"""
DEALT = "player:AH player:2H dealer:back dealer:back board:5H board:9H board:KH"


def view(words: str, frame: int) -> CameraObservation:
    """A camera view written as a scenario's ``camera sees`` words."""
    step = parse_scenario(f"table S1 casino-holdem shared player\nat 0 camera sees {words}")
    assert step.steps[0].observation is not None
    return CameraObservation(frame, 0.0, step.steps[0].observation.zones)


def halts(run: Run) -> list[str]:
    return [str(a.data["reason"]) for a in run.actions if a.kind == "halted"]


def test_a_finding_waits_while_the_table_is_halted_and_is_reported_after_resume() -> None:
    run = play(
        CASINO.format(shoe="AH QC 2H JD 5H 9H KH 3C 7D")
        + "at 4 dealer halt a chip fell on the layout\n"
        + f"at 5 camera sees {DEALT.replace('2H', '2D')}\n"
    )
    assert run.state.phase is Phase.HALTED
    assert halts(run) == ["a chip fell on the layout"]
    run.apply(Halt(actor="dealer", reason="x"), run.now + 1)  # refused: already halted
    run.apply(Resume(actor="dealer"), run.now + 1)
    assert run.state.phase is Phase.HALTED
    assert halts(run)[-1] == "camera sees 2D at player, the shoe dealt 2H"
    assert [a.data["by"] for a in run.actions if a.kind == "halted"] == ["dealer", CAMERA]
    # resumed again without a change: the same finding does not stop the table twice
    run.apply(Resume(actor="pit:ann", note="the camera is wrong"), run.now + 1)
    assert run.state.phase is Phase.DECIDING
    run.observe(view(DEALT.replace("2H", "2D"), 99), run.now + 1)
    assert run.state.phase is Phase.DECIDING


def test_a_redeal_is_not_checked_against_the_view_of_the_collected_cards() -> None:
    run = play(
        CASINO.format(shoe="AH QC 2H JD 5H 9H KH 3C 7D 4S 5S 6S 7S 8S 9S 2D 3D 4D")
        + "at 4 camera sees player:AH player:2H dealer:QC dealer:back board:5H board:9H\n"
        + "at 5 dealer redeal the dealer's card was exposed\n"
    )
    assert halts(run)[0].startswith("the dealer opened his cards before every hand decided")
    assert run.state.phase is Phase.DECIDING  # the redeal's cards came from the shoe
    assert len(halts(run)) == 1  # the old view was not held against the new deal
    new = "player:3C player:4S dealer:back dealer:back board:6S board:7S board:8S"
    run.observe(view(new, 99), run.now + 1)
    assert run.checked.discrepancies == ()
    assert run.state.phase is Phase.DECIDING


def test_an_exposure_after_every_decision_is_noted_not_raised() -> None:
    run = play(
        CASINO.format(shoe="AH QC 2H JD 5H 9H KH")  # the shoe stops before the turn
        + "at 4 seat:1 decide player call\n"
        + f"at 5 camera sees {DEALT.replace('dealer:back dealer:back', 'dealer:QC dealer:back')}\n"
    )
    assert run.state.phase is Phase.DEALING
    assert halts(run) == []
    assert any("every hand has decided" in note for note in run.checked.notes)


TRIPLE = """
table P1 triple-action-holdem boxes "box 1"
shoe KS 9S KD 8C 9C TH JD
at 0 pit:ann open_table
at 1 dealer start_round
at 2 dealer bet "box 1" ann ante 10
at 3 dealer no_more_bets
"""


def test_the_dealers_first_card_is_expected_face_up_once_revealed() -> None:
    run = play(TRIPLE + "at 4 camera sees box1:back box1:back dealer:9S dealer:back "
               "board:back board:back board:back\n")  # fmt: skip
    assert run.state.phase is Phase.DECIDING
    assert run.checked.discrepancies == ()
    expected = expected_positions(run.state)
    assert expected["dealer"].face_up == frozenset(parse_cards("9S"))
    assert expected["board"].face_down == frozenset(parse_cards("9C TH JD"))


def test_a_board_card_seen_before_its_reveal_halts() -> None:
    run = play(TRIPLE + "at 4 camera sees box1:back box1:back dealer:9S dealer:back "
               "board:9C board:back board:back\n")  # fmt: skip
    assert halts(run) == ["camera sees board card 9C face up before the reveal"]


def test_the_dealers_hole_card_seen_before_the_decision_is_the_exposure_irregularity() -> None:
    run = play(TRIPLE + "at 4 camera sees box1:back box1:back dealer:9S dealer:8C "
               "board:back board:back board:back\n")  # fmt: skip
    assert run.state.phase is Phase.HALTED
    assert run.state.round is not None and run.state.round.exposed_early
    assert run.checked.events == (DealerExposedEarly(actor=CAMERA),)


def test_an_excess_back_with_no_shortage_elsewhere_is_a_card_the_shoe_did_not_read() -> None:
    run = play(TRIPLE + "at 4 camera sees box1:back box1:back box1:back dealer:9S dealer:back "
               "board:back board:back board:back\n")  # fmt: skip
    assert halts(run) == [
        "camera sees 3 face-down cards at box 1, the shoe dealt 2 there face down"
    ]


def test_cards_outside_every_zone_and_unreadable_cards_never_halt() -> None:
    run = play(
        CASINO.format(shoe="AH QC 2H JD 5H 9H KH 3C 7D")
        + "at 4 camera sees player:AH player:unknown dealer:back dealer:back board:5H "
        "board:9H board:KH nowhere:7S\n"
    )
    assert run.state.phase is Phase.DECIDING
    notes = " | ".join(run.checked.notes)
    assert "1 face-up cards in player unreadable" in notes
    assert "7S seen in no zone" in notes


def test_zones_of_one_position_merge_and_unknown_zones_are_outside() -> None:
    seen = CameraObservation(3, 0.0, (
        ZoneObservation("flop", frozenset(parse_cards("AS KS")), face_down=1),
        ZoneObservation("turn", frozenset(parse_cards("2C")), unknown=1),
        ZoneObservation("rail", frozenset(parse_cards("3D"))),
    ))  # fmt: skip
    merged = by_position(seen, {"flop": "board", "turn": "board"})
    assert merged.zone("board") == ZoneObservation(
        "board", frozenset(parse_cards("AS KS 2C")), 1, 1
    )
    assert merged.zone("").cards == frozenset(parse_cards("3D"))


def test_the_camera_switch_and_the_zone_positions() -> None:
    config = CameraSettings.model_validate({"enabled": False, "source": "rtsp://cam/1"})
    assert not config.enabled and not CameraSettings().enabled  # off unless switched on
    layout = load_zones(zones_path(config.zones or "default"))
    assert layout.positions()["box3"] == "box 3"
    assert load_zones(Path("config/zones/shared-hand.toml")).positions()["player"] == "player"
    off = CrossCheck(layout.positions(), enabled=False)
    run = play(CASINO.format(shoe="AH QC 2H JD 5H 9H KH 3C 7D"))
    view = CameraObservation(1, 0.0, (ZoneObservation("dealer", frozenset(parse_cards("QC"))),))
    assert off.check(run.state, view, run.now) == (off, off.check(run.state, view, run.now)[1])
    assert off.check(run.state, view, run.now)[1].events == ()
    on = CrossCheck({"dealer": "dealer", "player": "player", "board": "board"})
    assert [type(e) for e in on.check(run.state, view, run.now)[1].events] == [DealerExposedEarly]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("at 4 dealer sees player:AH", "only the camera sees"),
        ("at 4 camera sees AH", "camera sees ZONE:CARD"),
        ("at 4 camera sees player:ZZ", "bad card code"),
        ("at 4 camera sees player:AH board:AH", "sees AH twice"),
        ("option camera maybe", "option camera takes on or off"),
    ],
)
def test_camera_lines_that_cannot_be_read(line: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_scenario("table S1 casino-holdem shared player\n" + line)


def test_a_layout_that_watches_no_zone_for_a_hand_is_refused() -> None:
    text = 'table P1 casino-holdem boxes "box 1"\nzones shared-hand\nat 1 camera sees\n'
    with pytest.raises(ScenarioError, match="watch no box 1"):
        play(text)
