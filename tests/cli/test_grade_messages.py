"""``tutor grade``'s refusals say who speaks and what a line must be."""

from __future__ import annotations

import io
import json

import pytest

from bot.cli import main
from bot.cli.grade import grade_lines
from bot.content.loader import Bank
from bot.grading import Grader


def test_an_unknown_item_is_named_by_tutor_grade(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "NOPE", "--text", "because"]) == 2
    assert capsys.readouterr().err.startswith("tutor grade: unknown item id 'NOPE'")


@pytest.mark.parametrize(("line", "kind"), [("[1, 2]", "an array"), ('"TF3"', "a string")])
def test_a_jsonl_line_that_is_not_an_object_says_each_line_must_be_one(
    bank: Bank, line: str, kind: str
) -> None:
    out = io.StringIO()
    assert grade_lines(Grader(bank), io.StringIO(line + "\n"), out) == 1
    row = json.loads(out.getvalue())
    assert (row["error"], row["line"]) == ("invalid_request", 1)
    assert row["message"] == f"each line must be a JSON object, not {kind}"


@pytest.mark.parametrize("text", ["", "   ", "```python"])
def test_tutor_grade_refuses_an_empty_text_like_the_other_front_ends(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", "TF3", "--verdict", "false", "--text", text]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "tutor grade: an empty answer cannot be graded: say why, in a sentence\n"
    )
    assert captured.out == ""


def test_a_jsonl_line_with_only_a_code_fence_is_an_empty_answer(bank: Bank) -> None:
    out = io.StringIO()
    line = json.dumps({"item_id": "TF3", "verdict": False, "text": "```python"})
    assert grade_lines(Grader(bank), io.StringIO(line + "\n"), out) == 1
    assert json.loads(out.getvalue())["error"] == "empty_answer"
