"""Realistic learner answers (answers.yaml), each graded with its mark.

One test per answer, named by item and position, so a regression names the answer it broke.
The aggregate tests check the issue's targets on this set: >= 90% agreement on the 3-way
label, <= 2% of incorrect answers graded correct, <= 5% of "right words, opposite claim"
answers graded correct.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field

from bot.content.models import Label
from bot.grading import Grader, Response

ANSWERS = Path(__file__).parent / "answers.yaml"


class MarkedAnswer(BaseModel):
    """One line of answers.yaml."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    verdict: bool | None = Field(alias="v")
    label: Label = Field(alias="l")
    text: str = Field(alias="t")
    opposite: bool = Field(False, alias="o")
    known_miss: str | None = Field(None, alias="x")


def load_answers() -> list[tuple[str, int, MarkedAnswer]]:
    raw = yaml.safe_load(ANSWERS.read_text(encoding="utf-8"))
    out: list[tuple[str, int, MarkedAnswer]] = []
    for group, entries in raw.items():
        item_id = group.split("-")[0]
        for index, entry in enumerate(entries):
            out.append((item_id, index, MarkedAnswer.model_validate(entry)))
    return out


ALL = load_answers()


def _param(item_id: str, index: int, answer: MarkedAnswer) -> object:
    marks = [pytest.mark.xfail(reason=answer.known_miss, strict=True)] if answer.known_miss else []
    return pytest.param(item_id, answer, id=f"{item_id}-{index}", marks=marks)


@pytest.mark.parametrize(("item_id", "answer"), [_param(*entry) for entry in ALL])
def test_answer_is_graded_with_its_mark(grader: Grader, item_id: str, answer: MarkedAnswer) -> None:
    result = grader.grade(Response(item_id=item_id, verdict=answer.verdict, text=answer.text))
    assert result.label is answer.label, result.model_dump_json(indent=1)


def _labels(grader: Grader) -> list[tuple[MarkedAnswer, Label]]:
    return [
        (a, grader.grade(Response(item_id=i, verdict=a.verdict, text=a.text)).label)
        for i, _, a in ALL
    ]


def test_the_set_is_large_enough_to_measure() -> None:
    assert len(ALL) >= 150
    assert sum(a.opposite for _, _, a in ALL) >= 15


def test_agreement_is_at_least_ninety_percent(grader: Grader) -> None:
    graded = _labels(grader)
    assert sum(a.label is got for a, got in graded) / len(graded) >= 0.90


def test_at_most_two_percent_of_incorrect_answers_are_graded_correct(grader: Grader) -> None:
    incorrect = [got for a, got in _labels(grader) if a.label is Label.INCORRECT]
    assert sum(got is Label.CORRECT for got in incorrect) <= 0.02 * len(incorrect)


def test_at_most_five_percent_of_opposite_claims_are_graded_correct(grader: Grader) -> None:
    opposite = [got for a, got in _labels(grader) if a.opposite]
    assert sum(got is Label.CORRECT for got in opposite) <= 0.05 * len(opposite)
