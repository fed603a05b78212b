"""What the grader returns: the contract between grading, the progress store and the UIs.

The grader (``bot.grading``) fills a :class:`GradeResult`; ``tutor grade --jsonl`` prints it
as one JSON line; the store records its fields on the attempt; the Discord bot and
``tutor play`` render its :class:`Feedback` through one renderer.
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.content.models import Label

MAX_ANSWER_CHARS = 4000
"""Learner text longer than this is refused (Discord's modal text input limit is 4,000)."""

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """``text`` with every surrogate code point that is not half of a pair made U+FFFD.

    Python strings can hold lone surrogates (U+D800-U+DFFF) that no UTF-8 encoder accepts:
    stdin read with ``surrogateescape`` turns each undecodable byte into one (``caf\\xe9``
    gives ``caf\\udce9``), and a JSON ``"\\ud800"`` escape gives one too. pydantic, SQLite
    and every printer refuse them, so the grader's boundary replaces them with U+FFFD (the
    replacement character, as a decoder with ``errors="replace"`` would). A high-low pair is
    joined into its character. Text without surrogates is returned unchanged (the same
    object), so grading results never change.

    Args:
        text: any string.

    Returns:
        The string, valid Unicode (encodable as UTF-8).
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class Response(BaseModel):
    """A learner's answer to one item.

    Attributes:
        item_id: the item answered, e.g. ``TF3``.
        verdict: the true/false button pressed, or None (other kinds, or "say it in text").
        text: the free-text justification, at most 4,000 characters. Lone surrogates
            (undecodable bytes read with ``surrogateescape``) become U+FFFD: see
            :func:`replace_lone_surrogates`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(min_length=1, max_length=16)
    verdict: bool | None = None
    text: str = Field(max_length=MAX_ANSWER_CHARS)

    @field_validator("item_id", "text", mode="before")
    @classmethod
    def _valid_unicode(cls, value: Any) -> Any:
        """Lone surrogates (undecodable input bytes) become U+FFFD instead of an error."""
        return replace_lone_surrogates(value) if isinstance(value, str) else value


class Feedback(BaseModel):
    """Feedback a learner can act on, as separate parts so every UI can lay it out.

    Attributes:
        right: what the answer got right (concept descriptions), may be empty.
        missing: nudges towards what was missing, one per missing concept.
        corrections: each misconception found, named and corrected.
        verdict: a sentence about the verdict (wrong, or contradicting the text), or None.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    right: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    corrections: list[str] = Field(default_factory=list)
    verdict: str | None = None


class GradeResult(BaseModel):
    """The grade of one response.

    Attributes:
        item_id: the item graded.
        score: 0.0-1.0.
        label: correct / partial / incorrect.
        verdict: the verdict graded (button, else extracted from the text), or None.
        verdict_source: where ``verdict`` came from.
        verdict_correct: whether it matches the key; None for kinds without a verdict.
        verdict_conflict: the button and the text's opening state different verdicts.
        concepts_hit: ids of rubric concepts credited.
        concepts_missing: ids of rubric concepts not credited.
        concepts_contradicted: ids of concepts stated with the opposite polarity.
        misconceptions: ids of misconceptions found.
        confidence: 0.0-1.0, how sure the grader is of the label (low near thresholds,
            with typo-tolerant matches only, or with a verdict conflict).
        feedback: what to tell the learner.
        gist: a rubric ``gist`` pattern matched (the answer gestures at the topic).
        gesture: the answer only gestures ("somehow", "something to do with"), so it is
            partial at best.
        hedged: the reasoning hedges its claim ("I think", "maybe", "not sure"), so it is
            partial at best.
        aside: the answer adds a side claim ("also ...", "... btw") that the rubric does
            not recognise, so it is partial at best.
        restated: the answer restates the prompt; concepts the prompt itself states earn
            no credit.
        redirected: the answer names another cause than the key reason it mentions ("what
            actually breaks it is ..."): the key concepts count as contradicted.
        dismissive: the answer reduces the rule to speed or style ("only because of
            speed"), so it is incorrect.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str
    score: float = Field(ge=0.0, le=1.0)
    label: Label
    verdict: bool | None
    verdict_source: Literal["button", "text", "none"]
    verdict_correct: bool | None
    verdict_conflict: bool = False
    concepts_hit: list[str]
    concepts_missing: list[str]
    concepts_contradicted: list[str] = Field(default_factory=list)
    misconceptions: list[str]
    confidence: float = Field(ge=0.0, le=1.0)
    feedback: Feedback
    gist: bool = False
    gesture: bool = False
    hedged: bool = False
    aside: bool = False
    restated: bool = False
    redirected: bool = False
    dismissive: bool = False
