"""A JSON line nested past the decoder's depth is one error for that line, never a crash."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.grade import grade_lines
from bot.content.loader import Bank
from bot.grading import Grader

DEEP = '{"item_id": "SE1", "text": "x", "n": ' + "[" * 5000 + "]" * 5000 + "}"
"""The tester's line: 10 KB, lists nested 5,000 deep."""


def test_a_deeply_nested_jsonl_line_is_an_error_for_that_line_and_the_rest_are_graded(
    bank: Bank,
) -> None:
    good = json.dumps({"item_id": "TF3", "verdict": False, "text": "grads pile up"})
    out = io.StringIO()
    errors = grade_lines(Grader(bank), io.StringIO(f"{good}\n{DEEP}\n{good}\n"), out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert errors == 1
    assert [row["line"] for row in rows] == [1, 2, 3]
    assert (rows[1]["error"], rows[1]["message"].split(":")[0]) == (
        "invalid_json",
        "nested too deeply",
    )
    assert "error" not in rows[2]


def test_a_deeply_nested_jsonl_line_read_as_bytes_is_named_nested(bank: Bank) -> None:
    out = io.StringIO()
    grade_lines(Grader(bank), io.BytesIO(DEEP.encode() + b"\n"), out)
    assert json.loads(out.getvalue())["message"].startswith("nested too deeply")


def test_a_deeply_nested_jsonl_line_with_a_bad_byte_names_the_byte(bank: Bank) -> None:
    """Every line that is not UTF-8 is refused for that first (the README's contract)."""
    out = io.StringIO()
    grade_lines(Grader(bank), io.BytesIO(DEEP.encode() + b"\xff\n"), out)
    position = len(DEEP.encode())
    assert json.loads(out.getvalue())["message"].startswith(
        f"not UTF-8 (byte 0xff at position {position})"
    )


def test_content_eval_refuses_a_deeply_nested_line_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marked = tmp_path / "marked.jsonl"
    good = {"item_id": "TF3", "verdict": False, "text": "grads pile up", "label": "correct"}
    marked.write_text(f"{json.dumps(good)}\n{DEEP}\n", encoding="utf-8")
    assert main(["content", "eval", str(marked)]) == 1
    assert capsys.readouterr().err.startswith(f"{marked}:2: nested too deeply")
