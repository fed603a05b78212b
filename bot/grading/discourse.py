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
  behaviour depends on it;
* **self-corrections** ("X... no wait, Y", "lr too big? no, ..."): the learner takes X back;
  :func:`may_retract` spots the chance on the tokens, and
  :func:`bot.grading.normalize.drop_retracted` drops what was taken back.

Each rule, its evidence on the marked tuning sets and its effect on the held-out numbers
are in docs/GRADING.md ("Discourse cues").
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Set
from dataclasses import dataclass
from typing import Final

from bot.grading.lexicon import stem
from bot.grading.negation import FUNCTION_WORDS, ONLY_IF, TERMINATORS, said_of_another
from bot.grading.normalize import RETRACTING_NO_NEXT
from bot.grading.sentences import (
    INVERTED,
    LINKING_WORDS,
    QUESTION_OPENERS,
    STATEMENT_WORDS,
    TokenStream,
)
from bot.grading.tokens import CODE, NUM, OP, WORD

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
    ("pretty", "sure"),
    ("fairly", "sure"),
    ("pretty", "confident"),
    ("fairly", "confident"),
    ("i", "would", "say"),
    ("my", "guess"),
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
    ("guessed",),
    ("guessing",),
    ("a", "guess"),
    ("skip",),
    ("pass",),
)
"""Phrases saying the learner does not know (``dunno`` is expanded to ``do not know``), or
only guessed or passed ("I just guessed this one", "skip": the examiners of eval10 and
eval23 marked these incorrect even under the right button). ``pass`` and ``skip`` count only
as the whole reasoning with fillers: "the forward pass" holds a content word."""

IGNORANCE_MAX_TOKENS: Final = 16
"""A reasoning longer than this says more than "I don't know" (the longest on the marked
sets, "idk it is kinda a trap tbh", has 8 tokens)."""

_WH_OBJECTS: Final = frozenset({"how", "what", "why", "which", "where", "whether"})
"""Words that open what an "I don't know" phrase is about ("idk how grad works")."""

FILLERS: Final = frozenset(
    {"lol", "lmao", "haha", "tbh", "honestly", "sorry", "why", "exactly", "really", "man",
     "bro", "dude", "tho", "though", "ngl", "rn", "sry", "what", "happens", "here", "this",
     "one", "either", "hmm", "um", "uh", "well", "ok", "okay", "pass", "skip"}
)  # fmt: skip
"""Words an "I don't know" answer wraps around its phrase ("idk lol", "no idea tbh")."""

ASIDE_MARKERS: Final = frozenset({"also", "btw", "plus", "tho", "though", "too", "even", "only"})
"""Words that add a side claim: "also X", "X btw", "plus, X", "X tho", "X too", "even X",
and a restriction "... only if X" / "... only when X" (``only`` before anything else is
not a marker: "only leaves keep .grad")."""


def _restriction(stream: TokenStream, i: int) -> bool:
    """Whether the ``only`` at ``i`` restricts: "only if/when/after/before/until ...", or
    with one word between ("which only works when the model is in eval mode", "only happens
    if", "x.grad is None only until you call it again")."""
    surf, sent, n = stream.surf, stream.sent, len(stream.surf)
    return any(k < n and sent[k] == sent[i] and surf[k] in _RESTRICTING for k in (i + 1, i + 2))


_RESTRICTING: Final = ONLY_IF | {"after", "before", "until"}
"""Words after ``only`` that restrict a claim: a condition, or a time (dev11's wrong times,
"None only until you call it a second time"; "only once" is a count, not a restriction)."""


_CONCESSIVE: Final = frozenset({"though", "if", "when", "after", "before", "so", "then"})
"""Words after ``even`` that make it a concession or condition ("even if ...")."""

ASIDE_MIN_WORDS: Final = 2
"""Content words an aside needs to state a claim ("also work" states none we can weigh)."""

_NOT_ASIDE_CONTENT: Final = FUNCTION_WORDS | ASIDE_MARKERS
"""Words that are not an aside's content words (built once, not once per token)."""

