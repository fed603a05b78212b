"""Scoring: from rule matches to a score, a three-way label and a confidence.

The rules follow docs/MARKING.md (the labelling standard we are measured against); the
numbers are ours and are documented, with the reasoning, in docs/GRADING.md.

Credit. When the rubric marks ``required`` concepts, they carry 75% of the reasoning credit
and the others 25%, each group shared by weight; otherwise the credit is the share of the
concept weight hit. For true/false items the verdict carries 40% of the score and the
reasoning 60%. Misconception penalties are subtracted and caps applied after that. The
rubric's *key* concepts (contradicting one makes an answer incorrect) are the required
ones, or those of the highest weight when none is required.

Label, first rule that applies:

1. incorrect: a wrong verdict (true/false, or the yes/no of a yes/no question); wrong
   arithmetic without the required concepts; a key concept stated with the opposite polarity
   ("right words, opposite claim"); a misconception whose cap falls in the incorrect band;
   a keyword list instead of reasoning (docs/MARKING.md lists it under incorrect, whatever
   the verdict: appending keywords to a verdict must not pay); nothing relevant at all.
2. correct: every required concept credited (without required concepts: 60% of the
   concept weight), no concept contradicted, no misconception, no keyword stuffing, no wrong
   arithmetic, and the verdict right (or absent).
3. partial: a right verdict, or any concept credited (stuffing credits none); else incorrect.

The score is then kept inside its label's band (incorrect < 0.4 <= partial < 0.75 <=
correct), so score and label never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final, Literal

from bot.content.models import Label
from bot.grading.matching import FLIPPED, FUZZY, RuleHits, Span
from bot.grading.negation import FUNCTION_WORDS, HEDGES, SINGLE_CUES, TERMINATORS, Negation
from bot.grading.sentences import TokenStream
from bot.grading.tokens import CODE, NUM, OP, WORD

VERDICT_SHARE: Final = 0.4
"""Share of a true/false score earned by the right verdict (so a bare right verdict is
partial, docs/MARKING.md)."""

KEY_SHARE: Final = 0.75
"""Share of the reasoning credit carried by the required concepts, when there are any."""

OPEN_CREDIT_MIN: Final = 0.6
"""Without required concepts, the share of the concept weight a correct answer needs."""

CORRECT_MIN: Final = 0.75
"""Lowest score of a correct answer."""

PARTIAL_MIN: Final = 0.4
"""Lowest score of a partial answer; a misconception cap below this makes an answer wrong."""

_INCORRECT_MAX: Final = 0.39
_PARTIAL_MAX: Final = 0.74

_LIST_FUNCTION_WORDS: Final = (FUNCTION_WORDS - {"twice"}) | {
    "per", "between", "among", "across", "through", "thru", "via", "within", "without",
    "against", "along", "during", "toward", "towards", "around", "behind",
    "everything", "anything", "something", "nothing", "else", "itself", "themselves",
}  # fmt: skip
"""Function words for the keyword-list test: "backward twice retain_graph error" is a list;
"one partial derivative per element" is a noun phrase that states something (dev12), and so
do the other prepositions: "split evenly between ties" (stop 20's fresh-user check, graded a
keyword list) relates its words; indefinite pronouns are a clause's subject: "yes,
everything else flows normally" (EC7, round 20d) states that the rest is unchanged."""

STUFFING_MIN_WORDS: Final = 3
STUFFING_MAX_FUNCTION_SHARE: Final = 0.1
STUFFING_MIN_DOMAIN_SHARE: Final = 0.7
"""A keyword list: at least 3 words (exactly 3 plain words only when they read as neither a
noun phrase nor a clause, :func:`_phrase_or_clause`: "dynamic control flow" is one noun
phrase, "max tie subgradient" three terms; with a code token, "grad_fn requires_grad
RuntimeError", always three terms: dev5 and dev6 had six such three-term lists graded
partial or correct, and the change moved no other label), under 10% function words, at
least 70% (and at least 3) domain words (code and numbers count as domain words), and no
operator (code such as
``x.grad = 8`` states something; "relu derivative 0 subgradient convention" does not).
Ordinary English prose is 40-50% function words; a terse but real answer ("grads
accumulate, zero_grad resets them") still has some, or has fewer domain words."""

