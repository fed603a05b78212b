"""The examiner's held-out split, graded with the shipped bank: issue 4's targets.

``tests/grading/eval/test.jsonl`` holds 179 marked learner answers to the 29 bank items,
written without seeing any rubric (tests/grading/eval/README.md). Its rule: whoever tunes
rubrics or the grader reads ``dev.jsonl``, and only the *numbers* of ``test.jsonl``. So a
failure here prints per-item numbers, never an answer; to see misses, run
``tutor content eval tests/grading/eval/dev.jsonl``.

These tests are the gate the rubric tuners work towards; they fail until the tuned rubrics
are merged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content.loader import Bank
from bot.grading import Grader
from bot.grading.evaluation import EvalReport, evaluate, load_marked

TEST_SPLIT = Path(__file__).parent / "eval" / "test.jsonl"


@pytest.fixture(scope="module")
def report(bank: Bank) -> EvalReport:
    """The held-out split graded with every shipped pack."""
    return evaluate(Grader(bank), load_marked(TEST_SPLIT))


def _numbers(report: EvalReport) -> str:
    return (
        f"\n{report.targets_summary()}\n\n{report.confusion_table()}\n\n{report.item_table()}\n"
        "(numbers only: this split is held out; tune on tests/grading/eval/dev.jsonl)"
    )


# Each test asserts a plain bool with a numbers-only message, so that pytest's assertion
# introspection never prints the report (whose answers carry their texts).


def test_the_held_out_split_is_graded_whole(report: EvalReport) -> None:
    refused = sum(g.got is None for g in report.graded)
    total = report.total
    assert total == 179
    assert refused == 0, "an item id of the split is missing from the bank"


def test_three_way_agreement_is_at_least_ninety_percent(report: EvalReport) -> None:
    met = report.meets_agreement()
    assert met, _numbers(report)


def test_at_most_two_percent_of_incorrect_answers_are_graded_correct(report: EvalReport) -> None:
    met = report.meets_incorrect_as_correct()
    assert met, _numbers(report)


def test_at_most_five_percent_of_opposite_claims_are_graded_correct(report: EvalReport) -> None:
    met = report.meets_opposite_as_correct()
    assert met, _numbers(report)
