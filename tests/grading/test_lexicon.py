"""Word forms: stems, irregular forms, British spellings and the typo rule."""

from __future__ import annotations

import pytest

from bot.grading.lexicon import (
    allowed_slips,
    is_known_word,
    lemma,
    prefix_within_slips,
    stem,
    within_slips,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("accumulates", "accumulating"),
        ("accumulated", "accumulate"),
        ("kept", "keep"),
        ("overwritten", "overwrite"),
        ("leaves", "leaf"),
        ("grads", "grad"),
        ("optimiser", "optimizer"),
        ("normalised", "normalized"),
    ],
)
def test_forms_of_one_word_share_a_stem(a: str, b: str) -> None:
    assert stem(a) == stem(b)


@pytest.mark.parametrize(("length", "slips"), [(3, 0), (4, 1), (7, 1), (8, 2), (12, 2)])
def test_typo_allowance_grows_with_word_length(length: int, slips: int) -> None:
    assert allowed_slips(length) == slips


@pytest.mark.parametrize(
    ("typed", "word", "slips"),
    [
        ("acumulate", "accumulate", 2),  # missing letter
        ("accumualte", "accumulate", 2),  # swapped letters
        ("accumullate", "accumulate", 2),  # extra letter
        ("accumilate", "accumulate", 2),  # replaced letter
        ("gradeint", "gradient", 2),
        ("leef", "leaf", 1),
    ],
)
def test_slips_within_the_allowance_match(typed: str, word: str, slips: int) -> None:
    assert within_slips(typed, word, slips)


def test_slips_beyond_the_allowance_do_not_match() -> None:
    assert not within_slips("acmlate", "accumulate", 2)


def test_short_words_allow_no_slip() -> None:
    assert not within_slips("sun", "sum", allowed_slips(3))


def test_prefix_slips_compare_prefixes() -> None:
    assert prefix_within_slips("acumulates", "accumulat", 2)


@pytest.mark.parametrize("word", ["lead", "one", "code", "tree", "node", "grab"])
def test_real_words_are_known(word: str) -> None:
    assert is_known_word(word)


@pytest.mark.parametrize("word", ["acumulate", "gradiants", "overwirtes", "flase"])
def test_typos_are_not_known_words(word: str) -> None:
    assert not is_known_word(word)


def test_lemma_leaves_regular_words_alone() -> None:
    assert lemma("raise") == "raise"
