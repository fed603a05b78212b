"""The registry of marked answer sets under ``tests/grading/`` (one place for every test).

A *marked set* is a JSONL file of learner answers with an examiner's label
(``bot.grading.evaluation.load_marked`` reads it). Tuning sets may be read by whoever tunes
rubrics or the grader; held-out sets may only be measured (``tutor content eval FILE
--numbers-only``), never read. Each set's README says who wrote it and how.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from bot.grading.evaluation import MarkedAnswer

HERE: Final = Path(__file__).resolve().parent

CORE_ITEMS: Final = (
    *(f"TF{n}" for n in range(1, 9)),
    *(f"SE{n}" for n in range(1, 8)),
    *(f"WHY{n}" for n in range(1, 8)),
    *(f"EC{n}" for n in range(1, 8)),
)
"""The 29 items of content/autograd-core.yaml (the source question bank)."""

ADVANCED_ITEMS: Final = (
    *(f"TF{n}" for n in range(9, 15)),
    *(f"SE{n}" for n in range(8, 13)),
    *(f"WHY{n}" for n in range(8, 12)),
    *(f"EC{n}" for n in range(8, 14)),
)
"""The 21 items of content/autograd-advanced.yaml."""

ITEM_FAMILIES: Final = {
    "core": CORE_ITEMS,
    "advanced": ADVANCED_ITEMS,
    "all": (*CORE_ITEMS, *ADVANCED_ITEMS),
}


@dataclass(frozen=True)
class MarkedSet:
    """One marked file and what its README promises about it.

    Attributes:
        path: the file, relative to ``tests/grading/``.
        items: which items it answers (every one of them, with all three labels).
        answers: how many answers it holds (its README's count; the files are frozen).
        held_out: only its numbers may be looked at.
        min_opposite: "right words, opposite claim" answers per item, at least.
    """

    path: str
    items: Literal["core", "advanced", "all"]
    answers: int
    held_out: bool
    min_opposite: int

    @property
    def file(self) -> Path:
        """The file's absolute path."""
        return HERE / self.path

    @property
    def item_ids(self) -> tuple[str, ...]:
        """The ids of the items it answers."""
        return ITEM_FAMILIES[self.items]


MARKED_SETS: Final = (
    MarkedSet("eval/dev.jsonl", "core", 265, held_out=False, min_opposite=1),
    MarkedSet("eval/test.jsonl", "core", 179, held_out=True, min_opposite=1),
    MarkedSet("eval2/dev2.jsonl", "core", 466, held_out=False, min_opposite=2),
    MarkedSet("eval3/test2.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval5/test3.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval4/dev3.jsonl", "core", 526, held_out=False, min_opposite=2),
    MarkedSet("eval-adv/dev.jsonl", "advanced", 337, held_out=False, min_opposite=2),
    MarkedSet("advanced_eval/answers.jsonl", "advanced", 407, held_out=False, min_opposite=1),
    MarkedSet("advanced_eval/round2.jsonl", "advanced", 168, held_out=False, min_opposite=1),
    MarkedSet("eval6/dev4.jsonl", "all", 400, held_out=False, min_opposite=1),
    MarkedSet("eval8/dev5.jsonl", "all", 401, held_out=False, min_opposite=1),
    MarkedSet("eval7/test4.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval9/test5.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval10/dev6.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval11/dev7.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval12/test6.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval13/dev8.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval14/test7.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval15/dev9.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval16/test8.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval17/dev10.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval18/dev11.jsonl", "all", 500, held_out=False, min_opposite=4),
    MarkedSet("eval19/test9.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval20/dev12.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval21/dev13.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval22/test10.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval23/dev14.jsonl", "core", 464, held_out=False, min_opposite=2),
    MarkedSet("eval24/dev15.jsonl", "core", 464, held_out=False, min_opposite=2),
    MarkedSet("eval25/test11.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval26/dev16.jsonl", "core", 442, held_out=False, min_opposite=2),
    MarkedSet("eval27/dev17.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval28/test12.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval29/dev18.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval30/test13.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval31/dev19.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval32/test14.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval33/dev20.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval34/test15.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval35/dev21.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval36/test16.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval37/dev22.jsonl", "all", 500, held_out=False, min_opposite=1),
    MarkedSet("eval38/test17.jsonl", "all", 500, held_out=True, min_opposite=1),
    MarkedSet("eval39/dev23.jsonl", "all", 500, held_out=False, min_opposite=1),
)
"""Every marked set, tuning and held-out."""

HELD_OUT: Final = tuple(s for s in MARKED_SETS if s.held_out)

SPLIT_PAIRS: Final = (("eval/dev.jsonl", "eval/test.jsonl"),)
"""(dev, test) files cut from one examiner's answers by :func:`assign_split`."""

SAME_WRITER: Final = (
    ("eval/dev.jsonl", "eval/test.jsonl"),
    ("advanced_eval/answers.jsonl", "advanced_eval/round2.jsonl"),
)
"""Files by one writer: no answer text repeats for an item across them."""

DEV_FRACTION: Final = 0.6
"""Share of each (item, label) group in the dev file (tests/grading/eval/README.md)."""

Split = Literal["dev", "test"]


def _order_key(answer: MarkedAnswer) -> str:
    return hashlib.sha256(f"{answer.item_id}\n{answer.text}".encode()).hexdigest()


def assign_split(answers: Iterable[MarkedAnswer]) -> dict[tuple[str, str], Split]:
    """The dev/test split of one examiner's answers (tests/grading/eval/README.md).

    Answers are grouped by (item_id, label). Within a group, the answers of each kind
    (opposite claim or not) are ranked by SHA-256 of ``item_id + "\\n" + text``; the j-th
    of m sits at position (j + 0.5) / m, and the group is ordered by position (ties by the
    hash), which spreads opposite claims evenly. The first round(0.6 n) of a group of n
    (half up, clamped to 1..n-1; a group of one) go to dev, the rest to test.

    Args:
        answers: the union of the dev and test files, any order.

    Returns:
        (item_id, text) -> "dev" or "test".
    """
    groups: dict[tuple[str, str], list[MarkedAnswer]] = defaultdict(list)
    for answer in answers:
        groups[(answer.item_id, answer.label.value)].append(answer)
    result: dict[tuple[str, str], Split] = {}
    for members in groups.values():
        kinds: dict[bool, list[MarkedAnswer]] = defaultdict(list)
        for answer in members:
            kinds[answer.opposite_claim].append(answer)
        placed: list[tuple[float, str, MarkedAnswer]] = []
        for kind in kinds.values():
            kind.sort(key=_order_key)
            placed += (((j + 0.5) / len(kind), _order_key(a), a) for j, a in enumerate(kind))
        placed.sort(key=lambda entry: (entry[0], entry[1]))
        n = len(placed)
        n_dev = n if n == 1 else min(n - 1, max(1, int(DEV_FRACTION * n + 0.5)))
        for index, (_, _, answer) in enumerate(placed):
            result[(answer.item_id, answer.text)] = "dev" if index < n_dev else "test"
    return result


def text_key(text: str) -> str:
    """A text compared for repeats: lower case, runs of whitespace as one space."""
    return " ".join(text.lower().split())