PREDICATES: Final = frozenset(
    {"returns", "needs", "stays", "remains", "becomes", "gives", "makes", "keeps", "writes",
     "means", "works", "fails", "raises", "breaks", "doubles", "stores", "holds", "equals",
     "turns", "disables", "enables", "stops", "switches", "frees", "clears", "resets",
     "kills", "skips", "ignores", "affects", "changes", "prevents", "blocks", "detaches",
     "shares", "copies", "sums", "adds", "accumulates", "overwrites", "replaces", "splits",
     "zeroed", "use", "run", "runs", "ran", "call", "wrap", "gets", "modified", "modifies",
     "changed", "overwrote", "bumped", "bumps", "mutated", "mutates", "altered", "edited",
     "require", "requires", "need", "print", "prints", "printed", "shows", "showed",
     "outputs", "work", "stay", "remain", "become", "give", "hold", "store",
     "needed", "untouched", "unchanged"}
)  # fmt: skip
"""Verbs that make a terse answer a statement rather than a keyword list: "returns 27;
x.grad None" and "integer dtype; requires_grad needs float" state a fact in four words.
None of the 46 keyword lists marked incorrect on the tuning sets and bank samples uses one.
The second row (from "turns") came from a tester's "eval turns off autograd", told it was a
keyword list; adding it changed no label of any marked set or sample. The last words of
the third row (base forms and imperatives: "hooks run during backward", "use
torch.arange(4.0)", "call zero_grad each iter") came with three-term lists, which made such
short statements look like lists. The past tenses of changing (from "modified") came with
round 9a's engine case, "mul_ modified sigmoid's saved output; version counter mismatch"
(marked correct, graded a list); adjectival participles ("saved", "freed") stay out: "mul_
saved tensor" and "retain_graph freed RuntimeError" are lists. "require"/"requires"/"need"
came with round 9a's "model parameters already require grad" (marked partial on dev9 and
dev10, graded a list); neither change lost a label. The output verbs (from "print") came
with dev15's code-with-a-comment answer "`print(x.grad) # None`" (marked correct on EC1,
graded a keyword list): printing a value states it. "work" came with the separating
slashes of stop 20: dev12's "define-by-run: ifs/loops/dynamic shapes just work, easy
debugging" (marked correct) had been read as a statement only because of its slashes. The
last row came from fresh23's second-language answers without verb endings ("x.grad stay
None", "zero_grad needed", "x.grad untouched"); "return" stays out: "register_hook gradient
return tensor" is a list on four tuning sets."""

COMPOUNDS: Final = frozenset({("in", "place"), ("out", "of"), ("by", "run")})
"""Word pairs that ``in-place``, ``out-of-place`` and ``define-by-run`` split into: their
function word (and the verb ``run``) is part of a domain term, so "pow saved input version
counter in-place" and "dynamic graph define by run eager" (five such answers to WHY3 in
the tuning sets, graded partial) stay lists."""

_COMPOUND_STARTS: Final = frozenset(first for first, _ in COMPOUNDS)

GIST_MAX_TOKENS: Final = 10
"""A rubric ``gist`` counts only in an answer of at most 10 tokens (after the verdict). A
gesture is brief ("It'll throw an error.", "For efficiency."); a longer answer that hits no
concept states something the rubric does not recognise, and that was more often wrong. On
the examiner's dev split, gists for 12 items (one to four words each) turned 13 vague
answers marked partial from incorrect to partial, all of at most 9 tokens, and 3 answers
marked incorrect from incorrect to partial, of 11, 18 and 21 tokens."""

Status = Literal["hit", "missing", "contradicted"]

GESTURES: Final[tuple[tuple[str, ...], ...]] = (
    ("somehow",),
    ("something", "to", "do", "with"),
    ("something", "about"),
    ("something", "like", "that"),
    ("something", "something"),
    ("or", "something"),
)
"""Phrases with which a learner says they only gesture at the mechanism. docs/MARKING.md
marks "the central idea is gestured at without the mechanism ('something about the
graph')" partial, so an answer using one is partial at best. On the examiner's dev split
every answer with one of these (9 of 265) is marked partial."""


_SOMETHING_PHRASES: Final = tuple(p for p in GESTURES if p[0] == "something")


def is_gesture(stream: TokenStream) -> bool:
    """Whether the answer uses a gesture phrase (:data:`GESTURES`) outside a question.

    Args:
        stream: the segmented answer.
    """
    surf, sent, questions = stream.surf, stream.sent, stream.questions
    if "somehow" not in stream.vocab and "something" not in stream.vocab:
        return False
    # One indexed pass comparing each token with the two words (native when compiled),
    # rather than a list.count() and list.index() per word, which compare generically.
    for i in range(len(surf)):
        word = surf[i]
        if word != "somehow" and word != "something":
            continue
        if questions and sent[i] in questions:
            continue
        if word == "somehow" or (i and surf[i - 1] == "or" and sent[i - 1] == sent[i]):
            return True
        for phrase in _SOMETHING_PHRASES:
            end = i + len(phrase)
            if tuple(surf[i:end]) == phrase and sent[end - 1] == sent[i]:
                return True
    return False


