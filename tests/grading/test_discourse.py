"""Discourse cues: hedges, asides, restatements and "I don't know" answers."""

from __future__ import annotations

import pytest

from bot.content.loader import Bank, parse_pack
from bot.content.models import Item, Label
from bot.grading import Grader, GradeResult, Response
from bot.grading.discourse import ends_asking, hedged, ignorance_only, may_retract
from bot.grading.feedback import UNRECOGNISED_REASON_CORRECTION
from bot.grading.normalize import normalize
from bot.grading.sentences import segment
from tests.grading.conftest import grade

PACK = """\
pack: discourse
title: Discourse cues
items:
  - id: WHY1
    kind: why
    prompt: >-
      The backward pass adds up the gradient contributions coming back from all the
      children of a node. Why is adding them the right thing to do?
    answer:
      text: "The multivariable chain rule: the total derivative sums the effect of every path."
    explanation: Each path changes the loss separately; the total change is their sum.
    hint: Write L = f(x) + g(x) and differentiate.
    tags: [chain-rule]
    difficulty: 2
    snippet: |
      print("fixture")
    expected_output: |
      fixture
    torch_version: 2.13.0
    rubric:
      concepts:
        - id: chain-rule
          description: the multivariable chain rule sums over paths
          patterns: ["chain rule", "total derivative"]
          nudge: Which rule of calculus says what to do with several paths?
        - id: adds-contributions
          description: the contributions are added up
          patterns: ["add* up", "sum*"]
          nudge: What happens to the contributions?
      required: [chain-rule]
      misconceptions:
        - id: multiply
          description: believing the paths multiply
          patterns: ["multipl*"]
          cap: 0.3
          feedback: Along one path derivatives multiply; across paths they add.
    samples:
      - {label: correct, text: "multivariable chain rule: the total derivative sums every path"}
      - {label: correct, text: "chain rule, the paths add up"}
      - {label: partial, text: "they add up"}
      - {label: partial, text: "you sum them"}
      - {label: incorrect, text: "the paths multiply"}
      - {label: incorrect, text: "idk"}
      - {label: incorrect, text: "because it is faster"}
  - id: TF2
    kind: true_false
    prompt: "True or false: autograd checks that a custom backward is right."
    answer:
      verdict: false
      text: "False. It trusts your backward; only gradcheck compares it with numbers."
    explanation: Autograd does not know the true derivative of a custom Function.
    hint: What would autograd compare it with?
    tags: [custom-function]
    difficulty: 2
    snippet: |
      print("fixture")
    expected_output: |
      fixture
    torch_version: 2.13.0
    rubric:
      concepts:
        - id: trusts-backward
          description: autograd cannot know the true derivative, so it trusts backward
          patterns: ["trust*", "not|n't know*"]
          nudge: What could autograd compare your backward with?
      misconceptions:
        - id: verifies
          description: believing autograd verifies backward
          patterns: ["verif*"]
          cap: 0.3
          feedback: Only gradcheck compares a backward with numerical derivatives.
    samples:
      - {label: correct, verdict: false, text: "it trusts your backward"}
      - {label: correct, verdict: false, text: "autograd doesn't know the real derivative"}
      - {label: partial, verdict: false, text: "False."}
      - {label: partial, verdict: false, text: "nope, it is up to you"}
      - {label: incorrect, verdict: true, text: "it verifies it"}
      - {label: incorrect, text: "idk"}
      - {label: incorrect, verdict: true, text: "yes"}
"""


@pytest.fixture(scope="module")
def discourse_grader() -> Grader:
    """A grader over the two inline items (WHY1, TF2)."""
    return Grader(parse_pack(PACK, "discourse.yaml").items)


def _stream(text: str):  # type: ignore[no-untyped-def]
    return segment(normalize(text))


# ---- hedges ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "grads accumulate across backward calls i think",
        "grads accumulate across calls, maybe?",
        "i guess they accumulate across calls",
        "they accumulate across calls, not sure why though",
    ],
)
def test_a_hedged_complete_answer_is_partial(grader: Grader, text: str) -> None:
    result = grade(grader, "TF3", text, verdict=False)
    assert (result.label, result.hedged) == (Label.PARTIAL, True)


