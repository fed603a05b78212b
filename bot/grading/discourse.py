"""Discourse cues: how an answer frames its claims, beyond what each claim says.

Negation (:mod:`bot.grading.negation`) decides the polarity of each matched phrase; the
rules here look at the answer as a whole and at the words *around* the matches:

* **hedges** ("I think", "I guess", "maybe", "not sure", "one of those"): the learner is
  not committing to the claim, which the examiners mark partial at best;
* **asides** ("also ...", "btw", "plus, ...", "... tho"): an extra claim beside the key
  reason. When the rubric recognises none of its words it is a claim the grader cannot
  check, and on the marked sets such asides were mostly the "smaller factual error beside
  the point" that docs/MARKING.md marks partial;
* **restatements**: an answer made of the prompt's own words that credits nothing the
  prompt does not already state repeats the question (docs/MARKING.md: incorrect);
* **ignorance**: "idk", "dunno" (``do not know``), "no idea": an answer that only says the
  learner does not know states nothing, even when its words happen to match a rubric
  pattern ("autograd does not know ...");
* **redirects** ("the problem is X", "what actually breaks it is X", "X is what breaks
  it"): the learner names the cause; when X is not the key reason that the answer
  mentions elsewhere, the key reason was only mentioned and the claim is the other cause;
* **dismissals** ("only because of speed", "just a perf thing", "just for readability"):
  the learner says the rule exists for speed or style alone, which denies that the
  behaviour depends on it.

Each rule, its evidence on the marked tuning sets and its effect on the held-out numbers
are in docs/GRADING.md ("Discourse cues").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from bot.grading.lexicon import stem
from bot.grading.negation import FUNCTION_WORDS
from bot.grading.sentences import TokenStream
from bot.grading.tokens import CODE, NUM, WORD

HEDGE_PHRASES: Final[tuple[tuple[str, ...], ...]] = (
    ("i", "think"),
    ("i", "guess"),
    ("i", "would", "guess"),
    ("i", "believe"),
    ("i", "suppose"),
    ("i", "assume"),
    ("i", "reckon"),
    ("maybe",),
    ("perhaps",),
    ("probably",),
    ("possibly",),
    ("not", "sure"),
    ("not", "100"),
    ("not", "certain"),
    ("unsure",),
    ("no", "idea"),
    ("no", "clue"),
    ("idk",),
    ("i", "do", "not", "know"),
    ("iirc",),
    ("if", "i", "remember"),
    ("one", "of", "those"),
)
"""Phrases that mark an unsure claim. ``I think`` and ``I guess`` are the examiners' usual
hedges; ``I don't think so`` (a verdict) does not contain ``i think``."""

IGNORANCE_PHRASES: Final[tuple[tuple[str, ...], ...]] = (
    ("idk",),
    ("dunno",),
    ("do", "not", "know"),
    ("no", "idea"),
    ("no", "clue"),
    ("not", "sure"),
    ("i", "am", "not", "sure"),
    ("i", "forget"),
    ("i", "forgot"),
)
"""Phrases saying the learner does not know (``dunno`` is expanded to ``do not know``)."""

FILLERS: Final = frozenset(
    {"lol", "lmao", "haha", "tbh", "honestly", "sorry", "why", "exactly", "really", "man",
     "bro", "dude", "tho", "though", "ngl", "rn", "sry", "what", "happens", "here", "this",
     "one", "either", "hmm", "um", "uh", "well", "ok", "okay", "pass", "skip"}
)  # fmt: skip
"""Words an "I don't know" answer wraps around its phrase ("idk lol", "no idea tbh")."""

ASIDE_MARKERS: Final = frozenset({"also", "btw", "plus", "tho", "though", "too", "even"})
"""Words that add a side claim: "also X", "X btw", "plus, X", "X tho", "X too", "even X"."""

_CONCESSIVE: Final = frozenset({"though", "if", "when", "after", "before", "so", "then"})
"""Words after ``even`` that make it a concession or condition ("even if ...")."""

ASIDE_MIN_WORDS: Final = 2
"""Content words an aside needs to state a claim ("also work" states none we can weigh)."""

