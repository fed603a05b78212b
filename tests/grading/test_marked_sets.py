"""Every marked answer set keeps the invariants its README promises.

One module for every set (it replaces the five per-set validator scripts). A failure names
the file, the line and what is wrong, never an answer's text: the held-out sets
(``eval/test.jsonl``, ``eval3/test2.jsonl``) must stay unread by whoever tunes. So every
assertion compares plain strings, ids or numbers held in local names (pytest explains the
sub-expressions of a failed assert, and an answer object would show its text). To measure
the grader on a set, use ``tutor content eval FILE [--numbers-only]``.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cache

import pytest

from bot.content.loader import Bank
from bot.content.models import Kind, Label
from bot.grading.evaluation import MarkedAnswer, load_marked
from tests.grading.marked_sets import (
    HERE,
    MARKED_SETS,
    SAME_WRITER,
    SPLIT_PAIRS,
    MarkedSet,
    assign_split,
    text_key,
)

FIELDS = frozenset({"item_id", "verdict", "text", "label", "style", "opposite_claim"})
"""The fields of a marked line (tests/grading/eval/README.md), all required."""

BY_PATH = {s.path: s for s in MARKED_SETS}


@cache
def answers_of(path: str) -> tuple[MarkedAnswer, ...]:
    """The answers of one registered set, read once per session."""
    return tuple(load_marked(BY_PATH[path].file))


@pytest.fixture(params=MARKED_SETS, ids=lambda s: s.path)
def marked(request: pytest.FixtureRequest) -> MarkedSet:
    """Each registered set in turn (the test id is its path, never a text)."""
    marked_set: MarkedSet = request.param
    return marked_set


def _where(marked: MarkedSet, answer: MarkedAnswer) -> str:
    return f"{marked.path}:{answer.line} ({answer.item_id})"


def test_every_marked_file_is_registered() -> None:
    found = {str(p.relative_to(HERE)) for p in HERE.rglob("*.jsonl")}
    assert found == set(BY_PATH)


def test_every_line_has_exactly_the_marked_fields(marked: MarkedSet) -> None:
    problems = []
    for number, line in enumerate(marked.file.read_text(encoding="utf-8").splitlines(), 1):
        data = json.loads(line)
        where = f"{marked.path}:{number}"
        if set(data) != FIELDS:
            problems.append(f"{where}: fields {sorted(set(data) ^ FIELDS)} differ")
        elif not isinstance(data["opposite_claim"], bool) or data["verdict"] not in (
            True,
            False,
            None,
        ):
            problems.append(f"{where}: opposite_claim or verdict is not a boolean")
        elif not isinstance(data["style"], str) or not data["style"]:
            problems.append(f"{where}: style is empty")
    assert not problems


def test_the_set_holds_its_documented_number_of_answers(marked: MarkedSet) -> None:
    count, documented = len(answers_of(marked.path)), marked.answers
    assert count == documented


def test_every_answer_is_for_one_of_the_sets_items(marked: MarkedSet, bank: Bank) -> None:
    allowed = set(marked.item_ids) & {item.id for item in bank}
    unknown = [_where(marked, a) for a in answers_of(marked.path) if a.item_id not in allowed]
    assert not unknown


def test_every_item_has_all_three_labels(marked: MarkedSet) -> None:
    present = defaultdict(set)
    for answer in answers_of(marked.path):
        present[answer.item_id].add(answer.label)
    missing = [i for i in marked.item_ids if present[i] != set(Label)]
    assert not missing


def test_every_item_has_its_opposite_claim_answers(marked: MarkedSet) -> None:
    counts = Counter(a.item_id for a in answers_of(marked.path) if a.opposite_claim)
    short = [i for i in marked.item_ids if counts[i] < marked.min_opposite]
    assert not short


def test_an_opposite_claim_is_marked_incorrect(marked: MarkedSet) -> None:
    wrong = [
        _where(marked, a)
        for a in answers_of(marked.path)
        if a.opposite_claim and a.label is not Label.INCORRECT
    ]
    assert not wrong


def test_a_verdict_is_only_on_true_false_items(marked: MarkedSet, bank: Bank) -> None:
    kinds = {item.id: item.kind for item in bank}
    wrong = [
        _where(marked, a)
        for a in answers_of(marked.path)
        if a.verdict is not None and kinds.get(a.item_id) is not Kind.TRUE_FALSE
    ]
    assert not wrong


def test_a_wrong_button_is_marked_incorrect(marked: MarkedSet, bank: Bank) -> None:
    # docs/MARKING.md: "true/false items: the verdict is wrong, whatever the text says".
    key = {item.id: item.answer.verdict for item in bank if item.kind is Kind.TRUE_FALSE}
    wrong = [
        _where(marked, a)
        for a in answers_of(marked.path)
        if a.verdict is not None
        and a.item_id in key
        and a.verdict != key[a.item_id]
        and a.label is not Label.INCORRECT
    ]
    assert not wrong


def test_no_answer_text_repeats_within_an_item(marked: MarkedSet) -> None:
    counts = Counter((a.item_id, text_key(a.text)) for a in answers_of(marked.path))
    repeated = sorted({item for (item, _), n in counts.items() if n > 1})
    assert not repeated


@pytest.mark.parametrize("paths", SAME_WRITER, ids="+".join)
def test_no_answer_text_repeats_across_one_writers_files(paths: tuple[str, str]) -> None:
    first, second = ({(a.item_id, text_key(a.text)) for a in answers_of(p)} for p in paths)
    shared = sorted({item for item, _ in first & second})
    assert not shared


@pytest.mark.parametrize("paths", SPLIT_PAIRS, ids="+".join)
def test_dev_and_test_follow_the_split_rule(paths: tuple[str, str]) -> None:
    dev, test = paths
    split = assign_split([*answers_of(dev), *answers_of(test)])
    misplaced = [
        f"{path}:{a.line} ({a.item_id}) belongs in {split[(a.item_id, a.text)]}"
        for path, name in ((dev, "dev"), (test, "test"))
        for a in answers_of(path)
        if split[(a.item_id, a.text)] != name
    ]
    assert not misplaced


@pytest.mark.parametrize("paths", SPLIT_PAIRS, ids="+".join)
def test_both_halves_of_a_split_cover_every_item_and_label(paths: tuple[str, str]) -> None:
    dev, test = ({(a.item_id, a.label) for a in answers_of(p)} for p in paths)
    assert dev == test
