"""Normalisation: turn raw learner text into one canonical lower-case form.

Steps, in order (each is a well-known convention, not an invention of ours):

1. Superscript digits become an exponent (``3²`` -> ``3**2``; NFKC alone would make it
   ``32``); then Unicode NFKC (UAX #15) folds full-width letters, ligatures and the ellipsis
   character.
2. Curly quotes and primes become ASCII quotes; em/en dashes become a spaced ``-`` (a
   clause break); the minus sign, ``×``, the product dots ``·``/``⋅``/``∙`` and ``÷`` become
   ``-``, ``*``, ``/`` (``2 + 2·2`` is arithmetic); zero-width and control characters go.
3. Discord mentions (``<@123>``, ``<#1>``, ``<@&2>``, ``@everyone``, ``@here``), custom
   emoji and URLs are removed: they are never graded and never echoed.
4. Code fences and inline backticks are removed, keeping the code (one statement per line).
   A word right after the opening fence is a language tag only when the line ends there
   (CommonMark's info string, as Discord renders it): in ```` ```zero_grad()``` ```` and
   ```` ```with torch.no_grad(): ...``` ```` it is code.
5. Markdown emphasis (``**b**``, ``*i*``, ``_i_``, ``||spoiler||``) keeps its text;
   ``~~struck~~`` text is dropped (the learner retracted it); heading, quote and bullet
   markers at line starts go.
6. Lower-casing.

English contractions are expanded per word by :func:`expand_contractions`, which the
tokenizer applies to each whitespace-separated chunk and caches (``doesn't`` -> ``does
not``, ``won't`` -> ``will not``, ``can't`` -> ``can not``, also without the apostrophe:
``doesnt``; ``it's``/``that's`` -> ``it is``/``that is``; any other ``'s``, a possessive, is
dropped). Doing it per chunk rather than over the whole text keeps it off the hot path:
learners reuse a small vocabulary, so almost every chunk is a cache hit.

Each whole-text step runs only when its trigger character occurs, and the character table
only for non-ASCII text, so a plain ASCII answer costs a few microseconds.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from typing import Final

MAX_NORMALIZED_CHARS = 16_000
"""NFKC can expand a character up to 18-fold; the normalised text is cut at 16,000 characters
(4x the 4,000-character answer limit) so grading time stays bounded."""

_REPLACEMENTS: dict[str, str] = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u02bc": "'",
    "\u2032": "'",
    "\u00b4": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2033": '"',
    "\u00ab": '"',
    "\u00bb": '"',
    "\u2014": " - ",
    "\u2013": " - ",
    "\u2015": " - ",
    "\u2012": " - ",
    "\u2212": "-",
    "\u00d7": "*",
    "\u00b7": "*",
    "\u22c5": "*",
    "\u2219": "*",
    "\u00f7": "/",
    "\u2192": " -> ",
    "\u200b": "",
    "\u200c": "",
    "\u200d": "",
    "\u2060": "",
    "\ufeff": "",
    "\u00ad": "",
    "\u2028": "\n",
    "\u2029": "\n",
}
_NON_ASCII_SPECIAL = re.compile("[" + "".join(c for c in _REPLACEMENTS if not c.isascii()) + "]")

_SUPERSCRIPT = re.compile("[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+")
_SUPERSCRIPT_DIGITS = str.maketrans(
    "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "0123456789"
)
"""Superscript digits are exponents: ``3²`` is ``3**2``, not NFKC's ``32``."""

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MENTION = re.compile(r"<(?:@[!&]?|#)\d+>|<a?:\w+:\d+>|@(?:everyone|here)\b|https?://\S+")
# Without a URL, the bracketed forms and the @-words cannot overlap or touch one another's
# match (neither holds the other's first character, and a removal leaves a space where a
# non-word character was), so two rules that each start with a literal (the regex engine
# skips ahead to it) remove the same text as _MENTION, which tries its alternatives at
# every character: 6.6 -> 1.1 µs on the benchmark's answers. A URL's ``\S+`` can run over
# either form, so with "http" in the text the one rule runs.
_MENTION_BRACKETED = re.compile(r"<(?:(?:@[!&]?|#)\d+|a?:\w+:\d+)>")
_MENTION_WORD = re.compile(r"@(?:everyone|here)\b")
_FENCE = re.compile(r"```(?:[\w+\-]+[ \t]*(?=\n|$))?")
_STRUCK = re.compile(r"~~.+?~~", re.DOTALL)
# Markers touching a word outside are not markup: ``x**2 + y**2`` is two powers.
# The marker comes first (the regex engine skips ahead to it); the look-behind after it checks
# the character before the marker.
_BOLD_MARKERS = ("**", "__", "||")
_BOLD_BY_MARKERS: dict[tuple[bool, ...], re.Pattern[str]] = {
    (star, under, bar): re.compile(
        "("
        + "|".join(
            re.escape(marker)
            for marker, present in zip(_BOLD_MARKERS, (star, under, bar), strict=True)
            if present
        )
        + r")(?<![\w*]..)(?=\S)(.+?)(?<=\S)\1(?![\w*])",
        re.DOTALL,
    )
    for star in (False, True)
    for under in (False, True)
    for bar in (False, True)
    if star or under or bar
}
"""The bold rule with only the markers a text holds: a marker that does not occur cannot
match, so the result is the same, and a rule for ``**`` alone starts with a literal the
regex engine skips ahead to, while the full rule tries every ``_`` of ``zero_grad`` (2.5x
slower on the benchmark's answers)."""
# Both start with their literal marker so the regex engine can skip ahead to it. The body
# cannot contain the marker, so the only possible closing marker is the next one on the
# line: a possessive run (``++``, Python 3.11) reaches it without trying every shorter body
# first, which a lazy ``+?`` did, character by character, from every ``_`` of ``zero_grad``.
_BOLD_TEXT = operator.methodcaller("group", 2)
"""What the bold rule keeps: its text (group 2 always takes part in a match). A C-level
callable, where the template ``r"\2"`` made every ``sub`` call Python's ``re._subx`` and every
match its ``expand_template`` (1.1 vs 2.4 µs per benchmark answer)."""
_ITALIC_STAR = re.compile(r"\*(?=[^\s*])([^*\n]++)(?<=[^\s*])\*(?![\w*])")
_ITALIC_UNDERSCORE = re.compile(r"_(?=[^\s_])([^_\n]++)(?<=[^\s_])_(?![\w(])")
_LINE_MARKERS = re.compile(r"(?m)^[ ]*(?:#{1,6}[ ]+|>+[ ]?|[-*+][ ]+)")

