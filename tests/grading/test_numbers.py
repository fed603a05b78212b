"""Numbers: stated values compared numerically; wrong arithmetic, counts and coefficients."""

from __future__ import annotations

import pytest

from bot.grading.normalize import normalize
from bot.grading.sentences import segment


def values(text: str) -> list[float]:
    stream = segment(normalize(text))
    return [stream.values[i] for i in sorted(stream.values)]


@pytest.mark.parametrize("text", ["8", "8.0", "eight", "tensor([8.])", "x.grad = 8", "Eight."])
def test_the_ways_to_state_eight(text: str) -> None:
    assert values(text) == [8.0]


def test_correct_arithmetic_keeps_its_numbers() -> None:
    assert values("4 + 4 = 8") == [4.0, 4.0, 8.0]


@pytest.mark.parametrize("text", ["4 + 4 = 9", "2 * 4 = 6", "four plus four is nine", "4+4=16"])
def test_wrong_arithmetic_states_no_numbers(text: str) -> None:
    stream = segment(normalize(text))
    assert stream.values == {}
    assert stream.wrong_arithmetic


def test_a_chain_of_equal_results_holds() -> None:
    assert not segment(normalize("2*2 + 2*2 = 8 = eight")).wrong_arithmetic


def test_precedence_is_respected() -> None:
    assert not segment(normalize("2 + 2 * 3 = 8")).wrong_arithmetic


@pytest.mark.parametrize("text", ["x ** 2", "2 * x", "x = x + 1", "2x"])
def test_coefficients_and_exponents_are_not_stated(text: str) -> None:
    assert values(text) == []


@pytest.mark.parametrize("text", ["the two calls", "2 backward passes", "three times"])
def test_counts_are_not_stated_values(text: str) -> None:
    assert values(text) == []


def test_a_count_needs_its_noun_in_the_same_clause() -> None:
    assert values("eight, grads add up") == [8.0]


def test_one_is_not_a_number_word() -> None:
    assert values("only the latest one") == []


def test_huge_powers_do_not_blow_up() -> None:
    assert segment(normalize("9 ** 999999 = 1")).wrong_arithmetic is False


def test_arithmetic_written_with_a_product_dot_holds() -> None:
    stream = segment(normalize("x.grad == 6 (= 2 + 2·2)"))
    assert not stream.wrong_arithmetic
    assert 6.0 in stream.values.values()


def test_an_arrow_before_any_operator_leads_on_rather_than_equals() -> None:
    stream = segment(normalize("call it on 3 -> 3 * 3 ** 2 = 27"))
    assert not stream.wrong_arithmetic
    assert 27.0 in stream.values.values()


def test_an_arrow_after_an_operator_states_a_result() -> None:
    assert segment(normalize("4 + 4 -> 9")).wrong_arithmetic


def test_a_number_before_a_bracket_is_a_label_not_an_operand() -> None:
    stream = segment(normalize("dL/dx = 2x (branch 1) + y (branch 2) = 6 + 4 = 10"))
    assert not stream.wrong_arithmetic
    assert 10.0 in stream.values.values()
    assert segment(normalize("(branch 2) 6 + 4 = 11")).wrong_arithmetic


def test_the_exponent_of_a_symbolic_term_starts_no_computation() -> None:
    assert not segment(normalize("d/dt t³ = 3t² = 3*9 = 27")).wrong_arithmetic
    assert segment(normalize("x = 2 + 2 = 5")).wrong_arithmetic
    assert segment(normalize("grad = 2*x = 2*3 = 7")).wrong_arithmetic
