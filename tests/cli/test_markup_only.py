"""An answer that is only markup is refused as ``empty_answer`` by every front end, and
nothing is recorded for it (new-user check fresh24: ``****``, ``**``, ``<b></b>`` and
``||  ||`` were graded, and ``tutor play`` recorded them)."""

from __future__ import annotations

import io
import json
import logging
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import CONTENT

MARKUP_ONLY = [
    "**",
    "***",
    "****",
    "** **",
    "__",
    "_",
    "||  ||",
    "<b></b>",
    "<i> </i><br/>",
    "#",
    "+",
    "- ",
    "~~ ~~",
    ">",
    "`",
    "```",
]
"""Every markup form the normaliser knows, alone: emphasis, spoiler, HTML-like tags,
heading, bullet, strike, quote, code."""

EMPTY = "an empty answer cannot be graded: say why, in a sentence"


@pytest.mark.parametrize("text", MARKUP_ONLY)
def test_tutor_grade_refuses_an_answer_that_is_only_markup(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", "TF3", "--verdict", "false", "--text", text]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"tutor grade: {EMPTY}\n"
    assert captured.out == ""


def test_tutor_grade_jsonl_gives_empty_answer_for_each_markup_only_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json.dumps({"item_id": "SE1", "text": text}) for text in MARKUP_ONLY]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["grade", "--jsonl"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row.get("error") for row in rows] == ["empty_answer"] * len(MARKUP_ONLY)


@pytest.mark.parametrize("text", ["x**2", "||x||", "<b>it adds</b>", "x<y", "?", "0"])
def test_text_with_anything_besides_markup_is_still_graded(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", "SE1", "--text", text]) == 0
    assert "label=" in capsys.readouterr().out


def test_tutor_play_refuses_markup_only_answers_and_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(logging.root, "handlers", [])  # play's basicConfig: not past this test
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    script = ["item SE1", *(f"answer {text}" for text in MARKUP_ONLY if text.strip()), "quit"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(script) + "\n"))
    db = tmp_path / "t.db"
    # exit 1: the script had refused lines
    assert main(["play", "--script", "--json", "--sandbox", "off", "--db", str(db)]) == 1
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    codes = [event["code"] for event in events if event["event"] == "error"]
    assert codes == ["empty_answer"] * (len(script) - 2)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM attempts").fetchone() == (0,)
    finally:
        conn.close()
