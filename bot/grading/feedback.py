"""Feedback: the one place that turns a grade into words.

:func:`build_feedback` picks the parts (praise from concept descriptions, nudges for what is
missing, corrections for misconceptions and contradicted concepts, a sentence about the
verdict); :func:`render_feedback` lays them out, one line per point, in one of two flavours:
``discord`` (a bold label, author texts markdown-escaped and mentions defused) or ``plain``
(the same words for a terminal: no markers, no escapes). UIs may reshape the parts of
:class:`bot.grading.models.Feedback` instead, but never write their own wording.

Learner text is never echoed: the feedback quotes only the item's own texts, written by
rubric authors; in the ``discord`` flavour those are markdown-escaped outside their backtick
code spans.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Literal

from bot.content.models import Item, Kind, Label
from bot.grading.models import Feedback, GradeResult

_MARKDOWN_SPECIAL: Final = re.compile(r"([\\*_~|\[\]])")
_CODE_SPAN: Final = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_MENTION: Final = re.compile(r"@(?=\w)")

STUFFING_CORRECTION: Final = (
    "A list of keywords is not an explanation: say what happens and why, in a sentence."
)
ARITHMETIC_CORRECTION: Final = "One of your calculations does not hold; check the arithmetic."
GESTURE_NUDGE: Final = (
    "Spell out the mechanism: 'somehow' or 'something to do with' points at it "
    "without saying what happens."
)
CONTRADICTION_PREFIX: Final = "You stated the opposite of a key point: "
HEDGE_NUDGE: Final = (
    "You hedged or asked instead of stating it: say it as a plain claim (no 'I think', "
    "'maybe' or question); a hedged or questioning answer counts as partial at most."
)
ASIDE_NUDGE: Final = (
    "Check your side remark or condition (after 'also', 'btw', 'only if'...): it goes beyond "
    "the key point and cannot be confirmed here, and a wrong extra claim lowers the grade."
)
REDIRECT_PREFIX: Final = "The cause you named is not the key one: "
DISMISSAL_CORRECTION: Final = (
    "It is not only a matter of speed or style: the result itself depends on it."
)
UNRECOGNISED_REASON_CORRECTION: Final = (
    "Your verdict is right, but the reason you gave is not the one that decides this "
    "statement (true or not, it is not the key mechanism): compare it with the answer "
    "below, then say what happens here and why."
)
IGNORANCE_CORRECTION: Final = (
    "Your verdict is right, but you said you don't know why, so it counts as a guess: "
    "read the answer below, then say in your own words what happens and why."
)
RESTATED_CORRECTION: Final = "That restates the question; say why it happens, in your own words."
KEY_POINT_NUDGE: Final = (
    "Not correct yet: the key point is missing, and the next question points at it."
)
"""Comes first among the "missing" lines when an answer below correct has only ✓ lines and
questions (no ✗, no verdict sentence, no other note) and a key concept is missing: fresh26
saw "Partly there (0.40)" under three ✓ and read nothing that said why."""
NO_REASON_NUDGE: Final = (
    "This is not correct yet: compare your answer with the one below and say what happens "
    "and why, in a full sentence."
)
"""The last resort, so that an answer below correct never gets feedback with nothing to act
on (no ✗, no question, no verdict sentence)."""

FeedbackFlavour = Literal["discord", "plain"]
"""How :func:`render_feedback` writes: ``discord`` markdown, or ``plain`` terminal text."""


def escape_markdown(text: str) -> str:
    """Escape Discord markdown in ``text`` outside backtick code spans; defuse ``@`` mentions.

    Args:
        text: author-written text such as a nudge (``Call x.grad.zero_() first``).

    Returns:
        The text with ``* _ ~ | [ ] \\`` escaped outside code spans (line-start markers
        cannot occur: every rendered line starts with a symbol of ours) and a zero-width
        space after every ``@`` that starts a word, so nothing pings anyone.
    """
    out: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[last:]))
    return _MENTION.sub("@\u200b", "".join(out))


def _yes_no(value: bool) -> str:
    return "true" if value else "false"


def build_feedback(
    item: Item,
    *,
    verdict: bool | None,
    verdict_source: str,
    verdict_conflict: bool,
    text_verdict: bool | None,
    hit: list[str],
    missing: list[str],
    contradicted: list[str],
    misconceptions: list[str],
    stuffing: bool,
    arithmetic_error: bool = False,
    yes_no: bool | None = None,
    gesture: bool = False,
    hedged: bool = False,
    aside: bool = False,
    restated: bool = False,
    redirected: bool = False,
    dismissive: bool = False,
    label: Label | None = None,
    unrecognised_reason: bool = False,
    ignorance: bool = False,
) -> Feedback:
    """Choose the feedback parts for one graded answer.

    A correct answer gets no concept nudges (its key points are all there; asking about an
    optional extra read as a question about what the learner had just said), and any other
    answer at most :data:`MAX_CONCEPT_NUDGES`, key concepts first: a fresh-eyes tester found
    six near-duplicate questions under one wrong answer. Corrections are capped the same
    way (:data:`MAX_CORRECTIONS`).

    Args:
        item: the item graded (its rubric supplies every sentence).
        verdict: the verdict graded, or None.
        verdict_source: ``"button"``, ``"text"`` or ``"none"``.
        verdict_conflict: the button and the text's opening disagree.
        text_verdict: the verdict read from the text's opening, or None.
        hit: ids of concepts credited, rubric order.
        missing: ids of concepts neither credited nor contradicted, key concepts first.
        contradicted: ids of concepts stated with the opposite polarity.
        misconceptions: ids of misconceptions found.
        stuffing: the reasoning was a keyword list.
        arithmetic_error: the answer states a wrong computation.
        yes_no: for a yes/no question of another kind answered the wrong way, the right
            answer (True: yes, False: no); None otherwise.
        gesture: the answer only gestures at the mechanism ("somehow"); a nudge to spell
            it out comes first.
        hedged: the reasoning hedges a claim that would otherwise count; a nudge to
            commit.
        aside: the answer adds a side claim the rubric does not recognise; a nudge to
            check it.
        restated: the answer restates the prompt; a correction says so.
        redirected: the answer names another cause than the key reason; its contradicted
            key concepts are worded as "the cause you named is not the key one".
        dismissive: the answer reduces the rule to speed or style; a correction says so.
        label: the label graded (None: unknown, nudges capped as for a non-correct answer).
        unrecognised_reason: the verdict is right but the reason matches nothing the rubric
            knows (often another item's mechanism); a correction says so.
        ignorance: the verdict is right but the reasoning only says the learner does not
            know or guessed ("idk"); a correction says it counts as a guess.

    Returns:
        The parts, as plain author text (unescaped; :func:`render_feedback` escapes).
    """
    rubric = item.rubric
    concepts = {c.id: c for c in rubric.concepts}
    found = {m.id: m for m in rubric.misconceptions}
    corrections = [found[m].feedback for m in misconceptions]
    prefix = REDIRECT_PREFIX if redirected else CONTRADICTION_PREFIX
    reversed_points = [prefix + concepts[c].description + "." for c in contradicted]
    if dismissive:
        corrections.append(DISMISSAL_CORRECTION)
    if stuffing:
        corrections.append(STUFFING_CORRECTION)
    if arithmetic_error:
        corrections.append(ARITHMETIC_CORRECTION)
    if restated:
        corrections.append(RESTATED_CORRECTION)
    if unrecognised_reason:
        corrections.append(UNRECOGNISED_REASON_CORRECTION)
    if ignorance:
        corrections.append(IGNORANCE_CORRECTION)
    corrections = list(dict.fromkeys(corrections + reversed_points))[:MAX_CORRECTIONS]
    sentence: str | None = None
    key = item.answer.verdict
    if item.kind is Kind.TRUE_FALSE and key is not None:
        if verdict is None:
            sentence = "Start with your verdict: is the statement true or false?"
        elif verdict != key:
            sentence = f"The statement is {_yes_no(key)}, not {_yes_no(verdict)}."
        if verdict_conflict and text_verdict is not None and verdict is not None:
            conflict = (
                f"You pressed {_yes_no(verdict)} but your answer opens with "
                f"{_yes_no(text_verdict)}; the button counts."
            )
            sentence = f"{conflict} {sentence}" if sentence else conflict
    if yes_no is not None:
        sentence = f"The answer is {'yes' if yes_no else 'no'}."
    notes = [GESTURE_NUDGE] * gesture + [HEDGE_NUDGE] * hedged + [ASIDE_NUDGE] * aside
    nudges = _concept_nudges([concepts[c].nudge for c in missing], label)
    below = label is not None and label is not Label.CORRECT
    if below and hit and not (corrections or sentence or notes):
        # Only ✓ lines and questions: say why it is not correct (the missing key point).
        absent = _missing_key_concept(item, hit, missing)
        if absent is not None:
            first = concepts[absent].nudge
            rest = [n for n in nudges if n != first][: MAX_CONCEPT_NUDGES - 1]
            nudges = [KEY_POINT_NUDGE, first, *rest]
    if below and not (corrections or sentence or notes or nudges):
        nudges = [NO_REASON_NUDGE]
    # model_validate of a dict: the same validation as Feedback(...), without the
    # interpreted BaseModel.__init__ (docs/GRADING.md "Speed, round 7").
    return Feedback.model_validate(
        {
            "right": [concepts[c].description for c in hit],
            "missing": notes + nudges,
            "corrections": corrections,
            "verdict": sentence,
        }
    )


def _missing_key_concept(item: Item, hit: list[str], missing: list[str]) -> str | None:
    """The first concept of ``missing`` whose key unit is not met: a ``required`` (or, with
    neither ``required`` nor ``required_any``, a top-weight) concept, or a member of a
    ``required_any`` group none of whose members is in ``hit``; None if every unit is met."""
    rubric = item.rubric
    key = rubric.key_concepts()
    credited = set(hit)
    for concept_id in missing:
        if concept_id not in key:
            continue
        groups = [g for g in rubric.required_any if concept_id in g]
        if not groups or not any(credited.intersection(g) for g in groups):
            return concept_id
    return None


MAX_CORRECTIONS: Final = 2
"""At most this many ✗ lines: the misconceptions' own corrections and the named problems
(dismissal, keyword list, wrong arithmetic, restatement, unrecognised reason) first, then
"you stated the opposite of ..." lines; a tester read three near-identical ✗ lines under
one wrong answer, and the answer key shown below says the rest."""

MAX_CONCEPT_NUDGES: Final = 2
"""At most this many "what is missing" questions under one answer (key concepts first)."""


def _concept_nudges(nudges: list[str], label: Label | None) -> list[str]:
    """The concept nudges worth showing: none for a correct answer, else the first
    :data:`MAX_CONCEPT_NUDGES` distinct ones."""
    if label is Label.CORRECT:
        return []
    return list(dict.fromkeys(nudges))[:MAX_CONCEPT_NUDGES]


_HEADLINE: Final = {
    Label.CORRECT: "Correct",
    Label.PARTIAL: "Partly there",
    Label.INCORRECT: "Not quite",
}


def render_feedback(
    result: GradeResult, item: Item, *, flavour: FeedbackFlavour = "discord"
) -> str:
    """Render a grade as the text a learner sees.

    Args:
        result: the grade.
        item: the item graded (the answer key is shown once the answer is not correct).
        flavour: ``discord`` (the default: the label in ``**bold**``, author texts escaped
            with :func:`escape_markdown`) or ``plain`` for a terminal (``tutor play``,
            ``tutor grade ITEM --text``): the same words and symbols, nothing escaped.

    Returns:
        One line per point, at most about 1,500 characters for a full rubric, e.g. (discord)::

            **Partly there** (score 0.55)
            ✓ gradients must be cleared between steps (zero_grad / grad.zero\\_())
            → What happens to the value already in .grad when backward runs again?

        and the same as plain text: ``Partly there (score 0.55)``, ``✓ ... grad.zero_())``.
    """
    discord = flavour == "discord"
    text: Callable[[str], str] = escape_markdown if discord else str
    label = f"**{_HEADLINE[result.label]}**" if discord else _HEADLINE[result.label]
    fb = result.feedback
    lines = [f"{label} (score {result.score:.2f})"]
    if fb.verdict:
        lines.append(f"⚖ {text(fb.verdict)}")
    lines += [f"✓ {text(part)}" for part in fb.right]
    lines += [f"✗ {text(part)}" for part in fb.corrections]
    lines += [f"→ {text(part)}" for part in fb.missing]
    if result.label is not Label.CORRECT:
        lines.append(f"Answer: {text(item.answer.text)}")
    return "\n".join(lines)