# Cheap tests that say when a rule above cannot change the text, so it is skipped. Each
# starts with a literal, which the regex engine finds by a fast scan; the rules they guard
# are tried at every character (``^`` in multi-line mode) or scan a run from every marker.
_LINE_MARKER_HINT = re.compile(r"\n[ ]*[#>*+\-]")
"""A line after the first that opens (after spaces) with a character every line marker
starts with; without one (and with no such first line) :data:`_LINE_MARKERS` matches
nothing."""
_OPEN_UNDERSCORE = re.compile(r"_(?<![\w.*]_)")
"""An ``_`` at the start or after a character that is not a word character, ``.`` or
``*``: :func:`_unemphasise` keeps every other match unchanged, so without one the italic
rule cannot change the text."""
_OPEN_STAR = re.compile(r"\*(?<![\w.*]\*)")
"""The same for ``*``."""
_LINE_MARKER_STARTS = frozenset("#>*+-")
"""The characters a line marker starts with (after spaces)."""

_NT_SPECIAL = {"wo": "will", "ca": "can", "sha": "shall", "ai": "is"}
_NT_BARE = {
    "dont": "do not",
    "doesnt": "does not",
    "didnt": "did not",
    "isnt": "is not",
    "arent": "are not",
    "wasnt": "was not",
    "werent": "were not",
    "wont": "will not",
    "cant": "can not",
    "cannot": "can not",
    "couldnt": "could not",
    "shouldnt": "should not",
    "wouldnt": "would not",
    "hasnt": "has not",
    "havent": "have not",
    "hadnt": "had not",
    "mustnt": "must not",
    "neednt": "need not",
    "aint": "is not",
    "dunno": "do not know",
    # misspelt negations (learners' typos, seen in the examiners' sets): a missed "not"
    # turns a denial into the claim it denies
    "dosent": "does not",
    "doesent": "does not",
    "dosnt": "does not",
    "didint": "did not",
    "isint": "is not",
    "havnt": "have not",
    "wasent": "was not",
    "cnat": "can not",
    "thats": "that is",
    "whats": "what is",
    "theres": "there is",
    "im": "i am",
    "ive": "i have",
    "youre": "you are",
    "theyre": "they are",
}
_PRONOUN_IS = frozenset(
    {"it", "that", "there", "what", "here", "he", "she", "who", "where", "how", "this"}
)
_CONTRACTION = re.compile(r"\b(\w+)n't\b|\b(\w+)'(s|re|ve|ll|m|d)\b")
_OTHER_APOSTROPHE = re.compile(r"(?<!\w)'|'(?!\w)")


