"""Measuring the grader on a marked JSONL set: loading, the numbers, and `tutor content eval`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.content.models import Label
from bot.grading import Grader
from bot.grading.evaluation import MarkedAnswer, MarkedFileError, evaluate, load_marked
from tests.grading.conftest import PACK


def marked(
    item_id: str, label: str, text: str, verdict: bool | None = None, **extra: object
) -> str:
    return json.dumps(
        {"item_id": item_id, "verdict": verdict, "text": text, "label": label, **extra}
    )


def answer(
    label: str, text: str, verdict: bool | None = False, opposite: bool = False
) -> MarkedAnswer:
    return MarkedAnswer(
        item_id="TF3", verdict=verdict, text=text, label=Label(label), opposite_claim=opposite
    )


AGREEING = [
    answer("correct", "False, grads accumulate."),
    answer("correct", "nope. backward adds to whatever is already in .grad, so you have the sum"),
    answer("partial", "False."),
    answer("incorrect", "True, each call overwrites .grad with the new gradient.", verdict=True),
]
OPPOSITE_GRADED_CORRECT = answer(
    "incorrect", "False, grads accumulate.", opposite=True
)  # marked against the grader on purpose: the grader calls it correct


def test_a_marked_file_loads_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(
        marked("TF3", "correct", "False, grads accumulate.", False, style="terse")
        + "\n\n"
        + marked("TF3", "partial", "False.", False)
        + "\n",
        encoding="utf-8",
    )
    answers = load_marked(path)
    assert [(a.line, a.label, a.style) for a in answers] == [
        (1, Label.CORRECT, "terse"),
        (3, Label.PARTIAL, ""),
    ]


def test_every_bad_line_is_reported_with_its_number_and_field(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(
        "{not json\n"
        + marked("TF3", "excellent", "False.")
        + "\n"
        + json.dumps({"item_id": "TF3", "label": "correct"})
        + "\n[1, 2]\n",
        encoding="utf-8",
    )
    with pytest.raises(MarkedFileError) as caught:
        load_marked(path)
    problems = caught.value.problems
    assert [p.split(": ", 1)[0] for p in problems] == [f"{path}:{n}" for n in (1, 2, 3, 4)]
    assert "label" in problems[1]
    assert "text" in problems[2]


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MarkedFileError, match=r"missing\.jsonl"):
        load_marked(tmp_path / "missing.jsonl")


def test_agreement_counts_answers_graded_with_their_mark(grader: Grader) -> None:
    report = evaluate(grader, [*AGREEING, OPPOSITE_GRADED_CORRECT])
    assert (report.agreed, report.total) == (4, 5)
    assert report.misses[0].answer is OPPOSITE_GRADED_CORRECT


def test_the_confusion_matrix_puts_marks_in_rows_and_grades_in_columns(grader: Grader) -> None:
    matrix = evaluate(grader, [*AGREEING, OPPOSITE_GRADED_CORRECT]).confusion()
    assert matrix[Label.INCORRECT][Label.CORRECT] == 1
    assert matrix[Label.INCORRECT][Label.INCORRECT] == 1
    assert matrix[Label.CORRECT][Label.CORRECT] == 2


def test_an_opposite_claim_graded_correct_misses_both_safety_targets(grader: Grader) -> None:
    report = evaluate(grader, [*AGREEING, OPPOSITE_GRADED_CORRECT])
    assert (report.incorrect_as_correct, report.incorrect) == (1, 2)
    assert (report.opposite_as_correct, report.opposite) == (1, 1)
    assert not report.meets_incorrect_as_correct()
    assert not report.meets_opposite_as_correct()
    assert not report.meets_targets()


def test_a_set_graded_as_marked_meets_every_target(grader: Grader) -> None:
    assert evaluate(grader, AGREEING).meets_targets()


def test_an_unknown_item_is_kept_as_a_refused_miss(grader: Grader) -> None:
    stray = MarkedAnswer(item_id="TF99", text="False.", label=Label.PARTIAL)
    report = evaluate(grader, [stray])
    [graded] = report.misses
    assert graded.got is None
    assert "TF99" in (graded.error or "")
    assert report.confusion()[Label.PARTIAL][None] == 1


def test_per_item_numbers_count_false_accepts_and_rejects(grader: Grader) -> None:
    under = answer("correct", "False.")  # graded partial: a false reject
    report = evaluate(grader, [*AGREEING, OPPOSITE_GRADED_CORRECT, under])
    [tf3] = report.items()
    assert (tf3.total, tf3.agreed, tf3.false_accepts, tf3.false_rejects) == (6, 4, 1, 1)


def test_the_number_tables_never_show_answer_text(grader: Grader) -> None:
    report = evaluate(grader, [*AGREEING, OPPOSITE_GRADED_CORRECT])
    shown = report.targets_summary() + report.confusion_table() + report.item_table()
    assert "accumulate" not in shown
    assert "overwrites" not in shown


def _write(tmp_path: Path, answers: list[MarkedAnswer]) -> Path:
    path = tmp_path / "marked.jsonl"
    path.write_text(
        "\n".join(a.model_dump_json(exclude={"line"}) for a in answers) + "\n", encoding="utf-8"
    )
    return path


def test_content_eval_exits_0_when_the_targets_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, AGREEING)
    assert main(["content", "eval", str(path), "--content", str(PACK)]) == 0
    assert "4/4 = 100.0%" in capsys.readouterr().out


def test_content_eval_exits_1_and_lists_misses_when_a_target_is_missed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, [*AGREEING, OPPOSITE_GRADED_CORRECT])
    assert main(["content", "eval", str(path), "--content", str(PACK)]) == 1
    out = capsys.readouterr().out
    assert "MISSED" in out
    assert "line 5" in out
    assert "marked incorrect, graded correct" in out


def test_content_eval_numbers_only_prints_no_answer_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, [*AGREEING, OPPOSITE_GRADED_CORRECT])
    main(["content", "eval", str(path), "--content", str(PACK), "--numbers-only"])
    out = capsys.readouterr().out
    assert "TF3" in out
    assert "accumulate" not in out


def test_content_eval_reports_a_broken_file_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{oops\n", encoding="utf-8")
    assert main(["content", "eval", str(path), "--content", str(PACK)]) == 1
    assert f"{path}:1: not JSON" in capsys.readouterr().err


def test_a_report_prints_as_numbers_only(grader: Grader) -> None:
    report = evaluate(grader, AGREEING)
    assert repr(report) == str(report) == "EvalReport(total=4, agreed=4)"
