"""Rubric patterns that can never match, found without grading anything.

`tutor content check` lists these as warnings: the pack is valid and is still loaded, but
part of a rubric is dead. Only rules that are certain are applied here; a pattern that is
merely never exercised by the item's samples is reported by `tutor content test`
(:attr:`bot.grading.samples.ItemReport.silent_patterns`) instead.

The one certain rule: **digits are number tokens**. The grader's tokenizer reads ``2``,
``10`` or ``0`` in an answer as a number token (``bot/grading/tokens.py``), and a word
alternative (``2``, ``=2``) matches only word tokens, so it can never match; a
`` `2` `` code token does, and so does a whole ``{number: 2}`` pattern (README,
*Pitfalls*). When every alternative at one position of a phrase is such a word
(``shape 1``), the whole pattern never matches;
when some other alternative remains (``zero|zeros|0``), only that alternative is dead.
``tests/content/test_lint.py`` checks the rule against the grader's own matcher.

Negation cues (``no``, ``not``, ``never``) and articles are *not* flagged: the grader
matches them where a pattern spells them (``nothing break*|breaks`` credits "nothing
breaks").
"""

from __future__ import annotations

import re
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from bot.content.loader import Bank, SourceIndex
from bot.content.patterns import NearPattern, Pattern, SeqPattern, Term, parse_phrase

_DIGITS: Final = re.compile(r"^[0-9]+$")
"""A word alternative made only of digits: the tokenizer reads such text as a number."""


class PatternWarning(BaseModel):
    """A rubric pattern, or one alternative in it, that can never match.

    Attributes:
        file: the pack file, or "" for a bank built in memory.
        line: 1-based line of the pattern, or None when unknown.
        where: ``ITEM.rubric.concepts[0].patterns[2]`` (``content check``'s naming).
        severity: ``never matches``: the whole pattern is dead; ``dead alternative``: one
            alternative is dead, the pattern still matches through the others.
        message: what is wrong and the fix, in words.
    """

    model_config = ConfigDict(frozen=True)

    file: str
    line: int | None
    where: str
    severity: Literal["never matches", "dead alternative"]
    message: str

    def __str__(self) -> str:
        at = f"{self.file}:{self.line}: " if self.line is not None else ""
        if self.file and self.line is None:
            at = f"{self.file}: "
        return f"{at}{self.where}: warning: {self.message}"


def _phrases(pattern: Pattern) -> list[str]:
    """The phrase sources of a pattern (a ``near`` has several; a number pattern none)."""
    if isinstance(pattern, str):
        return [pattern]
    if isinstance(pattern, SeqPattern):
        return [pattern.seq]
    if isinstance(pattern, NearPattern):
        return list(pattern.near)
    return []


def _dead(term: Term) -> list[str]:
    """The alternatives of ``term`` that are digit words (never matching)."""
    return [
        alt.text for alt in term.alts if alt.form in ("word", "exact") and _DIGITS.match(alt.text)
    ]


def _fix(word: str) -> str:
    return f"write `{word}` instead (a code token matches the digits)"


def unmatchable_patterns(bank: Bank, sources: SourceIndex | None = None) -> list[PatternWarning]:
    """The rubric patterns of ``bank`` that can never match, and their dead alternatives.

    Args:
        bank: the loaded packs.
        sources: where to read line numbers from (default: ``SourceIndex(bank)``).

    Returns:
        One warning per pattern, in bank and rubric order: ``never matches`` when some
        phrase position holds only digit words, else ``dead alternative`` when some
        alternative is one.
    """
    sources = sources if sources is not None else SourceIndex(bank)
    warnings: list[PatternWarning] = []
    for item in bank:
        for path, pattern in item.rubric.patterns_by_path():
            where = f"{item.id}.{path}"
            never: list[str] = []
            dead: list[str] = []
            for phrase in _phrases(pattern):
                for term in parse_phrase(phrase).terms:
                    words = _dead(term)
                    if words and len(words) == len(term.alts):
                        never.extend(words)
                    else:
                        dead.extend(words)
            if not never and not dead:
                continue
            shown = (
                pattern if isinstance(pattern, str) else pattern.model_dump(exclude_defaults=True)
            )
            if never:
                severity: Literal["never matches", "dead alternative"] = "never matches"
                message = (
                    f"pattern {shown!r} never matches: {', '.join(map(repr, never))} is a "
                    f"number in an answer, never a word; {_fix(never[0])}"
                )
            else:
                severity = "dead alternative"
                message = (
                    f"in pattern {shown!r} the alternative {', '.join(map(repr, dead))} never "
                    f"matches (a number in an answer, never a word); {_fix(dead[0])}"
                )
            found = sources.locate(where)
            warnings.append(
                PatternWarning(
                    file=found.file if found else "",
                    line=found.line if found else None,
                    where=where,
                    severity=severity,
                    message=message,
                )
            )
    return warnings
