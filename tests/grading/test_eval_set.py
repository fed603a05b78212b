"""The examiners' held-out splits, graded with the shipped bank: issue 4's targets.

``tests/grading/eval/test.jsonl`` holds 179 marked learner answers to the 29 bank items and
``tests/grading/eval3/test2.jsonl`` (where present) 500 to all 50 items, written without
seeing any rubric (see each directory's README). Their rule: whoever tunes rubrics or the
grader reads the dev sets, and only the *numbers* of a held-out split. So a failure here
prints per-item numbers, never an answer; to see misses, run ``tutor content eval`` on a
dev set.

These tests are the gate the rubric tuners work towards; they fail until the tuned rubrics
meet the targets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content.loader import Bank
from bot.grading import Grader
from bot.grading.evaluation import EvalReport, evaluate, load_marked

HERE = Path(__file__).parent
HELD_OUT = {"eval/test.jsonl": 179, "eval3/test2.jsonl": 500}
"""Held-out split (relative to this directory) -> its number of answers."""

_reports: dict[str, EvalReport] = {}


@pytest.fixture(params=sorted(HELD_OUT), scope="module")
def split(request: pytest.FixtureRequest) -> str:
    """A held-out split that this checkout has (eval3 arrives with its own branch)."""
    name: str = request.param
    if not (HERE / name).exists():
        pytest.skip(f"{name} is not in this checkout")
    return name


@pytest.fixture(scope="module")
def report(bank: Bank, split: str) -> EvalReport:
    """The split graded with every shipped pack (once per split)."""
    if split not in _reports:
        _reports[split] = evaluate(Grader(bank), load_marked(HERE / split))
    return _reports[split]


def _numbers(split: str, report: EvalReport) -> str:
    return (
        f"\n{split}\n{report.targets_summary()}\n\n{report.confusion_table()}\n\n"
        f"{report.item_table()}\n(numbers only: this split is held out; tune on a dev set)"
    )


# Each test asserts a plain bool with a numbers-only message, so that pytest's assertion
# introspection never prints the report (whose answers carry their texts).


def test_the_held_out_split_is_graded_whole(split: str, report: EvalReport) -> None:
    refused = sum(g.got is None for g in report.graded)
    total = report.total
    assert total == HELD_OUT[split]
    assert refused == 0, "an item id of the split is missing from the bank"


def test_three_way_agreement_is_at_least_ninety_percent(split: str, report: EvalReport) -> None:
    met = report.meets_agreement()
    assert met, _numbers(split, report)


def test_at_most_two_percent_of_incorrect_answers_are_graded_correct(
    split: str, report: EvalReport
) -> None:
    met = report.meets_incorrect_as_correct()
    assert met, _numbers(split, report)


def test_at_most_five_percent_of_opposite_claims_are_graded_correct(
    split: str, report: EvalReport
) -> None:
    met = report.meets_opposite_as_correct()
    assert met, _numbers(split, report)