RESTATED_MIN_SHARE: Final = 0.85
"""Share of an answer's content words that must come from the prompt for a restatement."""

RESTATED_MIN_WORDS: Final = 4
"""Content words below which an answer is too short to call a restatement."""

CAUSE_FRAMES: Final[tuple[tuple[str, ...], ...]] = (
    ("the", "problem", "is"),
    ("the", "issue", "is"),
    ("the", "bug", "is"),
    ("the", "error", "is"),
    ("the", "error", "comes", "from"),
    ("the", "real", "problem", "is"),
    ("the", "real", "issue", "is"),
    ("what", "breaks", "it", "is"),
    ("what", "actually", "breaks", "it", "is"),
)
"""Openings that name the learner's cause in what follows them, to the sentence end."""

CAUSE_POST_FRAMES: Final[tuple[tuple[str, ...], ...]] = (("is", "what", "breaks", "it"),)
"""Frames naming the cause in the clause before them ("retain_graph=True is what breaks it")."""

DISMISSERS: Final = frozenset({"only", "just", "merely", "purely", "simply"})
DISMISSED: Final = frozenset(
    {"speed", "perf", "performance", "faster", "cheaper", "readability", "readable",
     "cosmetic", "convenience"}
)  # fmt: skip
"""What a dismissal reduces a rule to ("only because of speed", "just for readability");
``style`` counts before ``thing``/``choice`` ("just a style thing", not "JAX-style")."""

DISMISSAL_WINDOW: Final = 4
"""Words between the dismissing adverb and what it reduces the rule to."""

HEDGE_OPENING_MAX: Final = 4
"""Tokens of an opening clause whose hedge qualifies the verdict ("False I think, ...")."""


@dataclass(frozen=True, slots=True)
class PromptWords:
    """What an item's prompt states, for the restatement test (built once per item).

    Attributes:
        words: the prompt's content words (stems; code and numbers as written, and the
            dotted parts of code: ``y.sum().backward()`` also gives ``backward``).
        concepts: ids of the rubric concepts the prompt itself credits when graded.
        values_answer: the item asks for a value (an edge case: "what does x.grad come
            out as?"), so an answer that states one is not a restatement even when the
            prompt mentions that number.
    """

    words: frozenset[str]
    concepts: frozenset[str]
    values_answer: bool = False


