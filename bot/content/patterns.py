"""The rubric pattern language: how a concept or misconception is spotted in free text.

A rubric pattern is either a string in the small grammar below or one of two structured
forms. The grammar is parsed here, at load time, so `tutor content check` rejects a broken
pattern with the item id and field path; the grader compiles the parsed form.

String form (an ordered phrase)::

    pattern := term (SPACE term)*
    term    := alt ("|" alt)*
    alt     := WORD | WORD "*" | "=" WORD | "`" CODE "`"

* ``accumulat*``     one word starting with ``accumulat`` (a ``*`` prefix, as in OU pmatch).
* ``overwrite``      one word, matched after stemming and with length-guarded typo tolerance
                     (exact under 4 letters, one slip for 4-7, two from 8; OU pmatch's rule).
* ``=reset``         one word, matched after stemming only: no typo tolerance and no
                     synonyms (for a word whose synonyms or near-misses mean something else).
* ``add|sum``        either word at this position.
* ``add* up``        an ordered phrase: each term must follow the previous one with at most
                     ``gap`` other words between (default 2) and never across a sentence end.
* `` `x.grad` ``     a code token, matched on its canonical form and never fuzzily.

Structured forms (YAML mappings)::

    {seq: "add* up", gap: 0}        the string form with an explicit gap
    {near: ["graph", "free*"], within: 6}
                                    every part (each itself a phrase) within ``within`` words
                                    of the others, in any order, inside one sentence
    {number: 8}                     a number stated in the text equal to 8 (``8``, ``eight``,
                                    ``8.0``, ``tensor([8.])``); a wrong stated sum such as
                                    ``4 + 4 = 9`` never counts

Each mapping form takes an optional ``polarity: affirm|deny`` that overrides its rule's for
that pattern (``{seq: "record*", polarity: deny}`` credits "is not recorded" in a concept
otherwise stated affirmatively, "stops tracking").

Words are lower-cased ASCII/Unicode letters, digits, ``_``, ``'`` and ``-``. Item-level
``synonyms`` and the shared synonym table expand WORD terms at compile time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
)

DEFAULT_GAP = 2
"""Words allowed between consecutive phrase terms when a pattern does not say."""

DEFAULT_NEAR_WITHIN = 6
"""Default proximity window, in words, for ``near`` patterns."""

_WORD_RE = re.compile(r"^[\w'\-]+\*?$", re.UNICODE)
_CODE_RE = re.compile(r"^`([^`\s][^`]*)`$")


class PatternSyntaxError(ValueError):
    """A rubric pattern does not follow the grammar in this module's docstring."""


@dataclass(frozen=True, slots=True)
class Alt:
    """One alternative at a phrase position.

    Attributes:
        text: the word, prefix (without ``*``), exact word (without ``=``) or code token,
            lower-cased.
        form: ``"word"``, ``"prefix"``, ``"exact"`` or ``"code"``.
    """

    text: str
    form: Literal["word", "prefix", "exact", "code"]


@dataclass(frozen=True, slots=True)
class Term:
    """One phrase position: any of ``alts`` matches it."""

    alts: tuple[Alt, ...]


@dataclass(frozen=True, slots=True)
class Phrase:
    """An ordered sequence of terms with at most ``gap`` words between neighbours."""

    terms: tuple[Term, ...]
    gap: int = DEFAULT_GAP


def _split_terms(source: str) -> list[str]:
    """Split on whitespace outside backticks. Raises PatternSyntaxError on an odd backtick."""
    parts: list[str] = []
    buf: list[str] = []
    in_code = False
    for ch in source:
        if ch == "`":
            in_code = not in_code
            buf.append(ch)
        elif ch.isspace() and not in_code:
            if buf:
                parts.append("".join(buf))
                buf = []
        else:
            buf.append(ch)
    if in_code:
        raise PatternSyntaxError(f"unclosed backtick in pattern {source!r}")
    if buf:
        parts.append("".join(buf))
    return parts


def _split_alts(term: str) -> list[str]:
    """Split a term on ``|`` outside backticks."""
    alts: list[str] = []
    buf: list[str] = []
    in_code = False
    for ch in term:
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            alts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    alts.append("".join(buf))
    return alts


