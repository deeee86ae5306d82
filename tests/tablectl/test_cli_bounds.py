"""Every numeric argument is bounded: a value out of bounds, nan or an infinity is refused by
argparse in words (exit status 2), before any work, never with a traceback or a hang."""

import argparse
import itertools

import pytest

from tablectl.cli import build_parser, main
from tablectl.workers import MAX_WORKERS, int_from, number_from, processes, threads

RTP = ["rtp", "--game", "ultimate-texas-holdem", "--bet", "main"]
SEND = ["send", "--broker", "mqtt://127.0.0.1:1", "--table", "T1", "--as", "dealer", "resume"]
WATCH = ["watch", "--broker", "mqtt://127.0.0.1:1", "--table", "T1", "--as", "dealer"]
SHOE = ["sim", "shoe", "--dialect", "framed"]
HUGE = "1" + "0" * 30

INTEGER = "expected an integer from"
NUMBER = "expected a number"

REFUSED = [
    ([*RTP, "--hands", HUGE, "--workers", "1"], "rtp", "--hands", INTEGER + " 1 to 1000000000"),
    ([*RTP, "--hands", "-5"], "rtp", "--hands", INTEGER + " 1 to 1000000000"),
    ([*RTP, "--hands", "0"], "rtp", "--hands", INTEGER),
    ([*RTP, "--hands", "1e3"], "rtp", "--hands", INTEGER),
    ([*RTP, "--hands", "100", "--workers", "100000"], "rtp", "--workers", INTEGER + " 1 to 64"),
    ([*RTP, "--hands", "100", "--workers", "0"], "rtp", "--workers", INTEGER),
    (["math", "report", "--hands", HUGE], "math report", "--hands", INTEGER),
    (["math", "report", "--hands", "0"], "math report", "--hands", INTEGER),
    (["math", "report", "--hands", "-5"], "math report", "--hands", INTEGER),
    (["math", "report", "--workers", "65"], "math report", "--workers", INTEGER),
    (["math", "counts", "--cards", "5", "--workers", "-1"], "math counts", "--workers", INTEGER),
    ([*SHOE, "--decks", HUGE], "sim shoe", "--decks", INTEGER + " 1 to 1000"),
    ([*SHOE, "--decks", "0"], "sim shoe", "--decks", INTEGER),
    ([*SHOE, "--decks", "-1"], "sim shoe", "--decks", INTEGER),
    ([*SHOE, "--rate", "-1"], "sim shoe", "--rate", NUMBER + " from 0 to 1000"),
    ([*SHOE, "--rate", "nan"], "sim shoe", "--rate", NUMBER),
    ([*SHOE, "--rate", "inf"], "sim shoe", "--rate", NUMBER),
    ([*SEND, "--timeout", "nan"], "send", "--timeout", NUMBER + " above 0 and at most 3600"),
    ([*SEND, "--timeout", "inf"], "send", "--timeout", NUMBER),
    ([*SEND, "--timeout", "1e308"], "send", "--timeout", NUMBER),
    ([*SEND, "--timeout", "-1"], "send", "--timeout", NUMBER),
    ([*SEND, "--timeout", "0"], "send", "--timeout", NUMBER),
    ([*SEND, "--retries", HUGE], "send", "--retries", INTEGER + " 0 to 100"),
    ([*WATCH, "--seconds", "nan"], "watch", "--seconds", NUMBER + " from 0 to 604800"),
    ([*WATCH, "--seconds", "-1"], "watch", "--seconds", NUMBER),
    (["demo", "--hands", "0"], "demo", "--hands", INTEGER + " 1 to 10000"),
    (["demo", "--hands", "-1"], "demo", "--hands", INTEGER),
    (["demo", "--linger", "inf"], "demo", "--linger", NUMBER + " from 0 to 86400"),
    (["demo", "--linger", "1e308"], "demo", "--linger", NUMBER),
    (["demo", "--players", "0"], "demo", "--players", INTEGER + " 1 to 7"),
    (["demo", "--players", "8"], "demo", "--players", INTEGER),
    (["demo", "--irregular", "2"], "demo", "--irregular", NUMBER + " from 0 to 1"),
    (["demo", "--irregular", "-0.1"], "demo", "--irregular", NUMBER),
    (["demo", "--rate", "0"], "demo", "--rate", NUMBER + " above 0 and at most 1000"),
    (["demo", "--rate", "nan"], "demo", "--rate", NUMBER),
    (["deal", "--hands", "-1"], "deal", "--hands", INTEGER + " 1 to 100000"),
    (["deal", "--hands", HUGE], "deal", "--hands", INTEGER),
    (
        ["cards", "calibrate", "--images", "x", "--labels", "y", "--out", "p", "--augment", HUGE],
        "cards calibrate",
        "--augment",
        INTEGER + " 0 to 1000",
    ),
    (["cards", "render", "--out", "d", "--seed", "-1"], "cards render", "--seed", INTEGER),
    (["cards", "render", "--out", "d", "--count", "0"], "cards render", "--count", INTEGER),
    # MQTT's wildcards and slashes are no table (paho refused them in its own thread)
    ([*SEND[:4], "+", *SEND[5:]], "send", "--table", "expected a table id of 1 to 32"),
    ([*WATCH[:4], "B1/#", *WATCH[5:]], "watch", "--table", "expected a table id"),
]