@dataclass(init=False, slots=True)
class ConceptOutcome:
    """How one concept fared in an answer.

    Attributes:
        id: the concept id.
        weight: its rubric weight.
        key: whether it is a key concept (required, or of the highest weight when none is
            required): contradicting a key concept makes an answer incorrect.
        status: ``hit`` (credited), ``contradicted`` (only stated with the opposite
            polarity) or ``missing``.
        fuzzy_only: every crediting match relied on typo tolerance.
        mixed: stated both ways (credited, with a contradicting statement too).
        required: listed in the rubric's ``required``.
        group: index of the ``required_any`` group the concept belongs to, or None.
    """

    id: str
    weight: float
    key: bool
    status: Status
    fuzzy_only: bool
    mixed: bool
    required: bool
    group: int | None

    def __init__(
        self,
        id: str,
        weight: float,
        key: bool,
        status: Status,
        fuzzy_only: bool = False,
        mixed: bool = False,
        required: bool = False,
        group: int | None = None,
    ) -> None:
        # An explicit __init__ (not the dataclass's) so that the compiled grader builds the
        # object natively; read-only by convention, as when the class was frozen.
        self.id = id
        self.weight = weight
        self.key = key
        self.status = status
        self.fuzzy_only = fuzzy_only
        self.mixed = mixed
        self.required = required
        self.group = group

    def with_status(self, status: Status) -> ConceptOutcome:
        """A copy with another status (its match flags cleared): how a rule withdraws or
        overturns the credit :func:`concept_outcome` gave."""
        return ConceptOutcome(
            self.id, self.weight, self.key, status, required=self.required, group=self.group
        )


@dataclass(init=False, slots=True)
class MisconceptionOutcome:
    """A misconception found in an answer (penalty and cap as in the rubric)."""

    id: str
    penalty: float | None
    cap: float | None
    fuzzy_only: bool

    def __init__(
        self,
        id: str,
        penalty: float | None,
        cap: float | None,
        fuzzy_only: bool = False,
    ) -> None:
        # explicit for the compiled build, as ConceptOutcome's
        self.id = id
        self.penalty = penalty
        self.cap = cap
        self.fuzzy_only = fuzzy_only


@dataclass(init=False, slots=True)
class Assessment:
    """Score, label and confidence of one answer."""

    score: float
    label: Label
    confidence: float

    def __init__(self, score: float, label: Label, confidence: float) -> None:
        # explicit for the compiled build, as ConceptOutcome's
        self.score = score
        self.label = label
        self.confidence = confidence


def _fuzzy_only(spans: list[Span]) -> bool:
    return bool(spans) and all(span[2] & FUZZY for span in spans)


def concept_outcome(
    concept_id: str,
    weight: float,
    key: bool,
    polarity: Literal["affirm", "deny"],
    hits: RuleHits,
    required: bool = False,
    group: int | None = None,
) -> ConceptOutcome:
    """Classify a concept's matches.

    An ``affirm`` concept is credited by a match outside negation, or inside a conditional
    clause ("unless you zero them" mentions zeroing as what is needed); a ``deny`` concept
    by a match inside negation. A concept is *contradicted* only when every match has the
    opposite polarity: one true statement is enough to credit it.
    """
    credit = crediting_spans(polarity, hits)
    against = hits.negated if polarity == "affirm" else hits.affirmed
    if credit:
        status: Status = "hit"
    elif against:
        status = "contradicted"
    else:
        status = "missing"
    return ConceptOutcome(
        concept_id,
        weight,
        key,
        status,
        fuzzy_only=_fuzzy_only(credit),
        mixed=bool(credit and against),
        required=required,
        group=group,
    )


def crediting_spans(polarity: Literal["affirm", "deny"], hits: RuleHits) -> list[Span]:
    """The matches that credit a concept of this polarity: an ``affirm`` concept's outside
    negation or inside a conditional clause, a ``deny`` concept's inside negation."""
    return hits.affirmed + hits.conditional if polarity == "affirm" else hits.negated


CLAIM_FRAGMENT_GAP: Final = 4
"""Most words between a misconception's denial of a concept and a crediting match of that
concept for the match to count as a fragment of the same wrong claim
(:func:`denied_in_claim`): a short clause."""

CLAIM_JOINS: Final = frozenset(
    {"and", "or", "but", "however", "though", "although", "yet", "whereas", "while", "so",
     "therefore", "thus", "hence", "because", "since", "cause", "cuz", "instead", "then"}
)  # fmt: skip
"""Words that join two claims: a concept match across one of them from a misconception's
denial is a claim of its own (:func:`denied_in_claim`); subordinators ("when", "if") are
not among them, since they bind a condition to the wrong claim itself."""


