"""Rubric extensions: ``gist`` patterns, ``required_any`` groups, per-pattern polarity, and
gesture phrases ("somehow") that keep an answer partial."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.content.loader import parse_pack
from bot.content.models import Item, Label, Rubric
from bot.grading import GradeResult, Response, grade

PACK = """\
pack: rubric-extensions
title: Rubric extensions (gist, required_any, per-pattern polarity)
items:
  - id: EC9
    kind: edge_case
    prompt: >-
      Inside `with torch.no_grad():` you compute `y = w * x` with `w.requires_grad=True`.
      What does autograd know about y?
    answer:
      text: "Nothing: the multiplication is not recorded, so y has no grad_fn."
    explanation: Under no_grad autograd records no operation; results are plain tensors.
    hint: Print y.grad_fn and y.requires_grad.
    tags: [no-grad]
    difficulty: 2
    snippet: |
      print("fixture")
    expected_output: |
      fixture
    torch_version: 2.13.0
    rubric:
      concepts:
        - id: not-recorded
          description: operations inside no_grad are not recorded
          patterns:
            - "stop* track*|record*"
            - {seq: "record*|track*", polarity: deny}
            - {seq: "graph built|made|created", polarity: deny}
          nudge: Does autograd record the multiplication?
        - id: no-grad-fn
          description: y has no grad_fn
          polarity: deny
          patterns: ["`grad_fn`", "grad fn"]
          nudge: What is y.grad_fn?
        - id: no-requires-grad
          description: y does not require grad
          patterns: ["`requires_grad=False`", {seq: "requires grad", polarity: deny}]
          nudge: What is y.requires_grad?
      required: [not-recorded]
      required_any: [[no-grad-fn, no-requires-grad]]
      gist: ["detach*", "disconnect*", "cut off"]
      misconceptions:
        - id: grads-only
          description: believing no_grad only stops .grad from being updated
          patterns: ["only stop* updat*", "just skip* updat*"]
          cap: 0.3
          feedback: no_grad stops the recording itself; nothing about y reaches the graph.
    samples:
      - {label: correct, text: "It stops tracking, so y.grad_fn is None."}
      - {label: correct, text: "The op isn't recorded: y has requires_grad=False."}
      - {label: partial, text: "It's kind of detached from everything."}
      - {label: partial, text: "The multiplication is not recorded."}
      - {label: incorrect, text: "no_grad only stops updating .grad, y still has a grad_fn."}
      - {label: incorrect, text: "idk"}