def _expand(match: re.Match[str]) -> str:
    stem_nt, stem_suffix, suffix = match.groups()
    if stem_nt is not None:
        return _NT_SPECIAL.get(stem_nt, stem_nt) + " not"
    if suffix == "s":
        if stem_suffix == "let":
            return "let us"
        return f"{stem_suffix} is" if stem_suffix in _PRONOUN_IS else stem_suffix
    full = {"re": "are", "ve": "have", "ll": "will", "m": "am", "d": "would"}[suffix]
    return f"{stem_suffix} {full}"


def _unemphasise(match: re.Match[str]) -> str:
    """Keep the text of ``*it*`` / ``_it_``, but not inside words or code (``zero_grad_``)."""
    start = match.start()
    before = match.string[start - 1] if start else " "
    if before.isalnum() or before in "_.*":
        return match.group(0)
    return match.group(1)


def expand_contractions(chunk: str) -> str:
    """Expand English contractions in one lower-case, whitespace-free chunk.

    Args:
        chunk: e.g. ``"doesn't,"`` or ``"x's"``.

    Returns:
        ``"does not,"``, ``"x"``; apostrophes that are not part of a contraction (quotes)
        become spaces. Bare forms without the apostrophe (``doesnt``, ``thats``), common
        misspellings of a negation (``dosent``) and a misplaced apostrophe (``does'nt``)
        are expanded too.
    """
    core = chunk.strip('.,;:!?)("')
    bare = _NT_BARE.get(core)
    if bare is not None:
        return chunk.replace(core, bare, 1)
    if "'" not in chunk:
        return chunk
    if "'nt" in chunk:
        chunk = chunk.replace("'nt", "n't")  # "does'nt", "is'nt": a misplaced apostrophe
    return _OTHER_APOSTROPHE.sub(" ", _CONTRACTION.sub(_expand, chunk))


_NO = r"(?:no+|nah|nope)"
_FILLER = r"(?:lol|wait|hold on|actually|scratch that|sorry|my bad|hmm+)"
RETRACTING_NO_NEXT: Final = frozenset(
    {"it", "its", "that", "thats", "they", "lol", "wait", "hold", "actually", "scratch",
     "sorry", "i", "you", "we", "the", "my"}
)  # fmt: skip
"""Words that may follow a ``no`` that takes something back, opening a new clause; with
"it's", "that's" and "hmm" (also read by :func:`bot.grading.discourse.may_retract`)."""

