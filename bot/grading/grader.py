"""The grader: compile each item's rubric once, then grade responses against it.

Pipeline for one response (each stage is its own module)::

    text -> normalize -> segment (tokens, sentences) -> negation scopes
         -> verdict (true/false items) -> rule matches -> outcomes -> score/label
         -> feedback parts

Typical use::

    grader = Grader(load_bank([Path("content")]))
    result = grader.grade(Response(item_id="TF3", verdict=False, text="grads add up"))
    print(render_feedback(result, grader.item("TF3")))
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal

from bot.content.loader import Bank
from bot.content.models import Item, Kind, Label
from bot.grading.discourse import (
    ASIDE_MARKERS,
    PromptWords,
    aside,
    aside_regions,
    content_words,
    dismissive,
    hedged,
    ignorance_only,
    may_retract,
    redirected,
    restated,
)
from bot.grading.errors import AnswerTooLong, EmptyAnswer, UnknownItem
from bot.grading.feedback import build_feedback
from bot.grading.lexicon import known_words
from bot.grading.matching import FUZZY, CompiledRule, Compiler, Matcher, RuleHits, Span
from bot.grading.models import MAX_ANSWER_CHARS, GradeResult, Response
from bot.grading.negation import scope
from bot.grading.normalize import drop_retracted, is_markup_only, normalize
from bot.grading.scoring import (
    GIST_MAX_TOKENS,
    ConceptOutcome,
    MisconceptionOutcome,
    assess,
    calls_with_arguments,
    concept_outcome,
    denied_in_claim,
    is_gesture,
    is_keyword_stuffing,
    misconception_found,
    outside_claims,
)
from bot.grading.sentences import TokenStream, segment
from bot.grading.synonyms import domain_stems
from bot.grading.verdict import NO_VERDICT, extract_verdict

_PURE_CACHE_LIMIT: Final = 256


ConceptRow = tuple[str, float, bool, Literal["affirm", "deny"], bool, int | None, CompiledRule]
"""One concept as grading reads it: (id, weight, key, polarity, required, ``required_any``
group or None, compiled rule)."""

MisconceptionRow = tuple[str, Literal["affirm", "deny"], float | None, float | None, CompiledRule]
"""One misconception as grading reads it: (id, polarity, penalty, cap, compiled rule)."""


@dataclass(frozen=True, slots=True)
class CompiledItem:
    """An item with its rubric compiled (built once, reused for every response).

    Attributes:
        item: the item.
        compiler: owns the item's atoms and its per-token lookup cache.
        concepts: compiled concepts, rubric order.
        misconceptions: compiled misconceptions, rubric order.
        key: ids of the key concepts (``required`` and the ``required_any`` groups' members,
            else those of the highest weight).
        required: ids of the rubric's ``required`` concepts.
        concept_rows: per concept, rubric order, what grading reads of it as one tuple
            (:data:`ConceptRow`), so the per-answer loop reads no pydantic attribute, set or
            dict.
        misconception_rows: the same for the misconceptions (:data:`MisconceptionRow`).
        yes_no: for an item of another kind whose answer key opens with a yes or a no
            ("No. Those buffers..."), that answer; None otherwise.
        groups: concept id -> index of its ``required_any`` group.
        gist: the rubric's ``gist`` patterns as one rule, or None.
        prompt: the prompt's content words and the concepts it credits itself (for the
            restatement test of :mod:`bot.grading.discourse`).
    """

    item: Item
    compiler: Compiler
    concepts: tuple[CompiledRule, ...]
    misconceptions: tuple[CompiledRule, ...]
    key: frozenset[str]
    required: frozenset[str]
    concept_rows: tuple[ConceptRow, ...]
    misconception_rows: tuple[MisconceptionRow, ...]
    yes_no: bool | None = None
    groups: dict[str, int] = field(default_factory=dict)
    gist: CompiledRule | None = None
    prompt: PromptWords = field(default_factory=lambda: PromptWords(frozenset(), frozenset()))


def compile_item(item: Item) -> CompiledItem:
    """Compile an item's rubric (patterns, synonyms, atoms).

    Args:
        item: a validated item.

    Returns:
        The compiled item.
    """
    rubric = item.rubric
    compiler = Compiler(rubric.synonyms)
    concepts = tuple(compiler.rule(c.id, c.polarity, c.patterns) for c in rubric.concepts)
    misconceptions = tuple(
        compiler.rule(m.id, m.polarity, m.patterns) for m in rubric.misconceptions
    )
    groups = {cid: number for number, group in enumerate(rubric.required_any) for cid in group}
    key = rubric.key_concepts()
    yes_no = None
    if item.kind is not Kind.TRUE_FALSE:
        yes_no = extract_verdict(segment(normalize(item.answer.text))).value
    gist = compiler.rule("gist", "affirm", rubric.gist) if rubric.gist else None
    required = frozenset(rubric.required)
    return CompiledItem(
        item,
        compiler,
        concepts,
        misconceptions,
        key,
        required,
        _concept_rows(item, concepts, key, required, groups),
        _misconception_rows(item, misconceptions),
        yes_no,
        groups,
        gist,
        _prompt_words(item, compiler, concepts),
    )


def _concept_rows(
    item: Item,
    concepts: tuple[CompiledRule, ...],
    key: frozenset[str],
    required: frozenset[str],
    groups: dict[str, int],
) -> tuple[ConceptRow, ...]:
    """The item's concepts as :data:`ConceptRow` tuples, rubric order."""
    return tuple(
        (c.id, c.weight, c.id in key, c.polarity, c.id in required, groups.get(c.id), rule)
        for c, rule in zip(item.rubric.concepts, concepts, strict=True)
    )


