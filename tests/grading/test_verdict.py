"""Verdict extraction from the opening of an answer."""

from __future__ import annotations

import pytest

from bot.grading.normalize import normalize
from bot.grading.sentences import segment
from bot.grading.verdict import extract_verdict


def verdict(text: str) -> bool | None:
    return extract_verdict(segment(normalize(text))).value


@pytest.mark.parametrize(
    "text",
    [
        "False.",
        "false, grads add up",
        "Nope, it adds",
        "nope it adds",
        "nah",
        "No, it accumulates",
        "No.",
        "Not true",
        "not correct: it adds",
        "That's false",
        "That is wrong, it adds",
        "Incorrect - it adds",
        "I'm pretty sure that's false",
        "I think it's false",
        "I don't think so",
        "The statement is false because",
        "**FALSE** — accumulates",
        "Definitely not.",
        "Of course not",
        "Not really, it adds",
        "flase",
        "fasle, it adds",
        "the answer is no, it accumulates",
        "The answer is no.",
        "the answer is no it adds",
        "my answer: no",
        "I'd say no, it adds",
        "answer: false",
        "Answer: false, it adds",
        "verdict: false",
        "No x.grad accumulates",
        # exam format (stop 22, dev22): the letter stands for the verdict before a break
        "F. backward adds into .grad",
        "Ans: F. Reason: it accumulates",
        "Verdict: F. Justification: it adds",
        "Ans: no. buffers get no gradient",
    ],
)
def test_false_openings(text: str) -> None:
    assert verdict(text) is False


@pytest.mark.parametrize(
    "text",
    [
        "True.",
        "true - leaves have no grad_fn",
        "Yes",
        "yep, no grad_fn",
        "Yeah",
        "Correct.",
        "correct, because",
        "Indeed",
        "it is true that",
        "Of course, leaves",
        "Ture, it has none",
        "That's right.",
        "not false",
        "my answer is true because leaves have no grad_fn",
        "My answer: true",
        "the answer is yes",
        "T - leaves have no grad_fn",
        "Ans: T. Reason: leaves have no grad_fn",
    ],
)
def test_true_openings(text: str) -> None:
    assert verdict(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "It accumulates",
        "grads add up",
        "No gradients flow",
        "yes and no",
        "It depends",
        "partly true",
        "correct me if I'm wrong, it adds",
        "",
        "x.grad is 8",
        "no grad_fn is recorded for leaves",
        "No grad_fn, it is a leaf",
        "no gradient flows through detach",
        "no .grad is written",
        "I think no gradient flows",
        "it is no longer a leaf",
        "the answer is no longer obvious",
        "f x.grad accumulates",
        "t is the number of steps",
    ],
)
def test_openings_without_a_verdict(text: str) -> None:
    assert verdict(text) is None


def test_a_verdict_after_the_opening_is_ignored() -> None:
    assert verdict("Gradients accumulate over calls, each adds, so the claim is false") is None


def test_the_reading_says_where_the_verdict_ends() -> None:
    reading = extract_verdict(segment(normalize("That's false, grads add up")))
    assert reading.end == 3
