"""``tutor content eval`` reads a marked JSONL file through a strict JSON boundary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main


def test_content_eval_refuses_a_verdict_of_1_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marked = tmp_path / "marked.jsonl"
    answer = {"item_id": "TF3", "verdict": 1, "text": "grads pile up", "label": "correct"}
    marked.write_text(json.dumps(answer) + "\n", encoding="utf-8")
    assert main(["content", "eval", str(marked)]) == 1
    assert capsys.readouterr().err == (f"{marked}:1: verdict: Input should be a valid boolean\n")
