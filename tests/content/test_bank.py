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