_AFTER_NO = (
    r"(?=\s*[,.;:!-]|\s*$|\s+(?:"
    + "|".join(sorted(RETRACTING_NO_NEXT, key=lambda word: (-len(word), word)))
    + r"|it's|that's|hmm+)\b)"
)
_NO_AS_RETRACTION = _NO + _AFTER_NO
_RETRACTING_NO_ENDS = re.compile(_AFTER_NO)
"""What may follow a ``no`` that takes something back: punctuation, the end, or a new
clause's first word; "no idea", "no gradient", "no matter" do not."""
_RETRACTION = re.compile(
    r"(?:"
    rf"(?:\.\.\.|[,.;:!?-])\s*(?:but\s+)?{_NO}[\s,.!]*{_FILLER}\b"
    rf"|,\s*but\s+{_NO}\s*,"
    rf"|(?<=\w ){_NO} (?:wait|actually)\b"
    rf"|\b(?:oh|hmm+)[\s,.]*(?:{_NO_AS_RETRACTION}|wait\b)"
    rf"|\bwait[\s,.!]*(?:{_NO}|actually)\b"
    r"|\bscratch that\b|\bnever ?mind\b|\bnvm\b"
    rf"|\bactually[\s,]*{_NO}(?=\s*[,.;:!-])"
    rf"|\.\.\.\s*{_NO_AS_RETRACTION}"
    rf"|\?(?=\s*{_NO_AS_RETRACTION})"
    rf")(?:[\s,.;:!-]*{_FILLER}\b)*[\s,.;:!-]*"
)
"""A learner taking back what they just wrote ("it uses the limit from the right... no
scratch that, ...", "averaging the... no, not averaging", "oh wait, that makes w a
non-leaf", "hmm actually no, ...", "it reuses one graph, but no, a new one is built"): a
retraction word after a trailing-off (``...``) or punctuation, or after an interjection.
After a guess ending in ``?`` ("lr too big? no, it never gets that far") only the guess
goes: the ``no`` may be the answer to a yes/no prompt. "No idea" and "no gradient" are not
retractions (a ``no`` counts only before punctuation or a new clause's first word), nor is
"but no grad_fn" (a "but no" counts between commas or before a filler). Dictated answers
have no punctuation: "four no wait it adds every time so eight" (dev21) takes the four back,
as "no wait" and "no actually" do anywhere."""

_JOINT = re.compile(r"\b(?:and|but|so|then|because)\b")
"""Words that join the clauses of a run-on sentence (:func:`drop_retracted`)."""

MIN_RETRACTED_CHARS = 1
"""Letters or digits that must precede a retraction in its sentence for it to take anything
back ("4? no, 8" takes back the 4): "Wait no, it's false" opens with its verdict, and there
is nothing before it to drop."""


_SENTENCE_END = re.compile(r"(?:(?<!\.)\.|[!?])(?=\s)|\n")
"""A sentence end inside the text before a retraction: ``.``, ``!`` or ``?`` before a space,
or a line end; a trailing-off ``...`` is not one (it is the pause before the correction)."""

_FILLER_ONLY = re.compile(r"[\s,.!-]*(?:(?:hmm+|hm|oh|ah|uh+|um+|well|ok|okay|so|lol)[\s,.!-]*)*")
"""A stretch of text made only of interjections ("hmm", "oh, well"): no claim to take back."""


def _sentence_start(head: str) -> int:
    """Where the last sentence of ``head`` starts (:data:`_SENTENCE_END`), or 0."""
    begin = 0
    for end in _SENTENCE_END.finditer(head):
        begin = end.end()
    return begin


MAX_RETRACTIONS = 3
"""Self-corrections undone per answer (the tuning sets have at most two in one answer)."""


_RETRACTION_WORDS: Final = ("no", "nah", "nope", "wait", "scratch", "nvm", "mind")
"""Every :data:`_RETRACTION` holds one of these as a whole word ("nooo" too), so the regex
is tried only just before one: tried at every position of a 1,000-character answer, its
alternatives cost 0.3 ms."""

_ANCHOR_BEFORE = 16
"""Characters before a retraction word where the retraction may start ("hmm actually no"
starts 13 before "no")."""

_RETRACTION_STARTS: Final = frozenset(".,;:!?-")


def _word_at(text: str, at: int, end: int) -> bool:
    """Whether ``text[at:end]`` is a whole word (no letter, digit or ``_`` either side)."""
    if at > 0:
        before = text[at - 1]
        if before.isalnum() or before == "_":
            return False
    if end < len(text):
        after = text[end]
        if after.isalnum() or after == "_":
            return False
    return True


