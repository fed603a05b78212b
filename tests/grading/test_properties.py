"""Properties that hold for any input (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.content.models import Label
from bot.grading import MAX_ANSWER_CHARS, Grader, Response

ITEMS = ["TF1", "TF3", "TF4", "TF5", "SE2", "EC6", "WHY2", "EC1"]
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

markdownish = st.lists(
    st.sampled_from(
        [
            "**",
            "*",
            "_",
            "~~",
            "`",
            "```",
            "||",
            "> ",
            "# ",
            "- ",
            "\n",
            "<@123>",
            "@everyone",
            "<#9>",
            "x.grad",
            "zero_grad()",
            "not",
            "no",
            "never",
            "isn't",
            "4 + 4 = 8",
            "=",
            "(",
            ")",
            "[",
            "]",
            ".",
            "?",
            "!",
            ",",
            "accumulates",
            "overwrite",
            "False",
            "true",
            "8.",
            "tensor([8.])",
            "—",
            "’",
            "requires_grad=False",
            "None",
            "if",
            "without",
            "ﷺ",
        ]
    ),
    max_size=80,
).map(" ".join)

texts = st.one_of(
    st.text(max_size=400),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=MAX_ANSWER_CHARS),
    markdownish,
    st.just(""),
    st.just("a" * MAX_ANSWER_CHARS),
    st.just("not " * (MAX_ANSWER_CHARS // 4)),
    st.just("x.grad " * (MAX_ANSWER_CHARS // 7)),
)


@SETTINGS
@given(item_id=st.sampled_from(ITEMS), verdict=st.sampled_from([None, True, False]), text=texts)
def test_grading_never_raises_and_scores_stay_in_range(
    grader: Grader, item_id: str, verdict: bool | None, text: str
) -> None:
    result = grader.grade(Response(item_id=item_id, verdict=verdict, text=text))
    assert 0.0 <= result.score <= 1.0
    assert 0.0 <= result.confidence <= 1.0


@SETTINGS
@given(text=texts)
def test_the_label_agrees_with_the_score_band(grader: Grader, text: str) -> None:
    result = grader.grade(Response(item_id="TF3", verdict=False, text=text))
    if result.label is Label.CORRECT:
        assert result.score >= 0.75
    elif result.label is Label.PARTIAL:
        assert 0.4 <= result.score < 0.75
    else:
        assert result.score < 0.4


# Correct answers paired with their key clause negated; the negation must never help.
NEGATABLE = [
    ("TF3", False, "grads accumulate", "grads do not accumulate"),
    ("TF3", False, "backward adds to .grad", "backward never adds to .grad"),
    ("TF3", False, "the gradients pile up", "the gradients don't pile up"),
    (
        "TF5",
        False,
        "x = x + 1 makes a new tensor, not a leaf",
        "x = x + 1 makes a new tensor, a leaf",
    ),
    (
        "SE2",
        None,
        "it errors because the graph was freed",
        "it does not error because the graph was not freed",
    ),
    ("EC6", None, "8, the grads accumulate", "not 8, the grads do not accumulate"),
    ("EC1", None, "None, no backward has run", "not None, no backward has run"),
    (
        "TF4",
        True,
        "a leaf was not created by an op, so grad_fn is None",
        "a leaf was created by an op, so grad_fn is not None",
    ),
]


@SETTINGS
@given(
    case=st.sampled_from(NEGATABLE),
    prefix=st.sampled_from(["", "I think ", "Well, ", "ok so "]),
    suffix=st.sampled_from(["", ".", "!", " :)", " tbh"]),
)
def test_negating_the_key_clause_never_raises_the_score(
    grader: Grader, case: tuple[str, bool | None, str, str], prefix: str, suffix: str
) -> None:
    item_id, verdict, right, negated = case
    before = grader.grade(Response(item_id=item_id, verdict=verdict, text=prefix + right + suffix))
    after = grader.grade(Response(item_id=item_id, verdict=verdict, text=prefix + negated + suffix))
    assert after.score <= before.score
    assert after.label is not Label.CORRECT


@pytest.mark.parametrize(("item_id", "verdict", "right", "negated"), NEGATABLE)
def test_every_negatable_sample_is_correct_before_negation(
    grader: Grader, item_id: str, verdict: bool | None, right: str, negated: str
) -> None:
    result = grader.grade(Response(item_id=item_id, verdict=verdict, text=right))
    assert result.label is Label.CORRECT
