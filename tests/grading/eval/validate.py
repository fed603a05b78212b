"""Validate the examiner's evaluation set: `dev.jsonl` and `test.jsonl` next to this file.

Run from the repository root::

    python tests/grading/eval/validate.py

Checks, with file and line in every error:

- each line is one JSON object with exactly the fields of `EvalAnswer`;
- `item_id` is one of the 29 bank ids, `label` is correct/partial/incorrect, `verdict` is
  null for every item that is not true/false, `opposite_claim` is only set on incorrect
  answers, `text` is 1-4,000 characters (the grader's input cap, issue 4);
- no answer text appears twice for the same item (across both files);
- every item id, every label of every item, and an opposite-claim answer for every item
  are present in both splits;
- the split is exactly the one `assign_split` computes from the union of both files, so
  nobody can move an answer between dev and test by hand without the check failing.

Exit status 0 when everything holds, 1 otherwise (errors on stderr).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

HERE = Path(__file__).resolve().parent
DEV_PATH = HERE / "dev.jsonl"
TEST_PATH = HERE / "test.jsonl"

# The bank's ids in its own order (/work/shared/seeds/autograd-question-bank.txt).
TF_IDS = tuple(f"TF{n}" for n in range(1, 9))
ITEM_IDS = (
    *TF_IDS,
    *(f"SE{n}" for n in range(1, 8)),
    *(f"WHY{n}" for n in range(1, 8)),
    *(f"EC{n}" for n in range(1, 8)),
)
DEV_FRACTION = 0.6
MAX_TEXT_CHARS = 4000  # the grader refuses longer learner text (issue 4, Deliver 3)

Label = Literal["correct", "partial", "incorrect"]
LABELS: tuple[Label, ...] = ("correct", "partial", "incorrect")
Split = Literal["dev", "test"]


class EvalAnswer(BaseModel):
    """One marked learner answer, as one JSON line.

    Attributes:
        item_id: bank id, e.g. "TF3".
        verdict: the button the learner pressed on a true/false item (true/false), or None
            when no button was pressed (the text's opening then carries the verdict); always
            None for items that are not true/false.
        text: the learner's free text, 1-4,000 characters.
        label: the examiner's label under docs/MARKING.md.
        style: free-form tag describing the kind of answer ("terse", "opposite-claim", ...).
        opposite_claim: True for incorrect answers that use the right words to claim the
            opposite of the key fact ("it doesn't accumulate, it resets").
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    item_id: str
    verdict: bool | None
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    label: Label
    style: str = Field(min_length=1)
    opposite_claim: bool

    @model_validator(mode="after")
    def _consistent(self) -> EvalAnswer:
        if self.item_id not in ITEM_IDS:
            raise ValueError(f"item_id {self.item_id!r} is not a bank id")
        if self.item_id not in TF_IDS and self.verdict is not None:
            raise ValueError(f"verdict must be null for {self.item_id} (not a true/false item)")
        if self.opposite_claim and self.label != "incorrect":
            raise ValueError("opposite_claim is only meaningful on an incorrect answer")
        if not self.text.strip():
            raise ValueError("text is blank")
        return self


def _order_key(answer: EvalAnswer) -> str:
    return hashlib.sha256(f"{answer.item_id}\n{answer.text}".encode()).hexdigest()


def _spread(members: list[EvalAnswer]) -> list[EvalAnswer]:
    """Order one (item, label) group so each opposite_claim kind is spread evenly through it.

    Within each kind, answers are ranked by `_order_key`; the j-th of m answers sits at
    position (j + 0.5) / m, and the group is sorted by that position (systematic stratified
    ordering), ties broken by `_order_key`.
    """
    kinds: dict[bool, list[EvalAnswer]] = defaultdict(list)
    for answer in members:
        kinds[answer.opposite_claim].append(answer)
    placed: list[tuple[float, str, EvalAnswer]] = []
    for kind in kinds.values():
        kind.sort(key=_order_key)
        placed.extend(((j + 0.5) / len(kind), _order_key(a), a) for j, a in enumerate(kind))
    placed.sort(key=lambda entry: (entry[0], entry[1]))
    return [answer for _, _, answer in placed]


def assign_split(answers: list[EvalAnswer]) -> dict[EvalAnswer, Split]:
    """Assign every answer to dev or test, deterministically.

    Answers are grouped by (item_id, label) and each group is ordered by `_spread` (SHA-256
    of "item_id\\ntext", with opposite_claim answers spread evenly through the group). The
    first round(0.6 * n) answers of a group of n (half rounds up, clamped to 1..n-1) go to
    dev, the rest to test; a group of one goes to dev. With the usual 4 correct, 5 partial
    and 6 incorrect answers per item that is 2/2, 3/2 and 4/2, 60% dev overall, and an
    item's two opposite-claim answers land one in each split.

    Args:
        answers: the union of both splits, any order.

    Returns:
        The split of each answer.
    """
    groups: dict[tuple[str, str], list[EvalAnswer]] = defaultdict(list)
    for answer in answers:
        groups[(answer.item_id, answer.label)].append(answer)
    result: dict[EvalAnswer, Split] = {}
    for members in groups.values():
        ordered = _spread(members)
        n = len(ordered)
        n_dev = n if n == 1 else min(n - 1, max(1, int(DEV_FRACTION * n + 0.5)))
        for index, answer in enumerate(ordered):
            result[answer] = "dev" if index < n_dev else "test"
    return result


def load(path: Path, errors: list[str]) -> list[EvalAnswer]:
    """Read one JSON-lines file; append an error naming file and line for each bad line.

    Args:
        path: a .jsonl file, one JSON object per line, UTF-8.
        errors: collects messages such as "dev.jsonl:12: label: Input should be ...".

    Returns:
        The valid answers, in file order.
    """
    answers: list[EvalAnswer] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        where = f"{path.name}:{number}"
        if not line.strip():
            errors.append(f"{where}: blank line")
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not JSON ({exc.msg}, column {exc.colno})")
            continue
        try:
            answers.append(EvalAnswer.model_validate(raw))
        except ValidationError as exc:
            for err in exc.errors():
                field = ".".join(str(part) for part in err["loc"]) or "line"
                errors.append(f"{where}: {field}: {err['msg']}")
    return answers


def check(dev: list[EvalAnswer], test: list[EvalAnswer]) -> list[str]:
    """Check coverage, duplicates and the split rule across both files.

    Args:
        dev: answers read from dev.jsonl.
        test: answers read from test.jsonl.

    Returns:
        Error messages; empty when the set is valid.
    """
    errors: list[str] = []
    seen: dict[tuple[str, str], str] = {}
    for name, answers in (("dev.jsonl", dev), ("test.jsonl", test)):
        for answer in answers:
            key = (answer.item_id, answer.text)
            if key in seen:
                errors.append(f"{name}: {answer.item_id}: duplicate text (also in {seen[key]})")
            seen[key] = name
    for name, answers in (("dev.jsonl", dev), ("test.jsonl", test)):
        present = {(a.item_id, a.label) for a in answers}
        for item_id in ITEM_IDS:
            for label in LABELS:
                if (item_id, label) not in present:
                    errors.append(f"{name}: {item_id}: no {label} answer")
            if not any(a.item_id == item_id and a.opposite_claim for a in answers):
                errors.append(f"{name}: {item_id}: no opposite_claim answer")
    expected = assign_split([*dev, *test])
    for name, split, answers in (("dev.jsonl", "dev", dev), ("test.jsonl", "test", test)):
        for answer in answers:
            if expected.get(answer) != split:
                errors.append(
                    f"{name}: {answer.item_id}: {answer.text[:40]!r} belongs in "
                    f"{expected.get(answer)} by the split rule"
                )
    return errors


def summary(dev: list[EvalAnswer], test: list[EvalAnswer]) -> str:
    """Counts per item and label for each split, as a plain-text table."""
    lines = [f"{'item':<6}{'dev C/P/I':>12}{'test C/P/I':>13}{'opposite':>10}"]
    counts = {
        name: Counter((a.item_id, a.label) for a in answers)
        for name, answers in (("dev", dev), ("test", test))
    }
    for item_id in ITEM_IDS:
        cells = [
            "/".join(str(counts[name][(item_id, label)]) for label in LABELS)
            for name in ("dev", "test")
        ]
        opposite = sum(a.opposite_claim for a in [*dev, *test] if a.item_id == item_id)
        lines.append(f"{item_id:<6}{cells[0]:>12}{cells[1]:>13}{opposite:>10}")
    for name, answers in (("dev", dev), ("test", test)):
        by_label = Counter(a.label for a in answers)
        shown = ", ".join(f"{label} {by_label[label]}" for label in LABELS)
        opposite = sum(a.opposite_claim for a in answers)
        lines.append(f"{name}: {len(answers)} answers ({shown}; opposite_claim {opposite})")
    return "\n".join(lines)


def main() -> int:
    """Validate both files, print the counts; return the process exit status."""
    errors: list[str] = []
    dev = load(DEV_PATH, errors)
    test = load(TEST_PATH, errors)
    if not errors:
        errors = check(dev, test)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    print(summary(dev, test))
    return 0


if __name__ == "__main__":
    sys.exit(main())