def _retractions(text: str) -> list[re.Match[str]]:
    """Each :data:`_RETRACTION` in ``text``, by start: tried only where one can start (a
    punctuation mark, "oh", "hmm", "actually", or the word itself) up to
    :data:`_ANCHOR_BEFORE` characters before a whole :data:`_RETRACTION_WORDS` word."""
    found: dict[tuple[int, int], re.Match[str]] = {}
    for word in _RETRACTION_WORDS:
        at = text.find(word)
        while at != -1:
            end = at + len(word)
            if word == "no":
                while end < len(text) and text[end] == "o":
                    end += 1  # "nooo"
            if _word_at(text, at, end) and (
                word[0] != "n" or word == "nvm" or _RETRACTING_NO_ENDS.match(text, end)
            ):
                for pos in range(max(0, at - _ANCHOR_BEFORE), at + 1):
                    char = text[pos]
                    if (
                        pos == at
                        or char in _RETRACTION_STARTS
                        or (char == "o" and text.startswith("oh", pos))
                        or (char == "h" and text.startswith("hmm", pos))
                        or (char == "a" and text.startswith("actually", pos))
                    ):
                        match = _RETRACTION.match(text, pos)
                        if match is not None:
                            found.setdefault(match.span(), match)
            at = text.find(word, end)
    return [found[span] for span in sorted(found)]


def drop_retracted(text: str) -> str:
    """The text with each self-corrected sentence's retracted part dropped.

    A learner who writes "X... no wait, Y" claims Y, not X (as with ``~~struck~~`` text, the
    learner took X back). Only the sentence the retraction ends is taken back: in "w has a
    grad_fn so it isn't a leaf. fix: no_grad()... wait no, retain_grad()" the diagnosis
    stands. Written for stop 18's dev18 set, whose examiner wrote 36 answers that correct
    themselves mid-answer and labelled each by its final claim.

    Args:
        text: lower-case normalised text.

    Returns:
        ``text`` without, for each :data:`_RETRACTION` (last first, at most
        :data:`MAX_RETRACTIONS`), the text from the start of its sentence
        (:data:`_SENTENCE_END`) to the retraction's end, when that part has at least
        :data:`MIN_RETRACTED_CHARS` letters or digits and text follows it.
    """
    for _ in range(MAX_RETRACTIONS):
        cut = None
        for match in _retractions(text):
            if not text[match.end() :].strip():
                continue
            head = text[: match.start()].rstrip(" .!?,;:-")
            begin = _sentence_start(head)
            if begin and _FILLER_ONLY.fullmatch(head[begin:]):
                # "it overwrites. hmm actually no, ...": the retraction's own sentence holds
                # only its interjection, so what it takes back is the sentence before
                begin = _sentence_start(head[:begin].rstrip(" .!?,;:-"))
            if text[match.start()] == "n":
                # unpunctuated ("27 and then x.grad is 27 too no actually its none"): a run-on
                # sentence, so only its last clause is taken back
                for joint in _JOINT.finditer(head, begin):
                    begin = joint.end()
            if sum(c.isalnum() for c in head[begin:]) >= MIN_RETRACTED_CHARS:
                cut = (begin, match.end())
        if cut is None:
            break
        text = text[: cut[0]] + " " + text[cut[1] :]
    return text


