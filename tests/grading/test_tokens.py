"""The code-aware tokenizer: code stays whole with canonical forms; prose splits into words."""

from __future__ import annotations

import pytest

from bot.grading.normalize import normalize
from bot.grading.sentences import segment
from bot.grading.tokens import BREAK, CODE, END, NUM, OP, WORD, pieces


def tokens(text: str) -> list[tuple[int, str]]:
    stream = segment(normalize(text))
    return list(zip(stream.kind, stream.surf, strict=True))


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("x.grad", "x.grad"),
        (".grad", ".grad"),
        ("zero_grad()", "zero_grad"),
        ("optimizer.zero_grad()", "optimizer.zero_grad"),
        ("x.grad.zero_()", "x.grad.zero_"),
        ("requires_grad=True", "requires_grad=true"),
        ("retain_graph = True", "retain_graph=true"),
        ("torch.no_grad():", "torch.no_grad"),
        ("loss.backward()", "loss.backward"),
        ("x.is_leaf == False", "x.is_leaf=false"),
        ("grad_fn is None", "grad_fn=none"),
    ],
)
def test_code_stays_one_token_with_a_canonical_form(text: str, canonical: str) -> None:
    assert tokens(text) == [(CODE, canonical)]


def test_no_grad_and_zero_grad_stay_different() -> None:
    assert tokens("no_grad zero_grad") == [(CODE, "no_grad"), (CODE, "zero_grad")]


def test_true_and_false_values_stay_different() -> None:
    assert tokens("requires_grad=True requires_grad=False") == [
        (CODE, "requires_grad=true"),
        (CODE, "requires_grad=false"),
    ]


def test_keyword_arguments_inside_a_call_are_their_own_token() -> None:
    assert tokens("y.backward(retain_graph=True)") == [
        (CODE, "y.backward"),
        (CODE, "retain_graph=true"),
    ]


def test_attribute_assignment_keeps_its_number() -> None:
    assert tokens("x.grad = 8") == [(CODE, "x.grad"), (OP, "="), (NUM, "8")]


def test_printed_tensor_yields_its_number() -> None:
    assert (NUM, "8") in tokens("tensor([8.])")


def test_hyphenated_words_split_into_words() -> None:
    assert tokens("non-leaf") == [(WORD, "non"), (WORD, "leaf")]


def test_spaced_dash_is_a_clause_break_not_minus() -> None:
    assert pieces("-") == ((BREAK, "-"),)


def test_negative_numbers_keep_their_sign() -> None:
    assert tokens("-1.5") == [(NUM, "-1.5")]


def test_coefficients_and_ordinals_are_words() -> None:
    assert tokens("2x 2nd") == [(WORD, "2x"), (WORD, "2nd")]


def test_a_missing_space_after_a_full_stop_splits_prose() -> None:
    assert pieces("accumulates.the") == ((WORD, "accumulates"), (END, "."), (WORD, "the"))


def test_short_dotted_names_are_code() -> None:
    assert pieces("nn.linear") == ((CODE, "nn.linear"),)


def test_operators_are_tokens() -> None:
    assert tokens("x.grad += g") == [(CODE, "x.grad"), (OP, "+="), (WORD, "g")]


def test_a_number_may_start_with_its_decimal_point() -> None:
    stream = segment(normalize("x.grad = tensor([.5, 0., .5])"))
    assert sorted(stream.values.values()) == [0.0, 0.5, 0.5]


def test_a_dot_after_a_name_is_no_decimal_point() -> None:
    assert (NUM, ".5") not in pieces("x.5")
