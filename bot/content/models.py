"""Content models: a question pack, its items, and each item's grading rubric.

These pydantic models are the single definition of the content format. YAML files under
``content/`` are validated against them on every load (`tutor content check`), and
``content/schema.json`` is generated from them for editors (`tutor content schema`).

A pack file looks like this (abridged)::

    pack: autograd-core
    title: Autograd and computational graphs
    items:
      - id: TF3
        kind: true_false
        prompt: After two backward calls, .grad holds only the latest gradient.
        answer: {verdict: false, text: ".grad accumulates: each backward adds to it."}
        ...
        rubric:
          concepts:
            - id: accumulates
              description: .grad adds each new gradient to what is there
              patterns: ["accumulat*", "add* up", "`+=`"]
              nudge: What happens to the old value of .grad when backward runs again?
          misconceptions:
            - id: overwrites
              description: believing backward replaces .grad
              patterns: ["overwrit*", "replac*"]
              cap: 0.3
              feedback: backward never replaces .grad; it adds to it.
        samples:
          - {label: correct, verdict: false, text: "False, gradients accumulate."}

Limits on text fields come from where the text is shown: a Discord embed field holds 1,024
characters and a description 4,096 (discord.com/developers/docs/resources/message#embed-object-
embed-limits).
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from bot.content.patterns import Pattern, PhraseStr

MAX_SNIPPET_LINES = 15
"""Snippets are short enough to read in a chat message (issue: at most 15 lines)."""

SUPPORTED_TORCH = "2.13.0"
"""The torch release every ``expected_output`` was recorded with."""

Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_\-]*$", min_length=1, max_length=48)]
"""Lower-case identifier used for tags, concept ids and misconception ids."""


class Kind(StrEnum):
    """The four kinds of trap question."""

    TRUE_FALSE = "true_false"
    SPOT_THE_ERROR = "spot_the_error"
    WHY = "why"
    EDGE_CASE = "edge_case"

    @property
    def with_article(self) -> str:
        """The kind's name for a sentence, with its article: ``a true/false``, ``a
        spot-the-error``, ``a why``, ``an edge-case`` (``EC6 is an edge-case item``; fresh22
        #14: it was "a edge-case")."""
        name = "true/false" if self is Kind.TRUE_FALSE else self.value.replace("_", "-")
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def canonical_item_id(typed: str) -> str:
    """The canonical form of an item id a user typed: surrounding spaces dropped, upper case.

    Ids are upper case by definition (:attr:`Item.id`'s pattern ``TF3``, ``WHY12``), so
    every front end where a user types one (``tutor grade ITEM`` and ``--jsonl``'s
    ``item_id``, ``tutor content ... --item``, ``tutor play``'s ``item``) accepts ``tf3``
    and ``Se1`` through this one function and shows the canonical id in its output.

    Args:
        typed: the id as typed, e.g. ``" se1"``.

    Returns:
        ``"SE1"``; text that is no id stays no id (the caller reports it as unknown).
    """
    return typed.strip().upper()


ID_PREFIX: dict[Kind, str] = {
    Kind.TRUE_FALSE: "TF",
    Kind.SPOT_THE_ERROR: "SE",
    Kind.WHY: "WHY",
    Kind.EDGE_CASE: "EC",
}
"""Item ids are the kind's prefix plus a number (the source bank's TF1...EC7 convention)."""


class Label(StrEnum):
    """The three-way grade of a learner answer."""

    CORRECT = "correct"
    PARTIAL = "partial"
    INCORRECT = "incorrect"


class Strict(BaseModel):
    """Base for content models: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Answer(Strict):
    """The answer key.

    For ``true_false`` items ``verdict`` is the correct verdict and ``text`` the one-line
    reason; for the other kinds ``verdict`` is absent and ``text`` is the short answer.
    """

    verdict: bool | None = Field(None, description="true/false items only: the right verdict.")
    text: str = Field(min_length=1, max_length=300, description="One line: the answer.")


class Concept(Strict):
    """A piece of reasoning the answer should contain, worth ``weight`` points.

    ``polarity: affirm`` credits the concept when a pattern matches outside a negation;
    ``deny`` credits it when a pattern matches inside a negation ("is *not* a leaf").
    A match of the opposite polarity counts as contradicting the concept.
    """

    id: Slug
    description: str = Field(
        min_length=1, max_length=200, description="The concept, shown as praise when hit."
    )
    weight: float = Field(1.0, gt=0, le=10, description="Relative credit for this concept.")
    polarity: Literal["affirm", "deny"] = "affirm"
    patterns: list[Pattern] = Field(min_length=1, description="Any one of these spots it.")
    nudge: str = Field(
        min_length=1, max_length=300, description="Shown when missing, phrased as a nudge."
    )


class Misconception(Strict):
    """A wrong belief the answer may state; it costs ``penalty`` or caps the score at ``cap``."""

    id: Slug
    description: str = Field(min_length=1, max_length=200, description="The wrong belief, named.")
    polarity: Literal["affirm", "deny"] = "affirm"
    patterns: list[Pattern] = Field(min_length=1)
    penalty: float | None = Field(None, gt=0, le=1, description="Subtracted from the score.")
    cap: float | None = Field(None, ge=0, lt=1, description="The score can be at most this.")
    feedback: str = Field(
        min_length=1, max_length=400, description="Names the misconception and corrects it."
    )

    @model_validator(mode="after")
    def _penalty_or_cap(self) -> Self:
        if self.penalty is None and self.cap is None:
            raise ValueError("give a penalty or a cap (or both)")
        return self


class Rubric(Strict):
    """How a free-text justification is graded for one item.

    ``required`` concepts must all be credited for an answer to be correct; each group of
    ``required_any`` needs one of its concepts (alternative ways of stating the key reason).
    ``gist`` patterns spot an on-topic gesture ("It'll throw an error.", "For efficiency."):
    an answer matching one, with nothing wrong in it, is at least partial but never correct
    on the gist alone (docs/MARKING.md: "the central idea is gestured at").
    """

    concepts: list[Concept] = Field(min_length=1)
    required: list[Slug] = Field(
        default_factory=list,
        description="Concept ids an answer needs to be labelled correct.",
    )
    required_any: list[list[Slug]] = Field(
        default_factory=list,
        description="Groups of concept ids; a correct answer needs one concept of each group.",
    )
    gist: list[Pattern] = Field(
        default_factory=list,
        description="Patterns of an on-topic gesture: at least partial, never correct alone.",
    )
    misconceptions: list[Misconception] = Field(min_length=1)
    synonyms: dict[str, list[PhraseStr]] = Field(
        default_factory=dict,
        description="Item-level synonyms on top of the shared table: word -> alternatives.",
    )
    """Each alternative is a pattern, checked here as the shared table's are: compiling a
    rubric would otherwise be the first to find a bad one (``tutor content check`` never
    compiles, and a grader may compile an item only when it first grades it)."""

    @field_validator("required")
    @classmethod
    def _required_known(cls, value: list[str], info: ValidationInfo) -> list[str]:
        concept_ids = {c.id for c in info.data.get("concepts", [])}
        for rid in value:
            if concept_ids and rid not in concept_ids:
                raise ValueError(f"required concept {rid!r} is not one of {sorted(concept_ids)}")
        return value

    @field_validator("required_any")
    @classmethod
    def _groups_known(cls, value: list[list[str]], info: ValidationInfo) -> list[list[str]]:
        concept_ids = {c.id for c in info.data.get("concepts", [])}
        required = set(info.data.get("required", []))
        seen: set[str] = set()
        for number, group in enumerate(value):
            if len(group) < 2:
                raise ValueError(
                    f"group {number} {group!r} needs at least two concept ids "
                    "(list a single one under required)"
                )
            for rid in group:
                if concept_ids and rid not in concept_ids:
                    raise ValueError(
                        f"group {number}: concept {rid!r} is not one of {sorted(concept_ids)}"
                    )
                if rid in required:
                    raise ValueError(f"group {number}: concept {rid!r} is already required")
                if rid in seen:
                    raise ValueError(f"group {number}: concept {rid!r} is in two groups")
                seen.add(rid)
        return value

    @field_validator("misconceptions")
    @classmethod
    def _ids_unique(cls, value: list[Misconception], info: ValidationInfo) -> list[Misconception]:
        seen: set[str] = set()
        for entry in [*info.data.get("concepts", []), *value]:
            if entry.id in seen:
                raise ValueError(f"id {entry.id!r} is used twice in this rubric")
            seen.add(entry.id)
        return value

    def key_concepts(self) -> frozenset[str]:
        """The ids of the key concepts: the ``required`` ones and every ``required_any``
        group's members, or, when there are neither, those of the highest weight. The
        grader treats contradicting one as a wrong answer; per-concept mastery counts only
        these as missed (docs/GRADING.md, docs/PROGRESS.md)."""
        if self.required or self.required_any:
            return frozenset(self.required).union(*self.required_any)
        top = max(c.weight for c in self.concepts)
        return frozenset(c.id for c in self.concepts if c.weight == top)

    def patterns_by_path(self) -> Iterator[tuple[str, Pattern]]:
        """Every pattern with its path in the item, in rubric order: concepts, then
        misconceptions, then the gist (``rubric.concepts[0].patterns[2]``,
        ``rubric.gist[1]``): the names ``tutor content check`` and ``content test`` report
        patterns by. The grader compiles patterns in this same order, one for one."""
        for number, concept in enumerate(self.concepts):
            for index, pattern in enumerate(concept.patterns):
                yield f"rubric.concepts[{number}].patterns[{index}]", pattern
        for number, misconception in enumerate(self.misconceptions):
            for index, pattern in enumerate(misconception.patterns):
                yield f"rubric.misconceptions[{number}].patterns[{index}]", pattern
        for index, pattern in enumerate(self.gist):
            yield f"rubric.gist[{index}]", pattern


class Sample(Strict):
    """A marked learner answer used to test the rubric (`tutor content test`)."""

    label: Label
    verdict: bool | None = Field(
        None, description="true/false items: the button the learner pressed (null: none)."
    )
    text: str = Field(min_length=1, max_length=4000)
    note: str | None = Field(None, max_length=300, description="Why it deserves this label.")


class Item(Strict):
    """One trap question with its answer key, proof snippet, rubric and marked samples."""

    id: str = Field(pattern=r"^(TF|SE|WHY|EC)[1-9][0-9]*$", description="e.g. TF3, SE8.")
    kind: Kind
    prompt: str = Field(min_length=1, max_length=1000)
    answer: Answer
    explanation: str = Field(min_length=1, max_length=1000, description="A few sentences.")
    hint: str = Field(min_length=1, max_length=300)
    tags: list[Slug] = Field(min_length=1, description="Concepts the item tests (topics).")
    difficulty: int = Field(ge=1, le=3)
    snippet: str = Field(
        min_length=1, max_length=900, description="At most 15 lines of CPU-only torch."
    )
    expected_output: str = Field(
        max_length=1500, description="The snippet's real output under torch_version."
    )
    torch_version: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    rubric: Rubric
    samples: list[Sample] = Field(min_length=6)
    notes: str | None = Field(
        None, max_length=1500, description="Where and why the item corrects the source bank."
    )

    @field_validator("snippet")
    @classmethod
    def _snippet_short(cls, value: str) -> str:
        lines = value.rstrip("\n").split("\n")
        if len(lines) > MAX_SNIPPET_LINES:
            raise ValueError(f"snippet has {len(lines)} lines; at most {MAX_SNIPPET_LINES}")
        return value

    @field_validator("kind")
    @classmethod
    def _id_matches_kind(cls, value: Kind, info: ValidationInfo) -> Kind:
        item_id = info.data.get("id")
        prefix = ID_PREFIX[value]
        if item_id is not None and not item_id.removeprefix(prefix).isdigit():
            raise ValueError(
                f"id {item_id!r} does not start with {prefix!r}, the prefix of {value}"
            )
        return value

    @field_validator("answer")
    @classmethod
    def _verdict_matches_kind(cls, value: Answer, info: ValidationInfo) -> Answer:
        kind = info.data.get("kind")
        if kind is Kind.TRUE_FALSE and value.verdict is None:
            raise ValueError("answer.verdict is required for true_false items")
        if kind is not None and kind is not Kind.TRUE_FALSE and value.verdict is not None:
            raise ValueError(f"answer.verdict is only for true_false items, not {kind}")
        return value

    @field_validator("samples")
    @classmethod
    def _samples_cover_labels(cls, value: list[Sample], info: ValidationInfo) -> list[Sample]:
        kind = info.data.get("kind")
        counts = {label: 0 for label in Label}
        for sample in value:
            counts[sample.label] += 1
            if sample.verdict is not None and kind is not None and kind is not Kind.TRUE_FALSE:
                raise ValueError("samples carry a verdict only on true_false items")
        short = [f"{label.value} ({n})" for label, n in counts.items() if n < 2]
        if short:
            raise ValueError(
                "samples must include at least 2 of each label (correct, partial, incorrect); "
                "too few: " + ", ".join(short)
            )
        return value

    @property
    def number(self) -> int:
        """The numeric part of the id (TF12 -> 12)."""
        return int(self.id.removeprefix(ID_PREFIX[self.kind]))


class Pack(Strict):
    """A question pack: one YAML file under ``content/``."""

    pack: Slug = Field(description="Pack id, e.g. autograd-core.")
    title: str = Field(min_length=1, max_length=200)
    description: str | None = Field(None, max_length=1000)
    items: list[Item] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Self:
        seen: set[str] = set()
        for item in self.items:
            if item.id in seen:
                raise ValueError(f"duplicate item id {item.id!r}")
            seen.add(item.id)
        return self
