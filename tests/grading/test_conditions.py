"""Conditions and claims: a misconception stated through a condition is still a belief.

A span wholly inside an ``if`` clause states no belief; a span that runs from the
condition into the clause it governs states the implication, and the condition after
"only if" / "only when" is the requirement the learner claims (bot/grading/scoring.py
``misconception_found``, bot/grading/negation.py ``_necessary_condition``)."""

from __future__ import annotations

import pytest

from bot.content.loader import parse_pack
from bot.content.models import Item, Label
from bot.grading import GradeResult, Response, grade

PACK = """\
pack: conditions
title: Conditions and claims
items:
  - id: TF1
    kind: true_false
    prompt: "True or false: calling model.eval() clears the .grad of every parameter."
    answer:
      verdict: false
      text: "False: eval() only switches layers like dropout; .grad is untouched."
    explanation: eval() sets the training flag; it never touches gradients.
    hint: What does eval() change?
    tags: [modes]
    difficulty: 1
    snippet: |
      print("fixture")
    expected_output: |
      fixture
    torch_version: 2.13.0
    rubric:
      concepts:
        - id: flag-only
          description: eval() only switches layer behaviour (dropout, batchnorm)
          patterns: ["dropout|batchnorm|training flag|mode"]
          nudge: What does eval() actually switch?
      required: [flag-only]
      misconceptions:
        - id: eval-clears
          description: believing eval() clears gradients
          patterns: [{seq: "eval*|`model.eval()` clear*|wipe*|reset*", gap: 4},
                     {seq: "clear*|wipe*|reset* eval*|`model.eval()`", gap: 6}]
          cap: 0.3
          feedback: eval() changes layer behaviour, never .grad.
    samples:
      - {label: correct, verdict: false, text: "False, eval only changes dropout mode."}
      - {label: correct, verdict: false, text: "false - it flips the training flag for dropout"}
      - {label: partial, verdict: false, text: "False."}
      - {label: partial, verdict: false, text: "False, grads stay."}
      - {label: incorrect, verdict: true, text: "True, eval wipes the grads."}
      - {label: incorrect, verdict: false, text: "idk"}
"""


@pytest.fixture(scope="module")
def tf1() -> Item:
    return parse_pack(PACK, "conditions.yaml").items[0]


def graded(item: Item, text: str) -> GradeResult:
    return grade(item, Response(item_id=item.id, verdict=False, text=text))


@pytest.mark.parametrize(
    "text",
    [
        "False, dropout mode changes; the grads are wiped only when you call eval",
        "False, dropout mode changes, but grads get cleared only if eval is called",
        "False, dropout mode changes and if you call eval the grads are wiped",
    ],
)
def test_a_misconception_stated_through_a_condition_is_found(tf1: Item, text: str) -> None:
    result = graded(tf1, text)
    assert "eval-clears" in result.misconceptions
    assert result.label is Label.INCORRECT


@pytest.mark.parametrize(
    "text",
    [
        "False, it only changes dropout mode. If eval wiped the grads we would see zeros.",
        "False, dropout mode only, without eval, so nothing is wiped by it",
    ],
)
def test_a_misconception_inside_a_condition_or_across_so_is_not_a_belief(
    tf1: Item, text: str
) -> None:
    result = graded(tf1, text)
    assert result.misconceptions == []
    assert result.label is Label.CORRECT


def test_a_deny_pattern_running_into_a_condition_keeps_its_polarity() -> None:
    # dev15 (EC2): "... keeps grad None even if it affects the loss" is spelled by a deny
    # pattern of the misconception; its span runs into the "if" clause, and used to be
    # counted as the affirmed belief there (marked correct, graded incorrect).
    patterns = (
        '[{seq: "grads|grad stay|kept even if|though eval*", gap: 2, polarity: deny},\n'
        '                     {near: ["grads|grad", "eval*"], within: 6}]'
    )
    start = PACK.index("          patterns: [{seq:")
    end = PACK.index("          cap: 0.3")
    pack = PACK[:start] + f"          patterns: {patterns}\n" + PACK[end:]
    item = parse_pack(pack, "conditions.yaml").items[0]
    text = "False, it only switches dropout mode; the grads stay even if eval is called"
    assert graded(item, text).misconceptions == []
    assert (
        "eval-clears"
        in graded(item, "False, dropout mode, and eval resets the grads").misconceptions
    )