def denied_in_claim(
    outcome: ConceptOutcome,
    polarity: Literal["affirm", "deny"],
    hits: RuleHits,
    claims: list[Span],
    stream: TokenStream,
) -> ConceptOutcome:
    """Withdraw a concept's credit when a stated misconception denies it in so many words
    and every crediting match is a fragment of that wrong claim.

    "the op is not recorded when any input has requires_grad=False": the concept "an op
    with an input that requires grad is recorded" is denied by "op is not recorded", the
    very words of the capped misconception, and its only affirmed match, "any input has",
    is a piece of the same wrong clause: the same sentence, no clause break (comma,
    semicolon, dash...) and no word of :data:`CLAIM_JOINS` from the first to the last word
    of the two, at most :data:`CLAIM_FRAGMENT_GAP` words apart ("returns 27 and x.grad
    becomes 27" keeps "returns 27"). Measured on every marked tuning set and sample when
    written: no label changed; 6 wrong answers lost a concept.
    Such a concept is contradicted, so neither the ✓ nor mastery credits it. A crediting
    match elsewhere keeps the credit (the learner may state both sides in turn).

    Args:
        outcome: the concept's outcome (after :func:`outside_claims`).
        polarity: the concept's polarity.
        hits: the concept's matches.
        claims: token spans (first, last inclusive) of the capped misconceptions found.
        stream: the answer's tokens (their sentences, clause breaks and text).

    Returns:
        ``outcome`` itself, or a copy with status ``contradicted``.
    """
    if outcome.status != "hit" or not claims:
        return outcome
    against = hits.negated if polarity == "affirm" else hits.affirmed
    denials = [
        span for span in against for claim in claims if claim[0] <= span[1] and span[0] <= claim[1]
    ]
    if not denials:
        return outcome
    sent, brk, surf = stream.sent, stream.brk, stream.surf
    for span in crediting_spans(polarity, hits):
        fragment = False
        for denial in denials:
            first, last = min(span[0], denial[0]), max(span[1], denial[1])
            if (
                sent[first] == sent[last]
                and span[0] - denial[1] <= CLAIM_FRAGMENT_GAP + 1
                and denial[0] - span[1] <= CLAIM_FRAGMENT_GAP + 1
                and not any(brk[first + 1 : last + 1])
                and CLAIM_JOINS.isdisjoint(surf[first : last + 1])
            ):
                fragment = True
                break
        if not fragment:
            return outcome
    return outcome.with_status("contradicted")


def outside_claims(
    outcome: ConceptOutcome,
    polarity: Literal["affirm", "deny"],
    hits: RuleHits,
    claims: list[Span],
) -> ConceptOutcome:
    """Withdraw a concept's credit when every crediting match shares words with a stated
    misconception.

    "backward sums them automatically" states the misconception that backward reduces the
    output for you; that "sums" also matches the concept "reduce to a scalar first" must
    not earn a ✓ next to the correction. Only the spans of misconceptions with a ``cap``
    (a wrong claim, not a penalised habit such as hedging) are ``claims``, and every
    crediting span must overlap one of them ("x.grad is 8 because retain_graph makes
    backward double the gradient": "double the gradient" is not "the value grows").
    Measured on every marked tuning set and sample: no label changed; 189 answers lost a ✓
    with spans wholly inside a claim, 148 more with overlapping ones, all graded incorrect.

    Args:
        outcome: the concept's outcome from :func:`concept_outcome`.
        polarity: the concept's polarity.
        hits: the concept's matches.
        claims: token spans (first, last inclusive) of capped misconceptions found.

    Returns:
        ``outcome`` itself, or a copy with status ``missing``.
    """
    if outcome.status != "hit" or not claims:
        return outcome
    for span in crediting_spans(polarity, hits):
        overlaps = False
        for claim in claims:
            if claim[0] <= span[1] and span[0] <= claim[1]:
                overlaps = True
                break
        if not overlaps:
            return outcome
    return outcome.with_status("missing")


_CLAUSE_LINKS: Final = TERMINATORS - {
    "if", "when", "whenever", "unless", "until", "except", "then", "as", "which", "who"
}  # fmt: skip
"""Words that start a clause a condition does not govern ("without no_grad, *so* the
culprit is..."): a span across one of them does not state the condition's implication."""


def misconception_found(
    polarity: Literal["affirm", "deny"],
    hits: RuleHits,
    negation: Negation | None = None,
    surf: list[str] | None = None,
) -> list[Span]:
    """Spans stating the misconception.

    A span wholly inside a conditional clause states no belief ("if you don't zero them").
    A span that runs from a condition into the clause it governs states the implication,
    which is a belief: "false because the graph is rebuilt only when you change the
    model's architecture", "x.grad += would fail if x.grad was zeros", unless it crosses
    a word of :data:`_CLAUSE_LINKS` into a clause the condition does not govern. Pass
    ``negation`` and ``surf`` (the answer's marks and words) to count those; without them
    only spans outside every condition count. Measured on stop 12's tuning sets and
    samples: 4 labels fixed (one an incorrect answer graded correct), none broken; concepts
    keep the old rule (counting crossing spans there broke 2 correct WHY10 answers).
    """
    found = hits.affirmed if polarity == "affirm" else hits.negated
    if negation is None or surf is None or not hits.conditional:
        return found
    conditional = negation.conditional
    crossing = [
        span
        for span in hits.conditional
        if not conditional.issuperset(span[3])
        and (negation.negated(span[3]) != bool(span[2] & FLIPPED)) == (polarity == "deny")
        and _CLAUSE_LINKS.isdisjoint(surf[span[0] + 1 : span[1]])
    ]
    return found + crossing if crossing else found


_VALUE_WORDS: Final = frozenset({"nan", "inf", "none", "zero", "zeros"})
"""Words that state a value after a label ("sqrt: nan", "x.grad: None")."""