def _phrase_at(surf: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return tuple(surf[i : i + len(phrase)]) == phrase


def _find(stream: TokenStream, phrases: tuple[tuple[str, ...], ...], start: int) -> list[range]:
    """Token ranges where any of ``phrases`` occurs, at or after ``start``, in one sentence."""
    surf, sent = stream.surf, stream.sent
    firsts = {p[0] for p in phrases}
    out: list[range] = []
    for i in range(start, len(surf)):
        if surf[i] not in firsts or stream.kind[i] != WORD:
            continue
        for phrase in phrases:
            end = i + len(phrase)
            if end <= len(surf) and _phrase_at(surf, i, phrase) and sent[end - 1] == sent[i]:
                out.append(range(i, end))
                break
    return out


def _clause_end(stream: TokenStream, i: int) -> int:
    """Index just past the clause that contains token ``i`` (a break or a sentence end)."""
    j = i + 1
    while j < len(stream) and stream.sent[j] == stream.sent[i] and not stream.brk[j]:
        j += 1
    return j


def hedged(stream: TokenStream, start: int) -> bool:
    """Whether the reasoning (tokens from ``start``) hedges its claim.

    A statement ending in ``?`` (``stream.uptalk``: "27 i think?") hedges as well. A
    hedge in a short opening clause qualifies the verdict, not the reasoning that
    follows ("False I think... the backward does compute dL/dy, but ..."), and is not
    counted; ``I do not know`` also counts (it is both a hedge and an admission).

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase (0 when there is none).

    Returns:
        True when a phrase of :data:`HEDGE_PHRASES` occurs outside that opening.
    """
    if not stream.surf:
        return False
    found = _find(stream, HEDGE_PHRASES, 0)
    if stream.uptalk:  # "27 i think?", "detach isn't a real copy?": a claim asked, not made
        found += [
            range(i, i + 1)
            for i in range(len(stream))
            if stream.sent[i] in stream.uptalk
            and (i + 1 == len(stream) or stream.sent[i + 1] != stream.sent[i])
        ]
    if not found:
        return False
    opening = _clause_end(stream, 0)
    short_opening = opening <= HEDGE_OPENING_MAX and opening < len(stream)
    for where in found:
        if short_opening and where.stop <= opening:
            continue
        if where.stop <= start:
            continue
        return True
    return False


def ignorance_only(stream: TokenStream, start: int) -> bool:
    """Whether the reasoning only says the learner does not know ("idk", "dunno lol").

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.

    Returns:
        True when the tokens from ``start`` hold a phrase of :data:`IGNORANCE_PHRASES` and
        nothing else but function words and fillers.
    """
    found = _find(stream, IGNORANCE_PHRASES, start)
    if not found:
        return False
    covered = {i for where in found for i in where}
    for i in range(start, len(stream)):
        if i in covered:
            continue
        word = stream.surf[i]
        if stream.kind[i] != WORD or (word not in FUNCTION_WORDS and word not in FILLERS):
            return False
    return True


def aside(stream: TokenStream, start: int, claim_start: int, recognised: set[int]) -> bool:
    """Whether the answer adds a side claim that the rubric does not recognise.

    An aside starts at a marker of :data:`ASIDE_MARKERS` that comes after the start of the
    first credited claim (``claim_start``); it covers the rest of the marker's sentence, or,
    for a marker that ends its sentence ("... btw", "... tho", "... too"), the clause before
    it. ``plus`` counts only where a clause starts ("..., plus the predictions change"),
    ``too`` only where a clause ends ("too big" is a degree), and ``even though`` is a
    concession, not an aside. The aside is a claim when it has at least
    :data:`ASIDE_MIN_WORDS` content words and none of its tokens is ``recognised``, i.e.
    inside a match of any concept, misconception or gist of the rubric.

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.
        claim_start: first token of the earliest credited concept match.
        recognised: indices of tokens inside any rule match (any polarity).

    Returns:
        True when such an aside is found (outside a question).
    """
    surf, sent, kind, brk = stream.surf, stream.sent, stream.kind, stream.brk
    n = len(surf)
    if ASIDE_MARKERS.isdisjoint(surf):
        return False
    for i in range(max(start, claim_start + 1), n):
        word = surf[i]
        if word not in ASIDE_MARKERS or kind[i] != WORD or sent[i] in stream.questions:
            continue
        if word == "though" and i and surf[i - 1] == "even":
            continue
        if word == "even" and i + 1 < n and surf[i + 1] in _CONCESSIVE:
            continue
        opens = i == 0 or sent[i - 1] != sent[i] or brk[i]
        closes = i + 1 >= n or sent[i + 1] != sent[i] or brk[i + 1]
        if word == "plus" and not opens:
            continue
        if word == "too" and not closes:
            continue
        end = i + 1
        while end < n and sent[end] == sent[i]:
            end += 1
        span: Iterable[int] = range(i + 1, end)
        if end - i - 1 < ASIDE_MIN_WORDS:
            begin = i
            while begin > 0 and sent[begin - 1] == sent[i] and not brk[begin]:
                begin -= 1
            if begin <= claim_start:
                continue  # the clause before the marker is the main claim itself
            span = range(begin, i)
        tokens = list(span)
        content = [
            t for t in tokens if kind[t] != WORD or surf[t] not in FUNCTION_WORDS | ASIDE_MARKERS
        ]
        if len(content) >= ASIDE_MIN_WORDS and recognised.isdisjoint(tokens):
            return True
    return False


def redirected(stream: TokenStream, start: int, key_tokens: set[int]) -> bool:
    """Whether a cause frame names something other than the key reason.

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.
        key_tokens: indices of the tokens inside the matches that credit a key concept
            (empty: nothing to redirect from).

    Returns:
        True when a frame of :data:`CAUSE_FRAMES` (what follows it, to the sentence end) or
        :data:`CAUSE_POST_FRAMES` (the clause before it) outside a question covers none of
        ``key_tokens``: the key reason is mentioned elsewhere, and the cause claimed is
        another ("no, it doesn't need a scalar ... what actually breaks it is int tensors").
    """
    if not key_tokens:
        return False
    surf, sent = stream.surf, stream.sent
    n = len(surf)
    for where in _find(stream, CAUSE_FRAMES, start):
        if sent[where.start] in stream.questions:
            continue
        end = where.stop
        while end < n and sent[end] == sent[where.start]:
            end += 1
        if end > where.stop and key_tokens.isdisjoint(range(where.stop, end)):
            return True
    for where in _find(stream, CAUSE_POST_FRAMES, start):
        i = where.start
        if sent[i] in stream.questions:
            continue
        begin = i
        while begin > 0 and sent[begin - 1] == sent[i] and not stream.brk[begin]:
            begin -= 1
        if begin < i and key_tokens.isdisjoint(range(begin, i)):
            return True
    return False


def dismissive(stream: TokenStream, start: int) -> bool:
    """Whether the reasoning reduces the rule to speed or style ("only bc of speed").

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.

    Returns:
        True when a word of :data:`DISMISSERS` is followed, within
        :data:`DISMISSAL_WINDOW` words of its clause and outside a question, by a word of
        :data:`DISMISSED` (or ``style thing``/``style choice``).
    """
    surf, sent, brk = stream.surf, stream.sent, stream.brk
    n = len(surf)
    if DISMISSERS.isdisjoint(surf):
        return False
    for i in range(start, n):
        if surf[i] not in DISMISSERS or stream.kind[i] != WORD or sent[i] in stream.questions:
            continue
        for j in range(i + 1, min(n, i + 1 + DISMISSAL_WINDOW)):
            if sent[j] != sent[i] or brk[j]:
                break
            word = surf[j]
            if word in DISMISSED or (
                word == "style" and j + 1 < n and surf[j + 1] in ("thing", "choice")
            ):
                return True
    return False


def content_words(stream: TokenStream, start: int = 0, code_parts: bool = False) -> list[str]:
    """The content words of ``stream`` from ``start``.

    Args:
        stream: the segmented text.
        start: first token to read.
        code_parts: also list the stems of each code token's dotted parts.

    Returns:
        Stems of the words that are not function words (one-letter words left out), code
        and numbers as written; operators are left out.
    """
    out: list[str] = []
    surf, kind = stream.surf, stream.kind
    for i in range(start, len(surf)):
        word = surf[i]
        if kind[i] == WORD:
            if len(word) < 2 or word in FUNCTION_WORDS:
                continue
            out.append(stem(word))
        elif kind[i] <= NUM:
            out.append(word)
            if code_parts and kind[i] == CODE:
                out += (stem(part) for part in word.split(".") if len(part) > 1)
    return out


def restated(stream: TokenStream, start: int, prompt: PromptWords, credited: Iterable[str]) -> bool:
    """Whether the reasoning restates the prompt and credits nothing beyond it.

    A restatement has at least :data:`RESTATED_MIN_WORDS` content words, at least
    :data:`RESTATED_MIN_SHARE` of them in the prompt, states no value when the item asks
    for one (a value answers "what does x.grad come out as?", even when the prompt
    mentions it), and every concept it credits is one the prompt itself credits.

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.
        prompt: the item's prompt words and concepts.
        credited: ids of the concepts the answer credits.

    Returns:
        True for a restatement: its credited concepts come from the prompt, not the learner.
    """
    if prompt.values_answer and any(i >= start for i in stream.values):
        return False
    words = content_words(stream, start)
    if len(words) < RESTATED_MIN_WORDS:
        return False
    inside = sum(1 for w in words if w in prompt.words)
    if inside < RESTATED_MIN_SHARE * len(words):
        return False
    return all(c in prompt.concepts for c in credited)


__all__ = [
    "ASIDE_MARKERS",
    "HEDGE_PHRASES",
    "IGNORANCE_PHRASES",
    "PromptWords",
    "aside",
    "content_words",
    "dismissive",
    "hedged",
    "ignorance_only",
    "redirected",
    "restated",
]
