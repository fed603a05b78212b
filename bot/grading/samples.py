"""Rubric testing: grade every item's marked ``samples`` and report how the rubric fares.

This is OU pmatch's "test this question" tool for our rubrics (issue 4): per item and
overall, the share of samples graded with their mark, *false accepts* (graded above the
mark: an incorrect answer graded partial or correct, a partial graded correct), *false
rejects* (graded below), the incorrect samples graded correct (the worst error), and the
concepts and misconceptions that never fire on any sample (dead or untested patterns),
and, pattern by pattern, the rubric patterns that match no sample text at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from bot.content.models import Item, Kind, Label
from bot.grading.grader import CompiledItem, compile_item, grade_compiled
from bot.grading.matching import CPattern, Matcher
from bot.grading.models import Response
from bot.grading.negation import scope
from bot.grading.normalize import normalize
from bot.grading.sentences import segment

MIN_ACCURACY: Final = 0.95
"""CI gate: at least 95% of all samples graded with their mark (issue 4)."""

_RANK: Final = {Label.INCORRECT: 0, Label.PARTIAL: 1, Label.CORRECT: 2}


class SampleOutcome(BaseModel):
    """One marked sample and how it was graded."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(description="0-based position in the item's samples; -1: the answer key")
    expected: Label
    got: Label
    score: float
    confidence: float
    verdict: bool | None
    text: str

    @property
    def ok(self) -> bool:
        """Graded with its mark."""
        return self.expected is self.got

    @property
    def false_accept(self) -> bool:
        """Graded above its mark."""
        return _RANK[self.got] > _RANK[self.expected]

    @property
    def false_reject(self) -> bool:
        """Graded below its mark."""
        return _RANK[self.got] < _RANK[self.expected]


class ItemReport(BaseModel):
    """How one item's samples were graded."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    outcomes: list[SampleOutcome]
    silent_concepts: list[str] = Field(description="concepts credited on no sample")
    silent_misconceptions: list[str] = Field(description="misconceptions found on no sample")
    silent_patterns: list[str] = Field(
        default_factory=list,
        description="rubric patterns that matched no sample and not the answer key, each "
        "by its path in the item (``rubric.concepts[0].patterns[2]``, ``rubric.gist[1]``): "
        "a pattern never tried on an answer, or one that cannot match",
    )
    answer: SampleOutcome = Field(
        description="the item's own answer key (answer.text with its verdict), graded as a "
        "learner's answer: it must be graded correct, or the rubric marks the key wrong"
    )

    @property
    def total(self) -> int:
        """Samples graded."""
        return len(self.outcomes)

    @property
    def agreed(self) -> int:
        """Samples graded with their mark."""
        return sum(o.ok for o in self.outcomes)

    @property
    def false_accepts(self) -> int:
        """Samples graded above their mark."""
        return sum(o.false_accept for o in self.outcomes)

    @property
    def false_rejects(self) -> int:
        """Samples graded below their mark."""
        return sum(o.false_reject for o in self.outcomes)

    @property
    def incorrect_as_correct(self) -> int:
        """Samples marked incorrect but graded correct."""
        return sum(o.expected is Label.INCORRECT and o.got is Label.CORRECT for o in self.outcomes)


class SampleReport(BaseModel):
    """Every item's report, with the totals the CI gate checks."""

    model_config = ConfigDict(frozen=True)

    items: list[ItemReport]

    @property
    def total(self) -> int:
        """Samples graded."""
        return sum(r.total for r in self.items)

    @property
    def accuracy(self) -> float:
        """Share of samples graded with their mark (1.0 when there are none)."""
        total = self.total
        return sum(r.agreed for r in self.items) / total if total else 1.0

    @property
    def incorrect_as_correct(self) -> int:
        """Samples marked incorrect but graded correct, over all items."""
        return sum(r.incorrect_as_correct for r in self.items)

    @property
    def answers_not_correct(self) -> list[str]:
        """Ids of the items whose own answer key is not graded correct."""
        return [r.item_id for r in self.items if not r.answer.ok]

    def passes(self, min_accuracy: float = MIN_ACCURACY) -> bool:
        """The CI gate: accuracy at least ``min_accuracy``, no incorrect sample graded
        correct, and every item's own answer key graded correct."""
        return (
            self.accuracy >= min_accuracy
            and self.incorrect_as_correct == 0
            and not self.answers_not_correct
        )


