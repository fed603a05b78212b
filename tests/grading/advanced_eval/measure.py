"""Measure the grader on the rubric author's fresh answers to the autograd-advanced items.

Run from the repository root::

    python tests/grading/advanced_eval/measure.py              # per-item numbers, both splits
    python tests/grading/advanced_eval/measure.py --misses tune  # list the tune split's misses

`answers.jsonl` holds answers to the 21 items of `content/autograd-advanced.yaml` (TF9-TF14,
SE8-SE12, WHY8-WHY11, EC8-EC13), written and labelled by docs/MARKING.md *before* any of them
was graded (see README.md beside this file). They are split like the examiner's set
(`tests/grading/eval/validate.py`'s `assign_split` rule: grouped by item and label, ordered by
SHA-256 of "item_id\\ntext" with opposite-claim answers spread evenly, the first 60% of each
group to `tune`, the rest to `holdout`). Rubrics may be tuned on `tune`; `holdout` is only
measured (this script never prints its texts).

`round2.jsonl` is a second round of answers written the same way after round 1 was tuned
on; its first grading is the column's "before" number in README.md.

Exit status 0; this is a report, not a gate.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from bot.content.loader import load_bank  # noqa: E402
from bot.grading import Grader, Response  # noqa: E402

ANSWERS_PATH = HERE / "answers.jsonl"
ROUND2_PATH = HERE / "round2.jsonl"
"""A second round, written after tuning on round 1's tune split and graded once before
any further tuning (the "round2" column), then used for tuning too."""
PACK_PATH = ROOT / "content" / "autograd-advanced.yaml"
TUNE_FRACTION = 0.6
"""Share of each (item, label) group in the tune split, as in the examiner's dev split."""

Label = Literal["correct", "partial", "incorrect"]
Split = Literal["tune", "holdout", "round2"]
RANK = {"incorrect": 0, "partial": 1, "correct": 2}


class FreshAnswer(BaseModel):
    """One marked answer, one JSON line (the examiner's fields, `EvalAnswer`)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    item_id: str
    verdict: bool | None
    text: str = Field(min_length=1, max_length=4000)
    label: Label
    style: str = Field(min_length=1)
    opposite_claim: bool


def _order_key(answer: FreshAnswer) -> str:
    return hashlib.sha256(f"{answer.item_id}\n{answer.text}".encode()).hexdigest()


def assign_split(answers: list[FreshAnswer]) -> dict[FreshAnswer, Split]:
    """Split answers into tune and holdout by the examiner's rule (validate.assign_split).

    Args:
        answers: every answer, any order.

    Returns:
        The split of each answer: the first round(0.6 * n) of each (item, label) group of n,
        ordered by SHA-256 with opposite-claim answers spread evenly, go to tune.
    """
    groups: dict[tuple[str, str], list[FreshAnswer]] = defaultdict(list)
    for answer in answers:
        groups[(answer.item_id, answer.label)].append(answer)
    result: dict[FreshAnswer, Split] = {}
    for members in groups.values():
        kinds: dict[bool, list[FreshAnswer]] = defaultdict(list)
        for answer in members:
            kinds[answer.opposite_claim].append(answer)
        placed: list[tuple[float, str, FreshAnswer]] = []
        for kind in kinds.values():
            kind.sort(key=_order_key)
            placed.extend(((j + 0.5) / len(kind), _order_key(a), a) for j, a in enumerate(kind))
        placed.sort(key=lambda entry: (entry[0], entry[1]))
        n = len(placed)
        n_tune = n if n == 1 else min(n - 1, max(1, int(TUNE_FRACTION * n + 0.5)))
        for index, (_, _, answer) in enumerate(placed):
            result[answer] = "tune" if index < n_tune else "holdout"
    return result


def load_answers(path: Path = ANSWERS_PATH) -> list[FreshAnswer]:
    """Read `answers.jsonl`.

    Raises:
        ValueError: a line that is not a valid answer, naming the line.
    """
    answers = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            answers.append(FreshAnswer.model_validate(json.loads(line)))
        except ValueError as exc:
            raise ValueError(f"{path.name}:{number}: {exc}") from None
    return answers


def main(argv: list[str] | None = None) -> int:
    """Print per-item agreement for each split; list misses of the splits named by --misses."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misses", choices=["tune", "round2"], action="append", default=[])
    parser.add_argument("--item", action="append", default=[])
    parser.add_argument(
        "--confusion",
        action="store_true",
        help="per item, how the holdout's misgraded answers were marked and graded (no texts)",
    )
    args = parser.parse_args(argv)

    grader = Grader(load_bank([PACK_PATH]))
    answers = load_answers()
    split: dict[FreshAnswer, Split] = dict(assign_split(answers))
    round2 = load_answers(ROUND2_PATH)
    split.update(dict.fromkeys(round2, "round2"))
    answers = [*answers, *round2]
    stats: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    misses: list[str] = []
    confusion: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for answer in answers:
        if args.item and answer.item_id not in args.item:
            continue
        result = grader.grade(
            Response(item_id=answer.item_id, verdict=answer.verdict, text=answer.text)
        )
        got = result.label.value
        where = split[answer]
        for key in ((answer.item_id, where), ("ALL", where)):
            row = stats[key]
            row[0] += 1
            row[1] += got == answer.label
            row[2] += answer.label == "incorrect"
            row[3] += answer.label == "incorrect" and got == "correct"
            row[4] += answer.opposite_claim
            row[5] += answer.opposite_claim and got == "correct"
        if got != answer.label and where == "holdout":
            confusion[answer.item_id][f"{answer.label}->{got}"] += 1
        if got != answer.label and where in args.misses:
            sign = "+" if RANK[got] > RANK[answer.label] else "-"
            misses.append(
                f"{sign} {answer.item_id} {answer.label}->{got} {result.score:.2f} "
                f"[{answer.style}] v={answer.verdict} | {answer.text[:160]!r}"
            )
    splits: tuple[Split, ...] = ("tune", "holdout", "round2")
    print(f"{'item':<7}{'tune':>12}{'holdout':>12}{'round2':>12}   inc->cor  opp->cor")
    ids = [*sorted({k[0] for k in stats if k[0] != "ALL"}, key=_item_order), "ALL"]
    for item_id in ids:
        cells = []
        bad = [0, 0, 0, 0]
        for where in splits:
            n, agree, inc, inc_cor, opp, opp_cor = stats[(item_id, where)]
            cells.append(f"{agree:>4}/{n:<3}{(agree / n if n else 0):>4.0%}")
            bad = [bad[0] + inc_cor, bad[1] + inc, bad[2] + opp_cor, bad[3] + opp]
        unsafe = f"{bad[0]:>3}/{bad[1]:<4} {bad[2]:>3}/{bad[3]}"
        print(f"{item_id:<7}{cells[0]:>12}{cells[1]:>12}{cells[2]:>12}   {unsafe}")
    for line in misses:
        print(line)
    if args.confusion:
        for item_id in sorted(confusion, key=_item_order):
            cells = ", ".join(f"{k} x{v}" for k, v in sorted(confusion[item_id].items()))
            print(f"holdout {item_id}: {cells}")
    return 0


def _item_order(item_id: str) -> tuple[int, int]:
    prefix = item_id.rstrip("0123456789")
    return (["TF", "SE", "WHY", "EC"].index(prefix), int(item_id[len(prefix) :]))


if __name__ == "__main__":
    raise SystemExit(main())
