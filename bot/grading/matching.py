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
code token exactly (``grad*`` matches ``x.grad``), never fuzzily; a prefix atom the rubric
spells also meets a snake_case name starting with it (``zero*`` meets ``zero_grad``), one a
synonym expansion brought in does not (``zeros`` -> ``zero*`` is the value, not the call).

Matching (once per answer) looks every distinct token up in a per-item cache (token ->
atoms it satisfies), then joins atoms into phrases: consecutive terms at most ``gap`` words
apart, never across a sentence end; ``near`` parts pairwise within ``within`` words in one
sentence. Every span then gets its polarity from :mod:`bot.grading.negation`.
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal, TypeVar

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
from bot.grading.negation import FUNCTION_WORDS, HINDER_VERBS, Negation
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
    compounds: bool = True
    """A prefix atom only: it also meets a snake_case code name that starts with it
    (``zero*`` meets ``zero_grad``). False for a prefix a synonym expansion brought in: the
    rubric's word ``zeros`` means the value, never the function ``zero_grad()``."""


@dataclass(frozen=True, slots=True)
class CTerm:
    """One phrase position: single-token atoms, or multi-token alternative phrases."""

    atoms: tuple[int, ...]
    phrases: tuple[CPhrase, ...] = ()
    nid: int = field(default=-1, compare=False, repr=False)
    """Index in the compiler's node table (:meth:`Compiler._intern`; -1: not interned),
    where the matcher memoises the term's spans per answer."""


@dataclass(frozen=True, slots=True)
class CPhrase:
    """Terms in order, at most ``gap`` words between neighbours, within one sentence.

    ``any_order``: a two-term phrase of content words also matches reversed ("graph freed"
    = "freed graph", "records ops" = "ops are recorded").
    """

    terms: tuple[CTerm, ...]
    gap: int
    any_order: bool = False
    widened: tuple[int, ...] = ()
    """Joins (index k joins ``terms[k]`` to ``terms[k + 1]``) that allow one more word than
    ``gap``: where the rubric wrote an article-only term that compiling dropped."""
    needs: tuple[frozenset[int], ...] = field(init=False, compare=False, repr=False)
    """The atom sets the phrase needs in an answer (:func:`gate`), computed on creation."""
    need_ids: tuple[int, ...] = field(init=False, compare=False, repr=False)
    """The same sets as indices into the compiler's gate table (:meth:`Compiler.gate_id`),
    ``needs``' order; set when the compiler interns the phrase."""
    nid: int = field(default=-1, init=False, compare=False, repr=False)
    """Index in the compiler's node table, as :attr:`CTerm.nid`."""

    def __post_init__(self) -> None:
        sets = {_term_anchors(term) for term in self.terms}
        object.__setattr__(self, "needs", tuple(sorted(sets, key=len)))
        object.__setattr__(self, "need_ids", ())


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

_Node = TypeVar("_Node", CTerm, CPhrase)


