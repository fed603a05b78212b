"""`tutor grade --jsonl` (the contract for tools) and `tutor content test` (the rubric gate)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.grade import grade_lines
from bot.content.loader import load_bank
from bot.grading import Grader
from bot.grading.feedback import KEY_POINT_NUDGE
from tests.grading.conftest import PACK

BROKEN_RUBRIC = """\
pack: fixture
title: Fixture pack
items:
  - id: TF1
    kind: true_false
    prompt: A fixture prompt.
    answer: {verdict: false, text: "False, because of the fixture."}
    explanation: The fixture explanation.
    hint: A fixture hint.
    tags: [fixture]
    difficulty: 1
    snippet: |
      print("fixture")
    expected_output: |
      fixture
    torch_version: 2.13.0
    rubric:
      concepts:
        - id: accumulates
          description: gradients add up
          patterns: ["accumulat*"]
          nudge: What happens to the old gradient?
        - id: never-fires
          description: a concept no sample states
          patterns: ["zebra"]
          nudge: Zebras?
      required: [accumulates]
      misconceptions:
        - id: overwrites
          description: believing backward replaces .grad
          patterns: ["overwrit*"]
          cap: 0.3
          feedback: backward adds to .grad; it never replaces it.
    samples:
      - {label: correct, verdict: false, text: "False, gradients accumulate."}
      - {label: correct, verdict: false, text: "False, they accumulate."}
      - {label: partial, verdict: false, text: "False."}
      - {label: partial, verdict: false, text: "False, not sure why."}
      - {label: incorrect, verdict: true, text: "True, it overwrites."}
      - {label: incorrect, verdict: false, text: "False, gradients accumulate (mark is wrong)."}