def test_a_claim_in_uptalk_counts_as_a_hedged_claim(grader: Grader) -> None:
    result = grade(grader, "EC6", "tensor([8.]) i think?")
    assert (result.label, result.hedged, result.concepts_hit[:1]) == (
        Label.PARTIAL,
        True,
        ["eight"],
    )


def test_a_hedge_on_the_verdict_alone_does_not_cap_the_reasoning(grader: Grader) -> None:
    result = grade(grader, "TF3", "False I think, grads accumulate across calls", verdict=False)
    assert (result.label, result.hedged) == (Label.CORRECT, False)


def test_a_hedge_word_in_a_worked_explanation_is_conversation() -> None:
    text = (
        "honestly i think the += on x.grad isn't the line that broke. grad is a plain tensor so "
        "editing it records nothing; the x -= step on the leaf is what autograd refuses"
    )
    assert not hedged(_stream(text), 0)
    assert not hedged(_stream("ok so backward is kind of one-shot?? " + text), 0)
    assert hedged(_stream("honestly i think the += on x.grad isn't the line that broke"), 0)


def test_alternative_values_hedge_at_any_length() -> None:
    text = "it is 8 or 4, because each call adds 2x into the same .grad buffer and " * 2
    assert hedged(_stream(text), 0)


def test_i_do_not_think_so_is_no_hedge() -> None:
    assert not hedged(_stream("I don't think so, grads accumulate across calls"), 0)


def test_a_hedged_answer_is_nudged_to_commit(grader: Grader) -> None:
    result = grade(grader, "TF3", "grads accumulate across calls i think", verdict=False)
    assert result.feedback.missing[0].startswith("You hedged or asked instead of stating it")


# ---- asides ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "grads accumulate across calls. also .grad always lives on the cpu",
        "grads accumulate across calls (the cpu keeps a copy btw)",
        "grads accumulate across calls, plus the learning rate doubles",
        "grads accumulate across calls; the cpu copy gets freed tho",
        "grads accumulate across calls, even intermediate tensors keep theirs",
        "grads accumulate across calls, but only when the tensor lives on the gpu",
        "grads accumulate across calls only if the learning rate is small",
        "grads accumulate across calls, only when the tensor lives on the gpu",
        "grads accumulate across calls, which only happens when the lr is small",
        "grads accumulate across calls, but only after the first epoch ends",
        "grads accumulate across calls, only until the optimizer steps twice",
    ],
)
def test_an_unrecognised_side_claim_keeps_a_complete_answer_partial(
    grader: Grader, text: str
) -> None:
    result = grade(grader, "TF3", text, verdict=False)
    assert (result.label, result.aside) == (Label.PARTIAL, True)


def test_a_side_remark_the_rubric_recognises_is_no_aside(grader: Grader) -> None:
    result = grade(
        grader, "TF3", "grads accumulate across calls, also zero_grad resets them", verdict=False
    )
    assert (result.label, result.aside) == (Label.CORRECT, False)


@pytest.mark.parametrize(
    "text",
    [
        "grads accumulate across calls even if you call backward on another loss",
        "grads accumulate across calls, the learning rate is too big to notice",
        "grads accumulate across calls, 2 + 2 = 4 plus 4",
        "grads accumulate across calls, zero_grad doesn't even run by itself",
        "grads accumulate across calls (only if a graph saved .grad would += bite you)",
        "grads accumulate across calls; only leaves keep their grads",
    ],
)
def test_concessions_degrees_and_sums_are_no_asides(grader: Grader, text: str) -> None:
    assert not grade(grader, "TF3", text, verdict=False).aside


def test_an_also_before_the_key_claim_is_no_aside(grader: Grader) -> None:
    result = grade(grader, "TF3", "also the cpu copy: grads accumulate across calls", verdict=False)
    assert not result.aside


def test_an_aside_is_nudged_to_be_checked(grader: Grader) -> None:
    result = grade(
        grader, "TF3", "grads accumulate across calls. also .grad lives on the cpu", verdict=False
    )
    assert any(text.startswith("Check your side remark") for text in result.feedback.missing)


@pytest.mark.parametrize("text", ["abs: 0, sqrt version: nan", "abs 0 sqrt nan"])
def test_labelled_values_are_an_answer_not_a_keyword_list(bank: Bank, text: str) -> None:
    """EC9 asks only for two gradients: "abs: 0, sqrt version: nan" answers it (MARKING.md),
    and so does the unpunctuated "abs 0 sqrt nan" (stop 21's report: a keyword list)."""
    result = Grader(bank).grade(Response(item_id="EC9", text=text))
    assert result.label is Label.CORRECT


