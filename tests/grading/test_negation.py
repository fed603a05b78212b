"""Scoped negation: which words a cue negates, and which cues are not cues at all."""

from __future__ import annotations

import pytest

from bot.content.loader import Bank
from bot.grading import Grader, Response
from bot.grading.negation import scope
from bot.grading.normalize import normalize
from bot.grading.sentences import segment


def negated_words(text: str) -> set[str]:
    stream = segment(normalize(text))
    marks = scope(stream)
    return {stream.surf[i] for i in range(len(stream)) if marks.negated((i,))}


def conditional_words(text: str) -> set[str]:
    stream = segment(normalize(text))
    return {stream.surf[i] for i in scope(stream).conditional}


@pytest.mark.parametrize(
    "text",
    [
        "it does not accumulate",
        "it doesn't accumulate",
        "it doesnt accumulate",
        "it won't accumulate",
        "it can't accumulate",
        "it cannot accumulate",
        "it never accumulates",
        "it no longer accumulates",
        "it isn't accumulating",
        "they neither accumulate nor sum",
        "it overwrites instead of accumulating",
        "it overwrites rather than accumulating",
        "it fails to accumulate",
        "it is not true that it accumulates",
        "it is not the case that grads accumulate",
        "the idea that it accumulates is wrong",
        "accumulating does not happen here",
        "grads hardly accumulate",
    ],
)
def test_a_cue_negates_the_word_it_scopes(text: str) -> None:
    assert any(w.startswith("accumulat") for w in negated_words(text))


@pytest.mark.parametrize(
    "text",
    [
        "it does not overwrite, it accumulates",
        "it doesn't overwrite; it accumulates",
        "not overwritten but accumulated",
        "it does not reset because it accumulates",
        "it does not overwrite and accumulates instead",
        "without zero_grad the grads accumulate",
        "No, it accumulates",
        "Nope it accumulates",
        "not only does it accumulate, it also sums",
        "not just to accumulate, also to save memory",  # fresh25: grants the reason
        "no doubt it accumulates",
        "I'm not sure but it accumulates",
        "Not true — it accumulates",
        "it is not true that it does not accumulate",
        "if you don't zero them they accumulate",
        "it is not reset and grads will accumulate",
        "it is not reset and the grads will accumulate",
    ],
)
def test_a_scope_ends_before_the_word(text: str) -> None:
    assert not any(w.startswith("accumulat") for w in negated_words(text))


def test_a_cue_inside_a_phrase_negates_the_phrase_words() -> None:
    assert negated_words("x.grad is not the sum of both") >= {"sum"}


def test_a_determiner_after_the_first_content_word_ends_the_scope() -> None:
    assert "value" not in negated_words("it adds without resetting the old value")


def test_not_only_before_a_phrase_negates_the_phrase() -> None:
    assert {"only", "latest"} <= negated_words("it is not only the latest one")


def test_none_after_a_code_name_states_its_absence() -> None:
    assert "grad_fn" in negated_words("leaves have grad_fn None")


def test_an_arrow_from_a_code_name_to_none_states_its_absence() -> None:
    """Round 20a: "a.grad -> None" (a printed value) read a.grad as present."""
    assert negated_words("a.grad -> None, but out has grad_fn") == {"a.grad"}


def test_an_arrow_in_prose_is_not_an_absence() -> None:
    """In prose the arrow is "so": "y is non-leaf -> None" (TF9 sample) denies nothing."""
    assert "non-leaf" not in negated_words("y is non-leaf -> None")


def test_an_absence_after_an_arrow_covers_only_its_own_clause() -> None:
    """Round 20b: "no edge back into enc -> enc.weight.grad stays None" (dev20, SE5, marked
    correct) had its "stays None" reach back past the arrow and deny the whole chain."""
    words = negated_words("there is no edge back into enc -> enc.weight.grad stays None")
    assert "enc.weight.grad" in words
    assert "there" not in words
    assert "is" not in words


@pytest.mark.parametrize(
    "text",
    ["retain_graph does not help", "retain_graph does not help here", "it would not help either"],
)
def test_a_post_cue_closing_its_clause_with_an_adverb_still_denies_the_subject(text: str) -> None:
    """Round 20c: "X does not help here" read X as affirmed, while "X does not help" denied it."""
    subject = text.split()[0]
    assert subject in negated_words(text)


