"""The autograd-advanced pack: new items that extend the source bank without clashing with it.

The source bank's ids (TF1-TF8, SE1-SE7, WHY1-WHY7, EC1-EC7) belong to the autograd-core
pack and to an independent evaluation set written against them, so new items must continue
each series after the bank's last number (issue 2, item 6).
"""

from __future__ import annotations

import re

import pytest

from bot.content.loader import load_pack
from bot.content.models import Item, Kind, Label, Pack
from tests.conftest import CONTENT

PACK_FILE = CONTENT / "autograd-advanced.yaml"

BANK_LAST: dict[Kind, int] = {
    Kind.TRUE_FALSE: 8,
    Kind.SPOT_THE_ERROR: 7,
    Kind.WHY: 7,
    Kind.EDGE_CASE: 7,
}
"""Highest id number per series in the source bank (../shared/seeds/...question-bank.txt)."""

MEMORY_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


@pytest.fixture(scope="module")
def pack() -> Pack:
    return load_pack(PACK_FILE)


def test_pack_has_at_least_sixteen_items(pack: Pack) -> None:
    assert pack.pack == "autograd-advanced"
    assert len(pack.items) >= 16


def test_new_ids_continue_each_series_after_the_bank(pack: Pack) -> None:
    for item in pack.items:
        assert item.number > BANK_LAST[item.kind], f"{item.id} reuses a source-bank id"


def test_each_series_continues_without_holes(pack: Pack) -> None:
    by_kind: dict[Kind, list[int]] = {}
    for item in pack.items:
        by_kind.setdefault(item.kind, []).append(item.number)
    for kind, numbers in by_kind.items():
        first = BANK_LAST[kind] + 1
        assert sorted(numbers) == list(range(first, first + len(numbers))), kind


def test_items_are_spread_over_all_four_kinds(pack: Pack) -> None:
    counts = {kind: sum(item.kind is kind for item in pack.items) for kind in Kind}
    assert min(counts.values()) >= 4, counts


def test_every_item_has_eight_marked_samples(pack: Pack) -> None:
    for item in pack.items:
        assert len(item.samples) >= 8, item.id
        incorrect = [s for s in item.samples if s.label is Label.INCORRECT]
        assert len(incorrect) >= 3, item.id


def _has_text_only_verdict(item: Item) -> bool:
    return any(sample.verdict is None for sample in item.samples)


def test_true_false_items_have_a_sample_whose_verdict_is_only_in_the_text(pack: Pack) -> None:
    for item in pack.items:
        if item.kind is Kind.TRUE_FALSE:
            assert _has_text_only_verdict(item), item.id


def test_recorded_outputs_hold_no_memory_addresses(pack: Pack) -> None:
    for item in pack.items:
        assert not MEMORY_ADDRESS.search(item.expected_output), item.id
