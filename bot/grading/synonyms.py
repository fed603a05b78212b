"""The shared autograd synonym table (``synonyms.yaml``), validated when first loaded.

A rubric word is expanded with the alternatives listed under the head it stems to; a rubric
prefix (``accumulat*``, at least 4 letters) is expanded with every head it is a prefix of, when
the head is at most 3 letters longer. Item-level ``synonyms`` in a rubric are merged on top
(per head, appended). Expansion is one level deep and directed (head -> alternatives).
"""

from __future__ import annotations

import functools
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.content.patterns import PhraseStr
from bot.grading.lexicon import stem


class SynonymTable(BaseModel):
    """The shared table: head word -> alternative patterns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    synonyms: dict[str, list[PhraseStr]] = Field(description="head -> alternatives")
    domain_terms: list[str] = Field(description="words of the autograd domain (lower-case)")

    @field_validator("synonyms")
    @classmethod
    def _heads_are_words(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for head in value:
            if not head.isalpha() or head != head.lower():
                raise ValueError(f"synonym head {head!r} must be one lower-case word")
        return value


@functools.cache
def shared_table() -> SynonymTable:
    """The shipped table, loaded and validated once.

    Raises:
        pydantic.ValidationError: the shipped file is malformed (a packaging bug).
    """
    text = resources.files("bot.grading").joinpath("synonyms.yaml").read_text("utf-8")
    # BaseLoader keeps every scalar a string: "null", "no" and "on" are words here.
    return SynonymTable.model_validate(yaml.load(text, Loader=yaml.BaseLoader))  # noqa: S506


@functools.cache
def domain_stems() -> frozenset[str]:
    """Stems of the shared table's ``domain_terms``, its heads and their alternatives' words."""
    table = shared_table()
    words: set[str] = set(table.domain_terms) | set(table.synonyms)
    for alternatives in table.synonyms.values():
        for alternative in alternatives:
            words.update(w.rstrip("*") for w in alternative.replace("|", " ").split())
    return frozenset(stem(w) for w in words if w.isalpha())


def merged(item_synonyms: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """The shared table with an item's own synonyms appended, keyed by the head's stem.

    Args:
        item_synonyms: ``Rubric.synonyms`` (head -> alternatives, already validated).

    Returns:
        stem of head -> alternatives (patterns in the rubric grammar), shared ones first.
    """
    out: dict[str, list[str]] = {}
    for source in (shared_table().synonyms, item_synonyms):
        for head, alternatives in source.items():
            out.setdefault(stem(head.lower()), []).extend(alternatives)
    return {key: tuple(dict.fromkeys(values)) for key, values in out.items()}


def expansions_for_word(word: str, table: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Alternatives for a rubric word (matched on its stem)."""
    return table.get(stem(word), ())


def expansions_for_prefix(prefix: str, table: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Alternatives for a rubric prefix: those of every head it starts (4+ letters, 3 to spare).

    Heads are compared by their stems, which are what the table is keyed by.
    """
    if len(prefix) < 4:
        return ()
    out: list[str] = []
    for head_stem, alternatives in table.items():
        related = head_stem.startswith(prefix) or prefix.startswith(head_stem)
        if related and len(head_stem) - len(prefix) <= 3:
            out.extend(alternatives)
    return tuple(dict.fromkeys(out))