def _states_a_value(surf: list[str], kinds: list[int], brk: list[bool]) -> bool:
    """Whether the words state a value: a printed tensor (``tensor`` then a number), a list
    of two or more numbers written as one (``[0.5, 0, 0.5]``), or a named tensor's attribute
    followed by ``None`` (``x.grad None``; a bare ``.grad None`` in a list of terms is
    not, nor is ``grad_fn None``). Terse answers built on these were called keyword lists
    ("tensor(27.), x.grad None"); adding the test changed no label of any marked set or
    sample but one dev4 answer it fixed. Two labelled values ("abs: 0, sqrt version: nan",
    and without the colons "abs 0, sqrt nan", MARKING.md's own example) state values too
    (rounds 8b and 10d: graded as keyword lists), also unpunctuated ("abs 0 sqrt nan", stop
    22: no marked label moved)."""
    labelled = 0
    for i in range(len(surf) - 1):
        if surf[i] == "tensor" and kinds[i + 1] == NUM:
            return True
        if (
            kinds[i] == WORD
            and (kinds[i + 1] == NUM or surf[i + 1] in _VALUE_WORDS)
            and (
                i + 2 >= len(surf)
                or brk[i + 2]
                or (  # "abs 0 sqrt nan": the next label and value follow unpunctuated
                    i + 3 < len(surf)
                    and kinds[i + 2] == WORD
                    and (kinds[i + 3] == NUM or surf[i + 3] in _VALUE_WORDS)
                    and (i + 4 >= len(surf) or brk[i + 4])
                )
            )
        ):
            labelled += 1
            if labelled == 2:
                return True
        if kinds[i] == NUM and kinds[i + 1] == NUM and brk[i + 1]:
            return True
        if (
            kinds[i] == CODE
            and "." in surf[i][1:]  # "x.grad None" names a tensor; ".grad", "grad_fn" do not
            and surf[i + 1] in ("none", "null")
            and not brk[i + 1]
        ):
            return True
    return False


TERM_LIST_MIN_TERMS: Final = 4
TERM_LIST_MAX_TERM_TOKENS: Final = 3
"""A term list (:func:`_term_list`) has at least 4 terms of at most 3 tokens each: the 14
answers it finds on the tuning sets and samples of stop 14 (all marked incorrect) have 4-5."""

_CLAIM_WORDS: Final = frozenset(
    {"is", "are", "was", "were", "be", "been", "do", "does", "did", "can", "will", "would",
     "could", "should", "must", "has", "have", "had", "get", "gets", "got", "not", "no",
     "never", "because", "so"}
)  # fmt: skip
"""Auxiliaries, negations and connectives: any of them makes the pieces clauses, not terms."""

_BASE_FORMS: Final = frozenset({"use", "run", "call", "wrap"})
"""Predicates that make an imperative only at the start of a term ("use no_grad, ..."); inside
one they are part of a name ("define-by-run")."""


_IMPERATIVES: Final = _BASE_FORMS | {"print", "require", "need"}
"""Predicates in their base form: an imperative whose object follows ("use no_grad")."""


def _term_list(stream: TokenStream, start: int, slashes: AbstractSet[int]) -> bool:
    """Whether the reasoning is a comma-separated list of terms: at least 4 pieces between
    clause breaks, each of at most 3 word or code tokens, with no number, verb, negation,
    hedge or participle ("sign, subgradient, inf, nan, chain rule"). A term may hold a
    function word ("number of gradients", "define-by-run"), which the function-word share
    of :func:`is_keyword_stuffing` reads as prose: dev10 had "ctx, backward, None, number
    of gradients, forward inputs" graded correct. Participles make a terse statement
    ("graph still recorded: grad_fn set, activations saved, memory wasted", marked
    correct), an imperative opens a term ("use no_grad, call zero_grad, ..."), and
    numbers make values ("tensor([0.5, 0., 0.5])"). Measured on every tuning set and bank
    sample: 3 labels fixed, none lost. A separating slash (``slashes``, see
    :func:`_separating_slashes`) parts terms as a comma does: "leaf / grad_fn / None /
    is_leaf" is four terms."""
    surf, kind, brk, sent = stream.surf, stream.kind, stream.brk, stream.sent
    terms = 1
    size = 0
    for i in range(start, len(surf)):
        if i in slashes:
            continue
        if i > start and (brk[i] or sent[i] != sent[i - 1] or i - 1 in slashes):
            terms += 1
            size = 0
        size += 1
        word = surf[i]
        if size > TERM_LIST_MAX_TERM_TOKENS or (
            kind[i] not in (WORD, CODE) and not _dangling_equals(stream, i)
        ):
            return False
        if kind[i] == WORD and (
            word in _CLAIM_WORDS
            or (word in PREDICATES and (size == 1 or word not in _BASE_FORMS))
            or word in HEDGES
            or (len(word) > 3 and word.endswith("ed"))
        ):
            return False
    return terms >= TERM_LIST_MIN_TERMS


_ADJECTIVE_ENDINGS: Final = ("ic", "al", "ive", "ous", "ful", "able", "ible", "less")
"""Endings of an adjective that opens a noun phrase ("dynamic control flow")."""


