"""Sentence splitting ignores dots in code, numbers and abbreviations."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.grading import sentences as sentence_module
from bot.grading.normalize import normalize
from bot.grading.sentences import segment


def sentences(text: str) -> int:
    stream = segment(normalize(text))
    return len(set(stream.sent))


@pytest.mark.parametrize(
    "text",
    [
        "x.grad.zero_() clears it",
        "the value is 8.0 after two calls",
        "it prints tensor([8.]) now",
        "e.g. zero_grad clears it",
        "call loss.backward() twice",
    ],
)
def test_dots_inside_code_numbers_and_abbreviations_do_not_split(text: str) -> None:
    assert sentences(text) == 1


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("False. Grads add up.", 2),
        ("Really? Yes!", 2),
        ("false\ngrads add up", 2),
        ("It adds. Then it adds again. Then again", 3),
    ],
)
def test_sentence_ends_split(text: str, count: int) -> None:
    assert sentences(text) == count


def test_a_question_is_marked() -> None:
    stream = segment(normalize("Does it overwrite? No, it adds."))
    assert stream.questions == {0}


@pytest.mark.parametrize("mark", [",", ";", ":", " -", " (", '"'])
def test_clause_punctuation_is_a_break_not_a_sentence_end(mark: str) -> None:
    stream = segment(normalize(f"it does not overwrite{mark} it accumulates"))
    assert len(set(stream.sent)) == 1
    assert stream.brk[stream.surf.index("it", 1)]


def test_empty_text_has_no_tokens() -> None:
    assert len(segment(normalize("  \n ~~x~~ ,;: "))) == 0


_CHUNKS = st.sampled_from(
    [
        "grads", "accumulate", "x.grad", "retain_graph", "=", "==", "is", "true", "false",
        "none", "True,", "None.", "tensor([8.])", "tensor([1.,", "2.])", ",", ".", "?", "!",
        "-", "(", ")", "adds.The", "e.g.", "4", "+", "=", "8", "eight", "doesn't", "it's",
        "x.is_leaf", "requires_grad=True", "(true", "false:", "...", "\n", "2x", "non-leaf",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_CHUNKS, max_size=40))
def test_precomputed_chunk_plans_segment_exactly_like_the_general_path(chunks: list[str]) -> None:
    text = normalize(" ".join(chunks))
    fast = segment(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sentence_module, "_plans", {})
        patch.setattr(sentence_module, "_words", {})
        patch.setattr(sentence_module, "_plan", lambda chunk: sentence_module._COMPLEX)
        general = segment(text)
    assert fast == general


@pytest.mark.parametrize(
    "text",
    [
        "Does it overwrite? No, it adds.",
        "want a copy? use clone",
        "vector -> which weights?",
        "the weights are fine, but what about the images?",
        "grads add up, and does that matter?",
        "so what?",
        "and?",
    ],
)
def test_a_sentence_that_asks_is_a_question(text: str) -> None:
    stream = segment(normalize(text))
    assert (stream.questions, stream.uptalk) == ({0}, set())


@pytest.mark.parametrize(
    "text",
    [
        "27 i think?",
        "false? it adds up",
        "detach isn't a copy??",
        "27 probably, and x.grad None i guess?",
        "it sums, but only for leaves?",
        "i think the weights are what matter not the images?",  # a free relative (dev13)
    ],
)
def test_a_statement_ending_in_a_question_mark_is_uptalk(text: str) -> None:
    stream = segment(normalize(text))
    assert (stream.questions, stream.uptalk) == (set(), {0})


@pytest.mark.parametrize(
    "text",
    [
        "why does backward sum up the gradients from all the children of a node",
        "what is x.grad if backward was never called",
        "how does autograd know which ops to undo",
    ],
)
def test_a_question_without_a_question_mark_is_a_question(text: str) -> None:
    assert segment(normalize(text)).questions == {0}


@pytest.mark.parametrize(
    "text",
    [
        "what happens is that the grads add up",
        "why does it add up, each path contributes",
        "how does it work: each path adds its share",
        "which is why x.grad doubles",
        "where is not differentiable at 0 so its backward gives nan",
        "what is nice is that the graph is rebuilt",
    ],
)
def test_a_statement_opening_with_a_wh_word_is_not_a_question(text: str) -> None:
    assert 0 not in segment(normalize(text)).questions


@pytest.mark.parametrize(
    "text",
    [
        "doesnt the graph get freed after the first backward so the second one errors",
        "isn't it because grads accumulate?",
        "wouldn't x.grad just add up",
    ],
)
def test_a_negative_question_is_uptalk(text: str) -> None:
    stream = segment(normalize(text))
    assert (stream.questions, stream.uptalk) == (set(), {0})


def test_an_elliptical_denial_is_no_negative_question() -> None:
    stream = segment(normalize("doesn't accumulate, it overwrites"))
    assert (stream.questions, stream.uptalk) == (set(), set())


@pytest.mark.parametrize(
    "text", ["is it because grads accumulate", "does it just add them up over calls"]
)
def test_a_guess_typed_without_a_question_mark_is_uptalk(text: str) -> None:
    assert segment(normalize(text)).uptalk == {0}


def test_an_imperative_do_it_is_a_statement() -> None:
    stream = segment(normalize("Do it under no_grad, the update is what fails."))
    assert (stream.questions, stream.uptalk) == (set(), set())
