"""Pattern compilation and matching: rubric patterns -> spans of tokens in an answer.

Compilation (once per item) turns each pattern of :mod:`bot.content.patterns` into a tree
of terms whose leaves are *atoms*, each matching one token:

* a WORD atom matches a word with the same stem, or within the typo allowance of
  :func:`bot.grading.lexicon.allowed_slips` when the written word is not an English word;
* a PREFIX atom (``accumulat*``) matches a word that starts with it (same typo rule);
* an EXACT atom matches the token text exactly (``=word`` patterns, operators, numbers
  inside code);
* a CODE atom (`` `x.grad.zero_()` ``) matches a code token whose dotted parts end with the
  pattern's parts (`` `grad.zero_()` `` matches ``x.grad.zero_()``), a keyword with its
  value only when the values agree (``=True`` never matches ``=False``); never fuzzily. A
  code name with underscores also matches its words (`` `zero_grad()` `` matches ``zero
  grad`` and ``zerograd``) and a one-part name matches the bare word (`` `.grad` `` ->
  ``grad``).

Word and prefix alternatives also match the alternatives the synonym table lists for them
(:mod:`bot.grading.synonyms`). A word atom and a prefix atom also match the last part of a
code token exactly (``grad*`` matches ``x.grad``), never fuzzily.

Matching (once per answer) looks every distinct token up in a per-item cache (token ->
atoms it satisfies), then joins atoms into phrases: consecutive terms at most ``gap`` words
apart, never across a sentence end; ``near`` parts pairwise within ``within`` words in one
sentence. Every span then gets its polarity from :mod:`bot.grading.negation`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal

from bot.content.patterns import (
    Alt,
    NearPattern,
    NumberPattern,
    Pattern,
    Phrase,
    SeqPattern,
    Term,
    parse_phrase,
)
from bot.grading.lexicon import (
    allowed_slips,
    is_known_word,
    lemma,
    prefix_within_slips,
    stem,
    within_slips,
)
from bot.grading.negation import FUNCTION_WORDS, Negation
from bot.grading.normalize import expand_contractions, normalize
from bot.grading.sentences import TokenStream, segment
from bot.grading.synonyms import expansions_for_prefix, expansions_for_word, merged
from bot.grading.tokens import CODE, NUM, OP, WORD

A_WORD: Final = 0
A_PREFIX: Final = 1
A_EXACT: Final = 2
A_CODE: Final = 3

ARTICLES: Final = frozenset({"the", "a", "an"})
"""Articles in a pattern phrase are optional (learners swap and drop them)."""

MAX_NEAR_COMBINATIONS: Final = 256
"""Cap on span combinations tried for one ``near`` pattern (keeps the worst case bounded)."""

LEXICON_CACHE_LIMIT: Final = 50_000
"""Distinct tokens remembered per item before its lookup cache is cleared."""

FUZZY: Final = 1
"""Span flag: some token matched only through typo tolerance."""

FLIPPED: Final = 2
"""Span flag: a value-less code pattern (`` `requires_grad` ``) matched a token whose value
is False or None (``requires_grad=False``, ``grad_fn=None``), which states its absence: the
span's polarity is reversed."""

Span = tuple[int, int, int, tuple[int, ...]]
"""(first token, last token inclusive, flags :data:`FUZZY` | :data:`FLIPPED`, the tokens the
pattern's atoms matched; words skipped over by a gap are not among them)."""


@dataclass(frozen=True, slots=True)
class Atom:
    """One single-token matcher (see the module docstring for the kinds)."""

    kind: int
    text: str
    stem: str = ""
    slips: int = 0
    comps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CTerm:
    """One phrase position: single-token atoms, or multi-token alternative phrases."""

    atoms: tuple[int, ...]
    phrases: tuple[CPhrase, ...] = ()


@dataclass(frozen=True, slots=True)
class CPhrase:
    """Terms in order, at most ``gap`` words between neighbours, within one sentence.

    ``any_order``: a two-term phrase of content words also matches reversed ("graph freed"
    = "freed graph", "records ops" = "ops are recorded").
    """

    terms: tuple[CTerm, ...]
    gap: int
    any_order: bool = False