_UNIT_WORDS: Final = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TENS_WORDS: Final = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SMALL_WORDS: Final = (
    "zero", *_UNIT_WORDS, "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
    "sixteen", "seventeen", "eighteen", "nineteen",
)  # fmt: skip
_SPOKEN_VALUE: Final = {word: k for k, word in enumerate(_SMALL_WORDS)} | {
    word: 20 + 10 * k for k, word in enumerate(_TENS_WORDS)
}
_SPOKEN_DIGIT: Final = {"zero": "0", "oh": "0"} | {
    word: str(k + 1) for k, word in enumerate(_UNIT_WORDS)
}
_COMPOUND = re.compile(rf"\b({'|'.join(_TENS_WORDS)})[ -]({'|'.join(_UNIT_WORDS)})\b")
_DIGIT_WORD = rf"(?:{'|'.join(_SPOKEN_DIGIT)}|\d)"
_POINT = re.compile(
    rf"\b(\d+|{'|'.join(_SPOKEN_VALUE)}) point ({_DIGIT_WORD}(?: {_DIGIT_WORD}){{0,2}})\b"
)
_ATTRIBUTES: Final = (
    "grad", "backward", "zero_grad", "detach", "data", "requires_grad", "requires_grad_",
    "grad_fn", "is_leaf", "retain_grad", "item", "numpy", "step", "mul_", "add_", "clone",
    "register_hook", "retain_graph", "no_grad", "autograd", "sum", "mean",
)  # fmt: skip
_COUNT_WORDS: Final = tuple(word for word in _SMALL_WORDS[2:] if word != "ten")
"""Number words read as values where the context says so: "two" to "nineteen". "zero" and
"one" stay words ("zero the grads", "one of them"; rubrics spell them as words), and so does
"ten" (a rare value, and the substring gate below would fire on every "tensor")."""
_COUNT_GATE: Final = tuple(" " + word for word in _COUNT_WORDS)
"""Substrings that every answer with a count word holds once a space is put before it (the
gate before the :func:`spoken_values` regex: "weight" holds "eight", not " eight")."""
_VALUE_BEFORE: Final = "|".join(
    [rf"(?<=\b{w} )" for w in ("is", "are", "was", "be", "equals", "becomes", "plus", "minus")]
    + [r"(?<=\btimes )", r"(?<== )"]
)
_VALUE_AFTER: Final = (
    r"\s*(?:[.,;:!?)\]=]|$)"
    r"|\s+(?:because|since|so|as|but|then|when|after|each|too|is|equals|gives|makes)\b"
)
_VALUE_NEXT: Final = (
    rf"\s*(?:[.,;:!?)\]]|$)|\s+(?:and|or|then|plus|minus|times)\s+(?:{'|'.join(_SMALL_WORDS)}|\d)"
)
_SPOKEN_NUMBER = re.compile(
    rf"\b({'|'.join(_COUNT_WORDS)})\b(?={_VALUE_NEXT})"
    rf"|(?:{_VALUE_BEFORE})({'|'.join(_COUNT_WORDS)})\b(?={_VALUE_AFTER})"
)
"""The rule as one expression: the reference :func:`spoken_values` must equal (tests).

It is not what runs: its ten lookbehinds are tried at every character (about 2.8M
instructions per 1,000-character answer compiled when it runs, twice a whole grade). Both of its
alternatives match exactly a whole count word (the first after a word boundary, the second
after a lookbehind that ends in a space or ``=``), so :func:`spoken_values` finds the whole
count words with ``str.find`` and tries each lookaround at that word's ends, on the
unchanged text, as ``sub`` reads it."""
_TEEN_BASES: Final = {
    "fourteen": "four", "sixteen": "six", "seventeen": "seven", "eighteen": "eight",
    "nineteen": "nine",
}  # fmt: skip
"""Count words that contain an earlier one: absent when it is (one ``find`` less each)."""
_VALUE_NEXT_AT = re.compile(_VALUE_NEXT)
_VALUE_BEFORE_AT = re.compile(_VALUE_BEFORE)
_VALUE_AFTER_AT = re.compile(_VALUE_AFTER)
_GRADE = re.compile(r"\bgrade(s?)\b")
_SPOKEN_DOT = re.compile(rf"(?<=[a-z0-9_)\]]) dot (?=(?:{'|'.join(_ATTRIBUTES)})\b)")


