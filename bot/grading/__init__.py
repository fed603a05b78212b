"""Grading free-text justifications against keyword rubrics (no discord, no torch).

Public API::

    Grader(bank_or_items).grade(Response(...)) -> GradeResult
    grade(item, response) -> GradeResult
    render_feedback(result, item, *, flavour="discord"|"plain") -> str
    evaluate_samples(items) -> SampleReport        # what `tutor content test` prints

Errors: :class:`UnknownItem`, :class:`AnswerTooLong`, :class:`EmptyAnswer` (all
:class:`GradingError`).
See docs/GRADING.md for the pipeline, the scoring rules and their sources.
"""

from bot.grading.errors import AnswerTooLong, EmptyAnswer, GradingError, UnknownItem
from bot.grading.feedback import FeedbackFlavour, render_feedback
from bot.grading.grader import Grader, grade
from bot.grading.models import MAX_ANSWER_CHARS, Feedback, GradeResult, Response

__all__ = [
    "MAX_ANSWER_CHARS",
    "AnswerTooLong",
    "EmptyAnswer",
    "Feedback",
    "FeedbackFlavour",
    "GradeResult",
    "Grader",
    "GradingError",
    "Response",
    "UnknownItem",
    "grade",
    "render_feedback",
]
