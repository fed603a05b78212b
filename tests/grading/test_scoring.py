"""Scoring rules: labels per docs/MARKING.md, score bands, confidence."""

from __future__ import annotations

import pytest

from bot.content.loader import Bank
from bot.content.models import Label
from bot.grading import Grader, Response
from bot.grading.normalize import normalize
from bot.grading.scoring import (
    CORRECT_MIN,
    PARTIAL_MIN,
    Assessment,
    ConceptOutcome,
    MisconceptionOutcome,
    Status,
    assess,
    calls_with_arguments,
    is_keyword_stuffing,
)
from bot.grading.sentences import segment
from bot.grading.synonyms import domain_stems
from tests.grading.conftest import grade


def concept(status: Status, key: bool = True, weight: float = 2.0, **kw: bool) -> ConceptOutcome:
    """A concept outcome; a key concept here is a required one."""
    return ConceptOutcome("c" + str(key), weight, key, status, required=key, **kw)


def run(
    concepts: list[ConceptOutcome],
    verdict_correct: bool | None = True,
    misconceptions: list[MisconceptionOutcome] | None = None,
    true_false: bool = True,
    **kw: bool,
) -> Assessment:
    options = {"verdict_conflict": False, "stuffing": False, "hedged": False, **kw}
    return assess(
        true_false=true_false,
        verdict_correct=verdict_correct,
        concepts=concepts,
        misconceptions=misconceptions or [],
        **options,
    )


def test_right_verdict_and_key_concept_is_correct() -> None:
    result = run([concept("hit"), concept("missing", key=False, weight=1)])
    assert result.label is Label.CORRECT
    assert result.score >= CORRECT_MIN


def test_wrong_verdict_is_incorrect_whatever_the_text() -> None:
    result = run([concept("hit")], verdict_correct=False)
    assert result.label is Label.INCORRECT
    assert result.score < PARTIAL_MIN


def test_right_verdict_without_reasoning_is_partial() -> None:
    assert run([concept("missing")]).label is Label.PARTIAL


def test_missing_key_concept_keeps_an_answer_partial() -> None:
    result = run([concept("missing"), concept("hit", key=False, weight=1)])
    assert result.label is Label.PARTIAL


def test_contradicted_key_concept_is_incorrect() -> None:
    result = run([concept("contradicted"), concept("hit", key=False, weight=1)])
    assert result.label is Label.INCORRECT


def test_contradicted_side_concept_keeps_an_answer_from_correct() -> None:
    result = run([concept("hit"), concept("contradicted", key=False, weight=1)])
    assert result.label is Label.PARTIAL


def test_a_capped_misconception_is_incorrect() -> None:
    result = run([concept("hit")], misconceptions=[MisconceptionOutcome("m", None, 0.3)])
    assert result.label is Label.INCORRECT
    assert result.score <= 0.3


def test_a_penalised_misconception_is_at_most_partial() -> None:
    result = run([concept("hit")], misconceptions=[MisconceptionOutcome("m", 0.2, None)])
    assert result.label is Label.PARTIAL


def test_keyword_stuffing_is_incorrect_even_with_the_right_verdict() -> None:
    assert run([concept("hit")], stuffing=True).label is Label.INCORRECT


def test_wrong_arithmetic_keeps_an_answer_from_correct() -> None:
    result = run([concept("hit")], verdict_correct=None, true_false=False, arithmetic_error=True)
    assert result.label is Label.PARTIAL


def test_wrong_arithmetic_without_the_required_concept_is_incorrect() -> None:
    result = run(
        [concept("missing"), concept("hit", key=False, weight=1)],
        verdict_correct=None,
        true_false=False,
        arithmetic_error=True,
    )
    assert result.label is Label.INCORRECT


def test_without_required_concepts_sixty_percent_of_the_weight_is_correct() -> None:
    open_rubric = [
        ConceptOutcome("a", 2, True, "hit"),
        ConceptOutcome("b", 2, True, "hit"),
        ConceptOutcome("c", 2, True, "missing"),
    ]
    assert run(open_rubric).label is Label.CORRECT


def test_without_required_concepts_less_than_sixty_percent_is_partial() -> None:
    open_rubric = [
        ConceptOutcome("a", 2, True, "hit"),
        ConceptOutcome("b", 2, True, "missing"),
        ConceptOutcome("c", 2, True, "missing"),
    ]
    assert run(open_rubric).label is Label.PARTIAL


def test_nothing_relevant_is_incorrect() -> None:
    result = run([concept("missing")], verdict_correct=None, true_false=False)
    assert result.label is Label.INCORRECT