Gate = tuple[frozenset[int], ...]
"""Atom sets a pattern needs: it can match an answer only if, for every set, one of the
set's atoms occurs in the answer (one set per phrase term; see :func:`gate`)."""


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A concept or misconception, compiled: its id, polarity and patterns.

    Attributes:
        id: the concept or misconception id.
        polarity: ``affirm`` or ``deny``, as in the rubric.
        patterns: the compiled patterns, rubric order.
        gates: for each pattern, the atom sets it needs (:data:`Gate`); None for a number
            pattern, which needs a stated number instead.
        atoms: every atom any phrase or ``near`` pattern of the rule could start a match
            with; a rule without number patterns whose atoms are all absent cannot match.
        numbers: the rule has a ``{number: ...}`` pattern.
        flips: for each pattern, whether its own ``polarity`` is the opposite of the rule's
            (its negated matches then state the rule: "is not recorded" for "stops
            tracking").
        gate_ids: ``gates`` as indices into the compiler's gate table
            (:meth:`Compiler.gate_id`): what the matcher tests.
        atoms_id: ``atoms`` as an index into the same table (-1: not registered, i.e. a
            rule built by hand; the matcher then tries it).
        mixed: some pattern is flipped (computed on creation).
    """

    id: str
    polarity: Literal["affirm", "deny"]
    patterns: tuple[CPattern, ...]
    gates: tuple[Gate | None, ...] = ()
    atoms: frozenset[int] = frozenset()
    numbers: bool = False
    flips: tuple[bool, ...] = ()
    gate_ids: tuple[tuple[int, ...] | None, ...] = ()
    atoms_id: int = -1
    mixed: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mixed", any(self.flips))


@dataclass(init=False, slots=True)
class RuleHits:
    """Where a rule matched an answer, split by polarity.

    A pattern whose own polarity is the opposite of its rule's has its spans filed the
    other way round (a negated match under ``affirmed``, an affirmed one under
    ``negated``), so the rule's outcome reads the same lists whatever polarity each of its
    patterns has: "is not recorded" under a ``deny`` pattern of an ``affirm`` concept is
    filed as affirmed, i.e. it credits the concept.

    Attributes:
        affirmed: spans stated outside any negation (flipped patterns: inside one).
        negated: spans stated inside a negation (flipped patterns: outside any).
        conditional: spans inside a conditional clause ("if you don't zero them").
    """

    affirmed: list[Span]
    negated: list[Span]
    conditional: list[Span]

    def __init__(
        self,
        affirmed: list[Span] | None = None,
        negated: list[Span] | None = None,
        conditional: list[Span] | None = None,
    ) -> None:
        # An explicit __init__ so that the compiled grader builds it natively (a
        # dataclass's generated one is interpreted, even there).
        self.affirmed = [] if affirmed is None else affirmed
        self.negated = [] if negated is None else negated
        self.conditional = [] if conditional is None else conditional

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


def _term_anchors(term: CTerm) -> frozenset[int]:
    """Atoms that can be the first token of a match of ``term`` (its own atoms and, for each
    alternative phrase, those of that phrase's first term)."""
    out = set(term.atoms)
    for sub in term.phrases:
        out |= _term_anchors(sub.terms[0])
    return frozenset(out)


def gate(pattern: CPattern) -> Gate | None:
    """The atom sets ``pattern`` needs in an answer before it is worth trying.

    A phrase matches only where every term matches, and a term only where one of its atoms
    (or the first atom of one of its alternative phrases) occurs; ``near`` needs every term
    of every part. So an answer in which some set has no atom cannot match the pattern, and
    the matcher skips it with one read per term of the item's gate table
    (:meth:`Compiler.gate_id`) instead of walking its atoms.

    Returns:
        One atom set per term, smallest first (the likeliest to be absent); None for a
        number pattern.
    """
    if isinstance(pattern, CNumber):
        return None
    if isinstance(pattern, CPhrase):
        return pattern.needs
    sets = {atoms for phrase in pattern.parts for atoms in phrase.needs}
    return tuple(sorted(sets, key=len))


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
        self.other_cache: dict[str, tuple[tuple[int, int], ...]] = {}
        """The same for code, number and operator tokens, keyed by their text alone: the
        texts of these kinds never coincide (code has a letter or ``_``, a number starts
        with a digit, ``-`` or ``.``, an operator has neither), unlike a code token and a
        word (``backward()`` and ``backward``)."""
        self._nodes: dict[CTerm | CPhrase, CTerm | CPhrase] = {}
        self.node_count = 0
        """How many distinct terms and phrases the item has (:meth:`_intern` numbers them:
        the matcher's per-answer memo is a list indexed by that number)."""
        self._gate_index: dict[frozenset[int], int] = {}
        self.gate_count = 0
        """How many distinct gate sets (:data:`Gate` members) the item's patterns have."""
        self.atom_gates: list[list[int]] = []
        """Per atom id, the gate sets that hold it: a token matching the atom satisfies
        them all. The matcher marks them once per answer, as each atom first occurs, so a
        pattern's gate is a few list reads instead of a set operation per term."""

    def gate_id(self, atoms: frozenset[int]) -> int:
        """The index of a gate set in the item's gate table (registered on first use).

        The table is the per-item precompiled form of the gates: :class:`Matcher` marks a
        set satisfied when one of its atoms occurs in the answer, which is exactly when
        ``atoms`` and the answer's atoms intersect (an empty set is never satisfied)."""
        found = self._gate_index.get(atoms)
        if found is None:
            found = self.gate_count
            self._gate_index[atoms] = found
            self.gate_count += 1
            for aid in atoms:
                self.atom_gates[aid].append(found)
        return found

    # ---- compilation -----------------------------------------------------------------
    def _intern(self, node: _Node) -> _Node:
        """One object per distinct term or phrase of the item, so the matcher's per-answer
        memo (indexed by the node's number) shares the work of a phrase or term that several
        patterns or synonym expansions spell alike. A new phrase gets its gate ids here."""
        found = self._nodes.setdefault(node, node)
        if found is node:
            object.__setattr__(node, "nid", self.node_count)
            self.node_count += 1
            if isinstance(node, CPhrase):
                object.__setattr__(node, "need_ids", tuple(self.gate_id(s) for s in node.needs))
        return found  # type: ignore[return-value]

    def _atom(self, atom: Atom) -> int:
        found = self._index.get(atom)
        if found is None:
            found = len(self.atoms)
            self.atoms.append(atom)
            self.atom_gates.append([])
            self._index[atom] = found
            if atom.kind in (A_WORD, A_EXACT, A_PREFIX):
                self.vocabulary.add(atom.text)
        return found

    def _word_atom(self, word: str, fuzzy: bool) -> int:
        return self._atom(Atom(A_WORD, word, stem(word), allowed_slips(len(word)) if fuzzy else 0))

    def _words_phrase(self, words: list[str], fuzzy: bool) -> CPhrase:
        return self._intern(CPhrase(tuple(CTerm((self._word_atom(w, fuzzy),)) for w in words), 0))

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
                    if "fn" in words:  # grad_fn: "grad function", as learners say it aloud
                        spoken = ["function" if w == "fn" else w for w in words]
                        phrases.append(self._words_phrase(spoken, fuzzy=False))
                elif len(parts) == 1 and words and words[0] == name:  # .grad, backward()
                    atoms.append(self._word_atom(name, fuzzy=False))
            return CTerm(tuple(atoms), tuple(phrases))
        exact = [self._atom(Atom(A_EXACT, s)) for s in stream.surf]
        if len(exact) == 1:
            return CTerm((exact[0],))
        return CTerm((), (self._intern(CPhrase(tuple(CTerm((a,)) for a in exact), 0)),))

    def _alt(self, alt: Alt, expand: bool) -> CTerm:
        if alt.form == "code":
            return self._code(alt.text)
        # A pattern word goes through the same normalisation as answers, so "can't" and
        # "doesn't" in a rubric meet "can not" / "does not" in the text; a number word stays a
        # word (a value is written as code, `8`; "both|two are none" counts, stop 22).
        text = " ".join(expand_contractions(w) for w in normalize(alt.text, values=False).split())
        words = text.replace("-", " ").split()
        if not words:
            return CTerm(())
        if alt.form == "exact":
            if len(words) == 1:
                return CTerm((self._word_atom(words[0], fuzzy=False),))
            return CTerm((), (self._words_phrase(words, fuzzy=False),))
        if alt.form == "prefix":
            slips = allowed_slips(len(alt.text))
            # expand is False inside a synonym expansion (one level only): such a prefix
            # stands for a word the author wrote, not for the code names built on it
            atoms = [self._atom(Atom(A_PREFIX, alt.text, slips=slips, compounds=expand))]
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
        other terms, and the join it stood in widened by one word: "result of the op" also
        matches "result of an op" and "result of op". Only that join: with ``gap: 0``,
        "arange gives a float" must not match "arange 4.0 gives float32" (round 20's engine
        cases, docs/RUBRIC-TUNING.md).
        """
        terms: list[CTerm] = []
        widened: list[int] = []
        for term in parsed.terms:
            if len(parsed.terms) > 1 and _articles_only(term):
                if terms and (not widened or widened[-1] != len(terms) - 1):
                    widened.append(len(terms) - 1)
                continue
            atoms: list[int] = []
            phrases: list[CPhrase] = []
            for alt in term.alts:
                compiled = self._alt(alt, expand)
                atoms.extend(a for a in compiled.atoms if a not in atoms)
                phrases.extend(compiled.phrases)
            terms.append(self._intern(CTerm(tuple(atoms), tuple(phrases))))
        if not terms:  # a phrase of articles only: keep it literal
            return self.phrase(Phrase(parsed.terms[:1], parsed.gap), expand)
        kept = [t for t in parsed.terms if not _articles_only(t)]
        any_order = len(kept) == 2 and not any(_function_words_only(t) for t in kept)
        joins = tuple(k for k in widened if k < len(terms) - 1)
        return self._intern(CPhrase(tuple(terms), parsed.gap, any_order, joins))

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
        """Compile a concept or misconception (with the gates the matcher prunes by).

        A pattern with its own ``polarity`` unlike the rule's is marked to be flipped: its
        negated matches state the rule, its affirmed ones its opposite.
        """
        patterns = list(patterns)
        compiled = tuple(self.pattern(p) for p in patterns)
        gates = tuple(gate(p) for p in compiled)
        atoms = frozenset().union(*(g[0] for g in gates if g is not None))
        numbers = any(g is None for g in gates)
        flips = tuple(
            not isinstance(p, str) and p.polarity is not None and p.polarity != polarity
            for p in patterns
        )
        gate_ids = tuple(
            None if g is None else tuple(self.gate_id(atoms) for atoms in g) for g in gates
        )
        return CompiledRule(
            rule_id, polarity, compiled, gates, atoms, numbers, flips, gate_ids, self.gate_id(atoms)
        )

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
            self.other_cache.clear()
        self.cache[key] = out
        if kind == WORD:
            self.word_cache[surf] = out
        else:
            self.other_cache[surf] = out
        return out

    def _compute(self, kind: int, surf: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        if kind == WORD and surf in STANCE_ADVERBS:
            # "no_grad clearly keeps them": the adverb is the speaker's stance, never the
            # verb or adjective it is made from (clear*, simpl*, true, exact*)
            for aid, atom in enumerate(self.atoms):
                if atom.kind in (A_WORD, A_EXACT) and atom.text == surf:
                    out.append((aid, 0))
        elif kind == WORD:
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
                elif last.startswith(atom.text) and (
                    atom.compounds or "_" not in last[len(atom.text) :]
                ):
                    out.append((aid, falsy))
        else:  # NUM, OP
            for aid, atom in enumerate(self.atoms):
                if atom.kind == A_EXACT and atom.text == surf:
                    out.append((aid, 0))
        return out


STANCE_ADVERBS: Final = frozenset(
    {"clearly", "obviously", "simply", "really", "actually", "basically", "literally",
     "exactly", "definitely", "certainly", "surely", "truly", "purely", "merely", "honestly",
     "totally", "seriously", "apparently", "evidently"}
)  # fmt: skip
"""Adverbs of the speaker's stance: they match only a pattern that spells them, never by
stem or prefix ("no_grad clearly keeps them" met a cap on ``clear*``; a round 11 probe)."""

_NONE: Final[list[Span]] = []
"""The spans of a pattern that cannot match (shared; never mutated)."""

_BUCKET_MIN: Final = 32
"""Above this many span pairs, :func:`_join` indexes the following spans by start token."""


def _join(current: list[Span], following: list[Span], limit: int, sent: list[int]) -> list[Span]:
    """Spans of ``current`` extended by a span of ``following`` starting at most ``limit``
    tokens after their end, in the same sentence.

    The result is ordered by ``current``, then by ``following`` (the order the rule's
    first-match-wins deduplication relies on). Small inputs are joined pair by pair; large
    ones (a long answer repeating a word) through an index of ``following`` by start token,
    so the work grows with ``len(current) * limit`` rather than with the product.
    """
    if len(current) * len(following) <= _BUCKET_MIN:
        return [
            (s, e2, f | f2, t + t2)
            for (s, e, f, t) in current
            for (s2, e2, f2, t2) in following
            if e < s2 <= e + limit and sent[s2] == sent[s]
        ]
    by_start: dict[int, list[tuple[int, Span]]] = {}
    for k, span in enumerate(following):
        bucket = by_start.get(span[0])
        if bucket is None:
            by_start[span[0]] = [(k, span)]
        else:
            bucket.append((k, span))
    out: list[Span] = []
    for s, e, f, t in current:
        found: list[tuple[int, Span]] = []
        for start in range(e + 1, e + limit + 1):
            bucket = by_start.get(start)
            if bucket is not None:
                found += bucket
        if len(found) > 1:
            found.sort(key=_first_item)
        for _, (s2, e2, f2, t2) in found:
            if sent[s2] == sent[s]:
                out.append((s, e2, f | f2, t + t2))
    return out


def _first_item(pair: tuple[int, Span]) -> int:
    return pair[0]


_plain_spans: list[Span] = []


def _one_token_spans(count: int) -> list[Span]:
    """The flagless one-token spans ``(i, i, 0, (i,))`` for ``i < count``, built once and
    shared (spans are immutable), so a long answer does not build two tuples per match.

    A longer table replaces the old one whole, so a thread never sees a half-built list.
    """
    global _plain_spans
    spans = _plain_spans
    if len(spans) < count:
        spans = spans + [(i, i, 0, (i,)) for i in range(len(spans), count)]
        _plain_spans = spans
    return spans


def _tightest(spans: list[Span]) -> list[Span]:
    """The ``near`` spans that hold no other one: the closest pairing of the parts. In
    "no backward saved y, pow saved x", ``near [saved, x]`` pairs the second "saved" with
    x; the first "saved" (denied) with that x spans the other pairing and is not a claim of
    its own (round 20d found the wider span negated a correct EC10 answer).

    One sweep over the distinct (first, last) pairs, by last token and then first token
    from the right: a pair holds an earlier one exactly when some earlier first token is at
    or after its own (up to 256 combinations, so no pairwise comparison)."""
    wide: set[tuple[int, int]] = set()
    rightmost = -1
    for end, start in sorted({(span[1], -span[0]) for span in spans}):
        if rightmost >= -start:
            wide.add((-start, end))
        else:
            rightmost = -start
    return spans if not wide else [span for span in spans if (span[0], span[1]) not in wide]


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

    def __init__(
        self, compiler: Compiler, stream: TokenStream, negation: Negation, gated: bool = True
    ) -> None:
        self.stream = stream
        self.negation = negation
        surf, kinds = stream.surf, stream.kind
        n = len(surf)
        # Word tokens are looked up by their text alone, the other kinds in their own map,
        # because a code token such as backward() has the same text as the word "backward".
        # One plain loop over typed locals: the compiled grader runs it as native code.
        word_cache: dict[str, tuple[tuple[int, int], ...]] = compiler.word_cache
        other_cache: dict[str, tuple[tuple[int, int], ...]] = compiler.other_cache
        atom_gates = compiler.atom_gates
        positions: list[list[Span]] = [_NONE] * len(compiler.atoms)
        # ``gated=False`` (tests): every gate passes, so every pattern is tried
        sat = [not gated] * compiler.gate_count
        plain = _one_token_spans(n)
        for i in range(n):
            text = surf[i]
            kind = kinds[i]
            got = word_cache.get(text) if kind == WORD else other_cache.get(text)
            if got is None:  # a token this item has not seen yet
                got = compiler.lookup(kind, text)
            for aid, flags in got:
                span = (i, i, flags, (i,)) if flags else plain[i]
                spans = positions[aid]
                if spans is _NONE:
                    positions[aid] = [span]
                    # the atom's first occurrence satisfies every gate set that holds it
                    for k in atom_gates[aid]:
                        sat[k] = True
                else:
                    spans.append(span)
        self.positions = positions
        """Per atom id, the one-token spans where it matched, in text order (the shared
        empty :data:`_NONE` where it did not: never mutated)."""
        self._sat = sat
        """Per gate set of the item (:meth:`Compiler.gate_id`): whether one of its atoms
        occurs in the answer."""
        self._memo: list[list[Span] | None] = [None] * compiler.node_count
        """Per term or phrase of the item (its ``nid``), its spans once computed."""
        self._classes: bytearray | None = None

    def matched_tokens(self) -> set[int]:
        """Indices of tokens that some atom of the item matched (read from the one-token
        spans of :attr:`positions`, so the per-answer lookup keeps no per-token list)."""
        return {span[0] for spans in self.positions for span in spans}

    def _term(self, term: CTerm) -> list[Span]:
        positions = self.positions
        if not term.phrases and len(term.atoms) == 1:
            return positions[term.atoms[0]]  # shared: callers never mutate spans
        nid = term.nid
        if nid < 0:  # pragma: no cover - every compiled multi-atom term is interned
            return self._term_spans(term)
        out = self._memo[nid]
        if out is None:
            out = self._memo[nid] = self._term_spans(term)
        return out

    def _term_spans(self, term: CTerm) -> list[Span]:
        positions = self.positions
        out: list[Span] = []
        for aid in term.atoms:
            found = positions[aid]
            if found:
                out += found
        if term.phrases:
            sat = self._sat
            memo = self._memo
            for sub in term.phrases:
                spans = memo[sub.nid] if sub.nid >= 0 else None
                if spans is None:
                    for k in sub.need_ids:
                        if not sat[k]:
                            break
                    else:
                        out += self.phrase(sub)
                elif spans:
                    out += spans
        return out

    def phrase(self, phrase: CPhrase) -> list[Span]:
        """Every span where ``phrase`` matches (the returned list must not be mutated)."""
        key = phrase.nid
        memo = self._memo
        if key >= 0:
            done = memo[key]
            if done is not None:
                return done
        sat = self._sat
        for k in phrase.need_ids:
            if not sat[k]:
                if key >= 0:
                    memo[key] = _NONE
                return _NONE
        sent = self.stream.sent
        limit = phrase.gap + 1
        widened = phrase.widened
        terms = phrase.terms
        first = self._term(terms[0])
        current = first
        following: list[Span] = []
        spell = (phrase.gap > 0 or bool(widened)) and bool(self.negation.cue_start)
        for k in range(1, len(terms)):  # indexed: no slice of the terms per call
            if not current:
                break
            if spell:
                current = self._with_listed_cues(terms[k - 1], current)
            following = self._term(terms[k])
            current = _join(current, following, limit + 1 if k - 1 in widened else limit, sent)
        if phrase.any_order and first:
            if widened:
                limit += 1
            current = current + [
                (s2, e, f | f2, t2 + t)
                for (s, e, f, t) in first
                for (s2, e2, f2, t2) in following
                if s2 < s and s - limit <= e2 < s and sent[s2] == sent[s]
            ]
        if key >= 0:
            memo[key] = current
        return current

    def _with_listed_cues(self, term: CTerm, spans: list[Span]) -> list[Span]:
        """``spans`` (each ending in a match of ``term``), plus, before each span followed
        by a negation cue that ``term`` also lists, the span extended over that cue.

        With ``can|does|not`` as one term and a gap, "autograd can't see numpy" matched
        ``can`` and left "not" in the gap, where it denied the whole match, though the
        author wrote the cue (fix19 #4a): the extended span spells it
        (:meth:`Negation.negated` skips a cue among the matched tokens) and, coming first,
        wins over the gapped one for the same tokens. A cue that only another term lists
        ("weren't used don't get zeros") or that is not right after the match still
        negates. The returned list is new only when something was added.
        """
        cues = self.negation.cue_start
        sent = self.stream.sent
        listed: set[int] | None = None
        out: list[Span] | None = None
        for k in range(len(spans)):
            span = spans[k]
            nxt = span[1] + 1
            if nxt in cues and nxt < len(sent) and sent[nxt] == sent[span[0]]:
                if listed is None:
                    listed = {one[0] for one in self._term(term) if one[0] == one[1]}
                if nxt in listed:
                    if out is None:
                        out = spans[:k]
                    out.append((span[0], nxt, span[2], (*span[3], nxt)))
            if out is not None:
                out.append(span)
        return spans if out is None else out

    def _near(self, near: CNear) -> list[Span]:
        sent = self.stream.sent
        per_part = [self.phrase(p) for p in near.parts]
        if not all(per_part):
            return []
        within = near.within
        combos: list[list[Span]] = [[span] for span in per_part[0]]
        for spans in per_part[1:]:
            by_sentence: dict[int, list[Span]] = {}  # every part lies in one sentence
            for span in spans:
                bucket = by_sentence.get(sent[span[0]])
                if bucket is None:
                    by_sentence[sent[span[0]]] = [span]
                else:
                    bucket.append(span)
            grown: list[list[Span]] = []
            for combo in combos:
                for span in by_sentence.get(sent[combo[0][0]], ()):
                    s2, e2 = span[0], span[1]
                    # every part already chosen: disjoint from this span, and at most
                    # ``within`` words between them
                    for c in combo:
                        if not (s2 > c[1] or e2 < c[0]):
                            break
                        if (s2 if s2 > c[0] else c[0]) - (e2 if e2 < c[1] else c[1]) - 1 > within:
                            break
                    else:
                        grown.append([*combo, span])
                        if len(grown) >= MAX_NEAR_COMBINATIONS:
                            break
            combos = grown
            if not combos:
                return []
        found: list[Span]
        if len(per_part) == 2:
            found = [
                (
                    a[0] if a[0] < b[0] else b[0],
                    a[1] if a[1] > b[1] else b[1],
                    a[2] | b[2],
                    a[3] + b[3],
                )
                for a, b in combos
            ]
        else:
            found = [
                (
                    min(c[0] for c in combo),
                    max(c[1] for c in combo),
                    _flags(combo),
                    tuple(t for c in combo for t in c[3]),
                )
                for combo in combos
            ]
        return found if len(found) == 1 else _tightest(found)

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

    def _token_classes(self) -> bytearray:
        """Per token: 3 in a question, 2 in a conditional clause, 1 negated on its own (an odd
        number of cues cover it), else 0 (affirmed) - the order :meth:`rule` tests them in."""
        classes = self._classes
        if classes is None:
            stream, negation = self.stream, self.negation
            classes = bytearray(len(stream))
            for i in negation.odd:
                classes[i] = 1
            for i in negation.conditional:
                classes[i] = 2
            sent = stream.sent
            for number in stream.questions:
                first, last = bisect_left(sent, number), bisect_right(sent, number)
                classes[first:last] = b"\x03" * (last - first)
            self._classes = classes
        return classes

    def rule(self, rule: CompiledRule) -> RuleHits:
        """Where ``rule`` matched, by polarity; spans inside questions are left out.

        Patterns whose gate fails (some term has no atom in the answer) are skipped without
        being tried; that changes no result, only the time taken. When two patterns match
        the same tokens, the first one's span counts.
        """
        sat = self._sat
        values = self.stream.values
        atoms_id = rule.atoms_id
        if atoms_id >= 0 and not sat[atoms_id] and not (rule.numbers and values):
            return RuleHits()
        questions = self.stream.questions
        sent = self.stream.sent
        negation = self.negation
        conditional = negation.conditional
        classes = self._token_classes()
        memo = self._memo
        affirmed: list[Span] = []
        negated: list[Span] = []
        conditioned: list[Span] = []
        seen_one: set[int] = set()  # one-token spans, by token
        seen: set[tuple[int, int]] = set()  # longer spans, by (first, last) token
        if rule.mixed:
            return self._mixed_rule(rule, rule.flips)
        # No pattern is flipped below. Indexed loops and a plain gate loop (no zip(), no
        # generator in all()) compile to native code.
        patterns, gates = rule.patterns, rule.gate_ids
        for k in range(len(patterns)):
            pattern = patterns[k]
            needs = gates[k]
            spans: list[Span] | None
            if needs is None:
                spans = self.spans(pattern) if values else None
            else:
                spans = None
                if isinstance(pattern, CPhrase) and pattern.nid >= 0:
                    spans = memo[pattern.nid]
                if spans is None:
                    for gid in needs:
                        if not sat[gid]:
                            break
                    else:
                        spans = self.spans(pattern)
            if not spans:
                continue
            for span in spans:
                start = span[0]
                if span[1] == start:  # one token: its class says it all
                    token_class = classes[start]
                    if token_class == 3 or start in seen_one:
                        continue
                    seen_one.add(start)
                    if token_class == 2:
                        conditioned.append(span)
                    elif (token_class == 1) != bool(span[2] & FLIPPED):
                        negated.append(span)
                    else:
                        affirmed.append(span)
                    continue
                key = (start, span[1])
                if key in seen or (questions and sent[start] in questions):
                    continue
                seen.add(key)
                tokens = span[3]
                if conditional and not conditional.isdisjoint(tokens):
                    if self._denied_hindrance(tokens):
                        if span[2] & FLIPPED:
                            affirmed.append(span)
                        else:
                            negated.append(span)
                    else:
                        conditioned.append(span)
                elif negation.negated(tokens) != bool(span[2] & FLIPPED):
                    # a longer span discounts the cues it spells ("no longer a leaf")
                    negated.append(span)
                else:
                    affirmed.append(span)
        return RuleHits(affirmed, negated, conditioned)

    def _denied_hindrance(self, tokens: tuple[int, ...]) -> bool:
        """Whether a span that runs into the mention after a verb of hindering ("stop new
        ops *from being recorded*", :data:`bot.grading.negation.HINDER_VERBS`) has that verb
        denied: "does not stop new ops from being recorded" states the recording, so the span
        is negated rather than a mention. Only a hindrance's ``from`` region counts; a span
        reaching into an ``if``/``unless`` clause stays conditional, and so does one that
        spells only the mention ("doesn't stop *sqrt from running*" states that sqrt runs,
        which a conditional mention already credits)."""
        conditional = self.negation.conditional
        first = -1
        for t in tokens:
            if t in conditional:
                first = t
                break
        if first <= tokens[0]:
            return False
        while first - 1 in conditional:
            first -= 1
        if first < 1 or self.stream.surf[first - 1] != "from":
            return False
        head = tuple(t for t in tokens if t < first)
        surf = self.stream.surf
        for t in head:
            if surf[t] in HINDER_VERBS:  # the span spells the hindrance itself
                return self.negation.negated(head)
        return False

    def _mixed_rule(self, rule: CompiledRule, flips: tuple[bool, ...]) -> RuleHits:
        """:meth:`rule` for a rule whose patterns have different polarities.

        Such a rule usually lists a phrase and the bare word it contains with the other
        polarity ("stop* track*" and ``{seq: "track*", polarity: deny}``), so a match that
        lies inside a longer match of the same rule is not counted on its own: "it stops
        tracking" states the concept once, not once each way.
        """
        questions = self.stream.questions
        sent = self.stream.sent
        values = self.stream.values
        sat = self._sat
        found: list[tuple[Span, bool]] = []
        seen: set[tuple[int, int]] = set()
        for pattern, needs, flip in zip(rule.patterns, rule.gate_ids, flips, strict=True):
            if needs is None:
                if not values:
                    continue
            elif not all(sat[k] for k in needs):
                continue
            for span in self.spans(pattern):
                key = (span[0], span[1])
                if key in seen or (questions and sent[span[0]] in questions):
                    continue
                seen.add(key)
                found.append((span, flip))
        hits = RuleHits()
        conditional = self.negation.conditional
        for span, flip in found:
            start, end = span[0], span[1]
            if any(s <= start and end <= e and (s, e) != (start, end) for (s, e, _, _), _ in found):
                continue
            if conditional and not conditional.isdisjoint(span[3]):
                if self._denied_hindrance(span[3]):
                    if bool(span[2] & FLIPPED) != flip:
                        hits.affirmed.append(span)
                    else:
                        hits.negated.append(span)
                    continue
                # the pattern's own polarity travels with the span: a deny pattern that runs
                # into a condition ("None even if it affects the loss") must not read as
                # the affirmed belief (scoring.misconception_found)
                hits.conditional.append((start, end, span[2] ^ FLIPPED, span[3]) if flip else span)
            elif self.negation.negated(span[3]) != (bool(span[2] & FLIPPED) != flip):
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
