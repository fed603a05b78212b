"""Normalisation: turn raw learner text into one canonical lower-case form.

Steps, in order (each is a well-known convention, not an invention of ours):

1. Unicode NFKC (UAX #15) folds full-width letters, ligatures and the ellipsis character.
2. Curly quotes and primes become ASCII quotes; em/en dashes become a spaced ``-`` (a
   clause break); the minus sign and ``×``/``÷`` become ``-``, ``*``, ``/``; zero-width and
   control characters go.
3. Discord mentions (``<@123>``, ``<#1>``, ``<@&2>``, ``@everyone``, ``@here``), custom
   emoji and URLs are removed: they are never graded and never echoed.
4. Code fences and inline backticks are removed, keeping the code (one statement per line).
5. Markdown emphasis (``**b**``, ``*i*``, ``_i_``, ``||spoiler||``) keeps its text;
   ``~~struck~~`` text is dropped (the learner retracted it); heading, quote and bullet
   markers at line starts go.
6. Lower-casing, then English contractions are expanded (``doesn't`` -> ``does not``,
   ``won't`` -> ``will not``, ``can't`` -> ``can not``, also without the apostrophe:
   ``doesnt``); ``it's``/``that's`` become ``it is``/``that is``; other ``'s`` (possessive)
   is dropped.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NORMALIZED_CHARS = 16_000
"""NFKC can expand a character up to 18-fold; the normalised text is cut at 16,000 characters
(4x the 4,000-character answer limit) so grading time stays bounded."""

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u02bc": "'",
        "\u2032": "'",
        "\u00b4": "'",
        "\u0060": "`",
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
        "\u00f7": "/",
        "\u2192": " -> ",
        "\u200b": "",
        "\u200c": "",
        "\u200d": "",
        "\u2060": "",
        "\ufeff": "",
        "\u00ad": "",
        "\t": " ",
        "\r": "\n",
        "\u2028": "\n",
        "\u2029": "\n",
    }
)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MENTION = re.compile(r"<(?:@[!&]?|#)\d+>|<a?:\w+:\d+>|@(?:everyone|here)\b|https?://\S+")
_FENCE = re.compile(r"```[\w+\-]*")
_STRUCK = re.compile(r"~~.+?~~", re.DOTALL)
_BOLD = re.compile(r"(\*\*|__|\|\|)(?=\S)(.+?)(?<=\S)\1", re.DOTALL)
_ITALIC_STAR = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_ITALIC_UNDERSCORE = re.compile(r"(?<![\w.])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?![\w(])")
_LINE_MARKERS = re.compile(r"(?m)^[ ]*(?:#{1,6}[ ]+|>+[ ]?|[-*+][ ]+)")
_SPACES = re.compile(r"[ ]{2,}")

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
_CONTRACTION = re.compile(
    r"\b(\w+)n't\b|\b(\w+)'(s|re|ve|ll|m|d)\b|\b("
    + "|".join(sorted(_NT_BARE, key=len, reverse=True))
    + r")\b"
)
_OTHER_APOSTROPHE = re.compile(r"(?<!\w)'|'(?!\w)")


def _expand(match: re.Match[str]) -> str:
    stem_nt, stem_suffix, suffix, bare = match.groups()
    if stem_nt is not None:
        return _NT_SPECIAL.get(stem_nt, stem_nt) + " not"
    if bare is not None:
        return _NT_BARE[bare]
    if suffix == "s":
        if stem_suffix == "let":
            return "let us"
        return f"{stem_suffix} is" if stem_suffix in _PRONOUN_IS else stem_suffix
    full = {"re": "are", "ve": "have", "ll": "will", "m": "am", "d": "would"}[suffix]
    return f"{stem_suffix} {full}"


def normalize(text: str) -> str:
    """Canonical form of a learner's answer, ready for the tokenizer.

    Args:
        text: raw learner text (any Unicode; the caller enforces the 4,000-character limit).

    Returns:
        Lower-case text with the steps in this module's docstring applied, at most
        :data:`MAX_NORMALIZED_CHARS` characters. Newlines are kept (they end sentences).
    """
    out = unicodedata.normalize("NFKC", text).translate(_TRANSLATE)
    out = _CONTROL.sub(" ", out)
    out = _MENTION.sub(" ", out)
    out = _FENCE.sub("\n", out).replace("`", "")
    out = _STRUCK.sub(" ", out)
    out = _BOLD.sub(r"\2", out)
    out = _ITALIC_STAR.sub(r"\1", out)
    out = _ITALIC_UNDERSCORE.sub(r"\1", out)
    out = _LINE_MARKERS.sub("", out)
    out = out.lower()
    out = _CONTRACTION.sub(_expand, out)
    out = _OTHER_APOSTROPHE.sub(" ", out)
    out = _SPACES.sub(" ", out)
    return out[:MAX_NORMALIZED_CHARS]