"""


@pytest.fixture(scope="module")
def ec9() -> Item:
    """An edge case whose rubric uses all three extensions."""
    return parse_pack(PACK, "extensions.yaml").items[0]


def graded(item: Item, text: str) -> GradeResult:
    return grade(item, Response(item_id=item.id, text=text))


# ---- per-pattern polarity -------------------------------------------------------------


def test_a_deny_pattern_credits_its_affirm_concept_when_negated(ec9: Item) -> None:
    assert "not-recorded" in graded(ec9, "The op isn't recorded at all.").concepts_hit


def test_the_affirm_phrasing_of_the_same_concept_still_credits_it(ec9: Item) -> None:
    assert "not-recorded" in graded(ec9, "no_grad stops tracking the op").concepts_hit


def test_a_deny_pattern_stated_affirmatively_contradicts_the_concept(ec9: Item) -> None:
    result = graded(ec9, "The op is recorded as usual and y has a grad_fn.")
    assert "not-recorded" in result.concepts_contradicted
    assert result.label is Label.INCORRECT


def test_a_word_inside_a_longer_match_of_its_rule_is_not_counted_again(ec9: Item) -> None:
    # "tracking" alone would be an affirmed match of the deny pattern, i.e. a contradiction
    result = graded(ec9, "It stops tracking, so y.grad_fn is None.")
    assert result.concepts_contradicted == []
    assert result.confidence == 1.0


# ---- required_any ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "It stops tracking, so y.grad_fn is None.",
        "The op isn't recorded: y has requires_grad=False.",
    ],
)
def test_one_concept_of_a_required_group_is_enough_for_correct(ec9: Item, text: str) -> None:
    assert graded(ec9, text).label is Label.CORRECT


def test_an_answer_without_any_concept_of_a_required_group_is_partial(ec9: Item) -> None:
    result = graded(ec9, "The multiplication is not recorded.")
    assert result.label is Label.PARTIAL
    assert {"no-grad-fn", "no-requires-grad"} <= set(result.concepts_missing)


def test_contradicting_a_concept_of_a_required_group_is_incorrect(ec9: Item) -> None:
    assert graded(ec9, "Nothing is recorded but y still has a grad_fn.").label is Label.INCORRECT


# ---- gist ------------------------------------------------------------------------------


def test_a_gist_alone_is_partial(ec9: Item) -> None:
    result = graded(ec9, "It'll be detached.")
    assert (result.label, result.gist) == (Label.PARTIAL, True)
    assert result.concepts_hit == []
    assert result.feedback.right == []


def test_a_negated_gist_earns_nothing(ec9: Item) -> None:
    assert graded(ec9, "It is not detached.").label is Label.INCORRECT


def test_a_gist_in_a_condition_earns_nothing(ec9: Item) -> None:
    assert graded(ec9, "If you detach it, who knows.").label is Label.INCORRECT


def test_a_gist_next_to_a_misconception_is_incorrect(ec9: Item) -> None:
    result = graded(ec9, "It gets detached, no_grad only stops updating .grad.")
    assert result.label is Label.INCORRECT


def test_a_gist_in_a_long_answer_that_states_nothing_the_rubric_knows_earns_nothing(
    ec9: Item,
) -> None:
    text = "It gets detached because no_grad copies every tensor to another device first."
    result = graded(ec9, text)
    assert (result.label, result.gist) == (Label.INCORRECT, False)


def test_a_gist_never_makes_an_answer_correct(ec9: Item) -> None:
    result = graded(ec9, "Nothing is recorded, it is detached and disconnected.")
    assert result.label is Label.PARTIAL


# ---- gesture phrases -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "It stops tracking somehow, so y.grad_fn is None.",
        "Something to do with it not being recorded, y has no grad_fn.",
        "It isn't recorded or something, grad_fn is None.",
        "something something it stops tracking, y.grad_fn is None",
    ],
)
def test_a_gesture_phrase_keeps_a_complete_answer_partial(ec9: Item, text: str) -> None:
    result = graded(ec9, text)
    assert (result.label, result.gesture) == (Label.PARTIAL, True)


def test_a_gesture_is_nudged_to_spell_out_the_mechanism(ec9: Item) -> None:
    result = graded(ec9, "It stops tracking somehow, so y.grad_fn is None.")
    assert "Spell out the mechanism" in result.feedback.missing[0]


def test_an_on_topic_gesture_alone_is_partial(ec9: Item) -> None:
    result = graded(ec9, "something about y and w, I would have to check")
    assert (result.label, result.concepts_hit) == (Label.PARTIAL, [])


def test_something_as_a_plain_word_is_no_gesture(ec9: Item) -> None:
    result = graded(ec9, "It stops tracking, so y.grad_fn is None; something else needs it.")
    assert (result.label, result.gesture) == (Label.CORRECT, False)


# ---- schema ----------------------------------------------------------------------------


def _rubric(**extra: object) -> dict[str, object]:
    return {
        "concepts": [
            {"id": c, "description": c, "patterns": [c], "nudge": c} for c in ("a", "b", "c")
        ],
        "misconceptions": [{"id": "m", "description": "m", "patterns": ["m"], "cap": 0.3,
                            "feedback": "m"}],
        **extra,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"required_any": [["a", "zebra"]]}, "'zebra' is not one of"),
        ({"required_any": [["a"]]}, "at least two concept ids"),
        ({"required": ["a"], "required_any": [["a", "b"]]}, "'a' is already required"),
        ({"required_any": [["a", "b"], ["b", "c"]]}, "'b' is in two groups"),
        ({"gist": ["add*|"]}, "empty alternative"),
        ({"gist": [{"seq": "add* up", "polarity": "sideways"}]}, "polarity"),
    ],
)
def test_a_bad_extension_is_refused_with_a_reason(extra: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Rubric.model_validate(_rubric(**extra))


def test_rubrics_without_the_extensions_still_load() -> None:
    rubric = Rubric.model_validate(_rubric(required=["a"]))
    assert (rubric.required_any, rubric.gist) == ([], [])
