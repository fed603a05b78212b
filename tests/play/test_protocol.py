"""The line protocol: what each line means, and how a bad line is refused."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.content.models import Kind
from bot.play.protocol import (
    EVENTS,
    MAX_LINE_CHARS,
    Answer,
    AskItem,
    ErrorEvent,
    Graph,
    Hint,
    ProtocolError,
    Quit,
    Quiz,
    Review,
    SetVerdict,
    Skip,
    Stats,
    Topics,
    parse_line,
)
from bot.play.script import read_lines


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("quiz", Quiz()),
        (
            "quiz kind=tf topic=leaf-tensor difficulty=2",
            Quiz(kind=Kind.TRUE_FALSE, topic="leaf-tensor", difficulty=2),
        ),
        ("QUIZ Kind=edge_case", Quiz(kind=Kind.EDGE_CASE)),
        ("item tf3", AskItem(item_id="TF3")),
        ("review", Review()),
        ("hint", Hint()),
        ("verdict false", SetVerdict(verdict=False)),
        ("verdict T", SetVerdict(verdict=True)),
        ("skip", Skip()),
        ("stats", Stats()),
        ("topics", Topics()),
        ("graph out/pictures", Graph(directory=Path("out/pictures"))),
        ("quit", Quit()),
        ("exit", Quit()),
    ],
)
def test_each_command_line_parses_to_its_command(line: str, command: object) -> None:
    assert parse_line(line + "\n") == command


def test_answer_keeps_the_rest_of_the_line_as_typed() -> None:
    line = "answer   x.grad  *accumulates*: [2.] -> [4.]  \n"
    assert parse_line(line) == Answer(text="x.grad  *accumulates*: [2.] -> [4.]")


@pytest.mark.parametrize("line", ["", "   ", "# a comment", "  # indented comment"])
def test_blank_lines_and_comments_are_ignored(line: str) -> None:
    assert parse_line(line) is None


@pytest.mark.parametrize(
    ("line", "code", "words"),
    [
        ("dance", "unknown_command", "unknown command 'dance'"),
        ("/help", "unknown_command", "/help lists the terminal's keys"),
        ("/dance", "unknown_command", "unknown command '/dance'"),
        ("quiz kind=riddle", "bad_argument", "unknown kind 'riddle'"),
        ("quiz difficulty=4", "bad_argument", "difficulty is 1, 2 or 3"),
        ("quiz colour=red", "bad_argument", "unknown filter 'colour'"),
        ("quiz kind=tf kind=why", "bad_argument", "kind is given twice"),
        ("quiz tf", "bad_argument", "kind=K topic=T difficulty=N"),
        ("verdict maybe", "bad_argument", "verdict must be true or false"),
        ("item", "bad_argument", "item takes one item id"),
        ("stats now", "bad_argument", "stats takes no argument"),
        ("quit now", "bad_argument", "quit takes no argument"),
        ("answer skip", "bad_argument", "`answer skip` was not graded: send `skip`"),
        ("answer Quit", "bad_argument", "send `quit` on its own line to end the session"),
        ("graph", "bad_argument", "graph takes a directory"),
    ],
)
def test_a_bad_line_is_refused_with_what_was_wrong(line: str, code: str, words: str) -> None:
    with pytest.raises(ProtocolError, match=words) as refused:
        parse_line(line)
    assert refused.value.code == code


def test_a_line_over_the_limit_is_refused() -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_line("answer " + "x" * MAX_LINE_CHARS)
    assert refused.value.code == "line_too_long"


def test_reading_a_huge_line_never_holds_it_whole() -> None:
    stream = io.StringIO("item TF3\n" + "y" * (10 * MAX_LINE_CHARS) + "\nskip\nlast")
    lines = list(read_lines(stream))
    assert lines[0] == "item TF3"
    assert len(lines[1]) == MAX_LINE_CHARS + 1
    assert lines[2:] == ["skip", "last"]


def test_a_json_event_line_reads_back_as_its_model() -> None:
    event = ErrorEvent(code="empty_answer", message="say why", line=3)
    assert EVENTS.validate_json(event.model_dump_json()) == event