def test_any_credited_concept_makes_a_non_true_false_answer_partial() -> None:
    result = run(
        [concept("missing"), concept("hit", key=False, weight=1)],
        verdict_correct=None,
        true_false=False,
    )
    assert result.label is Label.PARTIAL


def test_scores_stay_in_their_label_band() -> None:
    partial = run([concept("hit"), concept("contradicted", key=False, weight=1)])
    assert PARTIAL_MIN <= partial.score < CORRECT_MIN


def test_a_verdict_conflict_lowers_confidence() -> None:
    calm = run([concept("hit")])
    torn = run([concept("hit")], verdict_conflict=True)
    assert torn.confidence < calm.confidence


def test_fuzzy_only_matches_lower_confidence() -> None:
    calm = run([concept("hit")])
    fuzzy = run([concept("hit", fuzzy_only=True)])
    assert fuzzy.confidence < calm.confidence


def test_a_score_near_a_threshold_lowers_confidence() -> None:
    far = run([concept("hit"), concept("hit", key=False, weight=1)], true_false=False)
    near = run([concept("hit"), concept("missing", key=False, weight=1)], true_false=False)
    assert near.score == CORRECT_MIN
    assert near.confidence < far.confidence


def test_a_missing_verdict_lowers_confidence() -> None:
    assert run([concept("hit")], verdict_correct=None).confidence < run([concept("hit")]).confidence


def grouped(cid: str, status: Status, weight: float = 2.0) -> ConceptOutcome:
    """A concept of the rubric's first ``required_any`` group."""
    return ConceptOutcome(cid, weight, True, status, group=0)


def test_one_concept_of_a_required_group_completes_it() -> None:
    result = run([grouped("a", "hit"), grouped("b", "missing")])
    assert result.label is Label.CORRECT


def test_a_required_group_weighs_as_its_heaviest_concept() -> None:
    # key units: "r" (weight 1, missing) and the group (weight 3, credited through "a");
    # they carry 75% of the credit, the side concept (missing) the other 25%
    required = ConceptOutcome("r", 1.0, True, "missing", required=True)
    side = concept("missing", key=False, weight=1)
    concepts = [required, grouped("a", "hit", 1.0), grouped("b", "missing", 3.0), side]
    result = run(concepts, verdict_correct=None, true_false=False)
    assert result.label is Label.PARTIAL
    assert result.score == round(0.75 * 3 / 4, 3)


def test_a_gist_makes_an_answer_with_nothing_else_partial() -> None:
    result = run([concept("missing")], verdict_correct=None, true_false=False, gist=True)
    assert result.label is Label.PARTIAL
    assert result.score == PARTIAL_MIN


def test_a_gesture_keeps_a_complete_answer_partial() -> None:
    assert run([concept("hit")], gesture=True).label is Label.PARTIAL


@pytest.mark.parametrize(
    "text",
    [
        "relu derivative 0 subgradient convention",  # a number is not a statement
        "backward twice retain_graph error graph",  # "twice" is not grammar
        "inplace version counter sigmoid mul_ saved tensor",  # "saved": an adjective
        "scalar, gradient=, seed, sum, backward",  # "gradient=" names an argument (dev3)
    ],
)
def test_keyword_lists_with_numbers_or_twice_are_lists(text: str) -> None:
    stream = segment(normalize(text))
    assert is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text", ["grad_fn requires_grad RuntimeError", "buffers running_mean requires_grad"]
)
def test_three_terms_with_code_are_a_keyword_list(text: str) -> None:
    stream = segment(normalize(text))
    assert is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "dynamic control flow",
        "hooks run during backward",
        "use torch.arange(4.0)",
        "one partial derivative per element",
    ],
)
def test_three_plain_words_or_a_short_statement_are_not_a_keyword_list(text: str) -> None:
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "max tie subgradient",
        "tuple grad backward",
        "None zero grad",
        "checkpoint recompute activations",
    ],
)
def test_three_plain_terms_are_a_keyword_list(text: str) -> None:
    """fix19 #4d: marked incorrect on dev5, dev7, dev17 and dev18, graded partial; every
    word a rubric word (the matched tokens)."""
    stream = segment(normalize(text))
    assert is_keyword_stuffing(stream, 0, lambda: {0, 1, 2}, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "dynamic control flow",  # an adjective opens a noun phrase
        "define-by-run",  # one compound
        "nothing useful happens",  # a negation
        "gradients keep growing",  # a participle
        "detach cuts gradients",  # a verb between two nouns
    ],
)
def test_three_rubric_words_that_form_a_phrase_or_a_claim_are_not_a_list(text: str) -> None:
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, lambda: {0, 1, 2}, domain_stems())