def parse_phrase(source: str, gap: int = DEFAULT_GAP) -> Phrase:
    """Parse the string form of a pattern.

    Args:
        source: the pattern text, e.g. ``"add*|sum up"`` or ``"`x.grad.zero_()`"``.
        gap: words allowed between consecutive terms (0 means adjacent).

    Returns:
        The parsed phrase.

    Raises:
        PatternSyntaxError: empty pattern, empty alternative, unclosed backtick, a ``*`` that
            is not at the end of a word, an ``=`` on a prefix, or characters outside the word
            alphabet.
    """
    words = _split_terms(source.strip())
    if not words:
        raise PatternSyntaxError("empty pattern")
    terms: list[Term] = []
    for word in words:
        alts: list[Alt] = []
        for raw in _split_alts(word):
            if not raw:
                raise PatternSyntaxError(f"empty alternative in {word!r} (stray '|')")
            code = _CODE_RE.match(raw)
            if code:
                alts.append(Alt(code.group(1).strip().lower(), "code"))
                continue
            if "`" in raw:
                raise PatternSyntaxError(f"code token {raw!r} must be wrapped in backticks whole")
            if raw.startswith("=") and len(raw) > 1:
                if raw.endswith("*") or not _WORD_RE.match(raw[1:]):
                    raise PatternSyntaxError(f"{raw!r}: '=' marks one exact word, not a prefix")
                alts.append(Alt(raw[1:].lower(), "exact"))
                continue
            if not _WORD_RE.match(raw):
                raise PatternSyntaxError(f"{raw!r} is not a word, a word* prefix or a `code` token")
            if raw.endswith("*"):
                if len(raw) < 3:
                    raise PatternSyntaxError(f"prefix {raw!r} is too short (at least 2 letters)")
                alts.append(Alt(raw[:-1].lower(), "prefix"))
            else:
                alts.append(Alt(raw.lower(), "word"))
        terms.append(Term(tuple(alts)))
    return Phrase(tuple(terms), gap)


def _check_phrase(value: str) -> str:
    try:
        parse_phrase(value)
    except PatternSyntaxError as exc:
        raise ValueError(str(exc)) from None
    return value


Polarity = Literal["affirm", "deny"]
"""``affirm``: stated outside a negation; ``deny``: stated inside one ("is *not* recorded")."""

_POLARITY_DESCRIPTION = (
    "This pattern's own polarity, overriding its concept's or misconception's: a concept "
    "stated either way (affirm 'stops tracking', deny 'is not recorded')."
)


class SeqPattern(BaseModel):
    """An ordered phrase with an explicit gap: ``{seq: "add* up", gap: 0}``.

    With ``polarity`` the phrase carries its own polarity (``{seq: "record*", polarity:
    deny}`` credits "is not recorded"); without it, it takes its rule's.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: str = Field(description="The phrase, in the string grammar.")
    gap: int = Field(DEFAULT_GAP, ge=0, le=10, description="Words allowed between terms.")
    polarity: Polarity | None = Field(None, description=_POLARITY_DESCRIPTION)

    _v = field_validator("seq")(_check_phrase)


class NearPattern(BaseModel):
    """Unordered proximity: every part within ``within`` words, inside one sentence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    near: list[str] = Field(min_length=2, max_length=4, description="Phrases that must co-occur.")
    within: int = Field(DEFAULT_NEAR_WITHIN, ge=1, le=30, description="Window size in words.")
    polarity: Polarity | None = Field(None, description=_POLARITY_DESCRIPTION)

    @field_validator("near")
    @classmethod
    def _parts_parse(cls, value: list[str]) -> list[str]:
        for part in value:
            _check_phrase(part)
        return value


class NumberPattern(BaseModel):
    """A number the learner states, compared numerically (``8`` == ``8.0`` == ``eight``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    number: float = Field(description="The value to find.")
    tolerance: float = Field(1e-6, ge=0, description="Absolute tolerance of the comparison.")
    polarity: Polarity | None = Field(None, description=_POLARITY_DESCRIPTION)


PhraseStr = Annotated[str, AfterValidator(_check_phrase)]
"""A pattern in the string grammar, checked when loaded."""


def _pattern_form(value: object) -> str:
    """Which pattern form a raw value is, so errors speak about that form only."""
    if isinstance(value, dict):
        for key in ("seq", "near", "number"):
            if key in value:
                return key
        return "seq"
    if isinstance(value, SeqPattern):
        return "seq"
    if isinstance(value, NearPattern):
        return "near"
    if isinstance(value, NumberPattern):
        return "number"
    return "phrase"


Pattern = Annotated[
    Annotated[PhraseStr, Tag("phrase")]
    | Annotated[SeqPattern, Tag("seq")]
    | Annotated[NearPattern, Tag("near")]
    | Annotated[NumberPattern, Tag("number")],
    Discriminator(_pattern_form),
    Field(description="A phrase in the pattern grammar, or a seq / near / number mapping."),
]
"""One rubric pattern; see the module docstring for the grammar."""