def spoken_values(text: str) -> str:
    """Number words that state a value, as digits: "x.grad is two and four" -> ``2 and 4``,
    "four plus four is eight" -> ``4 plus 4 is 8``, "it is eight because" -> ``8``.

    A number word ("two" to "nineteen") is a value when punctuation, the text's end or
    "and/or/plus/times" and another number follow it, or when a copula or operator ("is",
    "are", "equals", "plus", "=") comes before it and a clause word ("because", "so", "is")
    or punctuation after it. A count before a noun stays a word ("two inputs", "three
    elements", "one of two roads"): read as digits, counts met value terms (stop 22: the
    reading without context broke 3 marked labels). Stop 21's report: dictated values
    ("x.grad is two and four" on EC10) never met the digit terms.

    Args:
        text: lower-case normalised text.
    """
    found: list[tuple[int, int, str]] = []
    absent: set[str] = set()
    n = len(text)
    for word in _COUNT_WORDS:  # str.find per word: no regex tried at every character
        base = _TEEN_BASES.get(word)
        if base is not None and base in absent:
            continue  # "fourteen" holds "four", which is not in the text
        start = text.find(word)
        if start < 0:
            absent.add(word)
        while start >= 0:
            end = start + len(word)
            # a whole word, as the rule's \b on both sides reads it (\w: alnum or "_")
            if (start == 0 or not _word_char(text[start - 1])) and (
                end == n or not _word_char(text[end])
            ):
                found.append((start, end, word))
            start = text.find(word, start + 1)
    if not found:
        return text
    found.sort()
    parts: list[str] = []
    last = 0
    for start, end, word in found:
        if _VALUE_NEXT_AT.match(text, end) is not None or (
            _VALUE_BEFORE_AT.match(text, start) is not None
            and _VALUE_AFTER_AT.match(text, end) is not None
        ):
            parts.append(text[last:start])
            parts.append(str(_SPOKEN_VALUE[word]))
            last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def _word_char(char: str) -> bool:
    """Whether ``char`` is a regex word character (``\\w`` on str: alphanumeric or ``_``)."""
    return char.isalnum() or char == "_"


def _mentions_tens(text: str) -> bool:
    """Whether ``text`` holds a tens word ("twenty"...): a substring test per word, so the
    compound-number regex runs only on the few answers that have one (a regex scan of every
    1,000-character answer cost 9% of a compiled grade)."""
    return any(word in text for word in _TENS_WORDS)


def spoken_forms(text: str) -> str:
    """Numbers and attribute access as voice-to-text writes them, in written form.

    "twenty seven" / "twenty-seven" -> ``27``; "zero point five" -> ``0.5``, "four point oh"
    -> ``4.0`` (at most three digits after "point"); "grade(s)", the dictation's homophone,
    -> "grad(s)" (dev21: "x dot grade", "a grade function"; in an answer about autograd a
    school grade is not meant); "x dot grad" -> ``x.grad`` when the word after "dot" is a
    tensor attribute or torch name (:data:`_ATTRIBUTES`; "dot product" is left alone). A
    new user's dictated answers (fresh24: "returns twenty seven and x dot grad stays none" on
    EC11) were not read as stating 27, 0.5 or ``x.grad``.

    Args:
        text: lower-case normalised text.
    """
    if _mentions_tens(text):
        text = _COMPOUND.sub(
            lambda m: str(_SPOKEN_VALUE[m.group(1)] + _UNIT_WORDS.index(m.group(2)) + 1), text
        )
    if " point " in text:
        text = _POINT.sub(
            lambda m: (
                (m.group(1) if m.group(1).isdigit() else str(_SPOKEN_VALUE[m.group(1)]))
                + "."
                + "".join(d if d.isdigit() else _SPOKEN_DIGIT[d] for d in m.group(2).split(" "))
            ),
            text,
        )
    if "grade" in text:
        text = _GRADE.sub(r"grad\1", text)
    if " dot " in text:
        text = _SPOKEN_DOT.sub(".", text)
    return text


_ASCII_CONTROL_BUT_NEWLINE: Final = bytes([*range(0x0A), *range(0x0B, 0x20), 0x7F])
"""The non-printable ASCII characters (C0 controls and DEL) except the line end."""


def _has_control(text: str) -> bool:
    """Whether ``text`` has a non-printable character other than a line end.

    For ASCII text (most answers) the non-printable characters are exactly the C0 controls
    and DEL, so one C-level byte deletion answers it; this spares the two
    ``str.isprintable`` passes and the copy without line ends that any text with a newline
    needed (~60 instructions per character compiled, for about half the benchmark's
    answers). Other text is tested as before.
    """
    if text.isascii():
        data = text.encode("ascii")
        return len(data.translate(None, _ASCII_CONTROL_BUT_NEWLINE)) != len(data)
    return not text.isprintable() and not ("\n" in text and text.replace("\n", "").isprintable())


