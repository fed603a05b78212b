"""Domain errors raised by the grader; each carries the data a UI needs to explain it."""

from __future__ import annotations

from bot.grading.models import MAX_ANSWER_CHARS


class GradingError(Exception):
    """Base class: a response the grader refuses to grade."""


class UnknownItem(GradingError):
    """The response names an item id the grader does not know.

    Attributes:
        item_id: the id as given (at most 16 characters are kept, it is user-controlled).
    """

    def __init__(self, item_id: str) -> None:
        self.item_id = item_id[:16]
        super().__init__(f"unknown item id {self.item_id!r}")


class AnswerTooLong(GradingError):
    """The learner's text is longer than the grader accepts.

    Attributes:
        length: the text's length in characters (Unicode code points).
        limit: the most accepted, :data:`bot.grading.models.MAX_ANSWER_CHARS` (4,000).
    """

    def __init__(self, length: int, limit: int = MAX_ANSWER_CHARS) -> None:
        self.length = length
        self.limit = limit
        super().__init__(
            f"the answer is {length:,} characters long; at most {limit:,} are accepted"
        )


class EmptyAnswer(GradingError):
    """The learner's text is empty after normalisation (:func:`bot.grading.normalize.normalize`):
    blank, only whitespace, or only markup such as a lone code fence (a paste fragment),
    ``****``, ``||  ||`` or ``<b></b>`` (:func:`bot.grading.normalize.is_markup_only`).

    Every front end refuses it with these words before anything is graded or recorded.
    """

    def __init__(self) -> None:
        super().__init__("an empty answer cannot be graded: say why, in a sentence")