def test_unpunctuated_terms_without_values_are_still_a_keyword_list(bank: Bank) -> None:
    result = Grader(bank).grade(Response(item_id="EC6", text="grad 8 backward accumulate"))
    assert result.label is Label.INCORRECT


@pytest.mark.parametrize("text", ["8 maybe? or 4", "8 I think", "8 or 4", "8, or maybe 4"])
def test_a_hedged_or_offered_value_is_partial_at_best(bank: Bank, text: str) -> None:
    """An edge case has no verdict, so its opening clause is the claim itself: its hedge is
    not one that qualifies a verdict ("False I think, ..."); two values offered hedge too."""
    result = Grader(bank).grade(Response(item_id="EC6", text=text))
    assert result.label is Label.PARTIAL


@pytest.mark.parametrize(
    "text",
    [
        "pretty sure it's 8",
        "im fairly confident its 8",
        "I'd say 8",
        "should be 8",
        "it should be 8",
    ],
)
def test_confident_sounding_hedges_still_hedge_a_value(bank: Bank, text: str) -> None:
    """fresh26: "pretty sure", "fairly confident", "I'd say" and an opening "should be" were
    graded correct on EC6, whose value must be stated unhedged (MARKING.md)."""
    assert Grader(bank).grade(Response(item_id="EC6", text=text)).label is Label.PARTIAL


def test_should_be_opening_a_fix_is_no_hedge() -> None:
    """On a spot-the-error item "should be y = y + 1" is the fix, and later in an explanation
    "x.grad should be zeroed" is advice: only a value prompt's opening hedges."""
    stream = segment(normalize("should be y = y + 1 instead of the in-place add"))
    assert not hedged(stream, 0, verdict_first=False, value_prompt=False)
    later = segment(normalize("8, because x.grad should be zeroed between calls and is not"))
    assert not hedged(later, 0, verdict_first=False, value_prompt=True)


def test_the_bare_value_is_still_correct(bank: Bank) -> None:
    assert Grader(bank).grade(Response(item_id="EC6", text="8")).label is Label.CORRECT


def test_a_hedge_on_the_verdict_still_leaves_the_reasoning_alone(bank: Bank) -> None:
    result = Grader(bank).grade(
        Response(
            item_id="TF3",
            verdict=False,
            text="False I think, backward adds into .grad so the second call gives the sum",
        )
    )
    assert result.label is Label.CORRECT


def test_a_mid_clause_also_keeps_its_recognised_subject(bank: Bank) -> None:
    """A tester saw a ✓ for "ops under no_grad or on detached tensors also give leaves"
    next to "check your side remark after 'also'": the remark was only "give leaves"."""
    result = Grader(bank).grade(
        Response(
            item_id="TF4",
            verdict=True,
            text="a leaf is a tensor with no grad_fn; ops under no_grad or on detached "
            "tensors also give leaves",
        )
    )
    assert not result.aside


def test_a_mid_clause_also_with_nothing_recognised_is_still_an_aside(grader: Grader) -> None:
    result = grade(
        grader, "TF3", "grads accumulate across calls; the cpu copy also lives in ram", False
    )
    assert result.aside


@pytest.mark.parametrize(
    ("item_id", "text"),
    [
        (
            "SE4",
            "the += on x.grad is fine; the error is the in-place update of the leaf x, do it"
            " under no_grad. also x.grad always requires grad after backward",
        ),
        (
            "SE1",
            ".grad keeps summing over all batches, so steps use the growing sum instead of the"
            " batch grad. it only matters with SGD though, Adam normalizes it away",
        ),
    ],
)
def test_a_capped_belief_only_in_a_side_claim_after_the_whole_key_is_partial(
    bank: Bank, item_id: str, text: str
) -> None:
    """dev7, dev12, dev13: the key plus a smaller error beside it (MARKING.md: partial) was
    graded incorrect because the side error is shaped like the item's misconception."""
    result = Grader(bank).grade(Response(item_id=item_id, text=text))
    assert result.label is Label.PARTIAL
    assert result.misconceptions  # still named and corrected