@pytest.mark.parametrize(("argv", "command", "option", "expected"), REFUSED)
def test_out_of_bounds_numbers_are_refused_in_words(
    capsys: pytest.CaptureFixture[str], argv: list[str], command: str, option: str, expected: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    value = argv[argv.index(option) + 1]
    assert exit_.value.code == 2
    assert f"tablectl {command}: error: argument {option}: {expected}" in err
    assert f"; got {value!r}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "values"),
    [
        ([*RTP, "--hands", "1000000000", "--workers", "64"], {"hands": 10**9, "workers": 64}),
        (["math", "report", "--hands", "1"], {"hands": 1, "workers": 2}),
        (["math", "counts", "--cards", "5", "--workers", "1"], {"workers": 1}),
        ([*SHOE, "--decks", "8", "--rate", "0"], {"decks": 8, "rate": 0.0}),
        ([*SEND, "--timeout", "0.5", "--retries", "0"], {"timeout": 0.5, "retries": 0}),
        ([*WATCH, "--seconds", "0"], {"seconds": 0.0}),
        (WATCH, {"seconds": None}),
        (
            ["demo", "--hands", "1", "--players", "7", "--irregular", "1", "--linger", "1"],
            {"hands": 1, "players": 7, "irregular": 1.0, "linger": 1.0, "rate": 8.0},
        ),
        (["deal", "--hands", "1"], {"hands": 1}),
        (["deal"], {"hands": 3}),
    ],
)
def test_numbers_within_bounds_still_parse(argv: list[str], values: dict[str, object]) -> None:
    args = build_parser().parse_args(argv)
    assert {name: getattr(args, name) for name in values} == values


def test_pools_refuse_more_workers_than_the_cap() -> None:
    with pytest.raises(ValueError, match="expected at most 64"), processes(MAX_WORKERS + 1):
        pass  # pragma: no cover - never reached


def test_pool_map_keeps_order_and_runs_an_endless_job_stream_lazily() -> None:
    with threads(3) as map_jobs:
        results = map_jobs(lambda n: n * n, itertools.count())  # never listed up front
        assert list(itertools.islice(results, 50)) == [n * n for n in range(50)]
    with threads(2) as map_jobs:
        assert list(map_jobs(abs, [-3, 2, -1])) == [3, 2, 1]


def test_a_command_id_past_the_envelopes_bound_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 70,000 characters raised struct.error in paho's thread
    with pytest.raises(SystemExit) as exit_:
        main([*SEND[:-1], "--id", "x" * 70_000, "resume"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err and len(err) < 1000
    assert "argument --id: expected an id of 1 to 64 printable characters; got 70000" in err


@pytest.mark.parametrize(
    ("argv", "refusal"),
    [
        (["topics", "--table", "#"], "--table: expected a table id of 1 to 32 letters"),
        (["topics", "--table", "a/b"], "--table: expected a table id of 1 to 32 letters"),
        (["topics", "--table", "+"], "--table: expected a table id of 1 to 32 letters"),
        (["topics", "--seat", "1/#"], "--seat: expected a seat id of 1 to 16 letters"),
    ],
)
def test_topics_refuses_ids_the_topics_cannot_carry(
    argv: list[str], refusal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``topics --table '#'`` printed a topic tree with a wildcard for the table, as if a
    table could be called that."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert refusal in err
    assert f"got {argv[-1]!r}" in err


def test_a_refusal_shows_a_long_value_cut() -> None:
    """A pasted page given for a number is not echoed whole in its refusal."""
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        int_from(1, 10)("9" * 3000)
    assert str(refused.value).endswith("'" + "9" * 40 + "'… (3000 characters)")
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        number_from(0, 1)("x" * 100)
    assert len(str(refused.value)) < 120
