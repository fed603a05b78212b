"""Measuring the grader on marked learner answers (an examiner's JSONL set).

``tutor content test`` grades the samples rubric authors wrote next to their rubrics; this
module grades answers written *independently* of the rubrics, one JSON object per line::

    {"item_id": "TF3", "verdict": false, "text": "False - grads accumulate.",
     "label": "correct", "style": "terse", "opposite_claim": false}

and reports what issue 4 measures the project by: 3-way agreement, the share of incorrect
answers graded correct, and the share of "right words, opposite claim" answers graded
correct; plus a confusion matrix, per-item numbers and every miss.

Typical use::

    answers = load_marked(Path("tests/grading/eval/dev.jsonl"))
    report = evaluate(Grader(bank), answers)
    report.agreement, report.meets_targets()

The examiner's set (``tests/grading/eval/``) has a rule: whoever tunes rubrics or the
grader may read ``dev.jsonl`` but only the *numbers* of ``test.jsonl``;
:meth:`EvalReport.item_table` and :meth:`EvalReport.targets_summary` print numbers only.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from bot.content.models import Label
from bot.grading.errors import GradingError
from bot.grading.grader import Grader
from bot.grading.models import MAX_ANSWER_CHARS, Response
from bot.json_input import JsonInputError, loads_user_json

MIN_AGREEMENT: Final = 0.90
"""Issue 4 target: at least 90% agreement on the 3-way label."""

MAX_INCORRECT_AS_CORRECT: Final = 0.02
"""Issue 4 target: at most 2% of answers marked incorrect graded correct."""

MAX_OPPOSITE_AS_CORRECT: Final = 0.05
"""Issue 4 target: at most 5% of "right words, opposite claim" answers graded correct."""

MAX_FILE_BYTES: Final = 16 * 1024 * 1024
"""A marked file larger than 16 MiB is refused before reading (the examiner's is ~100 KiB)."""

LABELS: Final = (Label.CORRECT, Label.PARTIAL, Label.INCORRECT)
_RANK: Final = {Label.INCORRECT: 0, Label.PARTIAL: 1, Label.CORRECT: 2}


class MarkedFileError(ValueError):
    """A marked JSONL file cannot be read; ``problems`` lists each as ``file:line: message``."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class MarkedAnswer(BaseModel):
    """One marked learner answer (one JSON line). Fields other than these are ignored.

    Attributes:
        item_id: the item answered, e.g. ``TF3``.
        verdict: the true/false button pressed, or None.
        text: the learner's text, 1-4,000 characters.
        label: the examiner's mark.
        style: free-form tag of what the answer exercises (``terse``, ``code``...).
        opposite_claim: an incorrect answer that uses the key words to state the opposite
            of the key fact.
        line: 1-based line in the file it came from (0 when built in code).
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    item_id: str = Field(min_length=1, max_length=16)
    verdict: StrictBool | None = None  # JSON true/false/null: 1 or "yes" is refused
    text: str = Field(min_length=1, max_length=MAX_ANSWER_CHARS)
    label: Label
    style: str = ""
    opposite_claim: bool = False
    line: int = 0


def load_marked(path: Path) -> list[MarkedAnswer]:
    """Read a marked JSONL file (blank lines skipped).

    Args:
        path: the file, UTF-8, one JSON object per line.

    Returns:
        The answers in file order, each with its line number.

    Raises:
        MarkedFileError: the file is missing, too large (over 16 MiB) or not UTF-8, or any
            line is not a JSON object with the fields of :class:`MarkedAnswer`; every bad
            line is listed with its number and the field at fault.
    """
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise MarkedFileError([f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB"])
        content = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MarkedFileError([f"{path}: {exc.strerror or exc}"]) from None
    except UnicodeDecodeError as exc:
        raise MarkedFileError([f"{path}: not UTF-8 ({exc.reason})"]) from None
    answers: list[MarkedAnswer] = []
    problems: list[str] = []
    for number, raw in enumerate(content.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = loads_user_json(raw)
        except JsonInputError as exc:
            problems.append(f"{path}:{number}: {exc.reason}")
            continue
        if not isinstance(data, dict):
            problems.append(f"{path}:{number}: expected a JSON object")
            continue
        try:
            answers.append(MarkedAnswer.model_validate({**data, "line": number}))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            problems.append(f"{path}:{number}: {where}: {first['msg']}")
    if problems:
        raise MarkedFileError(problems)
    return answers


class GradedAnswer(BaseModel):
    """A marked answer with the grader's label.

    Attributes:
        answer: the marked answer.
        got: the grader's label (None when the grader refused it: unknown item id).
        score: the grader's score (0 when refused).
        confidence: the grader's confidence (0 when refused).
        error: why the grader refused it, or None.
    """

    model_config = ConfigDict(frozen=True)

    answer: MarkedAnswer
    got: Label | None
    score: float = 0.0
    confidence: float = 0.0
    error: str | None = None

    @property
    def agrees(self) -> bool:
        """Graded with its mark."""
        return self.got is self.answer.label

    @property
    def false_accept(self) -> bool:
        """Graded above its mark (a refused answer never is)."""
        return self.got is not None and _RANK[self.got] > _RANK[self.answer.label]

    @property
    def false_reject(self) -> bool:
        """Graded below its mark (a refused answer always is, unless marked incorrect)."""
        got = Label.INCORRECT if self.got is None else self.got
        return _RANK[got] < _RANK[self.answer.label]


class ItemStats(BaseModel):
    """Per-item numbers (no answer text, so they may be shown for a held-out split)."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    total: int
    agreed: int
    false_accepts: int
    false_rejects: int
    incorrect: int = Field(description="answers marked incorrect")
    incorrect_as_correct: int
    opposite: int = Field(description="opposite-claim answers")
    opposite_as_correct: int

    @property
    def agreement(self) -> float:
        """Share graded with their mark (1.0 for no answers)."""
        return self.agreed / self.total if self.total else 1.0


class EvalReport(BaseModel):
    """How the grader fared on a marked set."""

    model_config = ConfigDict(frozen=True)

    graded: list[GradedAnswer]

    def __repr__(self) -> str:
        # Numbers only: a report on a held-out split must not leak its answers' texts into
        # tracebacks or test output.
        return f"EvalReport(total={self.total}, agreed={self.agreed})"

    __str__ = __repr__

    @property
    def total(self) -> int:
        """Answers graded."""
        return len(self.graded)

    @property
    def agreed(self) -> int:
        """Answers graded with their mark."""
        return sum(g.agrees for g in self.graded)

    @property
    def agreement(self) -> float:
        """Share of answers graded with their mark (1.0 for an empty set)."""
        return self.agreed / self.total if self.total else 1.0

    @property
    def incorrect(self) -> int:
        """Answers marked incorrect."""
        return sum(g.answer.label is Label.INCORRECT for g in self.graded)

    @property
    def incorrect_as_correct(self) -> int:
        """Answers marked incorrect and graded correct (the worst error)."""
        return sum(
            g.answer.label is Label.INCORRECT and g.got is Label.CORRECT for g in self.graded
        )

    @property
    def opposite(self) -> int:
        """Opposite-claim answers."""
        return sum(g.answer.opposite_claim for g in self.graded)

    @property
    def opposite_as_correct(self) -> int:
        """Opposite-claim answers graded correct."""
        return sum(g.answer.opposite_claim and g.got is Label.CORRECT for g in self.graded)

    @property
    def misses(self) -> list[GradedAnswer]:
        """Answers not graded with their mark, in file order."""
        return [g for g in self.graded if not g.agrees]

    def confusion(self) -> dict[Label, dict[Label | None, int]]:
        """Counts by mark (rows) and grader label (columns; None: refused)."""
        matrix: dict[Label, dict[Label | None, int]] = {
            mark: {**{got: 0 for got in LABELS}, None: 0} for mark in LABELS
        }
        for g in self.graded:
            matrix[g.answer.label][g.got] += 1
        return matrix

    def items(self) -> list[ItemStats]:
        """Per-item numbers, items in order of first appearance."""
        groups: dict[str, list[GradedAnswer]] = {}
        for g in self.graded:
            groups.setdefault(g.answer.item_id, []).append(g)
        return [
            ItemStats(
                item_id=item_id,
                total=len(group),
                agreed=sum(g.agrees for g in group),
                false_accepts=sum(g.false_accept for g in group),
                false_rejects=sum(g.false_reject for g in group),
                incorrect=sum(g.answer.label is Label.INCORRECT for g in group),
                incorrect_as_correct=sum(
                    g.answer.label is Label.INCORRECT and g.got is Label.CORRECT for g in group
                ),
                opposite=sum(g.answer.opposite_claim for g in group),
                opposite_as_correct=sum(
                    g.answer.opposite_claim and g.got is Label.CORRECT for g in group
                ),
            )
            for item_id, group in groups.items()
        ]

    def meets_agreement(self, minimum: float = MIN_AGREEMENT) -> bool:
        """Agreement at least ``minimum`` (issue 4: 90%)."""
        return self.agreement >= minimum

    def meets_incorrect_as_correct(self, maximum: float = MAX_INCORRECT_AS_CORRECT) -> bool:
        """At most ``maximum`` of the incorrect answers graded correct (issue 4: 2%)."""
        return self.incorrect_as_correct <= maximum * self.incorrect

    def meets_opposite_as_correct(self, maximum: float = MAX_OPPOSITE_AS_CORRECT) -> bool:
        """At most ``maximum`` of the opposite-claim answers graded correct (issue 4: 5%)."""
        return self.opposite_as_correct <= maximum * self.opposite

    def meets_targets(self) -> bool:
        """All three of issue 4's targets hold."""
        return (
            self.meets_agreement()
            and self.meets_incorrect_as_correct()
            and self.meets_opposite_as_correct()
        )

    def targets_summary(self) -> str:
        """One line per target: the measured number, the target, met or missed."""

        def share(part: int, whole: int) -> str:
            return f"{part}/{whole} = {part / whole:.1%}" if whole else f"{part}/0"

        rows = [
            (
                "agreement",
                share(self.agreed, self.total),
                f">= {MIN_AGREEMENT:.0%}",
                self.meets_agreement(),
            ),
            (
                "incorrect graded correct",
                share(self.incorrect_as_correct, self.incorrect),
                f"<= {MAX_INCORRECT_AS_CORRECT:.0%}",
                self.meets_incorrect_as_correct(),
            ),
            (
                "opposite claims graded correct",
                share(self.opposite_as_correct, self.opposite),
                f"<= {MAX_OPPOSITE_AS_CORRECT:.0%}",
                self.meets_opposite_as_correct(),
            ),
        ]
        return "\n".join(
            f"{name:<32}{measured:>18}  target {target:<6} {'met' if ok else 'MISSED'}"
            for name, measured, target, ok in rows
        )

    def confusion_table(self) -> str:
        """The confusion matrix as text: rows are marks, columns the grader's labels."""
        matrix = self.confusion()
        refused = any(matrix[mark][None] for mark in LABELS)
        columns: list[Label | None] = [*LABELS, None] if refused else list(LABELS)
        head = "marked \\ graded".ljust(18) + "".join(
            f"{(c.value if c else 'refused'):>11}" for c in columns
        )
        lines = [head]
        for mark in LABELS:
            lines.append(mark.value.ljust(18) + "".join(f"{matrix[mark][c]:>11}" for c in columns))
        return "\n".join(lines)

    def item_table(self) -> str:
        """Per-item numbers as text (no answer text)."""
        lines = [
            f"{'item':<7}{'n':>4}{'agree':>7}{'acc':>6}{'false+':>8}{'false-':>8}"
            f"{'inc->c':>8}{'opp->c':>8}"
        ]
        for s in self.items():
            lines.append(
                f"{s.item_id:<7}{s.total:>4}{s.agreed:>7}{s.agreement:>6.0%}"
                f"{s.false_accepts:>8}{s.false_rejects:>8}"
                f"{s.incorrect_as_correct:>5}/{s.incorrect:<2}{s.opposite_as_correct:>5}/{s.opposite:<2}"
            )
        return "\n".join(lines)


def evaluate(grader: Grader, answers: Iterable[MarkedAnswer]) -> EvalReport:
    """Grade every marked answer.

    Args:
        grader: a grader over the items the answers are for.
        answers: marked answers, e.g. from :func:`load_marked`.

    Returns:
        The report, answers in the order given. An answer the grader refuses (an item id
        it does not know) is kept with ``got=None`` and counts as a miss.
    """
    graded: list[GradedAnswer] = []
    for answer in answers:
        try:
            result = grader.grade(
                Response(item_id=answer.item_id, verdict=answer.verdict, text=answer.text)
            )
        except GradingError as exc:
            graded.append(GradedAnswer(answer=answer, got=None, error=str(exc)))
            continue
        graded.append(
            GradedAnswer(
                answer=answer, got=result.label, score=result.score, confidence=result.confidence
            )
        )
    return EvalReport(graded=graded)