@pytest.mark.parametrize(
    ("item_id", "text"),
    [
        ("SE4", "x.grad always requires grad after backward, so += on it is refused"),
        # the key is not whole: "also" carries the item's trap part (x.grad)
        (
            "EC11",
            "It returns tensor(27.) but it also sets x.requires_grad to True and x.grad to 27.",
        ),
    ],
)
def test_a_capped_belief_outside_a_side_claim_keeps_its_cap(
    bank: Bank, item_id: str, text: str
) -> None:
    assert Grader(bank).grade(Response(item_id=item_id, text=text)).label is Label.INCORRECT


# ---- restatements ----------------------------------------------------------------------


def _why(grader: Grader, text: str) -> GradeResult:
    return grader.grade(Response(item_id="WHY1", text=text))


def test_restating_the_prompt_credits_nothing(discourse_grader: Grader) -> None:
    result = _why(discourse_grader, "because the backward pass adds up the gradient contributions")
    assert (result.label, result.restated, result.concepts_hit) == (Label.INCORRECT, True, [])


def test_a_restatement_is_told_so(discourse_grader: Grader) -> None:
    result = _why(discourse_grader, "because the backward pass adds up the gradient contributions")
    assert any("restates the question" in text for text in result.feedback.corrections)


def test_prompt_words_with_a_new_concept_are_no_restatement(discourse_grader: Grader) -> None:
    result = _why(
        discourse_grader, "the chain rule: the backward pass adds up the gradient contributions"
    )
    assert (result.label, result.restated) == (Label.CORRECT, False)


def test_a_short_answer_in_the_prompt_words_is_no_restatement(discourse_grader: Grader) -> None:
    result = _why(discourse_grader, "they add up")
    assert (result.label, result.restated) == (Label.PARTIAL, False)


def test_an_answer_made_only_of_prompt_words_is_a_restatement(bank: Bank) -> None:
    """dev6: every content word came from the prompt, yet it credited a concept the prompt's
    own wording did not, so it was graded partial rather than as a restated question."""
    result = Grader(bank).grade(
        Response(
            item_id="SE9",
            text="w -= lr * w.grad after backward raises an error about a leaf Variable",
        )
    )
    assert (result.label, result.restated) == (Label.INCORRECT, True)


def test_one_word_of_the_learners_own_keeps_a_new_concept_credited(bank: Bank) -> None:
    result = Grader(bank).grade(
        Response(
            item_id="SE9",
            text="w -= lr * w.grad is in-place on a leaf; wrap the update in torch.no_grad()",
        )
    )
    assert not result.restated
    assert result.label is not Label.INCORRECT


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("d = w.detach() then d.mul_(0), what is w afterwards", True),
        ("x requires grad and backward has never been called, so what is x.grad", True),
        ("does backward with no arguments work on a non-scalar tensor", True),
        ("is x.grad None after that?", True),
        ("None, why? because backward never ran", False),  # asks, then answers
        ("what happens is the grads add up", False),  # a statement
        ("does not accumulate, it overwrites", False),  # elliptical denial
        ("do it under no_grad", False),  # an imperative
        ("is it because grads accumulate", False),  # a guess
        ("it's 8, what is left is the old grad", False),
    ],
)
def test_ends_asking_finds_a_last_clause_that_is_a_question(text: str, asks: bool) -> None:
    assert ends_asking(segment(normalize(text)), 0) is asks


@pytest.mark.parametrize(
    ("item_id", "text"),
    [
        ("EC13", "d = w.detach() then d.mul_(0), what is w afterwards"),
        ("EC1", "x requires grad and backward has never been called, so what is x.grad"),
        ("TF2", "does backward with no arguments work on a non-scalar tensor"),
    ],
)
def test_the_prompt_asked_back_as_a_question_is_a_restatement(
    bank: Bank, item_id: str, text: str
) -> None:
    """dev9, dev10, dev12: the prompt asked back was graded partial, on the prompt's words."""
    result = Grader(bank).grade(Response(item_id=item_id, text=text))
    assert (result.label, result.restated) == (Label.INCORRECT, True)


@pytest.mark.parametrize(
    ("item_id", "text"),
    [
        (
            "EC11",
            "torch.func.grad(lambda t: t**3)(x) on a plain tensor returns something and x.grad"
            " is something",
        ),
        (
            "EC3",
            "loss is constant with no graph so calling backward does something to the gradients",
        ),
    ],
)
def test_something_in_place_of_the_answer_is_a_restatement(
    bank: Bank, item_id: str, text: str
) -> None:
    """dev10, dev13: the prompt restated with "something" where the value goes."""
    result = Grader(bank).grade(Response(item_id=item_id, text=text))
    assert (result.label, result.restated) == (Label.INCORRECT, True)