def test_a_missing_step_before_an_arrow_is_a_condition_not_a_denial() -> None:
    """fresh23: "no retain_graph -> saved tensors freed -> 2nd backward error" (SE2) denied
    passing retain_graph; like "without retain_graph, ...", it is the chain's condition."""
    text = "no retain_graph -> saved tensors freed -> 2nd backward error"
    assert "retain_graph" not in negated_words(text)
    assert "retain_graph" in conditional_words(text)


def test_is_none_negates_the_subject() -> None:
    assert "x.grad" in negated_words("x.grad is None before backward")


def test_non_negates_the_next_word() -> None:
    assert "leaf" in negated_words("x becomes a non-leaf")
    # only that word: a prefix, not a clause negation
    assert not {"always", "safe"} & negated_words(
        "in-place ops on non-leaf tensors are always safe"
    )


def test_skips_denies_the_gerund_after_it() -> None:
    """fresh9/fresh10: "backward skips adding into .grad" was praised "✓ .grad accumulates"."""
    assert {"adding", ".grad"} <= negated_words("backward skips adding into .grad")
    assert "freeing" in negated_words("the loop skips freeing the graph")


def test_skips_before_a_noun_negates_nothing() -> None:
    assert not negated_words("backward skips tensors whose contribution is zero")


def test_a_cue_whose_verb_is_left_out_negates_nothing_after_and() -> None:
    words = negated_words(
        "detach raises on a changed saved tensor, .data doesn't and silently gives wrong grads"
    )
    assert not {"silently", "gives", "wrong"} & words


def test_a_clausal_cue_reaches_past_determiners() -> None:
    assert "overwrites" in negated_words("it is not true that each call overwrites it")


def test_a_post_cue_needs_a_framed_claim() -> None:
    assert "sum" not in negated_words("the sum is wrong")


@pytest.mark.parametrize(
    "text",
    [
        "the version counter has nothing to do with it; the input is 0",
        "the version counter is not the problem, the input is 0",
        "the version counter is not it",
    ],
)
def test_a_dismissed_cause_is_negated(text: str) -> None:
    assert "counter" in negated_words(text)


def test_a_dismissal_inside_a_clause_negates_nothing_after_it() -> None:
    assert "input" not in negated_words("the counter has nothing to do with it, the input is 0")


def test_an_if_clause_is_conditional() -> None:
    assert {"zero", "them"} <= conditional_words("if you don't zero them, they pile up")


def test_a_time_adverbial_with_each_stays_in_the_negated_predicate() -> None:
    words = negated_words("the graph is not rebuilt each forward pass; it is compiled")
    assert {"rebuilt", "each", "forward", "pass"} <= words
    assert "compiled" not in words


def test_assigning_none_denies_only_the_assigned_name() -> None:
    words = negated_words("reset them by setting x.grad = None each step")
    assert "x.grad" in words
    assert not {"reset", "them", "setting"} & words


def test_a_pattern_spelling_part_of_a_cue_discounts_it() -> None:
    stream = segment(normalize("reset with x.grad = None"))
    marks = scope(stream)
    target = stream.surf.index("x.grad")
    none = stream.surf.index("none")
    assert marks.negated((target,))
    assert not marks.negated((target, none))  # "x.grad ... None" spells the cue "= None"


def test_with_no_negates_only_its_noun_phrase() -> None:
    words = negated_words("backward with no argument only works for a scalar")
    assert "argument" in words
    assert not {"works", "scalar"} & words


def test_the_not_of_a_negative_question_denies_nothing() -> None:
    assert not negated_words("doesnt the graph get freed after the first backward")
    assert "accumulate" in negated_words("doesn't accumulate, it overwrites")


def test_with_no_negates_its_noun_phrase_not_the_verb_after_it() -> None:
    words = negated_words("a scalar with no graph needs gradient= to be passed")
    assert "graph" in words
    assert not {"needs", "gradient="} & words
    assert {"grads", "accumulate"} & negated_words("the loop runs with no grads accumulated")


def test_and_before_a_subject_and_modal_starts_a_new_clause() -> None:
    # "w is not a leaf and sgd can't optimize a non-leaf": the first not must not reach
    # into the second clause, where it would cancel that clause's own can't
    text = "w is not a leaf and sgd cant optimize a non leaf tensor"
    assert "sgd" not in negated_words(text)
    assert "optimize" in negated_words(text)
    # a noun phrase without a modal stays in the scope: "not x and y"
    assert "y.grad" in negated_words("it does not touch x.grad and y.grad")