@dataclass(frozen=True, slots=True)
class CNear:
    """Parts in any order, pairwise at most ``within`` words apart, within one sentence."""

    parts: tuple[CPhrase, ...]
    within: int


@dataclass(frozen=True, slots=True)
class CNumber:
    """A stated number equal to ``value`` within ``tolerance``."""

    value: float
    tolerance: float


CPattern = CPhrase | CNear | CNumber


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A concept or misconception, compiled: its id, polarity and patterns."""

    id: str
    polarity: Literal["affirm", "deny"]
    patterns: tuple[CPattern, ...]


@dataclass(slots=True)
class RuleHits:
    """Where a rule matched an answer, split by polarity.

    Attributes:
        affirmed: spans stated outside any negation.
        negated: spans stated inside a negation.
        conditional: spans inside a conditional clause ("if you don't zero them").
    """

    affirmed: list[Span] = field(default_factory=list)
    negated: list[Span] = field(default_factory=list)
    conditional: list[Span] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.affirmed or self.negated or self.conditional)


def code_parts(canonical: str) -> tuple[str, ...]:
    """Dotted parts of a canonical code token: ``x.grad.zero_`` -> ``("x", "grad", "zero_")``."""
    return tuple(part for part in canonical.split(".") if part)


def _part_matches(pattern_part: str, text_part: str) -> bool:
    if pattern_part == text_part:
        return True
    return "=" not in pattern_part and text_part.split("=", 1)[0] == pattern_part


def code_matches(pattern: tuple[str, ...], text: tuple[str, ...]) -> bool:
    """Whether a code token's parts end with the pattern's parts (values must agree)."""
    n = len(pattern)
    if n == 0 or n > len(text):
        return False
    offset = len(text) - n
    return all(_part_matches(pattern[k], text[offset + k]) for k in range(n))


def _articles_only(term: Term) -> bool:
    return all(alt.form == "word" and alt.text in ARTICLES for alt in term.alts)


def _function_words_only(term: Term) -> bool:
    """A term any of whose alternatives is a closed-class word (``up``, ``to``, ``only``)."""
    return any(alt.form != "code" and alt.text in FUNCTION_WORDS for alt in term.alts)


@functools.lru_cache(maxsize=4096)
def _parsed(source: str) -> Phrase:
    return parse_phrase(source)


class Compiler:
    """Compiles one item's rubric; owns the item's atoms and their per-token lookup cache.

    Args:
        item_synonyms: the rubric's own ``synonyms`` (merged over the shared table).
    """

    def __init__(self, item_synonyms: dict[str, list[str]]) -> None:
        self.table = merged(item_synonyms)
        self.atoms: list[Atom] = []
        self._index: dict[Atom, int] = {}
        self.vocabulary: set[str] = set()
        self.cache: dict[tuple[int, str], tuple[tuple[int, int], ...]] = {}
        self.word_cache: dict[str, tuple[tuple[int, int], ...]] = {}
        """The same lookups for word tokens, keyed by the word alone (the hot path)."""

    # ---- compilation -----------------------------------------------------------------
    def _atom(self, atom: Atom) -> int:
        found = self._index.get(atom)
        if found is None:
            found = len(self.atoms)
            self.atoms.append(atom)
            self._index[atom] = found
            if atom.kind in (A_WORD, A_EXACT, A_PREFIX):
                self.vocabulary.add(atom.text)
        return found

    def _word_atom(self, word: str, fuzzy: bool) -> int:
        return self._atom(Atom(A_WORD, word, stem(word), allowed_slips(len(word)) if fuzzy else 0))

    def _words_phrase(self, words: list[str], fuzzy: bool) -> CPhrase:
        return CPhrase(tuple(CTerm((self._word_atom(w, fuzzy),)) for w in words), 0)

    def _code(self, source: str) -> CTerm:
        stream = segment(source.lower())
        if len(stream) == 1 and stream.kind[0] == CODE:
            parts = code_parts(stream.surf[0])
            atoms = [self._atom(Atom(A_CODE, stream.surf[0], comps=parts))]
            phrases: list[CPhrase] = []
            name = parts[-1]
            if "=" not in name:
                words = [w for w in name.split("_") if w]
                if len(words) >= 2:  # zero_grad: "zero grad", "zerograd"
                    phrases.append(self._words_phrase(words, fuzzy=False))
                    atoms.append(self._word_atom("".join(words), fuzzy=False))
                elif len(parts) == 1 and words and words[0] == name:  # .grad, backward()
                    atoms.append(self._word_atom(name, fuzzy=False))
            return CTerm(tuple(atoms), tuple(phrases))
        exact = [self._atom(Atom(A_EXACT, s)) for s in stream.surf]
        if len(exact) == 1:
            return CTerm((exact[0],))
        return CTerm((), (CPhrase(tuple(CTerm((a,)) for a in exact), 0),))

    def _alt(self, alt: Alt, expand: bool) -> CTerm:
        if alt.form == "code":
            return self._code(alt.text)
        # A pattern word goes through the same normalisation as answers, so "can't" and
        # "doesn't" in a rubric meet "can not" / "does not" in the text.
        text = " ".join(expand_contractions(w) for w in normalize(alt.text).split())
        words = text.replace("-", " ").split()
        if not words:
            return CTerm(())
        if alt.form == "exact":
            if len(words) == 1:
                return CTerm((self._word_atom(words[0], fuzzy=False),))
            return CTerm((), (self._words_phrase(words, fuzzy=False),))
        if alt.form == "prefix":
            atoms = [self._atom(Atom(A_PREFIX, alt.text, slips=allowed_slips(len(alt.text))))]
            sources = expansions_for_prefix(alt.text, self.table) if expand else ()
        elif len(words) > 1:  # non-leaf -> "non leaf" (the tokenizer splits hyphens)
            return CTerm((), (self._words_phrase(words, fuzzy=True),))
        else:
            atoms = [self._word_atom(words[0], fuzzy=True)]
            sources = expansions_for_word(words[0], self.table) if expand else ()
        phrases: list[CPhrase] = []
        for source in sources:
            sub = self.phrase(_parsed(source), expand=False)
            if len(sub.terms) == 1 and not sub.terms[0].phrases:
                atoms.extend(a for a in sub.terms[0].atoms if a not in atoms)
            else:
                phrases.append(sub)
        return CTerm(tuple(atoms), tuple(phrases))

    def phrase(self, parsed: Phrase, expand: bool = True) -> CPhrase:
        """Compile a parsed phrase (synonyms expanded one level when ``expand``).

        A term made only of articles (``the``, ``a``, ``an``) is dropped when the phrase has
        other terms, and the gap widened by one: "result of the op" also matches "result of
        an op" and "result of op".
        """
        terms: list[CTerm] = []
        gap = parsed.gap
        for term in parsed.terms:
            if len(parsed.terms) > 1 and _articles_only(term):
                gap = parsed.gap + 1
                continue
            atoms: list[int] = []
            phrases: list[CPhrase] = []
            for alt in term.alts:
                compiled = self._alt(alt, expand)
                atoms.extend(a for a in compiled.atoms if a not in atoms)
                phrases.extend(compiled.phrases)
            terms.append(CTerm(tuple(atoms), tuple(phrases)))
        if not terms:  # a phrase of articles only: keep it literal
            return self.phrase(Phrase(parsed.terms[:1], parsed.gap), expand)
        kept = [t for t in parsed.terms if not _articles_only(t)]
        any_order = len(kept) == 2 and not any(_function_words_only(t) for t in kept)
        return CPhrase(tuple(terms), gap, any_order)

    def pattern(self, pattern: Pattern) -> CPattern:
        """Compile one rubric pattern (string, ``seq``, ``near`` or ``number``)."""
        if isinstance(pattern, str):
            return self.phrase(_parsed(pattern))
        if isinstance(pattern, SeqPattern):
            return self.phrase(parse_phrase(pattern.seq, pattern.gap))
        if isinstance(pattern, NearPattern):
            return CNear(tuple(self.phrase(_parsed(p)) for p in pattern.near), pattern.within)
        if isinstance(pattern, NumberPattern):
            return CNumber(pattern.number, pattern.tolerance)
        raise TypeError(f"unknown pattern {pattern!r}")  # pragma: no cover

    def rule(
        self, rule_id: str, polarity: Literal["affirm", "deny"], patterns: Iterable[Pattern]
    ) -> CompiledRule:
        """Compile a concept or misconception."""
        return CompiledRule(rule_id, polarity, tuple(self.pattern(p) for p in patterns))

    # ---- lookup ----------------------------------------------------------------------
    def lookup(self, kind: int, surf: str) -> tuple[tuple[int, int], ...]:
        """Atoms a token satisfies, as ``(atom id, span flags)`` pairs; cached per token."""
        key = (kind, surf)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        out = tuple(self._compute(kind, surf))
        if len(self.cache) >= LEXICON_CACHE_LIMIT:
            self.cache.clear()
            self.word_cache.clear()
        self.cache[key] = out
        if kind == WORD:
            self.word_cache[surf] = out
        return out

    def _compute(self, kind: int, surf: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        if kind == WORD:
            lem = lemma(surf)
            st = stem(surf)
            may_be_typo: bool | None = None
            for aid, atom in enumerate(self.atoms):
                if atom.kind == A_WORD:
                    if atom.stem == st or atom.text == surf or atom.text == lem:
                        out.append((aid, 0))
                        continue
                elif atom.kind == A_PREFIX:
                    if surf.startswith(atom.text) or lem.startswith(atom.text):
                        out.append((aid, 0))
                        continue
                elif atom.kind == A_EXACT:
                    if atom.text == surf:
                        out.append((aid, 0))
                    continue
                else:
                    continue
                if not atom.slips or len(surf) < 4:
                    continue
                if may_be_typo is None:
                    may_be_typo = (
                        surf.isalpha() and surf not in self.vocabulary and not is_known_word(surf)
                    )
                if not may_be_typo:
                    continue
                if atom.kind == A_WORD:
                    if within_slips(surf, atom.text, atom.slips) or within_slips(
                        st, atom.stem, atom.slips
                    ):
                        out.append((aid, FUZZY))
                elif prefix_within_slips(surf, atom.text, atom.slips):
                    out.append((aid, FUZZY))
        elif kind == CODE:
            parts = code_parts(surf)
            last, _, value = parts[-1].partition("=") if parts else ("", "", "")
            falsy = FLIPPED if value in ("false", "none") else 0
            last_stem = stem(last) if last.isalpha() else last
            for aid, atom in enumerate(self.atoms):
                if atom.kind == A_CODE:
                    if code_matches(atom.comps, parts):
                        out.append((aid, 0 if "=" in atom.comps[-1] else falsy))
                elif atom.kind == A_EXACT:
                    if atom.text == surf:
                        out.append((aid, 0))
                elif atom.kind == A_WORD:
                    if last and (atom.text == last or atom.stem == last_stem):
                        out.append((aid, falsy))
                elif last.startswith(atom.text):
                    out.append((aid, falsy))
        else:  # NUM, OP
            for aid, atom in enumerate(self.atoms):
                if atom.kind == A_EXACT and atom.text == surf:
                    out.append((aid, 0))
        return out


def _flags(spans: list[Span]) -> int:
    out = 0
    for span in spans:
        out |= span[2]
    return out


class Matcher:
    """Finds rule matches in one answer (built per answer; cheap when few tokens match).

    Args:
        compiler: the item's compiler (its atoms and lookup cache).
        stream: the segmented answer.
        negation: negation marks of the answer.
    """

    def __init__(self, compiler: Compiler, stream: TokenStream, negation: Negation) -> None:
        self.stream = stream
        self.negation = negation
        positions: dict[int, list[tuple[int, int]]] = {}
        lookup = compiler.lookup
        words = compiler.word_cache
        kinds = stream.kind
        for i, surf in enumerate(stream.surf):
            kind = kinds[i]
            hits = words.get(surf) if kind == WORD else None
            if hits is None:
                hits = lookup(kind, surf)
            if hits:
                for aid, flags in hits:
                    if aid in positions:
                        positions[aid].append((i, flags))
                    else:
                        positions[aid] = [(i, flags)]
        self.positions = positions
        self._memo: dict[int, list[Span]] = {}

    @property
    def matched_tokens(self) -> set[int]:
        """Indices of tokens that some atom of the item matched."""
        return {i for spans in self.positions.values() for i, _ in spans}

    def _term(self, term: CTerm) -> list[Span]:
        out: list[Span] = []
        positions = self.positions
        for aid in term.atoms:
            for i, flags in positions.get(aid, ()):
                out.append((i, i, flags, (i,)))
        for sub in term.phrases:
            out.extend(self.phrase(sub))
        return out

    def phrase(self, phrase: CPhrase) -> list[Span]:
        """Every span where ``phrase`` matches."""
        key = id(phrase)
        memo = self._memo.get(key)
        if memo is not None:
            return memo
        sent = self.stream.sent
        limit = phrase.gap + 1
        first = self._term(phrase.terms[0])
        current = first
        for term in phrase.terms[1:]:
            if not current:
                break
            following = self._term(term)
            current = [
                (s, e2, f | f2, t + t2)
                for (s, e, f, t) in current
                for (s2, e2, f2, t2) in following
                if e < s2 <= e + limit and sent[s2] == sent[s]
            ]
        if phrase.any_order and first:
            current = current + [
                (s2, e, f | f2, t2 + t)
                for (s, e, f, t) in first
                for (s2, e2, f2, t2) in self._term(phrase.terms[1])
                if s2 < s and s - limit <= e2 < s and sent[s2] == sent[s]
            ]
        self._memo[key] = current
        return current

    def _near(self, near: CNear) -> list[Span]:
        sent = self.stream.sent
        per_part = [self.phrase(p) for p in near.parts]
        if not all(per_part):
            return []
        combos: list[list[Span]] = [[span] for span in per_part[0]]
        for spans in per_part[1:]:
            grown: list[list[Span]] = []
            for combo in combos:
                for span in spans:
                    if sent[span[0]] != sent[combo[0][0]]:
                        continue
                    if all(
                        max(0, max(span[0], c[0]) - min(span[1], c[1]) - 1) <= near.within
                        and (span[0] > c[1] or span[1] < c[0])
                        for c in combo
                    ):
                        grown.append([*combo, span])
                        if len(grown) >= MAX_NEAR_COMBINATIONS:
                            break
            combos = grown
            if not combos:
                return []
        return [
            (
                min(c[0] for c in combo),
                max(c[1] for c in combo),
                _flags(combo),
                tuple(t for c in combo for t in c[3]),
            )
            for combo in combos
        ]

    def _number(self, number: CNumber) -> list[Span]:
        return [
            (i, i, 0, (i,))
            for i, value in self.stream.values.items()
            if abs(value - number.value) <= number.tolerance
        ]

    def spans(self, pattern: CPattern) -> list[Span]:
        """Every span where one compiled pattern matches."""
        if isinstance(pattern, CPhrase):
            return self.phrase(pattern)
        if isinstance(pattern, CNear):
            return self._near(pattern)
        return self._number(pattern)

    def rule(self, rule: CompiledRule) -> RuleHits:
        """Where ``rule`` matched, by polarity; spans inside questions are left out."""
        hits = RuleHits()
        questions = self.stream.questions
        sent = self.stream.sent
        conditional = self.negation.conditional
        seen: set[tuple[int, int]] = set()
        for pattern in rule.patterns:
            for span in self.spans(pattern):
                start, end, flags, tokens = span
                if (start, end) in seen or sent[start] in questions:
                    continue
                seen.add((start, end))
                if conditional and any(t in conditional for t in tokens):
                    hits.conditional.append(span)
                elif self.negation.negated(tokens) != bool(flags & FLIPPED):
                    hits.negated.append(span)
                else:
                    hits.affirmed.append(span)
        return hits


__all__ = [
    "NUM",
    "OP",
    "Atom",
    "CNear",
    "CNumber",
    "CPhrase",
    "CTerm",
    "CompiledRule",
    "Compiler",
    "Matcher",
    "RuleHits",
    "Span",
    "code_matches",
    "code_parts",
]