def test_something_beside_a_stated_value_is_no_restatement(bank: Bank) -> None:
    text = "torch.func.grad(lambda t: t**3)(x) returns something: tensor(27.), x.grad stays None"
    result = Grader(bank).grade(Response(item_id="EC11", text=text))
    assert not result.restated
    assert result.label is not Label.INCORRECT


def test_a_question_after_the_learners_own_claim_is_no_restatement(bank: Bank) -> None:
    result = Grader(bank).grade(
        Response(
            item_id="EC13", text="w is zeroed too, detach shares its storage. so what is d then"
        )
    )
    assert not result.restated
    assert result.label is not Label.INCORRECT


# ---- redirects and dismissals ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the saved tensors get freed, but what actually breaks it is the int dtype",
        "retain_graph=True is what breaks it, the saved tensors are freed",
        "the saved tensors are freed; the problem is that y is an int",
    ],
)
def test_naming_another_cause_contradicts_the_key_reason(grader: Grader, text: str) -> None:
    result = grade(grader, "SE2", text)
    assert (result.label, result.redirected) == (Label.INCORRECT, True)


def test_a_cause_frame_around_the_key_reason_is_no_redirect(grader: Grader) -> None:
    result = grade(grader, "SE2", "the problem is that the saved tensors were freed")
    assert (result.label, result.redirected) == (Label.PARTIAL, False)


def test_a_redirect_is_worded_as_the_wrong_cause(grader: Grader) -> None:
    result = grade(
        grader, "SE2", "retain_graph=True is what breaks it, the saved tensors are freed"
    )
    assert result.feedback.corrections[0].startswith("The cause you named is not the key one")


@pytest.mark.parametrize(
    "text",
    [
        "grads accumulate, the no-zeroing rule is only for speed",
        "grads accumulate, zeroing is just a perf thing",
        "grads accumulate, zeroing is just a style thing",
        "they accumulate but only bc of speed",
    ],
)
def test_reducing_the_rule_to_speed_or_style_is_incorrect(grader: Grader, text: str) -> None:
    result = grade(grader, "TF3", text, verdict=False)
    assert (result.label, result.dismissive) == (Label.INCORRECT, True)


@pytest.mark.parametrize(
    "text",
    [
        "grads accumulate across calls, in JAX-style code you would just return them",
        "grads accumulate across calls; is it only for speed?",
    ],
)
def test_style_and_speed_words_outside_a_dismissal_are_fine(grader: Grader, text: str) -> None:
    assert not grade(grader, "TF3", text, verdict=False).dismissive


# ---- "I don't know" --------------------------------------------------------------------


@pytest.mark.parametrize("text", ["dunno", "idk lol", "no idea tbh", "I don't know why"])
def test_an_i_do_not_know_answer_is_ignorance(text: str) -> None:
    assert ignorance_only(_stream(text), 0)


def test_an_answer_that_also_says_something_is_not_ignorance() -> None:
    assert not ignorance_only(_stream("dunno, it trusts the backward"), 0)


@pytest.mark.parametrize("text", ["idk how grad works", "no idea what backward does lol"])
def test_what_the_learner_does_not_know_is_part_of_the_ignorance(text: str) -> None:
    assert ignorance_only(_stream(text), 0)


@pytest.mark.parametrize("text", ["not sure why but grads accumulate", "idk why, it accumulates"])
def test_a_claim_after_the_wh_clause_is_not_ignorance(text: str) -> None:
    assert not ignorance_only(_stream(text), 0)


@pytest.mark.parametrize("text", ["the forward pass", "skip the graph", "a guess at the shape"])
def test_pass_skip_and_guess_beside_a_content_word_are_not_ignorance(text: str) -> None:
    assert not ignorance_only(_stream(text), 0)


