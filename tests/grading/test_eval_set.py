"""The examiners' held-out splits, graded with the shipped bank: a regression floor.

``tests/grading/eval/test.jsonl`` holds 179 marked learner answers to the 29 bank items and
``tests/grading/eval3/test2.jsonl`` 500 to all 50 items, written without seeing any rubric
(see each directory's README). Their rule: whoever tunes rubrics or the grader reads the
tuning sets, and only the *numbers* of a held-out split. So a failure here prints numbers,
never an answer; to see misses, run ``tutor content eval`` on a tuning set.

Issue 4's targets (>= 90% agreement, <= 2% of incorrect answers graded correct, <= 5% of
opposite claims graded correct) are not met yet. They are reported, with the measured
numbers, by ``tutor content eval FILE --numbers-only``, in docs/GRADING.md ("Measured"), and
at the end of every pytest run that grades these splits (``conftest.py``'s terminal
summary). What CI asserts here is a regression floor: the level measured when the floor was
last raised, so that no engine or rubric change makes the held-out numbers worse unnoticed.
Raise the floors when the numbers improve (docs/GRADING.md says how).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.content.loader import Bank
from bot.grading import Grader
from bot.grading.evaluation import EvalReport, evaluate, load_marked
from tests.grading.marked_sets import HELD_OUT, MarkedSet


@dataclass(frozen=True)
class Floor:
    """What a held-out split must keep (shares, 0-1).

    Attributes:
        agreement: the 3-way agreement may not fall below this (set a couple of points
            under the value measured when the floor was last raised).
        incorrect_as_correct: the share of incorrect answers graded correct may not rise
            above this (the measured share or issue 4's 2%, whichever is larger).
        opposite_as_correct: the same for opposite claims (measured, or issue 4's 5%).
    """

    agreement: float
    incorrect_as_correct: float
    opposite_as_correct: float


FLOORS: dict[str, Floor] = {
    # Regression floors, a little under what main measured; the targets are 90%, 2% and 5%.
    # measured 149/179 = 83.2%, 0/63 incorrect and 0/29 opposite claims graded correct
    # (after rubric rounds 4-5)
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 151/179 = 84.4%, 0.0%, 0.0%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 151/179 = 84.4%, 0.0%, 0.0%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 152/179 = 84.9%, 0.0%, 0.0%
    # stop 19 (round 19 on dev19, fresh20 fixes, fix19 engine cases): 153/179 = 85.5%
    "eval/test.jsonl": Floor(agreement=0.84, incorrect_as_correct=0.02, opposite_as_correct=0.05),
    # measured 443/500 = 88.6%, 2/200 = 1.0% and 2/69 = 2.9% graded correct; after rubric
    # round 6 (stop 12) 447/500 = 89.4%, 1/200 = 0.5%, 1/69 = 1.4%; after rounds 7-8 (stop 13)
    # 452/500 = 90.4%, 0.5%, 1.4%
    # stop 15 (rounds 11-13 and this stop's engine rules): 456/500 = 91.2%, 0.0%, 0.0%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 458/500 = 91.6%, 0.0%, 0.0%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 456/500 = 91.2%, 0.0%, 0.0%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 457/500 = 91.4%, 0.0%, 0.0%
    "eval3/test2.jsonl": Floor(agreement=0.90, incorrect_as_correct=0.02, opposite_as_correct=0.05),
    # held-out set 3 (numbers only): 445/500 = 89.0% at the end of stop 10; after rubric
    # rounds 4-5 (tuned on dev4/dev5, not on it) 449/500 = 89.8%, 2/200 = 1.0%, 2/78 = 2.6%;
    # after rounds 7-8 (stop 13) 454/500 = 90.8%, 1.0%, 2.6%
    # stop 15 (rounds 11-13 and this stop's engine rules): 458/500 = 91.6%, 1.0%, 2.6%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 460/500 = 92.0%, 1.0%, 2.6%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 461/500 = 92.2%, 1.0%, 2.6%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 460/500 = 92.0%, 1.0%, 2.6%
    "eval5/test3.jsonl": Floor(agreement=0.91, incorrect_as_correct=0.02, opposite_as_correct=0.05),
    # held-out set 4, written blind this stop: first graded after round 4 at 449/500 = 89.8%,
    # 1.0%, 1.0%; after round 5 451/500 = 90.2%, 2/200 = 1.0%, 1/99 = 1.0%; after round 6
    # (stop 12) 455/500 = 91.0%, 1.0%, 1.0%; after rounds 7-8 (stop 13) 458/500 = 91.6%
    # stop 15 (rounds 11-13 and this stop's engine rules): 462/500 = 92.4%, 1.0%, 1.0%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 464/500 = 92.8%, 1.0%, 1.0%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 465/500 = 93.0%, 1.0%, 1.0%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 467/500 = 93.4%, 0.5%, 1.0%
    "eval7/test4.jsonl": Floor(agreement=0.92, incorrect_as_correct=0.02, opposite_as_correct=0.05),
    # held-out set 5, written blind this stop and graded once, after round 5: 447/500 =
    # 89.4%, 4/200 = 2.0% (at the target: the floor leaves one answer of room), 3/81 = 3.7%;
    # after round 6 (stop 12) 449/500 = 89.8%, 5/200 = 2.5% (over the 2% target), 4/81 = 4.9%;
    # after rounds 7-8 (stop 13) 459/500 = 91.8%, 3/200 = 1.5%, 2/81 = 2.5%
    # stop 15 (rounds 11-13 and this stop's engine rules): 467/500 = 93.4%, 1.0%, 1.2%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 468/500 = 93.6%, 1.0%, 1.2%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 469/500 = 93.8%, 1.0%, 1.2%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 469/500 = 93.8%, 1.0%, 1.2%
    "eval9/test5.jsonl": Floor(agreement=0.92, incorrect_as_correct=0.02, opposite_as_correct=0.05),
    # held-out set 6, written blind in stop 12; graded (numbers only) before rubric round 6
    # at 437/500 = 87.4%, 4/200 = 2.0%, 2/77 = 2.6%, and after it at 447/500 = 89.4%,
    # 4/200 = 2.0%, 2/77 = 2.6%; after rounds 7-8 (stop 13) 452/500 = 90.4%, 1.5%, 2.6%
    # stop 15 (rounds 11-13 and this stop's engine rules): 458/500 = 91.6%, 1.5%, 2.6%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 459/500 = 91.8%, 1.5%, 2.6%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 459/500 = 91.8%, 1.5%, 2.6%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 459/500 = 91.8%, 1.5%, 2.6%
    "eval12/test6.jsonl": Floor(
        agreement=0.90, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 7, written blind in stop 13 under the MARKING.md of eda8224; graded
    # (numbers only) before rubric round 7 at 436/500 = 87.2%, 4/200 = 2.0%, 0/78 = 0.0%;
    # after round 7 444/500 = 88.8%; after round 8 446/500 = 89.2%, 2.0%, 0.0%; after rounds
    # 9-10 (stop 14) 448/500 = 89.6%
    # stop 15 (rounds 11-13 and this stop's engine rules): 456/500 = 91.2%, 1.0%, 0.0%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 459/500 = 91.8%, 0.5%, 0.0%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 460/500 = 92.0%, 0.5%, 0.0%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 463/500 = 92.6%, 0.5%, 0.0%
    "eval14/test7.jsonl": Floor(
        agreement=0.90, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 8, written blind in stop 14; graded (numbers only) at the stop's start
    # (8144af1) at 453/500 = 90.6%, 5/200 = 2.5%, 5/83 = 6.0%; after rounds 9-10 (tuned on
    # dev10/dev11, not on it) 454/500 = 90.8%, 4/200 = 2.0%, 4/83 = 4.8%
    # stop 15 (rounds 11-13 and this stop's engine rules): 462/500 = 92.4%, 2.0%, 4.8%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 465/500 = 93.0%, 2.0%, 4.8%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 468/500 = 93.6%, 1.5%, 3.6%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 467/500 = 93.4%, 1.5%, 3.6%
    "eval16/test8.jsonl": Floor(
        agreement=0.92, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 9, written blind in stop 15; graded (numbers only) at the stop's start
    # (ccfa968, and again after two normalisation fixes) at 458/500 = 91.6%, 0/200 = 0.0%,
    # 0/77 = 0.0%
    # stop 15 (rounds 11-13 and this stop's engine rules): 462/500 = 92.4%, 0.0%, 0.0%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 463/500 = 92.6%, 0.0%, 0.0%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 463/500 = 92.6%, 0.0%, 0.0%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 465/500 = 93.0%, 0.0%, 0.0%
    "eval19/test9.jsonl": Floor(
        agreement=0.91, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 10, written blind in stop 16; graded (numbers only) on the stop's starting
    # commit (dbb56d3) at 461/500 = 92.2%, 2/200 = 1.0%, 0/83 = 0.0%
    # stop 16 (round 14 on dev14/dev15, fresh12-13 fixes, engine rules): 461/500 = 92.2%, 1.0%, 0.0%
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 461/500 = 92.2%, 1.0%, 0.0%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 464/500 = 92.8%, 1.0%, 0.0%
    "eval22/test10.jsonl": Floor(
        agreement=0.91, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 11, written blind in stop 17; graded (numbers only) on the stop's starting
    # commit (e308bcc) at 446/500 = 89.2%, 3/200 = 1.5%, 3/82 = 3.7%: the first blind set
    # since stop 12 to land under the agreement target at first read
    # stop 17 (round 16, fresh14-15 fixes, attributed beliefs): 447/500 = 89.4%, 1.5%, 3.7%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 449/500 = 89.8%, 1.5%, 3.7%
    # stop 19 (round 19 on dev19, fresh20 fixes, fix19 engine cases): 451/500 = 90.2%, 1.5%, 3.7%
    # stop 21 (round 21 on dev21, fresh24-25 fixes, dictation rules): 454/500 = 90.8%, 1.0%, 2.4%
    "eval25/test11.jsonl": Floor(
        agreement=0.90, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 12, written blind in stop 18; graded (numbers only) on the stop's starting
    # commit (e71019b) at 440/500 = 88.0%, 2/200 = 1.0%, 0/94 = 0.0%
    # stop 18 (round 18 on dev18, fresh18-19 fixes, self-corrections): 452/500 = 90.4%, 1.0%, 0.0%
    # stop 19 (round 19 on dev19, fresh20 fixes, fix19 engine cases): 455/500 = 91.0%, 1.0%, 0.0%
    # stop 20 (round 20 on dev20, fresh22-23 fixes, keyword-list and arrow rules): 459/500 = 91.8%
    # stop 21 (round 21 on dev21, fresh24-25 fixes, dictation rules): 461/500 = 92.2%, 1.0%, 0.0%
    # stop 22: 464/500 = 92.8%
    "eval28/test12.jsonl": Floor(
        agreement=0.92, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 13, written blind in stop 19; graded (numbers only) on the stop's starting
    # commit (9d8adcf) at 435/500 = 87.0%, 1/200 = 0.5%, 0/95 = 0.0%
    # stop 19 (round 19 on dev19, fresh20 fixes, fix19 engine cases): 438/500 = 87.6%, 0.5%, 0.0%
    # stop 20 (round 20 on dev20, fresh22-23 fixes, keyword-list and arrow rules): 444/500 = 88.8%
    # stop 21 (round 21 on dev21, fresh24-25 fixes, dictation rules): 445/500 = 89.0%, 0.5%, 0.0%
    "eval30/test13.jsonl": Floor(
        agreement=0.88, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 14, written blind in stop 20 (an international study group writing in a
    # second language); graded (numbers only) on the stop's starting commit (8e47db2) at
    # 445/500 = 89.0%, 4/200 = 2.0%, 1/96 = 1.0%
    # stop 20 (round 20 on dev20, fresh22-23 fixes): 450/500 = 90.0%, 1.5%, 1.0%
    "eval32/test14.jsonl": Floor(
        agreement=0.89, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 15, written blind in stop 21 (learners from other frameworks: voice-to-text
    # run-ons, JAX/TensorFlow analogies, calculus notation, everyday analogies); graded
    # (numbers only) on the stop's starting commit (7026755) at 450/500 = 90.0%, 3/200 = 1.5%,
    # 1/96 = 1.0%
    # stop 21 (round 21 on dev21, fresh24-25 fixes, dictation rules): 459/500 = 91.8%, 1.5%, 1.0%
    "eval34/test15.jsonl": Floor(
        agreement=0.91, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 16, written blind in stop 22 (code reviewers and the people they mentor:
    # review comments, debugging out loud, hedges, Socratic questions, beginners' words, exam
    # format); graded (numbers only) on the stop's starting commit (a3b48b6) at 461/500 =
    # 92.2%, 2/200 = 1.0%, 0/97 = 0.0%
    # stop 22 (round 22 on dev22, fresh26 fixes, hedge/verdict/number-word rules): 462/500 =
    # 92.4%, 1.0%, 0.0%
    "eval36/test16.jsonl": Floor(
        agreement=0.92, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
    # held-out set 17, written blind in stop 22's second session (phone chat-speak:
    # abbreviations, emoji, run-ons, autocorrect slips, split messages; and a formal academic
    # register); graded (numbers only) on the session's starting commit (328a54d) at
    # 461/500 = 92.2%, 3/200 = 1.5%, 2/91 = 2.2%
    "eval38/test17.jsonl": Floor(
        agreement=0.92, incorrect_as_correct=0.02, opposite_as_correct=0.05
    ),
}

reports: dict[str, EvalReport] = {}
"""Reports graded in this run, by split; ``conftest.py`` prints their targets summary."""


@pytest.fixture(params=HELD_OUT, ids=lambda s: s.path, scope="module")
def split(request: pytest.FixtureRequest) -> MarkedSet:
    """Each held-out split in turn."""
    held_out: MarkedSet = request.param
    return held_out


@pytest.fixture(scope="module")
def report(bank: Bank, split: MarkedSet) -> EvalReport:
    """The split graded with every shipped pack (once per split)."""
    if split.path not in reports:
        reports[split.path] = evaluate(Grader(bank), load_marked(split.file))
    return reports[split.path]


def _numbers(split: MarkedSet, report: EvalReport) -> str:
    return (
        f"\n{split.path}\n{report.targets_summary()}\n\n{report.confusion_table()}\n\n"
        f"{report.item_table()}\n(numbers only: this split is held out; tune on a dev set)"
    )


# Each test asserts a plain bool with a numbers-only message, so that pytest's assertion
# introspection never prints the report (whose answers carry their texts).


def test_every_floor_is_for_a_held_out_split() -> None:
    assert set(FLOORS) == {s.path for s in HELD_OUT}


def test_the_held_out_split_is_graded_whole(split: MarkedSet, report: EvalReport) -> None:
    refused = sum(g.got is None for g in report.graded)
    total, expected = report.total, split.answers
    assert total == expected
    assert refused == 0, "an item id of the split is missing from the bank"


def test_agreement_stays_at_its_floor(split: MarkedSet, report: EvalReport) -> None:
    met = report.meets_agreement(FLOORS[split.path].agreement)
    assert met, _numbers(split, report)


def test_incorrect_answers_graded_correct_stay_under_their_ceiling(
    split: MarkedSet, report: EvalReport
) -> None:
    met = report.meets_incorrect_as_correct(FLOORS[split.path].incorrect_as_correct)
    assert met, _numbers(split, report)


def test_opposite_claims_graded_correct_stay_under_their_ceiling(
    split: MarkedSet, report: EvalReport
) -> None:
    met = report.meets_opposite_as_correct(FLOORS[split.path].opposite_as_correct)
    assert met, _numbers(split, report)
