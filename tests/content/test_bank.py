"""Properties every shipped item must have beyond what the schema checks."""

from __future__ import annotations

import re

from bot.content.loader import Bank
from bot.content.models import SUPPORTED_TORCH, Kind

BANK_IDS = (
    [f"TF{i}" for i in range(1, 9)]
    + [f"SE{i}" for i in range(1, 8)]
    + [f"WHY{i}" for i in range(1, 8)]
    + [f"EC{i}" for i in range(1, 8)]
)


def test_every_item_was_recorded_with_the_pinned_torch(bank: Bank) -> None:
    assert {item.torch_version for item in bank} == {SUPPORTED_TORCH}


def test_snippets_are_cpu_only(bank: Bank) -> None:
    for item in bank:
        assert not re.search(r"\.cuda\(|device=['\"]cuda|\.to\(['\"]cuda", item.snippet), item.id


def test_snippets_print_something(bank: Bank) -> None:
    for item in bank:
        assert item.expected_output.strip(), f"{item.id} has an empty expected_output"


def test_series_have_no_holes(bank: Bank) -> None:
    by_kind: dict[Kind, list[int]] = {}
    for item in bank:
        by_kind.setdefault(item.kind, []).append(item.number)
    for kind, numbers in by_kind.items():
        assert sorted(numbers) == list(range(1, max(numbers) + 1)), kind


SHARED_CONCEPTS = {
    "accumulates": {"TF3", "EC6"},
    "rebuilt-each-pass": {"TF6", "WHY3"},
    "control-flow": {"TF6", "WHY3"},
    "retain-graph": {"SE2", "WHY4"},
    "linearity": {"WHY1", "WHY5"},
}
"""Concept ids several items use for one and the same fact (per-concept mastery adds them
up, and /stats names them in the first item's words)."""


def test_a_concept_id_shared_by_items_names_one_fact(bank: Bank) -> None:
    """Mastery is kept per concept id: an id two items use for different facts mixes them,
    and a learner saw SE8's "sigmoid saves its output y" under "to work on" after missing
    TF1. A new shared id must be the same fact and be listed here."""
    users: dict[str, set[str]] = {}
    for item in bank:
        for concept in item.rubric.concepts:
            users.setdefault(concept.id, set()).add(item.id)
    shared = {cid: items for cid, items in users.items() if len(items) > 1}
    assert shared == SHARED_CONCEPTS