@pytest.mark.parametrize(
    "text", ["idk", "I just guessed this one", "skip", "pass", "idk honestly, guessing"]
)
def test_a_right_button_with_only_i_do_not_know_is_a_guess(grader: Grader, text: str) -> None:
    # eval23/dev14 and eval10/dev6: "skip" and "I just guessed this one" under the right
    # button are marked incorrect (docs/MARKING.md: "idk" is nothing relevant).
    result = grade(grader, "TF3", text, verdict=False)
    assert (result.label, result.score) == (Label.INCORRECT, 0.0)
    assert any("counts as a guess" in c for c in result.feedback.corrections)
    assert UNRECOGNISED_REASON_CORRECTION not in result.feedback.corrections  # one ✗ only


def test_a_text_verdict_with_only_idk_is_a_guess_too(grader: Grader) -> None:
    assert grade(grader, "TF3", "false, idk", verdict=None).label is Label.INCORRECT


def test_a_reason_then_idk_keeps_its_credit(grader: Grader) -> None:
    result = grade(grader, "TF3", "False, backward accumulates into .grad. idk", verdict=False)
    assert result.label is not Label.INCORRECT
    assert not any("counts as a guess" in c for c in result.feedback.corrections)


def test_the_wrong_button_with_idk_gets_no_guess_note(grader: Grader) -> None:
    result = grade(grader, "TF3", "idk", verdict=True)
    assert result.label is Label.INCORRECT
    assert not any("counts as a guess" in c for c in result.feedback.corrections)


def test_dunno_never_credits_a_concept_about_not_knowing(discourse_grader: Grader) -> None:
    result = discourse_grader.grade(Response(item_id="TF2", verdict=None, text="dunno"))
    assert (result.label, result.concepts_hit) == (Label.INCORRECT, [])


def test_the_concept_about_not_knowing_still_counts_in_a_claim(discourse_grader: Grader) -> None:
    result = discourse_grader.grade(
        Response(item_id="TF2", verdict=False, text="autograd does not know the real derivative")
    )
    assert result.label is Label.CORRECT


def test_the_discourse_pack_samples_grade_with_their_marks(discourse_grader: Grader) -> None:
    items: list[Item] = [discourse_grader.item(i) for i in discourse_grader.item_ids]
    wrong = [
        (item.id, s.text)
        for item in items
        for s in item.samples
        if discourse_grader.grade(Response(item_id=item.id, verdict=s.verdict, text=s.text)).label
        is not s.label
    ]
    assert wrong == []


@pytest.mark.parametrize(
    "text",
    [
        "with .data autograd has no idea, so the gradient is silently wrong",
        "numpy has no idea about autograd, so nothing is recorded",
        "the optimizer had no clue the weights were frozen, it just skips None grads",
    ],
)
def test_no_idea_said_of_something_else_is_not_a_hedge(text: str) -> None:
    """A correct WHY8 answer ("with .data it has no idea") was marked hedged."""
    assert not hedged(segment(normalize(text)), 0)


@pytest.mark.parametrize(
    "text",
    [
        "i have no idea, maybe detach is safer",
        "the graph is freed after backward, but i have no idea why",
    ],
)
def test_the_learners_own_no_idea_is_a_hedge(text: str) -> None:
    assert hedged(segment(normalize(text)), 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("it overwrites... no wait, it adds up", True),
        ("it resets? no, it adds up", True),
        ("scratch that, it adds", True),
        ("because no op created it", False),
        ("no idea", False),
        ("there is no gradient here", False),
    ],
)
def test_may_retract_is_a_cheap_necessary_test(text: str, expected: bool) -> None:
    assert may_retract(segment(normalize(text))) is expected


def test_a_self_corrected_answer_is_graded_by_its_final_claim(grader: Grader) -> None:
    """stop 18, dev18: 36 answers correct themselves mid-answer; the examiner labels each by
    what the learner ends up claiming."""
    right = grader.grade(
        Response(
            item_id="TF3",
            verdict=False,
            text="it overwrites... no wait, it adds the new gradient onto what .grad holds",
        )
    )
    assert right.label is Label.CORRECT
    assert not right.misconceptions
    wrong = grader.grade(
        Response(
            item_id="TF3",
            verdict=False,
            text="it adds onto .grad... no wait, it overwrites it each time",
        )
    )
    assert wrong.label is Label.INCORRECT
    assert "accumulates" not in wrong.concepts_hit


def test_a_text_verdict_taken_back_is_not_the_verdict(grader: Grader) -> None:
    result = grader.grade(
        Response(item_id="TF3", text="true? nah, false: each backward adds into .grad")
    )
    assert result.verdict is False
    assert result.verdict_source == "text"