def _phrase_or_clause(stream: TokenStream, start: int) -> bool:
    """Whether three plain words (no code) read as one noun phrase or a clause rather than
    three terms: an adjective first ("dynamic control flow"), a compound ("define-by-run"),
    a negation ("nothing useful happens"), a participle ("gradients keep growing") or a
    verb between two words ("detach cuts gradients"). Otherwise they are a list like any
    longer one (fix19 #4d: "max tie subgradient", "tuple grad backward", "None zero grad",
    "checkpoint recompute activations", all marked incorrect, were partial).

    Args:
        stream: the segmented answer.
        start: the first of the three words (the last three tokens).
    """
    first, middle, last = stream.surf[start : start + 3]
    if first.endswith(_ADJECTIVE_ENDINGS) or (first, middle) in COMPOUNDS:
        return True
    if (middle, last) in COMPOUNDS:
        return True
    for word in (first, middle, last):
        if word in SINGLE_CUES or (len(word) > 4 and word.endswith(("ing", "ed"))):
            return True
    return len(middle) > 3 and middle.endswith("s") and not middle.endswith("ss")


def _dangling_equals(stream: TokenStream, i: int) -> bool:
    """Whether token ``i`` is an ``=`` that assigns nothing: a keyword argument named in a
    list ("scalar, gradient=, seed, sum, backward"), followed by a clause break or the end."""
    return (
        stream.surf[i] == "="
        and i > 0
        and stream.kind[i - 1] == WORD
        and (i + 1 == len(stream) or stream.brk[i + 1])
    )


def _separating_slashes(stream: TokenStream, start: int) -> frozenset[int]:
    """Indices of the ``/`` tokens (from ``start``) that part two words or code names, as in
    "zero_grad / accumulate / backward" or "leaf/grad_fn": a list separator, not a division.
    A slash next to a number ("1/3", "x.grad / 2") stays an operator. Stop 20 (the lead's
    probes, then dev19's "leaf / grad_fn / None / is_leaf"): slash-separated keyword lists
    were read as statements (an operator states something), so three rubric words parted
    by slashes were graded correct."""
    if "/" not in stream.vocab:
        return frozenset()  # no slash at all: spares a pass over every token
    surf, kind = stream.surf, stream.kind
    return frozenset(
        i
        for i in range(max(start, 1), len(surf) - 1)
        if surf[i] == "/" and kind[i - 1] in (WORD, CODE) and kind[i + 1] in (WORD, CODE)
    )


_CALL_WITH_ARGUMENTS: Final = re.compile(
    r"[A-Za-z_][\w.]*\([^()]*(?:(?:=|\b\d)[^()]*\)|[A-Za-z_][\w.]*\()"
)
"""A call that sets something, name and paren adjacent, with a keyword argument, a number or
a call among its arguments: ``torch.arange(4.0, requires_grad=True)``,
``y.backward(gradient=v)``, ``y.backward(torch.ones_like(y))`` (fresh24, TF2).
Not an empty call (``zero_grad()``), prose in parentheses ("grads (sorry)"), nor a call on
names only: "autograd.grad(loss, x) backward x.grad tuple" (eval-adv, marked incorrect)
names its terms."""


def calls_with_arguments(text: str) -> bool:
    """Whether the (normalised) answer calls something with arguments: code that sets
    values states a fix or a setting, so the answer is not a keyword list, however few
    function words it has. Stop 20's fresh-user check: the fix for SE10 written as the one
    call ``torch.arange(4.0, requires_grad=True)`` was graded "a list of keywords" while
    the same call assigned to a name was partial."""
    return _CALL_WITH_ARGUMENTS.search(text) is not None


def _lone_term(stream: TokenStream, i: int, slashes: AbstractSet[int]) -> bool:
    """Whether token ``i`` is a predicate standing as a whole list term: a comma, slash or
    sentence edge on both sides ("accumulates, zero_grad, backward"), so it states nothing.
    An imperative takes the next piece as its object ("print(x.grad) # None": the paren
    parts them), so it is never a lone term."""
    if stream.surf[i] in _IMPERATIVES:
        return False
    brk, n = stream.brk, len(stream)
    before = i == 0 or brk[i] or i - 1 in slashes
    after = i + 1 == n or brk[i + 1] or i + 1 in slashes
    return before and after and n > 2