@pytest.mark.parametrize("text", ["gradient= ones seed", "scalar, gradient=ones, seed, sum"])
def test_an_assignment_is_a_statement_not_a_keyword_list(text: str) -> None:
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


def test_a_stated_value_is_not_a_keyword_list() -> None:
    stream = segment(normalize("x.grad = 8 after backward twice"))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text", ["`print(x.grad)  # None`", "print(x.grad) prints None", "y.grad_fn shows None"]
)
def test_printing_a_value_states_it(text: str) -> None:
    # dev15 (EC1): a code line with its output as a comment, marked correct
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize("text", ["tensor([0.5, 0., 0.5])", "0.5 0 0.5 0"])
def test_a_printed_tensor_is_a_value_not_a_keyword_list(text: str) -> None:
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "returns 27; x.grad None",
        "integer dtype; requires_grad needs float",
        "mul_ modified sigmoid's saved output; version counter mismatch",
        "model parameters already require grad",
    ],
)
def test_a_terse_statement_with_a_verb_is_not_a_keyword_list(text: str) -> None:
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


def test_a_hyphenated_domain_term_does_not_make_a_list_prose() -> None:
    stream = segment(normalize("pow saved input version counter in-place"))
    assert is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "tensor(27.), x.grad None",
        "abs 0, sqrt nan",  # MARKING.md's own example of a bare value answer
        "[0.5, 0, 0.5] - full-reduction max splits the subgradient evenly",
        "w zeroed (shared storage); fix: .clone()",
    ],
)
def test_a_terse_answer_stating_values_is_not_a_keyword_list(text: str) -> None:
    """Tuners' and testers' terse value answers were told they were keyword lists."""
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


def test_a_bare_attribute_followed_by_none_in_a_list_is_still_a_list() -> None:
    stream = segment(normalize("leaf tensor retain_grad intermediate .grad None"))
    assert is_keyword_stuffing(stream, 0, set, domain_stems())


def test_a_bare_code_name_followed_by_none_in_a_list_is_still_a_list() -> None:
    stream = segment(normalize("leaf grad_fn None tensor op"))
    assert is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "ctx, backward, None, number of gradients, forward inputs",
        "sign, subgradient, inf, nan, chain rule",
        "define-by-run, dynamic graph, eager, control flow",
        "scalar, gradient argument, vector jacobian product, seed",
    ],
)
def test_a_comma_list_of_terms_is_a_keyword_list_even_with_function_words(text: str) -> None:
    """dev10 had the first graded correct: "of" made its function-word share read as prose."""
    stream = segment(normalize(text))
    assert is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "graph still recorded: grad_fn set, activations saved, memory wasted",
        "grads add up, no reset, old + new, wrong step",
        "probably None? or zeros, not sure, no idea",
        "leaf, no grad_fn, is_leaf True, made by user",
        "use no_grad, call zero_grad, wrap in Parameter, clone first",
    ],
)
def test_terse_clauses_separated_by_commas_are_not_a_term_list(text: str) -> None:
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, set, domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "dynamic graph define by run eager",
        "dynamic graph define-by-run eager",
        "dynamic graph, define by run, eager mode",
    ],
)
def test_define_by_run_is_a_term_so_a_list_of_labels_earns_nothing(bank: Bank, text: str) -> None:
    """Four examiners wrote such lists for WHY3 (why is the graph built during forward?);
    "run" and "by" inside the term had made them prose, graded partial."""
    result = Grader(bank).grade(Response(item_id="WHY3", text=text))
    assert (result.label, result.concepts_hit) == (Label.INCORRECT, [])


def test_define_by_run_inside_a_reason_is_still_credited(bank: Bank) -> None:
    text = "define by run: the graph is built as the code runs, so ifs and loops just work"
    assert Grader(bank).grade(Response(item_id="WHY3", text=text)).label is Label.CORRECT


@pytest.mark.parametrize(
    "text",
    [
        "zero_grad / accumulate / backward",
        "leaf / grad_fn / None / is_leaf",  # dev19, marked incorrect, was partial
        "zero_grad/accumulate/backward",
    ],
)
def test_slash_separated_terms_are_a_keyword_list(text: str) -> None:
    """A slash between two words parts list terms; it is not an operator that states
    something (stop 20: three rubric words between slashes got full credit on SE1, and
    dev19's "leaf / grad_fn / None / is_leaf", marked incorrect, was partial)."""
    stream = segment(normalize(text))
    assert is_keyword_stuffing(stream, 0, lambda: set(range(len(stream))), domain_stems())