"""


def run_jsonl(grader: Grader, lines: list[str]) -> list[dict[str, object]]:
    out = io.StringIO()
    grade_lines(grader, io.StringIO("\n".join(lines) + "\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_jsonl_writes_one_result_per_answer_in_order(grader: Grader) -> None:
    lines = [
        json.dumps({"item_id": "TF3", "verdict": False, "text": "grads pile up"}),
        json.dumps({"item_id": "SE2", "verdict": None, "text": "idk"}),
    ]
    results = run_jsonl(grader, lines)
    assert [r["item_id"] for r in results] == ["TF3", "SE2"]
    assert [r["label"] for r in results] == ["correct", "incorrect"]
    assert {"score", "confidence", "concepts_hit", "misconceptions", "feedback"} <= set(results[0])


def test_jsonl_ignores_a_marked_sets_own_fields(grader: Grader) -> None:
    line = json.dumps({"item_id": "TF3", "verdict": False, "text": "x", "label": "partial"})
    assert "label" in run_jsonl(grader, [line])[0]


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ('{"item_id": "TF99", "text": "x"}', "unknown_item"),
        ("not json", "invalid_json"),
        ('{"item_id": "TF3"}', "invalid_request"),
        ('{"item_id": "TF3", "verdict": "maybe", "text": "x"}', "invalid_request"),
        ("[1, 2]", "invalid_request"),
        (json.dumps({"item_id": "TF3", "text": "a" * 4001}), "answer_too_long"),
    ],
)
def test_a_bad_line_gives_an_error_object_not_a_crash(
    grader: Grader, line: str, error: str
) -> None:
    good = json.dumps({"item_id": "TF3", "verdict": False, "text": "grads pile up"})
    results = run_jsonl(grader, [line, good])
    assert results[0]["error"] == error
    assert results[0]["line"] == 1
    assert results[1]["label"] == "correct"


def test_a_blank_line_gives_an_error_object_so_outputs_pair_with_inputs(grader: Grader) -> None:
    good = json.dumps({"item_id": "TF3", "verdict": False, "text": "grads pile up"})
    results = run_jsonl(grader, ["", good, "   "])
    assert [r.get("error") for r in results] == ["blank_line", None, "blank_line"]


def test_every_output_row_carries_its_input_line(grader: Grader) -> None:
    good = json.dumps({"item_id": "TF3", "verdict": False, "text": "grads pile up"})
    results = run_jsonl(grader, [good, "not json", good])
    assert [r["line"] for r in results] == [1, 2, 3]


@pytest.mark.parametrize("text", ["", "  \t "])
def test_an_empty_answer_is_an_error_object_not_a_grade(grader: Grader, text: str) -> None:
    [result] = run_jsonl(grader, [json.dumps({"item_id": "TF3", "verdict": False, "text": text})])
    assert (result["error"], result["item_id"]) == ("empty_answer", "TF3")
    assert "empty answer" in result["message"]


def test_lone_surrogates_in_a_line_give_a_result_not_a_crash(grader: Grader) -> None:
    lines = [
        '{"item_id": "TF3", "text": "caf\\udce9 accumulates"}',
        '{"item_id": "T\\ud800", "text": "x"}',
    ]
    graded, unknown = run_jsonl(grader, lines)
    assert graded["label"] in {"correct", "partial", "incorrect"}
    assert (unknown["error"], unknown["item_id"]) == ("unknown_item", "T\ufffd")


def test_jsonl_exits_1_when_a_line_was_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    good = json.dumps({"item_id": "TF3", "verdict": False, "text": "grads pile up"})
    monkeypatch.setattr("sys.stdin", io.StringIO(good + "\n\n"))
    assert main(["grade", "--jsonl", "--content", str(PACK)]) == 1


def test_jsonl_exits_0_when_every_line_was_graded(monkeypatch: pytest.MonkeyPatch) -> None:
    good = json.dumps({"item_id": "TF3", "verdict": False, "text": "grads pile up"})
    monkeypatch.setattr("sys.stdin", io.StringIO(good + "\n"))
    assert main(["grade", "--jsonl", "--content", str(PACK)]) == 0


def test_grade_one_answer_prints_feedback(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["grade", "TF3", "--verdict", "false", "--text", "grads add up", "--content", str(PACK)]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith("Correct (score")


def test_grade_one_answer_prints_plain_text_without_markdown_escapes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["grade", "TF5", "--text", "no idea", "--content", str(PACK)])
    feedback = capsys.readouterr().out.split("\nlabel=")[0]
    assert feedback.startswith("Not quite (score")
    assert "grad_fn" in feedback  # Discord's markdown shows grad\\_fn
    assert "**" not in feedback
    assert "\\" not in feedback


def test_grade_without_jsonl_or_item_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "--content", str(PACK)]) == 2
    assert "--jsonl" in capsys.readouterr().err


def test_content_test_passes_on_good_rubrics(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "test", str(PACK)]) == 0
    assert "overall: " in capsys.readouterr().out


def test_content_test_passes_on_the_shipped_bank(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "test"]) == 0


def test_content_test_fails_on_an_incorrect_sample_graded_correct(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(BROKEN_RUBRIC, encoding="utf-8")
    assert main(["content", "test", str(pack)]) == 1
    captured = capsys.readouterr()
    assert "INCORRECT GRADED CORRECT" in captured.out
    assert "FAILED" in captured.err


def test_content_test_fails_when_an_items_own_answer_is_not_graded_correct(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = "text: False. backward() adds into .grad, so it holds the sum over both calls."
    wrong = "text: False. The second backward overwrites .grad with the latest gradient."
    source = PACK.read_text(encoding="utf-8")
    assert good in source
    pack = tmp_path / "pack.yaml"
    pack.write_text(source.replace(good, wrong), encoding="utf-8")
    assert main(["content", "test", str(pack)]) == 1
    captured = capsys.readouterr()
    assert "TF3[answer]" in captured.out
    assert "ANSWER KEY NOT CORRECT" in captured.out
    assert "answer graded correct" in captured.err


def test_content_test_names_concepts_that_never_fire(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(BROKEN_RUBRIC, encoding="utf-8")
    main(["content", "test", str(pack)])
    assert "never-fires" in capsys.readouterr().out


def test_content_test_rejects_unknown_item_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "test", str(PACK), "--item", "TF99"]) == 2


CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.mark.parametrize(
    ("item", "verdict", "text", "concept"),
    [
        # fresh26: ✓ lines and "Partly there (0.40)", nothing that said why (its own answer,
        # "each path contributes and the chain rule adds them up", is correct since round 22)
        ("WHY1", [], "the chain rule adds up each path", "separate-effects"),
        ("SE2", [], "you need retain_graph", "saved-tensors-freed"),
        (
            "TF10",
            ["--verdict", "false"],
            "false, you still need torch.no_grad()",
            "eval-is-not-grad-mode",
        ),
    ],
)
def test_a_partial_answer_with_only_ticks_is_told_the_missing_key_point(
    capsys: pytest.CaptureFixture[str], item: str, verdict: list[str], text: str, concept: str
) -> None:
    found = load_bank([CONTENT]).get(item)
    assert found is not None
    nudge = next(c.nudge for c in found.rubric.concepts if c.id == concept)
    status = main(["grade", item, *verdict, "--text", text, "--content", str(CONTENT)])
    feedback = capsys.readouterr().out.split("\nlabel=")[0]
    assert status == 0
    assert feedback.startswith("Partly there (score")
    assert "✓ " in feedback
    assert "✗ " not in feedback
    assert f"→ {KEY_POINT_NUDGE}\n→ {nudge}\n" in feedback