def _misconception_rows(
    item: Item, misconceptions: tuple[CompiledRule, ...]
) -> tuple[MisconceptionRow, ...]:
    """The item's misconceptions as :data:`MisconceptionRow` tuples, rubric order."""
    return tuple(
        (m.id, m.polarity, m.penalty, m.cap, rule)
        for m, rule in zip(item.rubric.misconceptions, misconceptions, strict=True)
    )


def _prompt_words(
    item: Item, compiler: Compiler, concepts: tuple[CompiledRule, ...]
) -> PromptWords:
    """The prompt's content words, and the concepts the prompt credits when graded."""
    stream = segment(normalize(item.prompt))
    matcher = Matcher(compiler, stream, scope(stream))
    credited = frozenset(
        concept.id
        for concept, rule in zip(item.rubric.concepts, concepts, strict=True)
        if concept_outcome(
            concept.id, concept.weight, False, concept.polarity, matcher.rule(rule)
        ).status
        == "hit"
    )
    return PromptWords(
        frozenset(content_words(stream, code_parts=True)),
        credited,
        values_answer=item.kind is Kind.EDGE_CASE,
        tokens=len(stream),
    )


SIDE_ERROR_PENALTY: Final = 0.25
"""A capped misconception stated only inside a side claim after the key ("..., also x.grad
always requires grad") costs this much instead of its cap: MARKING.md's key reason plus a
smaller error beside the point, partial."""

UNRECOGNISED_REASON_MIN_TOKENS: Final = 3
"""A reason of at least this many tokens after the verdict counts as an attempt at one."""


def _key_complete(outcomes: list[ConceptOutcome]) -> bool:
    """Whether every key unit is credited: each key concept outside a ``required_any``
    group, and one concept of each group."""
    groups: dict[int, bool] = {}
    for o in outcomes:
        if o.group is not None:
            groups[o.group] = groups.get(o.group, False) or o.status == "hit"
        elif o.key and o.status != "hit":
            return False
    return all(groups.values())