def test_and_before_a_subject_and_a_finite_verb_starts_a_new_clause() -> None:
    """r21b's engine case (dev21 SE12 255): "it's not a leaf and SGD rejects non-leaves"
    denied the rejection, so a correct reason read as its opposite."""
    words = negated_words("it is not a leaf and sgd rejects non leaves")
    assert "leaf" in words
    assert not {"sgd", "rejects"} & words
    assert "refuses" not in negated_words("w is not a leaf and the optimizer refuses it")


def test_a_substitute_cue_negates_only_its_noun_phrase() -> None:
    words = negated_words(
        "the return value is used in place of the gradient for everything upstream"
    )
    assert "gradient" in words
    assert "upstream" not in words
    assert "accumulating" in negated_words("it overwrites instead of accumulating")


def test_no_before_means_negates_only_its_noun_phrase() -> None:
    words = negated_words("no argument means seed 1, only for a one-element output")
    assert "argument" in words
    assert not {"means", "seed"} & words


def test_a_clause_initial_with_no_is_a_condition() -> None:
    text = "With no argument, backward seeds the output with 1"
    assert "argument" in conditional_words(text)
    assert not {"seeds", "argument"} & negated_words(text)


def test_the_clause_before_only_if_states_a_condition_not_a_claim() -> None:
    words = conditional_words("Only leaves keep it; y keeps its gradient only if you call it")
    assert {"y", "keeps", "gradient"} <= words
    assert "leaves" not in words  # the clause before the semicolon is still a claim


def test_the_condition_after_a_mid_clause_only_if_is_a_claim() -> None:
    # "hooks fire only if retain_grad() was called" claims a (wrong) requirement: a rubric
    # must be able to find it, so the condition is not a conditional clause
    words = conditional_words("the hook changes it only if retain_grad was called first")
    assert "hook" in words
    assert not {"retain_grad", "called", "first"} & words
    assert "retain_grad" not in conditional_words("it does, but only if you call retain_grad")
    assert "zero_grad" in conditional_words("if you skip zero_grad they pile up")


def test_a_clause_opening_with_only_if_leaves_the_main_clause_a_claim() -> None:
    assert "pile" not in conditional_words("only if you skip zero_grad, they pile up")


@pytest.mark.parametrize(
    ("text", "mentioned", "claimed"),
    [
        ("I thought ANY in-place op breaks backward. but it is about what got saved", "breaks",
         "saved"),
        ("i assumed the first index gets the 1, but the ties share it", "index", "ties"),
        ("my first guess was that it overwrites, turns out it accumulates", "overwrites",
         "accumulates"),
        ("initially i believed it reuses one graph, but a new one is built", "reuses", "built"),
        ("I used to believe backward replaced it. Then I saw it double", "replaced", "double"),
        # stop 22, dev22 147: a note without the subject
        ("first thought backward just overwrote it, but it adds on", "overwrote", "adds"),
    ],
)  # fmt: skip
def test_a_retracted_belief_is_only_mentioned(text: str, mentioned: str, claimed: str) -> None:
    assert {mentioned, claimed} & conditional_words(text) == {mentioned}


def test_a_clause_initial_without_is_conditional() -> None:
    assert "zero_grad" in conditional_words("Without zero_grad() the grads pile up")


def test_hedges_are_noticed() -> None:
    stream = segment(normalize("maybe it accumulates"))
    assert scope(stream).hedged


def test_a_conditional_without_clause_ends_where_a_no_phrase_begins() -> None:
    text = "without backward no graph is built at all"
    assert conditional_words(text) == {"without", "backward"}
    assert {"graph", "built"} <= negated_words(text)


def test_a_cue_that_ends_a_sentence_does_not_reach_into_the_next() -> None:
    assert "accumulate" not in negated_words("Not true. Gradients accumulate.")
    assert "use" not in negated_words("It saves nothing. Use retain_graph=True.")


def test_not_because_negates_the_reason() -> None:
    assert "graph" in negated_words("it errors, but not because of the graph")


