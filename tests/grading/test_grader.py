"""The Grader: items, errors, verdict sources and the pure grade()."""

from __future__ import annotations

import pytest

from bot.content.loader import Bank, parse_pack
from bot.content.models import Item, Label
from bot.grading import (
    MAX_ANSWER_CHARS,
    AnswerTooLong,
    Grader,
    Response,
    UnknownItem,
    grade,
)
from tests.grading.conftest import grade as grade_text


def test_an_unknown_item_is_a_clear_error(grader: Grader) -> None:
    with pytest.raises(UnknownItem, match="TF99"):
        grader.grade(Response(item_id="TF99", text="x"))


def test_an_overlong_answer_is_refused_with_its_length(grader: Grader) -> None:
    with pytest.raises(AnswerTooLong, match="4,001 characters"):
        grader.response("TF3", False, "a" * (MAX_ANSWER_CHARS + 1))


def test_an_overlong_answer_that_skipped_validation_is_refused(grader: Grader) -> None:
    response = Response.model_construct(item_id="TF3", verdict=False, text="a" * 5000)
    with pytest.raises(AnswerTooLong):
        grader.grade(response)


def test_duplicate_item_ids_are_refused(tf3: Item) -> None:
    with pytest.raises(ValueError, match="duplicate item id"):
        Grader([tf3, tf3], warm=False)


def test_the_grader_knows_its_items(grader: Grader, pack: Bank) -> None:
    assert set(grader.item_ids) == {item.id for item in pack}
    assert "TF3" in grader
    assert grader.item("TF3").id == "TF3"


def test_pure_grade_matches_the_grader(grader: Grader, tf3: Item) -> None:
    response = Response(item_id="TF3", verdict=False, text="grads pile up")
    assert grade(tf3, response) == grader.grade(response)


def test_pure_grade_refuses_a_response_for_another_item(tf3: Item) -> None:
    with pytest.raises(ValueError, match="not 'TF3'"):
        grade(tf3, Response(item_id="TF5", text="x"))


def test_the_button_verdict_counts(grader: Grader) -> None:
    result = grade_text(grader, "TF3", "grads accumulate", verdict=False)
    assert result.verdict_source == "button"
    assert result.verdict_correct is True


def test_the_text_verdict_is_used_without_a_button(grader: Grader) -> None:
    result = grade_text(grader, "TF3", "Nope, grads accumulate")
    assert (result.verdict, result.verdict_source) == (False, "text")


def test_button_and_text_disagreeing_is_flagged(grader: Grader) -> None:
    result = grade_text(grader, "TF3", "True! grads accumulate", verdict=False)
    assert result.verdict_conflict
    assert result.verdict_correct is True


def test_no_verdict_anywhere_is_none(grader: Grader) -> None:
    result = grade_text(grader, "TF3", "grads accumulate")
    assert (result.verdict, result.verdict_source, result.verdict_correct) == (None, "none", None)


def test_a_full_reason_without_any_verdict_is_partial_and_asks_for_one(grader: Grader) -> None:
    reason = "each backward adds into x.grad, so the second call sums both gradients"
    with_verdict = grade_text(grader, "TF3", reason, verdict=False)
    without = grade_text(grader, "TF3", reason)
    assert with_verdict.label is Label.CORRECT
    assert without.label is Label.PARTIAL
    assert without.feedback.verdict is not None
    assert "true or false" in without.feedback.verdict


def test_other_kinds_ignore_the_button(grader: Grader) -> None:
    result = grade_text(grader, "SE2", "it errors, the graph was freed", verdict=True)
    assert result.verdict is None
    assert result.verdict_correct is None


def test_concepts_are_reported_hit_missing_and_contradicted(grader: Grader) -> None:
    result = grade_text(grader, "TF3", "False, it does not accumulate", verdict=False)
    assert result.concepts_hit == []
    assert result.concepts_contradicted == ["accumulates"]
    assert set(result.concepts_missing) == {"accumulates", "zeroing"}


YES_NO_ITEM = """\
pack: yes-no
title: A yes/no edge case
items:
  - id: EC5
    kind: edge_case
    prompt: Do batch-norm running statistics get gradients?
    answer: {text: "No. They are buffers updated by running averages, not by backprop."}
    explanation: Buffers do not require grad; forward updates them.
    hint: Look at requires_grad on running_mean.
    tags: [buffers]
    difficulty: 1
    snippet: |
      print("buffers")
    expected_output: |
      buffers
    torch_version: 2.13.0
    rubric:
      concepts:
        - id: buffers
          description: they are buffers, not parameters
          patterns: ["buffer*"]
          nudge: What kind of tensor is running_mean?
      required: [buffers]
      misconceptions:
        - id: learned
          description: believing backprop updates them
          patterns: ["updated|learned by backprop*"]
          cap: 0.3
          feedback: They are updated in forward, by running averages.
    samples:
      - {label: correct, text: "No, they are buffers."}
      - {label: correct, text: "no - buffers"}
      - {label: partial, text: "No."}
      - {label: partial, text: "Nope"}
      - {label: incorrect, text: "Yes, they are buffers."}
      - {label: incorrect, text: "idk"}
"""


@pytest.fixture(scope="module")
def yes_no_item() -> Item:
    return parse_pack(YES_NO_ITEM, "yes-no.yaml").items[0]


def test_a_bare_right_yes_no_on_another_kind_is_partial(yes_no_item: Item) -> None:
    result = grade(yes_no_item, Response(item_id="EC5", text="No."))
    assert result.label is Label.PARTIAL
    assert result.verdict is None


def test_a_wrong_yes_no_on_another_kind_is_incorrect(yes_no_item: Item) -> None:
    result = grade(yes_no_item, Response(item_id="EC5", text="Yes, they are buffers."))
    assert result.label is Label.INCORRECT
    assert result.feedback.verdict == "The answer is no."


def test_empty_text_with_the_right_button_is_partial(grader: Grader) -> None:
    assert grade_text(grader, "TF3", "", verdict=False).label is Label.PARTIAL


def test_empty_text_on_other_kinds_is_incorrect(grader: Grader) -> None:
    assert grade_text(grader, "SE2", "").label is Label.INCORRECT


def test_a_four_word_claim_with_a_verb_is_not_called_a_keyword_list() -> None:
    """A tester's "eval turns off autograd" (a wrong claim) was told "A list of keywords is
    not an explanation"; the feedback must answer the claim it makes."""
    from bot.content.loader import load_bank
    from tests.conftest import CONTENT

    bank_grader = Grader(load_bank([CONTENT]))
    result = bank_grader.grade(
        Response(item_id="TF10", verdict=False, text="eval turns off autograd")
    )
    assert "list of keywords" not in result.feedback.model_dump_json()