def _side_error_regions(
    stream: TokenStream, start: int, outcomes: list[ConceptOutcome], matches: list[RuleHits]
) -> list[range]:
    """The side claims (:func:`bot.grading.discourse.aside_regions`) after a complete key
    (:func:`_key_complete`) that leave every key match outside them: where a capped
    misconception costs :data:`SIDE_ERROR_PENALTY` instead. ``matches`` starts with the
    concepts' hits, in ``outcomes``' order."""
    if not _key_complete(outcomes):
        return []
    key_spans = [
        span
        for o, hits in zip(outcomes, matches, strict=False)
        if o.status == "hit" and o.key
        for span in (hits.affirmed + hits.negated + hits.conditional)
    ]
    if not key_spans:
        return []
    return [
        region
        for region in aside_regions(stream, start, min(span[0] for span in key_spans))
        if not any(span[0] in region for span in key_spans)
    ]


def _within(spans: list[Span], claims: list[Span]) -> bool:
    """Whether ``spans`` is not empty and each of its spans lies inside one of ``claims``
    (first and last token indices, inclusive)."""
    return bool(spans) and all(
        any(claim[0] <= span[0] and span[1] <= claim[1] for claim in claims) for span in spans
    )


def grade_compiled(compiled: CompiledItem, response: Response) -> GradeResult:
    """Grade one response against a compiled item.

    Args:
        compiled: the item, compiled.
        response: the learner's answer; ``response.item_id`` must be the item's id.

    Returns:
        The grade.

    Raises:
        AnswerTooLong: the text is over 4,000 characters.
        ValueError: the response is for another item.
    """
    item = compiled.item
    if response.item_id != item.id:
        raise ValueError(f"response is for {response.item_id!r}, not {item.id!r}")
    if len(response.text) > MAX_ANSWER_CHARS:
        raise AnswerTooLong(len(response.text))
    true_false = item.kind is Kind.TRUE_FALSE

    normalized = normalize(response.text)
    stream = segment(normalized)
    if may_retract(stream):
        # "X... no wait, Y": the learner claims Y (bot.grading.discourse, self-corrections)
        kept = drop_retracted(normalized)
        if kept != normalized:
            stream = segment(kept)
    negation = scope(stream)
    reading = (
        extract_verdict(stream)
        if len(stream) and (true_false or compiled.yes_no is not None)
        else NO_VERDICT
    )
    button = response.verdict if true_false else None
    source: Literal["button", "text", "none"]
    if button is not None:
        verdict, source = button, "button"
        conflict = reading.value is not None and reading.value != button
    elif true_false and reading.value is not None:
        verdict, source, conflict = reading.value, "text", False
    else:
        verdict, source, conflict = None, "none", False
    verdict_correct = (
        (verdict == item.answer.verdict) if true_false and verdict is not None else None
    )
    # A yes/no question of another kind ("Do the buffers get gradients?"): the opening's
    # yes or no counts like a verdict for the label, though the result carries no verdict.
    agrees = verdict_correct
    if compiled.yes_no is not None and reading.value is not None:
        agrees = reading.value == compiled.yes_no

    matcher = Matcher(compiled.compiler, stream, negation)
    concept_rows = compiled.concept_rows
    outcomes: list[ConceptOutcome] = []
    matches: list[RuleHits] = []
    for concept_id, weight, is_key, polarity, is_required, group, rule in concept_rows:
        hits = matcher.rule(rule)
        matches.append(hits)
        outcomes.append(
            concept_outcome(
                concept_id, weight, is_key, polarity, hits, required=is_required, group=group
            )
        )
    found: list[MisconceptionOutcome] = []
    claims: list[Span] = []  # what capped misconceptions stated: their words credit nothing
    stated: list[Span] = []  # what every misconception found stated (penalties too)
    regions: list[range] | None = None
    for misconception_id, polarity, penalty, cap, rule in compiled.misconception_rows:
        hits = matcher.rule(rule)
        matches.append(hits)
        spans = misconception_found(polarity, hits, negation, stream.surf)
        if spans and cap is not None and not ASIDE_MARKERS.isdisjoint(stream.vocab):
            if regions is None:
                regions = _side_error_regions(stream, reading.end, outcomes, matches)
            if regions and all(any(sp[0] in r and sp[1] in r for r in regions) for sp in spans):
                penalty, cap = SIDE_ERROR_PENALTY, None
        if spans:
            stated.extend(spans)
            if cap is not None:
                claims.extend(spans)
            found.append(
                MisconceptionOutcome(
                    misconception_id, penalty, cap, all(span[2] & FUZZY for span in spans)
                )
            )
    if claims:
        outcomes = [
            denied_in_claim(outside_claims(o, row[3], hits, claims), row[3], hits, claims, stream)
            for row, o, hits in zip(concept_rows, outcomes, matches, strict=False)
        ]
    stuffing = is_keyword_stuffing(
        stream, reading.end, matcher.matched_tokens, domain_stems()
    ) and not calls_with_arguments(normalized)
    # A gist is a brief claim: a conditional mention ("if it errors...") does not count, nor
    # does one inside a longer answer that hit no concept (scoring.GIST_MAX_TOKENS).
    gist = (
        compiled.gist is not None
        and len(stream) - reading.end <= GIST_MAX_TOKENS
        and bool(matcher.rule(compiled.gist).affirmed)
    )
    gesture = is_gesture(stream)
    # Discourse cues (bot.grading.discourse): what the answer's framing says.
    start = reading.end
    credited = [o.id for o in outcomes if o.status == "hit"]
    dropped: set[str] = set()
    restatement = False
    # "idk", "I just guessed this one", "skip": the learner says the verdict is a guess.
    ignorance = ignorance_only(stream, start)
    if credited and ignorance:
        dropped.update(credited)  # "dunno" = "do not know": no claim, whatever it matches
    elif credited and restated(stream, start, compiled.prompt, credited):
        restatement = True
        dropped.update(credited)  # the prompt's own words credit nothing
    if dropped:
        outcomes = [o if o.id not in dropped else o.with_status("missing") for o in outcomes]
        credited = [c for c in credited if c not in dropped]
        gist = False
    hedge = hedged(
        stream, start, true_false or compiled.yes_no is not None, item.kind is Kind.EDGE_CASE
    )
    dismissal = dismissive(stream, start)
    side = redirect = False
    if credited:
        gist_rule = compiled.gist

        def recognised() -> set[int]:
            every = matches if gist_rule is None else [*matches, matcher.rule(gist_rule)]
            return {
                t
                for hits in every
                for spans in (hits.affirmed, hits.negated, hits.conditional)
                for first, last, _, _ in spans
                for t in range(first, last + 1)
            }

        def key_tokens() -> set[int]:
            return {
                t
                for o, hits in zip(outcomes, matches, strict=False)
                if o.status == "hit" and o.key
                for spans in (hits.affirmed, hits.negated, hits.conditional)
                for first, last, _, _ in spans
                for t in range(first, last + 1)
            }

        if not ASIDE_MARKERS.isdisjoint(stream.vocab):
            claim_start = min(
                span[0]
                for o, hits in zip(outcomes, matches, strict=False)
                if o.status == "hit"
                for span in (hits.affirmed + hits.conditional + hits.negated)
            )
            side = aside(stream, start, claim_start, recognised)
        if redirected(stream, start, key_tokens):
            # "what actually breaks it is int tensors": the key reason was only mentioned
            redirect = True
            outcomes = [
                o if not (o.key and o.status == "hit") else o.with_status("contradicted")
                for o in outcomes
            ]
    assessment = assess(
        true_false=true_false,
        verdict_correct=agrees,
        verdict_conflict=conflict,
        concepts=outcomes,
        misconceptions=found,
        stuffing=stuffing,
        hedged=negation.hedged,
        arithmetic_error=stream.wrong_arithmetic,
        gist=gist,
        gesture=gesture,
        hedge=hedge,
        aside=side,
        dismissal=dismissal,
        ignorance=ignorance,
    )
    hit = [o.id for o in outcomes if o.status == "hit" and not stuffing]
    contradicted = [o.id for o in outcomes if o.status == "contradicted"]
    not_hit = [o for o in outcomes if o.id not in hit]
    nudges = sorted((o for o in not_hit if o.status != "contradicted"), key=lambda o: not o.key)
    # A right verdict whose reason the rubric does not recognise at all (another item's
    # mechanism, a guess): say so, rather than show a bare "partly there" with nothing to act on.
    unrecognised_reason = (
        agrees is True
        and not hit
        and not contradicted
        and not found
        and not (stuffing or gist or gesture or restatement or dismissal or ignorance)
        and len(stream) - reading.end >= UNRECOGNISED_REASON_MIN_TOKENS
    )
    praised = hit
    if claims and hit and assessment.label is not Label.CORRECT:
        # A capped false claim and a credited concept in one sentence ("records the graph
        # ahead of time so that ifs and loops work"): the ✓ would praise a sentence that is
        # wrong. The credit stays (the cap already bounds the score); only the praise goes.
        sent = stream.sent
        capped = {sent[span[0]] for span in claims}
        praised = [
            o.id
            for o, hits in zip(outcomes, matches, strict=False)
            if o.id in hit
            and not all(
                sent[span[0]] in capped
                for span in (hits.affirmed + hits.negated + hits.conditional)
            )
        ]
    if stated and praised:
        # "gradients are only defined for scalars": a penalised misconception and a concept
        # matched on the same words; the ✗ corrects them, so no ✓ may praise them too.
        praised = [
            o.id
            for o, hits in zip(outcomes, matches, strict=False)
            if o.id in praised
            and not _within(hits.affirmed + hits.negated + hits.conditional, stated)
        ]
    feedback = build_feedback(
        item,
        verdict=verdict,
        verdict_source=source,
        verdict_conflict=conflict,
        text_verdict=reading.value,
        hit=praised,
        missing=[o.id for o in nudges],
        contradicted=contradicted,
        misconceptions=[m.id for m in found],
        stuffing=stuffing,
        arithmetic_error=stream.wrong_arithmetic,
        yes_no=compiled.yes_no if agrees is False and not true_false else None,
        gesture=gesture,
        hedged=hedge and assessment.label is not Label.INCORRECT,
        label=assessment.label,
        aside=side,
        restated=restatement,
        redirected=redirect,
        dismissive=dismissal,
        unrecognised_reason=unrecognised_reason,
        ignorance=ignorance and agrees is True,
    )
    # model_validate of a dict: the same validation as GradeResult(...) without the
    # interpreted BaseModel.__init__ and its keyword arguments (docs/GRADING.md "Speed,
    # round 7"); a misspelt key is still refused (extra="forbid").
    return GradeResult.model_validate(
        {
            "item_id": item.id,
            "score": assessment.score,
            "label": assessment.label,
            "verdict": verdict,
            "verdict_source": source,
            "verdict_correct": verdict_correct,
            "verdict_conflict": conflict,
            "concepts_hit": hit,
            "concepts_missing": [o.id for o in not_hit],
            "concepts_contradicted": contradicted,
            "misconceptions": [m.id for m in found],
            "confidence": assessment.confidence,
            "feedback": feedback,
            "gist": gist,
            "gesture": gesture,
            "hedged": hedge,
            "aside": side,
            "restated": restatement,
            "redirected": redirect,
            "dismissive": dismissal,
        }
    )


