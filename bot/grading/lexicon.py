"""Word forms: stems, irregular forms, British spellings and length-guarded typo tolerance.

* Stemming is Snowball English (Porter2, snowballstemmer), so ``accumulates``,
  ``accumulated`` and ``accumulating`` meet.
* Irregular forms the stemmer cannot join (``kept``/``keep``, ``overwritten``/``overwrite``,
  ``leaves``/``leaf``) are mapped first, as are British ``-ise`` spellings whose ``-ize``
  form is an English word (``optimiser`` -> ``optimizer``).
* Typo tolerance follows the Open University pmatch rule (docs.moodle.org/dev/The_OU_PMatch_
  algorithm; our issue 4): a word under 4 letters must be exact, 4-7 letters allow one slip,
  8 or more allow two, where a slip is a replaced, swapped, extra or missing letter, i.e.
  the optimal-string-alignment (restricted Damerau-Levenshtein) distance from rapidfuzz.
* A real English word is never a typo: ``lead`` must not match ``leaf``, nor ``one``
  ``none``, nor ``code`` ``node``. "Real" means at least 100 occurrences in the English
  word-frequency list that ships with pyspellchecker (an OpenSubtitles-derived list; 47,000
  words pass that bar). Rubric words themselves are never considered typos either.
"""

from __future__ import annotations

import functools
from typing import Final

import snowballstemmer
from rapidfuzz.distance import OSA

KNOWN_WORD_MIN_COUNT: Final = 100
"""Occurrences a word needs in pyspellchecker's English list to count as a real word."""

_STEMMER = snowballstemmer.stemmer("english")
_CACHE_LIMIT: Final = 200_000

IRREGULAR: Final[dict[str, str]] = {
    "kept": "keep", "built": "build", "held": "hold", "lost": "lose", "threw": "throw",
    "thrown": "throw", "made": "make", "ran": "run", "got": "get", "gotten": "get",
    "gave": "give", "given": "give", "went": "go", "gone": "go", "wrote": "write",
    "written": "write", "overwrote": "overwrite", "overwritten": "overwrite",
    "rewritten": "rewrite", "rewrote": "rewrite", "freed": "free", "fed": "feed",
    "did": "do", "done": "do", "said": "say", "took": "take", "taken": "take",
    "broke": "break", "broken": "break", "stuck": "stick", "leaves": "leaf",
    "children": "child", "knew": "know", "known": "know", "saw": "see", "seen": "see",
    "began": "begin", "begun": "begin", "chose": "choose", "chosen": "choose",
    "fell": "fall", "fallen": "fall", "became": "become", "brought": "bring",
    "sent": "send", "spent": "spend", "stood": "stand", "understood": "understand",
    "meant": "mean", "left": "leave", "shown": "show", "grads": "grad", "zeroes": "zero",
    "zeros": "zero", "recomputed": "recompute", "wiped": "wipe", "summed": "sum",
    "summing": "sum", "added": "add", "adding": "add",
}  # fmt: skip
"""Irregular inflections mapped to the base form before stemming."""

_stems: dict[str, str] = {}
_lemmas: dict[str, str] = {}


@functools.cache
def known_words() -> frozenset[str]:
    """The set of real English words (loaded once, about 0.5 s and 4 MiB).

    Returns:
        Lower-case words with at least :data:`KNOWN_WORD_MIN_COUNT` occurrences.
    """
    from spellchecker import SpellChecker  # imported lazily: it loads a 1.6 MB list

    frequency = SpellChecker(language="en", distance=1).word_frequency
    return frozenset(w for w, n in frequency.items() if n >= KNOWN_WORD_MIN_COUNT)


def is_known_word(word: str) -> bool:
    """Whether ``word`` (lower-case) is a real English word, hence never a typo."""
    return word in known_words()


def lemma(word: str) -> str:
    """The base form used before stemming: irregular forms and British ``-ise`` spellings.

    Args:
        word: a lower-case word token.

    Returns:
        ``kept`` -> ``keep``, ``optimiser`` -> ``optimizer``, anything else unchanged.
    """
    hit = _lemmas.get(word)
    if hit is not None:
        return hit
    out = IRREGULAR.get(word, word)
    if out is word and len(word) >= 6 and "is" in word[-7:]:
        for british, american in (
            ("isation", "ization"),
            ("isers", "izers"),
            ("iser", "izer"),
            ("ising", "izing"),
            ("ised", "ized"),
            ("ises", "izes"),
            ("ise", "ize"),
        ):
            if word.endswith(british):
                candidate = word[: -len(british)] + american
                if is_known_word(candidate) or not is_known_word(word):
                    out = candidate
                break
    if len(_lemmas) >= _CACHE_LIMIT:
        _lemmas.clear()
    _lemmas[word] = out
    return out


def stem(word: str) -> str:
    """Snowball English stem of ``lemma(word)``, cached.

    Args:
        word: a lower-case word.

    Returns:
        The stem, e.g. ``accumulating`` -> ``accumul``, ``kept`` -> ``keep``.
    """
    hit = _stems.get(word)
    if hit is not None:
        return hit
    out: str = _STEMMER.stemWord(lemma(word))
    if len(_stems) >= _CACHE_LIMIT:
        _stems.clear()
    _stems[word] = out
    return out


def allowed_slips(length: int) -> int:
    """Typos allowed for a rubric word of ``length`` letters (OU pmatch: <4: 0, 4-7: 1, 8+: 2)."""
    if length < 4:
        return 0
    return 1 if length < 8 else 2


def within_slips(a: str, b: str, slips: int) -> bool:
    """Whether ``a`` and ``b`` are at most ``slips`` replace/swap/insert/delete edits apart."""
    if slips <= 0 or abs(len(a) - len(b)) > slips:
        return False
    return OSA.distance(a, b, score_cutoff=slips) <= slips


def prefix_within_slips(word: str, prefix: str, slips: int) -> bool:
    """Whether some prefix of ``word`` is within ``slips`` edits of ``prefix``.

    Candidate prefixes of ``word`` are those whose length differs from ``prefix`` by at most
    ``slips`` (``acumulates`` against ``accumulat`` compares ``acumulat``, ``acumulate``...).
    """
    if slips <= 0:
        return False
    n = len(prefix)
    for length in range(max(1, n - slips), min(len(word), n + slips) + 1):
        if OSA.distance(word[:length], prefix, score_cutoff=slips) <= slips:
            return True
    return False