def is_keyword_stuffing(
    stream: TokenStream,
    start: int,
    matched: Callable[[], AbstractSet[int]],
    domain: frozenset[str],
) -> bool:
    """Whether the reasoning (tokens from ``start``) is a bag of keywords, not a claim.

    Args:
        stream: the segmented answer.
        start: first token after the verdict phrase.
        matched: gives the indices of tokens matched by any of the item's rubric atoms
            (called only when the cheap tests leave the question open).
        domain: stems of domain words (:func:`bot.grading.synonyms.domain_stems`).
    """
    from bot.grading.lexicon import stem

    kinds = stream.kind[start:] if start else stream.kind
    has_op = OP in kinds  # one generic scan of the kinds, read twice below
    slashes = _separating_slashes(stream, start) if has_op else frozenset()
    words = len(stream) - start - len(slashes)
    if words < STUFFING_MIN_WORDS:
        return False  # too short
    if has_op and not all(
        stream.kind[i] != OP or _dangling_equals(stream, i) or i in slashes
        for i in range(start, len(stream))
    ):
        return False  # an operator: a statement ("x.grad = 8")
    if (
        words == STUFFING_MIN_WORDS
        and not slashes
        and CODE not in kinds
        and _phrase_or_clause(stream, start)
    ):
        return False  # "dynamic control flow", "detach cuts gradients": one phrase or claim
    surf = stream.surf[start:] if start else stream.surf
    if all(k == NUM or w == "tensor" for w, k in zip(surf, kinds, strict=True)):
        return False  # a printed value ("tensor([0.5, 0., 0.5])") states the output
    if _term_list(stream, start, slashes):
        return True  # "ctx, backward, None, number of gradients, forward inputs"
    function_words = _LIST_FUNCTION_WORDS
    function = sum(1 for w in surf if w in function_words)
    limit = STUFFING_MAX_FUNCTION_SHARE * words
    if function - sum(surf.count(word) for word in _COMPOUND_STARTS) >= limit:
        return False  # prose, even if every "in"/"out"/"by" began a compound
    compound = [
        i
        for i in range(len(surf) - 1)
        if (surf[i], surf[i + 1]) in COMPOUNDS and not stream.brk[start + i + 1]
    ]
    if function - len(compound) >= limit:
        return False
    if not PREDICATES.isdisjoint(stream.vocab):
        # a verb states something, unless it ends a compound ("define by run")
        ends = {i + 1 for i in compound}
        if any(
            w in PREDICATES and i not in ends and not _lone_term(stream, start + i, slashes)
            for i, w in enumerate(surf)
        ):
            return False
    if _states_a_value(surf, kinds, stream.brk[start:] if start else stream.brk):
        return False  # "tensor(27.), x.grad None", "[0.5, 0, 0.5] - max splits ...": values
    tokens = matched()
    kinds = stream.kind
    domain_words = 0
    function = 0
    joined = {start + i for i in compound}
    for i in range(start, len(stream)):
        word = stream.surf[i]
        if i in slashes:
            continue
        if i in joined:
            domain_words += 1
        elif kinds[i] == WORD and word in function_words:
            function += 1
        elif kinds[i] in (CODE, NUM) or i in tokens or stem(word) in domain:
            domain_words += 1
    return (
        function < STUFFING_MAX_FUNCTION_SHARE * words
        and domain_words >= STUFFING_MIN_WORDS
        and domain_words >= STUFFING_MIN_DOMAIN_SHARE * words
    )


def _key_units(concepts: list[ConceptOutcome]) -> list[tuple[float, bool]]:
    """The units a correct answer needs, as (weight, credited): each ``required`` concept,
    and each ``required_any`` group (weighing as its heaviest concept, credited when any of
    its concepts is). Empty for an open rubric."""
    units = [(c.weight, c.status == "hit") for c in concepts if c.required]
    groups: dict[int, list[ConceptOutcome]] = {}
    for c in concepts:
        if c.group is not None:
            groups.setdefault(c.group, []).append(c)
    for members in groups.values():
        units.append((max(c.weight for c in members), any(c.status == "hit" for c in members)))
    return units


def _credit(concepts: list[ConceptOutcome], units: list[tuple[float, bool]]) -> float:
    """Reasoning credit in [0, 1]: the key units carry 75% when there are any."""
    if not units:
        total = sum((c.weight for c in concepts), 0.0)
        return sum((c.weight for c in concepts if c.status == "hit"), 0.0) / total if total else 0.0
    others = [c for c in concepts if not c.required and c.group is None]
    key_part = sum((w for w, hit in units if hit), 0.0) / sum((w for w, _ in units), 0.0)
    other_total = sum((c.weight for c in others), 0.0)
    if not other_total:
        return key_part
    other_hit = sum((c.weight for c in others if c.status == "hit"), 0.0)
    return KEY_SHARE * key_part + (1 - KEY_SHARE) * other_hit / other_total