def test_an_absence_does_not_reach_back_over_a_clause_joined_by_and() -> None:
    text = "the chain ends there and encoder.weight.grad stays None"
    assert "ends" not in negated_words(text)
    assert "encoder.weight.grad" in negated_words(text)


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("x.grad is never written, stays None", {"written"}),  # by "never" alone
        ("the grad is computed, stays None", set()),
        ("the weight's grad (stays None)", set()),
    ],
)
def test_an_absence_after_a_break_does_not_reach_back_over_it(text: str, negated: set[str]) -> None:
    """fix19 #4c: "stays None" after a comma denied the clause before it, so EC11's
    "x.grad is never written, stays None" lost "never written" (double negation)."""
    assert negated_words(text) == negated


def test_an_absence_covers_code_names_joined_by_and() -> None:
    assert {"x.grad", "y.grad"} <= negated_words("x.grad and y.grad are None")


def test_without_negates_only_the_phrase_it_governs() -> None:
    text = "backward without args only works for one element"
    assert "args" in negated_words(text)
    assert "works" not in negated_words(text)


def test_an_arrow_ends_a_negation_scope() -> None:
    text = "inputs don't require grad -> output has no grad_fn -> backward errors"
    assert "errors" not in negated_words(text)


def test_none_opening_a_sentence_does_not_deny_the_end_of_the_last() -> None:
    assert "0" not in negated_words("a.grad gives tensor(0.). None would mean it was never reached")


def test_what_a_verb_of_hindering_keeps_from_happening_is_a_mention() -> None:
    text = "no_grad only stops new ops from being recorded"
    assert "recorded" in conditional_words(text)
    assert "recorded" not in negated_words(text)


def test_a_denied_hindrance_does_not_credit_what_it_hinders(bank: Bank) -> None:
    """fresh17: "does not stop new ops from being recorded" credited "no_grad stops the
    recording": the span spells the hindering verb, and that verb is denied."""
    grader = Grader(bank)
    denied = grader.grade(
        Response(
            item_id="TF7",
            verdict=False,
            text="no_grad does not stop new ops from being recorded, it wipes .grad",
        )
    )
    assert "stops-recording" not in denied.concepts_hit
    stated = grader.grade(
        Response(item_id="TF7", verdict=False, text="no_grad stops new ops from being recorded")
    )
    assert "stops-recording" in stated.concepts_hit


def test_a_remedy_that_keeps_a_problem_from_happening_still_names_it() -> None:
    assert "piling" in conditional_words("zero_grad keeps the grads from piling up")


def test_from_without_a_verb_of_hindering_is_no_cue() -> None:
    text = "the gradient comes from the loss"
    assert not conditional_words(text)
    assert not negated_words(text)


def test_no_before_a_code_name_inside_an_answer_is_a_determiner() -> None:
    assert "grad_fn" in negated_words("it is not recorded, no grad_fn either")


def test_no_opening_an_answer_before_code_is_an_interjection() -> None:
    assert "x.grad" not in negated_words("No x.grad accumulates")
    assert "autograd.grad" not in negated_words("no autograd.grad just returns it")


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("no grad_fn is recorded for a leaf", "recorded"),
        ("no .grad is written by autograd.grad", "written"),
        ("No backward() call happens", "happens"),
    ],
)
def test_no_opening_an_answer_before_a_kind_of_code_thing_is_a_determiner(
    text: str, word: str
) -> None:
    """fix19 #2: "no grad_fn is recorded" denies that one is; only one object's name
    (``x.grad``) after an opening "no" reads as a missing comma."""
    assert word in negated_words(text)


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("detach shares no storage with w", "shares"),
        ("backward raises no error here", "raises"),
        ("y gets no gradient", "gets"),
        ("the op records no graph", "records"),
    ],
)
def test_a_no_after_a_verb_denies_the_verb_too(text: str, verb: str) -> None:
    """ "shares no storage" = "does not share storage": a pattern spelling only the verb
    must not credit it (a tester saw "✓ detach() shares w's storage" for it)."""
    assert verb in negated_words(text)


@pytest.mark.parametrize(
    "text",
    ["no, detach shares storage", "it shares, no copy is made", "grads, no doubt, accumulate"],
)
def test_a_no_that_is_not_the_verbs_object_leaves_the_verb_alone(text: str) -> None:
    assert not {"shares", "accumulate"} & negated_words(text)


