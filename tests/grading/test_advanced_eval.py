"""The rubric author's fresh answers to the advanced items stay a usable measurement set.

`tests/grading/advanced_eval/` holds marked answers that `measure.py` grades; these tests
check the files themselves, so a bad edit is caught before a measurement silently drops
or mislabels answers.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from bot.content.loader import load_bank
from bot.content.models import Kind

HERE = Path(__file__).resolve().parent / "advanced_eval"


def _measure() -> ModuleType:
    spec = importlib.util.spec_from_file_location("advanced_measure", HERE / "measure.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measure() -> ModuleType:
    return _measure()


@pytest.mark.parametrize("name", ["answers.jsonl", "round2.jsonl"])
def test_every_advanced_item_has_every_label(measure: ModuleType, name: str) -> None:
    answers = measure.load_answers(HERE / name)
    pack = load_bank([measure.PACK_PATH])
    present = {(a.item_id, a.label) for a in answers}
    missing = [
        (item.id, label)
        for item in pack
        for label in ("correct", "partial", "incorrect")
        if (item.id, label) not in present
    ]
    assert not missing


@pytest.mark.parametrize("name", ["answers.jsonl", "round2.jsonl"])
def test_verdicts_only_on_true_false_items(measure: ModuleType, name: str) -> None:
    pack = load_bank([measure.PACK_PATH])
    kinds = {item.id: item.kind for item in pack}
    wrong = [
        a.item_id
        for a in measure.load_answers(HERE / name)
        if a.verdict is not None and kinds[a.item_id] is not Kind.TRUE_FALSE
    ]
    assert not wrong


def test_no_answer_text_repeats_within_an_item(measure: ModuleType) -> None:
    answers = [
        *measure.load_answers(HERE / "answers.jsonl"),
        *measure.load_answers(HERE / "round2.jsonl"),
    ]
    keys = [(a.item_id, a.text) for a in answers]
    assert len(keys) == len(set(keys))


def test_holdout_keeps_every_label_of_every_item(measure: ModuleType) -> None:
    answers = measure.load_answers(HERE / "answers.jsonl")
    split = measure.assign_split(answers)
    holdout = {(a.item_id, a.label) for a in answers if split[a] == "holdout"}
    tune = {(a.item_id, a.label) for a in answers if split[a] == "tune"}
    assert holdout == tune