def assess(
    *,
    true_false: bool,
    verdict_correct: bool | None,
    verdict_conflict: bool,
    concepts: list[ConceptOutcome],
    misconceptions: list[MisconceptionOutcome],
    stuffing: bool,
    hedged: bool,
    arithmetic_error: bool = False,
    gist: bool = False,
    gesture: bool = False,
    hedge: bool = False,
    aside: bool = False,
    dismissal: bool = False,
    ignorance: bool = False,
) -> Assessment:
    """Score, label and confidence from the outcomes of one answer.

    Args:
        true_false: the item is a true/false item.
        verdict_correct: the verdict graded matches the key (None: no verdict, or not a
            true/false item). A true/false answer with no verdict (no button, none in the
            text) is partial at best: every examiner marked such answers down.
        verdict_conflict: the button and the text state different verdicts.
        concepts: every concept's outcome, in rubric order.
        misconceptions: the misconceptions found.
        stuffing: the reasoning is a keyword list (its concepts earn no credit).
        hedged: the answer hedges ("maybe", "not sure").
        arithmetic_error: the answer states a wrong computation (``4 + 4 = 9``): "a stated
            sum that is wrong counts as wrong" (issue 4), so the answer is incorrect unless
            its required concepts are all there (then partial at best).
        gist: a rubric ``gist`` pattern matched: the answer gestures at the topic, which
            makes it partial when nothing else is there and nothing wrong is stated
            (docs/MARKING.md: "the central idea is gestured at without the mechanism").
        gesture: the answer says it only gestures ("somehow", "something to do with"), so
            it is partial at best.
        hedge: the reasoning hedges its claim ("I think", "maybe", "not sure"), so it is
            partial at best (:func:`bot.grading.discourse.hedged`).
        aside: the answer adds a side claim the rubric does not recognise ("also ...",
            "... btw"), so it is partial at best (:func:`bot.grading.discourse.aside`).
        dismissal: the answer reduces the rule to speed or style ("only because of
            speed"), which denies the mechanism: incorrect
            (:func:`bot.grading.discourse.dismissive`).
        ignorance: the reasoning only says the learner does not know or guessed ("idk",
            "I just guessed this one", "skip"), so a right verdict is a declared guess:
            incorrect (docs/MARKING.md: "Nothing relevant: 'idk' ..."; the examiners of
            eval10 and eval23 marked it so under the right button)
            (:func:`bot.grading.discourse.ignorance_only`).

    Returns:
        The assessment; ``score`` and ``confidence`` are in [0, 1], rounded to 3 decimals.
    """
    credited = [] if stuffing else [c for c in concepts if c.status == "hit"]
    effective = [
        c if not stuffing or c.status != "hit" else c.with_status("missing") for c in concepts
    ]
    units = _key_units(effective)
    credit = _credit(effective, units)
    raw = VERDICT_SHARE * (verdict_correct is True) + (1 - VERDICT_SHARE) * credit
    if not true_false:
        raw = credit
    for m in misconceptions:
        if m.penalty is not None:
            raw -= m.penalty
        if m.cap is not None:
            raw = min(raw, m.cap)
    raw = min(1.0, max(0.0, raw))
    if ignorance:
        raw = 0.0  # a declared guess earns nothing for its verdict

    contradicted = [c for c in concepts if c.status == "contradicted"]
    wrong_cap = any(m.cap is not None and m.cap < PARTIAL_MIN for m in misconceptions)
    reasoning_complete = all(hit for _, hit in units) if units else credit >= OPEN_CREDIT_MIN
    # A gist, or a gesture phrase ("something about backward not going through them"), is
    # the central idea gestured at (docs/MARKING.md: partial) when nothing wrong is stated;
    # a gesture tolerates penalty-only misconceptions (rubrics penalise "somehow" itself).
    gestured = (
        (gist and not misconceptions)
        or (gesture and not any(m.cap is not None for m in misconceptions))
    ) and not (stuffing or contradicted)
    blocking = (
        verdict_correct is False
        or (arithmetic_error and not (units and reasoning_complete))
        or any(c.key for c in contradicted)
        or wrong_cap
        or dismissal
        or ignorance
        or stuffing
        or (
            not credited
            and not misconceptions
            and not contradicted
            and not verdict_correct
            and not gestured
        )
    )
    if blocking:
        label = Label.INCORRECT
    elif (
        reasoning_complete
        and not contradicted
        and not misconceptions
        and not stuffing
        and not arithmetic_error
        and not gesture
        and not hedge
        and not aside
        and verdict_correct is not False
        # A true/false answer that never says true or false has not answered: partial at best.
        and not (true_false and verdict_correct is None)
    ):
        label = Label.CORRECT
    elif verdict_correct or credited or gestured:
        label = Label.PARTIAL
    else:
        label = Label.INCORRECT

    if label is Label.CORRECT:
        score = max(raw, CORRECT_MIN)
        margin = raw - CORRECT_MIN
    elif label is Label.PARTIAL:
        score = min(max(raw, PARTIAL_MIN), _PARTIAL_MAX)
        margin = min(raw - PARTIAL_MIN, CORRECT_MIN - raw)
    else:
        score = min(raw, _INCORRECT_MAX)
        margin = 1.0 if blocking else PARTIAL_MIN - raw

    confidence = 1.0
    if 0 <= margin < 0.1:
        confidence -= 0.25 * (1 - margin / 0.1)
    elif margin < 0:  # label decided by a rule against the score
        confidence -= 0.2
    if any(c.fuzzy_only for c in credited) or any(m.fuzzy_only for m in misconceptions):
        confidence -= 0.2
    if any(c.fuzzy_only and c.key for c in credited):
        confidence -= 0.1
    if verdict_conflict:
        confidence -= 0.3
    if true_false and verdict_correct is None:
        confidence -= 0.25
    if any(c.mixed for c in credited):
        confidence -= 0.15
    if misconceptions and any(c.key for c in credited):
        confidence -= 0.15
    if stuffing:
        confidence -= 0.2
    if hedged:
        confidence -= 0.1
    if arithmetic_error:
        confidence -= 0.1
    return Assessment(round(score, 3), label, round(min(1.0, max(0.05, confidence)), 3))