@pytest.mark.parametrize(
    "text",
    [
        "create_graph=True is not needed, d1 has a grad_fn anyway",
        "retain_graph is not necessary; the graph is used once",
        "zero_grad calls are not required",
    ],
)
def test_is_not_needed_denies_the_clause_before_it(text: str) -> None:
    """A tester who wrote "create_graph=True is not needed" was praised for saying
    create_graph=True records the backward ops."""
    assert negated_words(text) & {"create_graph=true", "retain_graph", "zero_grad"}


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("x has no grad_fn and backward cannot go through it", "backward"),
        ("w gets nothing and backward errors", "errors"),
        ("it has no grad_fn or the backward fails", "fails"),
    ],
)
def test_a_no_scope_ends_at_and_or(text: str, kept: str) -> None:
    """A determiner ("no", "nothing") negates its noun phrase, not the next clause."""
    assert kept not in negated_words(text)


@pytest.mark.parametrize(
    "text",
    ["passing gradient= would not help", "calling zero_grad does not help, it is fine"],
)
def test_would_not_help_denies_the_clause_before_it(text: str) -> None:
    """A tester's "passing a gradient argument would not help" was praised for saying one
    must pass gradient=."""
    assert negated_words(text) & {"gradient=", "zero_grad", "gradient"}


@pytest.mark.parametrize(
    ("text", "mentioned", "claimed"),
    [
        ("people assume requires_grad=False keeps it out of the graph, but mixing records it",
         "keeps", "mixing"),
        ("A lot of people think each backward resets .grad, but it actually sums into it",
         "resets", "sums"),
        ("they probably assume backward replaces .grad each batch; it doesnt, it accumulates",
         "replaces", "accumulates"),
        ("it sounds like it would clear them but it doesnt; it only stops recording",
         "clear", "recording"),
        ("you might think it only stops gradient partially, but detach cuts the edge",
         "partially", "cuts"),
        # fresh16: hearsay, a belief noun, "some", and a belief about "turns"
        ("people often say it's a zero tensor, but it's actually None", "zero", "none"),
        ("a common belief is that it's zeros; that's wrong, x.grad is None", "zeros", "none"),
        ("None. Some expect a tensor of zeros, but it stays None", "zeros", "stays"),
        ("false; many think eval() turns off autograd, but it only changes dropout",
         "autograd", "dropout"),
    ],
)  # fmt: skip
def test_a_belief_reported_to_be_rejected_is_only_mentioned(
    text: str, mentioned: str, claimed: str
) -> None:
    # stop 17 (dev16): correct answers that name the usual wrong belief to reject it were
    # graded incorrect, the belief read as the learner's own
    assert {mentioned, claimed} & conditional_words(text) == {mentioned}


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        ("most people think backward resets .grad each call", "resets"),  # nothing rejects it
        ("people think it accumulates and they are right", "accumulates"),
        ("you think of .grad as a buffer that backward resets, but no", "resets"),  # no modal
        ("it is not what you might think it resets, but no", "resets"),  # mid-clause
        ("you could say it resets each call, but only the first", "resets"),  # endorses
    ],
)
def test_a_reported_belief_without_a_rejection_or_an_opening_stays_a_claim(
    text: str, claimed: str
) -> None:
    assert claimed not in conditional_words(text)


@pytest.mark.parametrize(
    ("text", "subject", "claimed"),
    [
        ("never zeroing means w.grad keeps summing", {"zeroing"}, {"keeps", "summing"}),
        ("not calling zero_grad causes the grads to pile up", {"calling"}, {"causes", "pile"}),
        ("not zeroing the grad causes it to keep the old one", {"zeroing"}, {"causes", "keep"}),
        ("not freeing the buffers leads to an oom", {"freeing"}, {"leads", "oom"}),
    ],
)
def test_a_negated_gerund_subject_is_the_condition_of_its_consequence(
    text: str, subject: set[str], claimed: set[str]
) -> None:
    """fresh20/fresh21: "never zeroing means ..." denied zeroing, so correct answers that
    name the missing step were told they stated the opposite; it means "if you never zero"."""
    assert subject <= conditional_words(text)
    assert not subject & negated_words(text)
    assert not claimed & (negated_words(text) | conditional_words(text))


def test_a_negated_noun_subject_stays_negated() -> None:
    assert "grad_fn" in negated_words("no grad_fn means it is a leaf")
    assert "zeroing" in negated_words("it is not zeroing, and that causes the sum")


def test_a_cue_right_before_a_consequence_verb_still_negates_it() -> None:
    assert {"causes", "reset"} <= negated_words("nothing causes .grad to reset")