@pytest.mark.parametrize(
    "text",
    [
        "define-by-run: ifs/loops/dynamic shapes just work, easy debugging",  # dev12, correct
        "x.grad / 2 halves it",  # a division by a number
        "grads accumulate / pile up, so zero_grad each step",
    ],
)
def test_slashes_in_a_statement_or_a_division_are_not_a_keyword_list(text: str) -> None:
    stream = segment(normalize(text))
    assert not is_keyword_stuffing(stream, 0, lambda: set(range(len(stream))), domain_stems())


def test_a_slash_keyword_list_gets_no_credit_end_to_end(grader: Grader) -> None:
    """Through the whole grader: rubric words between slashes, with the right verdict, are
    a keyword list (docs/MARKING.md: incorrect), as the same words between commas are."""
    for text in (
        "accumulation / zero_grad / backward",
        "accumulation, zero_grad, backward",
        "accumulates, zero_grad, backward",  # a verb alone between commas states nothing
        "accumulates / zero_grad / backward",
    ):
        result = grade(grader, "TF3", text, verdict=False)
        assert result.label is Label.INCORRECT, text


@pytest.mark.parametrize(
    ("item_id", "verdict", "text"),
    [
        ("EC1", None, "`print(x.grad)  # None`"),  # dev15: an imperative takes its object
        ("TF3", False, "grads accumulate, zero_grad resets them"),
    ],
)
def test_a_verb_with_its_subject_or_object_still_states_something(
    grader: Grader, item_id: str, verdict: bool | None, text: str
) -> None:
    assert grade(grader, item_id, text, verdict=verdict).label is Label.CORRECT


def test_a_preposition_relates_words_so_they_are_not_a_keyword_list() -> None:
    """Stop 20's fresh-user check: "split evenly between ties" (EC8) was told "a list of
    keywords"; a preposition makes it a phrase, as "per" does."""
    stream = segment(normalize("split evenly between ties"))
    assert not is_keyword_stuffing(stream, 0, lambda: {0, 1, 2, 3}, domain_stems())


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ("torch.arange(4.0, requires_grad=True)", True),
        ("y.backward(gradient=torch.ones(3))", True),
        ("False. y.backward(torch.ones_like(y))", True),  # a call as the argument (fresh24)
        ("no_grad() grad_fn requires_grad zero_grad()", False),  # empty calls
        ("autograd.grad(loss, x) backward x.grad tuple", False),  # names only (eval-adv)
        ("grads accumulate (sorry for typos)", False),
    ],
)
def test_a_call_that_sets_something_is_recognised(text: str, calls: bool) -> None:
    assert calls_with_arguments(normalize(text)) is calls


def test_a_fix_written_as_one_call_is_not_a_keyword_list(bank: Bank) -> None:
    """The right fix as code, with no why, is partial (docs/MARKING.md: the fix without the
    cause), never "a list of keywords" (stop 20's fresh-user check, on the shipped SE10)."""
    result = Grader(bank, eager=False).grade(
        Response(item_id="SE10", verdict=None, text="torch.arange(4.0, requires_grad=True)")
    )
    assert result.label is Label.PARTIAL
    assert "keywords" not in " ".join(result.feedback.corrections)


def test_an_indefinite_pronoun_subject_makes_a_clause_not_a_keyword_list() -> None:
    """Round 20d: "yes, everything else flows normally" (EC7) scored 0 as a keyword list."""
    stream = segment(normalize("everything else flows normally"))
    assert not is_keyword_stuffing(stream, 0, lambda: {0, 1, 2, 3}, domain_stems())


@pytest.mark.parametrize(
    ("item_id", "text"),
    [
        ("TF3", "grad accumulate, zero_grad needed"),
        ("TF3", "grad accumulate, old grad stay"),
        ("TF3", "old x.grad untouched, new grad added"),
    ],
)
def test_a_claim_without_verb_endings_is_not_a_keyword_list(
    grader: Grader, item_id: str, text: str
) -> None:
    """fresh23: second-language answers drop verb endings ("x.grad stay None"); a state
    verb or participle still makes a claim, not "a list of keywords"."""
    result = grade(grader, item_id, text, verdict=False)
    assert "keywords" not in " ".join(result.feedback.corrections)