def _patterns(compiled: CompiledItem) -> dict[str, CPattern]:
    """Every compiled rubric pattern of an item by its path in the item
    (:meth:`bot.content.models.Rubric.patterns_by_path`, whose order the compiler keeps)."""
    rules = (*compiled.concepts, *compiled.misconceptions)
    if compiled.gist is not None:
        rules = (*rules, compiled.gist)
    patterns = [pattern for rule in rules for pattern in rule.patterns]
    paths = [path for path, _ in compiled.item.rubric.patterns_by_path()]
    return dict(zip(paths, patterns, strict=True))


def _unmatched(compiled: CompiledItem, texts: Iterable[str]) -> list[str]:
    """The paths of the patterns (:func:`_patterns`) that match none of ``texts``.

    A pattern counts as matching where the grader's matcher finds it at all, in any
    polarity, negated, conditional or in a question: the question here is whether the
    pattern can fire, not whether it credits. The texts are read by the grader's own
    normalizer, segmenter and negation scope, and the item's compiled patterns and lookup
    cache are reused, so this adds one matcher per sample and only tries patterns not
    matched yet.
    """
    waiting = _patterns(compiled)
    for text in texts:
        if not waiting:
            break
        stream = segment(normalize(text))
        matcher = Matcher(compiled.compiler, stream, scope(stream))
        for path in [path for path, pattern in waiting.items() if matcher.spans(pattern)]:
            del waiting[path]
    return list(waiting)


def evaluate_samples(items: Iterable[Item]) -> SampleReport:
    """Grade every sample of every item.

    Args:
        items: the items to test (e.g. a :class:`bot.content.loader.Bank`).

    Returns:
        The report, items in the order given.
    """
    reports: list[ItemReport] = []
    for item in items:
        compiled = compile_item(item)
        outcomes: list[SampleOutcome] = []
        fired_concepts: set[str] = set()
        fired_misconceptions: set[str] = set()
        for index, sample in enumerate(item.samples):
            result = grade_compiled(
                compiled, Response(item_id=item.id, verdict=sample.verdict, text=sample.text)
            )
            fired_concepts.update(result.concepts_hit)
            fired_misconceptions.update(result.misconceptions)
            outcomes.append(
                SampleOutcome(
                    index=index,
                    expected=sample.label,
                    got=result.label,
                    score=result.score,
                    confidence=result.confidence,
                    verdict=sample.verdict,
                    text=sample.text,
                )
            )
        verdict = item.answer.verdict if item.kind is Kind.TRUE_FALSE else None
        key = grade_compiled(
            compiled, Response(item_id=item.id, verdict=verdict, text=item.answer.text)
        )
        rubric = item.rubric
        reports.append(
            ItemReport(
                item_id=item.id,
                outcomes=outcomes,
                silent_concepts=[c.id for c in rubric.concepts if c.id not in fired_concepts],
                silent_misconceptions=[
                    m.id for m in rubric.misconceptions if m.id not in fired_misconceptions
                ],
                silent_patterns=_unmatched(
                    compiled, [*(sample.text for sample in item.samples), item.answer.text]
                ),
                answer=SampleOutcome(
                    index=-1,
                    expected=Label.CORRECT,
                    got=key.label,
                    score=key.score,
                    confidence=key.confidence,
                    verdict=verdict,
                    text=item.answer.text,
                ),
            )
        )
    return SampleReport(items=reports)