RESTATED_MIN_SHARE: Final = 0.85
"""Share of an answer's content words that must come from the prompt for a restatement."""

RESTATED_MIN_WORDS: Final = 4
"""Content words below which an answer is too short to call a restatement."""

RESTATED_MAX_LENGTH: Final = 2
"""A reasoning longer than twice the prompt (in tokens) says more than the prompt."""

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

HEDGE_LONG_MIN: Final = 22
"""Tokens of reasoning from which a hedge word no longer qualifies the claim: in a worked
explanation "i think" and "probably" are conversation ("honestly i bet the += isn't the
line that broke. grad is just a normal tensor..."). Measured on the tuning sets of stop 13:
every hedged answer whose key was complete and that had at most 18 words was marked
partial (34), every one with 21 or more was marked correct (4). Two values offered as
alternatives ("8 or 4") and a trailing "?" hedge at any length."""


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
        tokens: the prompt's length in tokens (a reasoning more than
            :data:`RESTATED_MAX_LENGTH` times as long is no restatement).
    """

    words: frozenset[str]
    concepts: frozenset[str]
    values_answer: bool = False
    tokens: int = 0


@dataclass(frozen=True, slots=True)
class _Index:
    """Phrases for :func:`_find`, by their longest content word (the *anchor*, rarer than a
    first word such as "i" or "not"): anchor -> (phrase, the anchor's offset in it)."""

    by_anchor: dict[str, tuple[tuple[tuple[str, ...], int], ...]]
    anchors: frozenset[str]


def _index(phrases: tuple[tuple[str, ...], ...]) -> _Index:
    out: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for phrase in phrases:
        anchor = max(phrase, key=lambda w: (w not in FUNCTION_WORDS, len(w)))
        out.setdefault(anchor, []).append((phrase, phrase.index(anchor)))
    by_anchor = {k: tuple(sorted(v, key=lambda e: -len(e[0]))) for k, v in out.items()}
    return _Index(by_anchor, frozenset(by_anchor))


class Located:
    """Where the words this module looks for occur in one answer: found in one pass on first
    use (a set test per token), then shared by every rule.

    Args:
        stream: the segmented answer.
    """

    __slots__ = ("_found", "stream")

    def __init__(self, stream: TokenStream) -> None:
        self.stream = stream
        self._found: dict[str, list[int]] | None = None

    def present(self, words: Set[str]) -> Set[str]:
        """Those of ``words`` that occur in the answer."""
        return words & self.stream.vocab

    def get(self, word: str) -> list[int]:
        """The token indices of ``word``, ascending (empty unless it is one of the words
        this module looks for and occurs)."""
        found = self._found
        if found is None:
            found = self._found = {}
            wanted = _LOOKED_FOR & self.stream.vocab
            if wanted:
                # A plain loop over typed locals: native code when compiled (a compress()
                # over a map() of wanted.__contains__ makes one generic call per token
                # there), and as fast as that C-level pass in pure Python.
                surf = self.stream.surf
                for i in range(len(surf)):
                    token = surf[i]
                    if token in wanted:
                        found.setdefault(token, []).append(i)
        return found.get(word, [])


_last: Located | None = None


def locate(stream: TokenStream) -> Located:
    """The word finder of ``stream``, shared by the rules of this module (the last answer's
    is kept, so grading one answer builds one). Safe across threads: another thread's
    answer in between only costs a rebuild."""
    global _last
    last = _last
    if last is not None and last.stream is stream:
        return last
    last = _last = Located(stream)
    return last


def _positions(located: Located, words: Set[str], start: int = 0) -> list[int]:
    """Sorted indices, from ``start``, of the tokens that are one of ``words``."""
    out = [i for word in located.present(words) for i in located.get(word) if i >= start]
    out.sort()
    return out


def _find(stream: TokenStream, index: _Index, start: int) -> list[range]:
    """Token ranges where a phrase of ``index`` occurs, at or after ``start``, in one sentence."""
    anchors = index.anchors & stream.vocab
    if not anchors:
        return []
    located = locate(stream)
    surf, sent = stream.surf, stream.sent
    n = len(surf)
    out: list[range] = []
    for j in _positions(located, anchors):
        for phrase, offset in index.by_anchor[surf[j]]:
            i = j - offset
            end = i + len(phrase)
            if (
                i >= start
                and end <= n
                and sent[i] == sent[end - 1]
                and stream.kind[i] == WORD
                and (len(phrase) == 1 or surf[i:end] == list(phrase))
            ):
                out.append(range(i, end))
                break
    out.sort(key=lambda r: r.start)
    return out


_HEDGES: Final = _index(HEDGE_PHRASES)
_IGNORANCE: Final = _index(IGNORANCE_PHRASES)
_CAUSES: Final = _index(CAUSE_FRAMES)
_CAUSES_POST: Final = _index(CAUSE_POST_FRAMES)
_LOOKED_FOR: Final = (
    _HEDGES.anchors
    | _IGNORANCE.anchors
    | _CAUSES.anchors
    | _CAUSES_POST.anchors
    | ASIDE_MARKERS
    | DISMISSERS
)
"""Every word whose positions a rule of this module needs."""


def _clause_end(stream: TokenStream, i: int) -> int:
    """Index just past the clause that contains token ``i`` (a break or a sentence end)."""
    j = i + 1
    while j < len(stream) and stream.sent[j] == stream.sent[i] and not stream.brk[j]:
        j += 1
    return j


def _alternative_values(stream: TokenStream, start: int) -> bool:
    """Whether the reasoning offers two different values as alternatives ("8 or 4",
    "8? or 4", "8, or maybe 4"): ``or`` with a value within two tokens before it and a
    different one right after it (``either``/``maybe`` may sit between)."""
    values = stream.values
    if len(values) < 2 or "or" not in stream.vocab:
        return False
    surf = stream.surf
    n = len(surf)
    for i in range(max(start, 1), n - 1):
        if surf[i] != "or":
            continue
        j = i - 1
        while j > start and surf[j] in _ALTERNATIVE_FILLERS:
            j -= 1
        k = i + 1
        while k < n - 1 and surf[k] in _ALTERNATIVE_FILLERS:
            k += 1
        if j in values and k in values and values[j] != values[k]:
            return True
    return False


_ALTERNATIVE_FILLERS: Final = frozenset(
    {"i", "think", "guess", "maybe", "perhaps", "probably", "possibly", "either", "else"}
)
"""Words that may sit between an offered value and ``or`` ("8 I think, or 4")."""


def _opening_should_be(surf: list[str], start: int) -> bool:
    """Whether the answer opens with an expectation rather than a claim: "should be None",
    "it should be 8", "x.grad should be 8" (``should be`` among its first four tokens).

    Only an opening counts: later in an explanation "x.grad should be zeroed" is advice,
    not a hedge, and only value prompts ask it (see :func:`hedged`). dev8 and dev22:
    "should be None unless ..." (EC1) was marked partial and graded correct; fresh26 found
    "should be 8" (EC6) likewise.
    """
    head = surf[start : start + 4]
    return any(head[k] == "should" and head[k + 1] == "be" for k in range(len(head) - 1))


def hedged(
    stream: TokenStream, start: int, verdict_first: bool = True, value_prompt: bool = False
) -> bool:
    """Whether the reasoning (tokens from ``start``) hedges its claim.

    A statement ending in ``?`` (``stream.uptalk``: "27 i think?") hedges as well, and so
    do two different values offered as alternatives ("8 or 4"). A hedge in a short opening
    clause qualifies the verdict, not the reasoning that follows ("False I think... the
    backward does compute dL/dy, but ..."), and is not counted when the answer opens with a
    verdict (``verdict_first``: a true/false or yes/no item); on other kinds the opening
    clause is the claim ("8 maybe? or 4": dev5, dev6 and dev7 had four such answers graded
    correct, and no other label moved). ``I do not know`` also counts (it is both a hedge
    and an admission). From :data:`HEDGE_LONG_MIN` tokens of reasoning on, hedge words and
    uptalk are conversation, not a qualified claim; alternative values still hedge.

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase (0 when there is none).
        verdict_first: the item asks for a verdict (true/false, or a yes/no question).
        value_prompt: the item asks what a snippet gives (an edge case): there an opening
            "should be 8" states an expectation, not the value (:func:`_opening_should_be`);
            on a spot-the-error item "should be y = y + 1" is the fix.

    Returns:
        True when a phrase of :data:`HEDGE_PHRASES` occurs outside that opening.
    """
    if not stream.surf:
        return False
    if _alternative_values(stream, start):
        return True
    long = len(stream.surf) - start >= HEDGE_LONG_MIN
    found = (
        []
        if long
        else [w for w in _find(stream, _HEDGES, 0) if not said_of_another(stream.surf, w.start)]
    )
    if value_prompt and not verdict_first and not long and _opening_should_be(stream.surf, start):
        return True
    for number in () if long else stream.uptalk:  # "27 i think?": a claim asked, not made
        last = bisect_right(stream.sent, number) - 1
        found.append(range(last, last + 1))
    if not found:
        return False
    opening = -1  # the end of the opening clause, found when a hedge could lie in it
    for where in found:
        if verdict_first and where.stop <= HEDGE_OPENING_MAX:
            if opening < 0:
                opening = _clause_end(stream, 0)
            if opening <= HEDGE_OPENING_MAX and opening < len(stream) and where.stop <= opening:
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
    if len(stream) - start > IGNORANCE_MAX_TOKENS:
        return False
    found = _find(stream, _IGNORANCE, start)
    if not found:
        return False
    covered = {i for where in found for i in where}
    surf, brk, sent = stream.surf, stream.brk, stream.sent
    for where in found:
        # "I forget how grad works", "no idea what inference_mode is": the wh-clause names
        # what the learner does not know, up to a clause break or a word that starts a new
        # clause ("not sure why but grads accumulate" claims something after "but")
        i = where.stop
        if i < len(surf) and surf[i] in _WH_OBJECTS:
            covered.add(i)
            i += 1
            while (
                i < len(surf)
                and sent[i] == sent[where.start]
                and not brk[i]
                and surf[i] not in TERMINATORS
                and surf[i] != "and"
            ):
                covered.add(i)
                i += 1
    for i in range(start, len(stream)):
        if i in covered:
            continue
        word = stream.surf[i]
        if stream.kind[i] != WORD or (word not in FUNCTION_WORDS and word not in FILLERS):
            return False
    return True


def aside(
    stream: TokenStream, start: int, claim_start: int, recognised: Callable[[], Set[int]]
) -> bool:
    """Whether the answer adds a side claim that the rubric does not recognise.

    An aside starts at a marker of :data:`ASIDE_MARKERS` that comes after the start of the
    first credited claim (``claim_start``); it covers the rest of the marker's sentence, or,
    for a marker that ends its sentence ("... btw", "... tho", "... too"), the clause before
    it; a mid-clause ``also`` adds to its clause's own subject ("detached tensors also give
    leaves"), so its aside starts where that clause does. ``plus`` counts only where a
    clause starts ("..., plus the predictions change"), ``too`` only where a clause ends
    ("too big" is a degree), and ``even though`` is a concession, not an aside. The aside
    is a claim when it has at least :data:`ASIDE_MIN_WORDS` content words and none of its
    tokens is ``recognised``, i.e. inside a match of any concept, misconception or gist of
    the rubric.

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.
        claim_start: first token of the earliest credited concept match.
        recognised: gives the indices of tokens inside any rule match (any polarity);
            called only when a candidate aside is found.

    Returns:
        True when such an aside is found (outside a question).
    """
    for _, span in _side_claims(stream, start, claim_start):
        tokens = list(span)
        content = [
            t for t in tokens if stream.kind[t] != WORD or stream.surf[t] not in _NOT_ASIDE_CONTENT
        ]
        if len(content) >= ASIDE_MIN_WORDS and recognised().isdisjoint(tokens):
            return True
    return False


SIDE_MARKERS: Final = frozenset({"also", "though", "tho", "btw", "plus"})
"""The aside markers that add a claim beside the key (``only``, ``even`` and ``too``
qualify it instead: "8 but only after the third call" is about the point)."""


def aside_regions(stream: TokenStream, start: int, claim_start: int) -> list[range]:
    """The token ranges (marker included) of the side claims :data:`SIDE_MARKERS` open after
    the first credited claim, whatever the rubric recognises in them (:func:`aside`'s
    rules). A capped misconception stated only there is a side error (bot.grading.grader).
    """
    return [
        range(min(span.start, i), max(span.stop, i + 1))
        for i, span in _side_claims(stream, start, claim_start)
        if stream.surf[i] in SIDE_MARKERS
    ]


def _side_claims(stream: TokenStream, start: int, claim_start: int) -> Iterator[tuple[int, range]]:
    """(marker index, side-claim tokens) for each aside marker after ``claim_start``."""
    surf, sent, kind, brk = stream.surf, stream.sent, stream.kind, stream.brk
    n = len(surf)
    if ASIDE_MARKERS.isdisjoint(stream.vocab):
        return
    located = locate(stream)
    for i in _positions(located, ASIDE_MARKERS, max(start, claim_start + 1)):
        word = surf[i]
        if kind[i] != WORD or sent[i] in stream.questions:
            continue
        if word == "though" and i and surf[i - 1] == "even":
            continue
        if word == "even" and (
            (i + 1 < n and surf[i + 1] in _CONCESSIVE) or (i and surf[i - 1] in ("not", "no"))
        ):
            continue  # "even if ..." is a condition; "doesn't even bother" is emphasis
        if word == "only" and (not _restriction(stream, i) or i == 0 or sent[i - 1] != sent[i]):
            continue  # "(only if some graph saved .grad, ...)" opens its own sentence
        opens = i == 0 or sent[i - 1] != sent[i] or brk[i]
        closes = i + 1 >= n or sent[i + 1] != sent[i] or brk[i + 1]
        if word == "plus" and not opens:
            continue
        if word == "too" and not closes:
            continue
        end = i + 1
        while end < n and sent[end] == sent[i]:
            end += 1
        span = range(i + 1, end)
        if end - i - 1 < ASIDE_MIN_WORDS:
            begin = i
            while begin > 0 and sent[begin - 1] == sent[i] and not brk[begin]:
                begin -= 1
            if begin <= claim_start:
                continue  # the clause before the marker is the main claim itself
            span = range(begin, i)
        if not opens and word == "also" and span.start > i:
            # "detached tensors also give leaves": a mid-clause "also" adds to the clause's
            # own subject, so the side claim is the whole clause, not the words after it
            begin = i
            while begin > 0 and sent[begin - 1] == sent[i] and not brk[begin]:
                begin -= 1
            span = range(begin, span.stop)
        yield i, span


def redirected(stream: TokenStream, start: int, key_tokens: Callable[[], Set[int]]) -> bool:
    """Whether a cause frame names something other than the key reason.

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.
        key_tokens: gives the indices of the tokens inside the matches that credit a key
            concept (empty: nothing to redirect from); called only when a frame is found.

    Returns:
        True when a frame of :data:`CAUSE_FRAMES` (what follows it, to the sentence end) or
        :data:`CAUSE_POST_FRAMES` (the clause before it) outside a question covers none of
        ``key_tokens``: the key reason is mentioned elsewhere, and the cause claimed is
        another ("no, it doesn't need a scalar ... what actually breaks it is int tensors").
    """
    frames = _find(stream, _CAUSES, start)
    post_frames = _find(stream, _CAUSES_POST, start)
    if not (frames or post_frames):
        return False
    keys = key_tokens()
    if not keys:
        return False
    surf, sent = stream.surf, stream.sent
    n = len(surf)
    for where in frames:
        if sent[where.start] in stream.questions:
            continue
        end = where.stop
        while end < n and sent[end] == sent[where.start]:
            end += 1
        if end > where.stop and keys.isdisjoint(range(where.stop, end)):
            return True
    for where in post_frames:
        i = where.start
        if sent[i] in stream.questions:
            continue
        begin = i
        while begin > 0 and sent[begin - 1] == sent[i] and not stream.brk[begin]:
            begin -= 1
        if begin < i and keys.isdisjoint(range(begin, i)):
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
    vocab = stream.vocab
    if DISMISSERS.isdisjoint(vocab) or (DISMISSED.isdisjoint(vocab) and "style" not in vocab):
        return False
    for i in _positions(locate(stream), DISMISSERS, start):
        if stream.kind[i] != WORD or sent[i] in stream.questions:
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


PLACEHOLDERS: Final = frozenset({"something", "some", "somewhat", "stuff", "whatever"})
"""Words that stand in for the value or mechanism asked for ("returns something and x.grad
is something afterwards"): the restatement test reads them as saying nothing."""


QUESTION_SUBJECT_PRONOUNS: Final = frozenset({"not", "it", "that", "this", "they"})
"""Words after an opening auxiliary that make it no plain question: "does not accumulate"
is an elliptical statement, "is it because ..." a guess (:mod:`bot.grading.sentences`)."""


def ends_asking(stream: TokenStream, start: int) -> bool:
    """Whether the reasoning's last clause asks a question, with or without its ``?``.

    The last clause (from the last clause break or sentence start, after a linking
    ``so``/``and``...) opens with what/why/how and an inverted auxiliary ("..., what is w
    afterwards", "so what is x.grad") or with an auxiliary and a subject ("does backward
    with no arguments work on a non-scalar tensor"; not ``do``, an imperative, nor a
    pronoun or ``not``), and holds no statement word (``is``, ``because``...) before any
    ``if``/``when``. Learners who restate the prompt as a question end with it; an answer
    that asks and then answers ("None, why? because ...") does not.
    """
    surf, kind, brk, sent = stream.surf, stream.kind, stream.brk, stream.sent
    n = len(surf)
    if n - start < 3:
        return False
    first = start
    for i in range(n - 1, start - 1, -1):
        if sent[i] != sent[n - 1]:
            first = i + 1
            break
        if brk[i]:
            first = i
            break
    if kind[first] == WORD and surf[first] in LINKING_WORDS:
        first += 1
    if n - first < 3 or kind[first] != WORD:
        return False
    opener, second = surf[first], surf[first + 1]
    if opener in QUESTION_OPENERS and second in INVERTED:
        body = first + 2
    elif opener in INVERTED and opener != "do" and second not in QUESTION_SUBJECT_PRONOUNS:
        body = first + 1
    else:
        return False
    for i in range(body, n):
        if surf[i] in STATEMENT_WORDS:
            return False
        if surf[i] in ("if", "when", "unless"):
            break
    return True


def restated(stream: TokenStream, start: int, prompt: PromptWords, credited: Iterable[str]) -> bool:
    """Whether the reasoning restates the prompt and credits nothing beyond it.

    A restatement has at least :data:`RESTATED_MIN_WORDS` content words, at least
    :data:`RESTATED_MIN_SHARE` of them in the prompt, states no value when the item asks
    for one (a value answers "what does x.grad come out as?", even when the prompt
    mentions it), and every concept it credits is one the prompt itself credits, unless
    every content word is the prompt's: then nothing is the learner's own, whatever the
    words match ("w -= lr * w.grad after backward raises an error about a leaf Variable"
    for a prompt that says just that; dev6 had three such answers graded partial). An
    answer that credits only the prompt's concepts and ends in a question
    (:func:`ends_asking`) is one too, whatever its share (stop 15: 4 tuning labels fixed,
    none lost).

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.
        prompt: the item's prompt words and concepts.
        credited: ids of the concepts the answer credits.

    Returns:
        True for a restatement: its credited concepts come from the prompt, not the learner.
    """
    own = not all(c in prompt.concepts for c in credited)
    if not own and ends_asking(stream, start):
        return True  # "d = w.detach() then d.mul_(0), what is w afterwards": asks, states nothing
    if prompt.values_answer and any(i >= start for i in stream.values):
        return False
    surf, kind = stream.surf, stream.kind
    words = prompt.words
    total = len(surf) - start
    if prompt.tokens and total > RESTATED_MAX_LENGTH * prompt.tokens:
        return False
    content = misses = 0
    for i in range(start, len(surf)):
        word = surf[i]
        if kind[i] == OP or (
            kind[i] == WORD and (len(word) < 2 or word in FUNCTION_WORDS or word in PLACEHOLDERS)
        ):
            continue
        content += 1
        if word not in words and (kind[i] != WORD or stem(word) not in words):
            misses += 1
            if misses > (1 - RESTATED_MIN_SHARE) * total:
                return False  # content <= total: the share can no longer be reached
    if own and misses:
        return False  # a concept the prompt does not state: the learner added it
    return content >= RESTATED_MIN_WORDS and misses <= (1 - RESTATED_MIN_SHARE) * content


__all__ = [
    "ASIDE_MARKERS",
    "HEDGE_PHRASES",
    "IGNORANCE_PHRASES",
    "PromptWords",
    "aside",
    "content_words",
    "dismissive",
    "ends_asking",
    "hedged",
    "ignorance_only",
    "redirected",
    "restated",
]


RETRACTION_VOCAB: Final = frozenset(
    {"no", "noo", "nooo", "nah", "nope", "wait", "scratch", "nvm", "mind", "nevermind"}
)
"""Tokens one of which every self-correction holds (:func:`may_retract`)."""

_BEFORE_NO: Final = frozenset({"oh", "hmm", "hmmm", "actually", "wait", "but"})
_AFTER_NO: Final = RETRACTING_NO_NEXT | {"hmm", "hmmm"}  # "it's" is "it is" as tokens


def may_retract(stream: TokenStream) -> bool:
    """Whether the answer may take something back ("X... no wait, Y", "X? no, Y", "oh wait",
    "scratch that", "nvm"): a cheap test on the tokens, so that only such answers pay for
    :func:`bot.grading.normalize.drop_retracted`'s text search.

    A ``no`` counts after a clause break, a sentence end or "oh"/"hmm"/"actually"/"wait",
    when a break, a sentence end or a new clause's first word follows it ("no idea", "because
    no op created it" do not count), and "no actually" anywhere; "wait", "nvm", "scratch that"
    and "never mind" always count. Necessary, not sufficient: the text search decides.
    """
    vocab = stream.vocab
    if RETRACTION_VOCAB.isdisjoint(vocab):
        return False
    if "wait" in vocab or "nvm" in vocab or "nevermind" in vocab:
        return True
    surf, sent, brk = stream.surf, stream.sent, stream.brk
    n = len(surf)
    # One indexed pass with a set test per token (native when compiled), rather than a
    # list.count() and list.index() per word, which compare every token with it.
    for i in range(n):
        word = surf[i]
        if word not in RETRACTION_VOCAB:
            continue
        if word == "scratch":
            if i + 1 < n and surf[i + 1] == "that":
                return True
        elif word == "mind":
            if i > 0 and surf[i - 1] == "never":
                return True
        elif (
            i > 0
            and i + 1 < n
            and (brk[i] or sent[i - 1] != sent[i] or surf[i - 1] in _BEFORE_NO)
            and (brk[i + 1] or sent[i + 1] != sent[i] or surf[i + 1] in _AFTER_NO)
        ):
            return True
        elif i > 0 and i + 1 < n and surf[i + 1] == "actually" and sent[i + 1] == sent[i]:
            return True  # dictated, unpunctuated: "its 27 too no actually its none"
    return False
