"""The shared synonym table: valid data, directed, one level deep."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.grading.synonyms import (
    SynonymTable,
    expansions_for_prefix,
    expansions_for_word,
    merged,
    shared_table,
)


def test_the_shipped_table_is_valid() -> None:
    assert "accumulate" in shared_table().synonyms


def test_a_head_must_be_one_word() -> None:
    with pytest.raises(ValidationError, match="one lower-case word"):
        SynonymTable.model_validate({"synonyms": {"add up": ["x"]}, "domain_terms": []})


def test_an_alternative_must_follow_the_pattern_grammar() -> None:
    with pytest.raises(ValidationError):
        SynonymTable.model_validate({"synonyms": {"add": ["a||b"]}, "domain_terms": []})


def test_a_word_expands_by_its_stem() -> None:
    assert "pile* up" in expansions_for_word("accumulates", merged({}))


def test_a_prefix_expands_to_the_heads_it_starts() -> None:
    assert "pile* up" in expansions_for_prefix("accumulat", merged({}))


def test_a_short_prefix_does_not_expand() -> None:
    assert expansions_for_prefix("acc", merged({})) == ()


def test_expansion_is_directed() -> None:
    assert expansions_for_word("pile", merged({})) == ()


def test_reset_is_not_a_synonym_of_overwrite() -> None:
    assert not any("reset" in alt for alt in expansions_for_word("overwrite", merged({})))


def test_item_synonyms_add_to_the_shared_ones() -> None:
    table = merged({"overwrite": ["reset*"]})
    alternatives = expansions_for_word("overwrite", table)
    assert "reset*" in alternatives
    assert "replac*" in alternatives
