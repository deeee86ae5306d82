"""The scenario language writes every command a console may send, and the system's own."""

import pytest

from controller.events import AllowPassenger, PlaceBet
from controller.inbound import commands_of
from tablectl.scenario import parse_scenario

#: one statement per command kind: a new command the language cannot write fails below
STATEMENTS = {
    "open_table": "at 1 pit:ann open_table",
    "close_table": "at 1 pit:ann close_table",
    "start_round": "at 1 dealer start_round",
    "place_bet": 'at 1 dealer bet "box 1" ann ante 200',
    "allow_passenger": 'at 1 dealer allow_passenger "box 1" bob',
    "undo_bet": 'at 1 dealer undo "box 1" ann',
    "clear_bets": 'at 1 dealer clear "box 1" ann',
    "rebet": "at 1 seat:1 rebet player seat:1",
    "double": "at 1 seat:1 double player seat:1",
    "no_more_bets": "at 1 dealer no_more_bets",
    "decide": 'at 1 dealer decide "box 1" ann bet',
    "reveal_done": "at 1 dealer reveal_done",
    "confirm_payment": 'at 1 dealer pay "box 1" ann 400',
    "halt": "at 1 dealer halt the shoe jammed",
    "resume": "at 1 dealer resume",
    "void_round": "at 1 pit:ann void malfunction",
    "restore_sequence": 'at 1 dealer restore "box 1:AS" dealer:KD',
    "redeal": "at 1 dealer redeal no sequence",
    "dealer_exposed_early": "at 1 dealer dealer_exposed_early",
    "resolve_undecided": "at 1 pit:ann rule fold",
    "correct_card": "at 1 pit:ann correct dealer 0 AS misread",
    "change_deck": "at 1 pit:ann change_deck D2",
    "seat_disconnected": "at 1 system disconnected seat:1",
    "seat_returned": "at 1 system returned seat:1",
    "deal": "at 1 seat:1 deal seat:1",
}
#: what no console sends: the controller writes it itself when it cannot apply an input
NOT_SENT = {"fault"}


def _kinds() -> set[str]:
    return {kind for role in ("seat", "dealer", "pit", "system") for kind in commands_of(role)}


def test_every_command_a_console_may_send_has_a_statement() -> None:
    missing = _kinds() - NOT_SENT - set(STATEMENTS)
    assert not missing, f"the scenario language cannot write {sorted(missing)}"


@pytest.mark.parametrize("kind", sorted(STATEMENTS))
def test_each_statement_produces_its_command(kind: str) -> None:
    scenario = parse_scenario(f'table P1 texas-poker boxes "box 1"\n{STATEMENTS[kind]}\n')
    (step,) = scenario.steps
    assert step.event is not None and step.event.kind == kind


def test_a_dark_bet_and_a_passenger_are_written_as_the_dealer_enters_them() -> None:
    scenario = parse_scenario(
        'table P1 texas-poker boxes "box 1" "box 2"\n'
        'at 1 dealer bet "box 2" ann ante 200 dark\n'
        'at 2 dealer allow_passenger "box 1" bob\n'
    )
    dark, allow = (step.event for step in scenario.steps)
    assert isinstance(dark, PlaceBet) and dark.dark is True
    assert isinstance(allow, AllowPassenger) and allow.passenger == "bob"