def normalize(text: str, *, values: bool = True) -> str:
    """Canonical form of a learner's answer, ready for the tokenizer.

    Args:
        text: raw learner text (any Unicode; the caller enforces the 4,000-character limit).
        values: read number words as digits where the context makes them a value
            (:func:`spoken_values`); rubric words pass False and match both forms instead.

    Returns:
        Lower-case text with the steps in this module's docstring applied, at most
        :data:`MAX_NORMALIZED_CHARS` characters. Newlines are kept (they end sentences);
        contractions are left to :func:`expand_contractions`.
    """
    if text.isascii():
        out = text
    else:
        out = unicodedata.normalize("NFKC", text)
        # NFKC changes every superscript digit, so text it leaves unchanged has none (and
        # the superscript search, a slow character-class scan on non-Latin-1 text, is skipped).
        if out != text and _SUPERSCRIPT.search(text):
            out = _SUPERSCRIPT.sub(lambda m: "**" + m.group().translate(_SUPERSCRIPT_DIGITS), text)
            out = unicodedata.normalize("NFKC", out)
        out = _NON_ASCII_SPECIAL.sub(lambda m: _REPLACEMENTS[m.group()], out)
    if "\r" in out:
        out = out.replace("\r", "\n")
    # Line ends are the usual non-printable characters; without a tab or another control
    # character there is nothing to replace.
    if _has_control(out):
        out = _CONTROL.sub(" ", out.replace("\t", " "))
    # Every form _MENTION removes contains one of these ("<@", "<#", "<:", "<a:", "@...",
    # "http...").
    if "http" in out:
        out = _MENTION.sub(" ", out)
    else:
        if "<@" in out or "<#" in out or "<:" in out or "<a:" in out:
            out = _MENTION_BRACKETED.sub(" ", out)
        if "@" in out:
            out = _MENTION_WORD.sub(" ", out)
    if "`" in out:
        out = _FENCE.sub("\n", out).replace("`", "")
    if "~~" in out:
        out = _STRUCK.sub(" ", out)
    markers = ("**" in out, "__" in out, "||" in out)
    if markers != (False, False, False):
        out = _BOLD_BY_MARKERS[markers].sub(_BOLD_TEXT, out)
    if "*" in out and _OPEN_STAR.search(out):
        out = _ITALIC_STAR.sub(_unemphasise, out)
    if "_" in out and _OPEN_UNDERSCORE.search(out):
        out = _ITALIC_UNDERSCORE.sub(_unemphasise, out)
    if out.lstrip(" ")[:1] in _LINE_MARKER_STARTS or (
        "\n" in out and _LINE_MARKER_HINT.search(out)
    ):
        out = _LINE_MARKERS.sub("", out)
    out = out.lower()[:MAX_NORMALIZED_CHARS]
    if " point " in out or " dot " in out or "grade" in out or _mentions_tens(out):
        out = spoken_forms(out)
    if values:
        padded = " " + out
        if any(word in padded for word in _COUNT_GATE):
            out = spoken_values(out)
    return out


_MARKUP_ONLY = re.compile(r"(?:\s++|[*_|#>~`+\-]++|</?[a-z][\w-]*+(?:\s[^<>]*+)?/?>)*+")
"""Whitespace, markdown markers (emphasis ``*``/``_``, spoiler ``||``, strike ``~~``, code
backticks, heading ``#``, quote ``>``, bullet ``-``/``*``/``+``) and HTML-like tags (``<b>``,
``</i>``, ``<br/>``), in any mix; a text made only of these has no word to grade."""


def is_markup_only(normalized: str) -> bool:
    """Whether a normalised text holds nothing but markup and whitespace.

    :func:`normalize` keeps an emphasis marker that encloses nothing (``**``, ``** **``,
    ``||  ||``) and never strips HTML-like tags, so an answer such as ``****`` or
    ``<b></b>`` survives it; this is the check that says such an answer is empty (the
    grader refuses it as :class:`~bot.grading.errors.EmptyAnswer`). A text with any other
    character (a letter, a digit, ``?``, ``<`` in ``x<y``) is not markup only.
    """
    return _MARKUP_ONLY.fullmatch(normalized) is not None