class Grader:
    """Grades responses to the items it was built with; each rubric is compiled once.

    Compiling all 50 rubrics of the bank takes about 1.5-2 s of CPU, more than loading it,
    while a one-shot ``tutor grade`` grades one item. With ``eager=False`` an item is
    compiled on its first grade instead (under a lock, so threads grading it at once
    compile it once). Nothing is lost by waiting: every pattern and item-level synonym is
    checked when the pack is loaded (:mod:`bot.content.loader`), so compiling a validated
    item has no failure of its own. Eager stays the default, and is what the bot's
    start-up and the ``tutor content`` commands use: every rubric is compiled before the
    first answer, so a fault in compiling one shows at start-up and no learner waits for
    a compile.

    Args:
        items: a :class:`bot.content.loader.Bank` or any iterable of items (ids unique).
        warm: load the English word list now (about 0.5 s) rather than on the first typo.
        eager: compile every item now (default); False: on each item's first grade.

    Raises:
        ValueError: two items share an id.
    """

    def __init__(
        self, items: Bank | Iterable[Item], warm: bool = True, *, eager: bool = True
    ) -> None:
        self._source: dict[str, Item] = {}
        self._items: dict[str, CompiledItem] = {}
        self._lock = threading.Lock()
        for item in items:
            if item.id in self._source:
                raise ValueError(f"duplicate item id {item.id!r}")
            self._source[item.id] = item
        if eager:
            for item_id in self._source:
                self._compiled(item_id)
        if warm:
            known_words()
            domain_stems()

    def _compiled(self, item_id: str) -> CompiledItem:
        """The item's compiled rubric, compiled now if it never was.

        Raises:
            UnknownItem: no such item.
        """
        compiled = self._items.get(item_id)
        if compiled is not None:
            return compiled
        item = self._source.get(item_id)
        if item is None:
            raise UnknownItem(item_id)
        with self._lock:
            compiled = self._items.get(item_id)
            if compiled is None:
                compiled = compile_item(item)
                self._items[item_id] = compiled
        return compiled

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._source

    def __len__(self) -> int:
        return len(self._source)

    @property
    def item_ids(self) -> list[str]:
        """Ids of every item, in the order given."""
        return list(self._source)

    def item(self, item_id: str) -> Item:
        """The item with this id.

        Raises:
            UnknownItem: no such item.
        """
        item = self._source.get(item_id)
        if item is None:
            raise UnknownItem(item_id)
        return item

    def response(self, item_id: str, verdict: bool | None, text: str) -> Response:
        """Build a :class:`Response`, refusing bad input with a domain error.

        Args:
            item_id: the item answered.
            verdict: the button pressed (true/false items), or None.
            text: the learner's text, at most 4,000 characters.

        Raises:
            UnknownItem: no such item.
            AnswerTooLong: ``text`` is over 4,000 characters.
            EmptyAnswer: ``text`` is empty after normalisation (blank, or only markup such
                as a lone code fence, ``****``, ``||  ||`` or ``<b></b>``): the one check
                every front end relies on.
        """
        if item_id not in self._source:
            raise UnknownItem(item_id)
        if len(text) > MAX_ANSWER_CHARS:
            raise AnswerTooLong(len(text))
        if is_markup_only(normalize(text)):
            raise EmptyAnswer()
        return Response(item_id=item_id, verdict=verdict, text=text)

    def grade(self, response: Response) -> GradeResult:
        """Grade one response.

        Raises:
            UnknownItem: the response names an item this grader does not have.
            AnswerTooLong: the text is over 4,000 characters.
        """
        return grade_compiled(self._compiled(response.item_id), response)


_pure_cache: dict[int, CompiledItem] = {}


def grade(item: Item, response: Response) -> GradeResult:
    """Grade one response against one item, without building a :class:`Grader`.

    The compiled rubric is cached per item object (up to 256 items), so repeated calls
    with the same item compile once.

    Raises:
        AnswerTooLong: the text is over 4,000 characters.
        ValueError: the response is for another item.
    """
    compiled = _pure_cache.get(id(item))
    if compiled is None or compiled.item is not item:
        compiled = compile_item(item)
        if len(_pure_cache) >= _PURE_CACHE_LIMIT:
            _pure_cache.clear()
        _pure_cache[id(item)] = compiled
    return grade_compiled(compiled, response)
