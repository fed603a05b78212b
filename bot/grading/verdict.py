"""Verdict extraction: what a true/false answer's opening says, when no button was pressed.

The opening is the first sentence's first words, after lead-ins such as "I think", "the
statement is", "the answer is", "my answer:", "pretty sure", "honestly". Recognised
(docs/MARKING.md lists the examples):

* false: ``false``, ``no``/``nope``/``nah`` (as an interjection: "no gradient flows" and
  "no grad_fn is recorded" are negations; after ``answer``/``verdict``/``say``, "the answer
  is no, ...", a ``no`` need not start its clause), ``not true``,
  ``not correct``, ``that's false``, ``wrong``, ``incorrect``, ``untrue``, ``not really``,
  ``not quite``, ``definitely not``, ``of course not``, ``I don't think so``;
* true: ``true``, ``yes``/``yep``/``yeah``/``yup``, ``correct``, ``indeed``, ``agreed``,
  ``of course``, ``not false``, ``exactly``;
* undecided (no verdict): ``yes and no``, ``partly``, ``sort of``, ``it depends``.

``true`` and ``false`` tolerate one slip when the written word is not itself an English word
(``ture``, ``flase``, ``fals``), by the same rule as rubric words (:mod:`bot.grading.lexicon`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.grading.lexicon import is_known_word, within_slips
from bot.grading.negation import is_interjection
from bot.grading.sentences import TokenStream
from bot.grading.tokens import WORD

OPENING_WORDS: Final = 10
"""How many words of the first sentence may precede the verdict."""

FALSE_PHRASES: Final[tuple[tuple[str, ...], ...]] = (
    ("i", "do", "not", "think", "so"),
    ("do", "not", "think", "so"),
    ("of", "course", "not"),
    ("not", "at", "all"),
    ("not", "the", "case"),
    ("not", "true"),
    ("not", "correct"),
    ("not", "right"),
    ("not", "really"),
    ("not", "quite"),
    ("not", "exactly"),
    ("not", "necessarily"),
    ("not", "always"),
    ("definitely", "not"),
    ("absolutely", "not"),
    ("certainly", "not"),
    ("surely", "not"),
    ("no", "way"),
    ("yeah", "no"),
)
TRUE_PHRASES: Final[tuple[tuple[str, ...], ...]] = (
    ("not", "false"),
    ("not", "wrong"),
    ("not", "incorrect"),
    ("of", "course"),
)
UNDECIDED_PHRASES: Final[tuple[tuple[str, ...], ...]] = (
    ("yes", "and", "no"),
    ("yes", "or", "no"),
    ("true", "and", "false"),
    ("sort", "of"),
    ("kind", "of"),
    ("it", "depends"),
    ("depends",),
    ("partly",),
    ("partially",),
    ("half",),
    ("somewhat",),
)
FALSE_WORDS: Final = frozenset(
    {"false", "nope", "nah", "nay", "incorrect", "wrong", "untrue", "negative", "disagree"}
)
TRUE_WORDS: Final = frozenset(
    {"true", "yes", "yep", "yeah", "yup", "ya", "yea", "ye", "indeed", "agreed", "agree",
     "affirmative", "exactly", "yess", "yas", "totally"}
)  # fmt: skip
_ONLY_BEFORE_BREAK: Final = {
    "correct": True, "right": True, "sure": True, "never": False, "t": True, "f": False
}  # fmt: skip
"""Verdict words only where a break follows them: "correct, ...", "never.", and the exam
letters "F." / "Ans: T -" (dev22's exam-format answers, stop 22)."""
LEAD_INS: Final = frozenset(
    {"i", "think", "believe", "guess", "would", "say", "said", "it", "is", "was", "that",
     "this", "the", "statement", "claim", "answer", "my", "verdict", "its", "am", "pretty",
     "quite", "very", "definitely", "probably", "hmm", "hm", "hmmm", "well", "so", "ok",
     "okay", "honestly", "actually", "imo", "tbh", "hey", "uh", "um", "ah", "oh", "basically",
     "obviously", "clearly", "completely", "be", "to", "going", "sounds", "seems", "looks",
     "like", "mostly", "question", "short", "tl", "dr", "tldr", "sure", "id", "feel", "feels",
     "reckon", "100", "percent", "absolutely", "certainly", "surely", "a", "an", "one",
     "yeah", "bit", "tricky", "trick", "trap", "here", "q", "response", "ans"}
)  # fmt: skip
"""Words that may precede the verdict in an opening ("I'm pretty sure that's false")."""
ANSWER_ANNOUNCERS: Final = frozenset({"answer", "ans", "verdict", "response", "say", "said"})
"""Lead-ins after which a ``no`` is the answer even though it does not start its clause
("the answer is no, ...", "I'd say no": fix19 #2); without one, "it is no longer a leaf"
and "I think no gradient flows" state no verdict."""


def _by_first_word(
    groups: tuple[tuple[tuple[tuple[str, ...], ...], bool | None], ...],
) -> dict[str, tuple[tuple[tuple[str, ...], bool | None], ...]]:
    """Phrases indexed by their first word, keeping the order they are tried in."""
    out: dict[str, list[tuple[tuple[str, ...], bool | None]]] = {}
    for phrases, value in groups:
        for phrase in phrases:
            out.setdefault(phrase[0], []).append((phrase, value))
    return {word: tuple(entries) for word, entries in out.items()}


_PHRASES_BY_FIRST: Final = _by_first_word(
    ((UNDECIDED_PHRASES, None), (FALSE_PHRASES, False), (TRUE_PHRASES, True))
)
"""Undecided phrases first, then false, then true: an opening word is tried only against
the phrases it can start."""


@dataclass(init=False, slots=True)
class VerdictReading:
    """The verdict read from an answer's opening.

    Attributes:
        value: True, False, or None when the opening states no verdict (or an undecided one).
        end: index of the first token after the verdict phrase; 0 when there is none.
    """

    value: bool | None
    end: int

    def __init__(self, value: bool | None, end: int) -> None:
        # An explicit __init__ so that the compiled grader builds it natively (a
        # dataclass's generated one is interpreted); read-only by convention.
        self.value = value
        self.end = end


NO_VERDICT: Final = VerdictReading(None, 0)


def _at(surf: list[str], i: int, phrase: tuple[str, ...]) -> bool:
    return surf[i : i + len(phrase)] == list(phrase)


def _before_break(stream: TokenStream, i: int) -> bool:
    """Whether token ``i`` ends its clause (``Correct.``, ``right,`` ``sure because``)."""
    j = i + 1
    return (
        j >= len(stream)
        or stream.sent[j] != stream.sent[i]
        or stream.brk[j]
        or stream.surf[j] in ("because", "cause", "since", "as", "but")
    )


def extract_verdict(stream: TokenStream) -> VerdictReading:
    """Read the verdict from the opening of an answer.

    Args:
        stream: the segmented answer.

    Returns:
        The verdict and where it ends, or :data:`NO_VERDICT`.
    """
    surf = stream.surf
    n = min(len(surf), OPENING_WORDS + 1)
    i = 0
    while i < n and stream.sent[i] == stream.sent[0]:
        if stream.kind[i] != WORD:
            return NO_VERDICT
        word = surf[i]
        for phrase, value in _PHRASES_BY_FIRST.get(word, ()):
            if _at(surf, i, phrase):
                return NO_VERDICT if value is None else VerdictReading(value, i + len(phrase))
        if word in FALSE_WORDS:
            return VerdictReading(False, i + 1)
        if word in TRUE_WORDS and not (word == "yeah" and i + 1 < n and surf[i + 1] == "no"):
            return VerdictReading(True, i + 1)
        if word == "no":
            answered = any(surf[j] in ANSWER_ANNOUNCERS for j in range(i))
            if is_interjection(stream, i, answered=answered):
                return VerdictReading(False, i + 1)
            return NO_VERDICT
        if word in _ONLY_BEFORE_BREAK and _before_break(stream, i):
            return VerdictReading(_ONLY_BEFORE_BREAK[word], i + 1)
        if 3 <= len(word) <= 6 and not is_known_word(word):
            if within_slips(word, "false", 1):
                return VerdictReading(False, i + 1)
            if within_slips(word, "true", 1):
                return VerdictReading(True, i + 1)
        if word not in LEAD_INS:
            return NO_VERDICT
        i += 1
    return NO_VERDICT
