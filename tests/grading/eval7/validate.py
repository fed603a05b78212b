"""Validate the eval7 held-out set: shape, counts and label rules, never the texts' content.

Usage: python tests/grading/eval7/validate.py [path]. Exits 1 and names the line on any problem.
"""

import collections
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
ITEMS = Path("/work/notes/items_public.md")
EXPECTED = {"correct": 3, "partial": 3, "incorrect": 4}
FIELDS = {"item_id", "verdict", "text", "label", "style", "opposite_claim"}


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "test4.jsonl"
    kinds = dict(re.findall(r"^## (\w+) \((\w+),", ITEMS.read_text(), re.M))
    errors: list[str] = []
    per_item: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    opp: collections.Counter[str] = collections.Counter()
    texts: set[str] = set()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: not JSON ({e})")
            continue
        if set(row) != FIELDS:
            errors.append(f"line {n}: fields {sorted(row)}")
            continue
        item, verdict, label = row["item_id"], row["verdict"], row["label"]
        if item not in kinds:
            errors.append(f"line {n}: unknown item {item}")
            continue
        if label not in EXPECTED:
            errors.append(f"line {n}: label {label!r}")
        if kinds[item] == "true_false":
            if verdict is not None and not isinstance(verdict, bool):
                errors.append(f"line {n}: verdict {verdict!r}")
        elif verdict is not None:
            errors.append(f"line {n}: verdict on a {kinds[item]} item")
        if not isinstance(row["text"], str) or not row["text"].strip():
            errors.append(f"line {n}: empty text")
        if not isinstance(row["style"], str) or not row["style"]:
            errors.append(f"line {n}: empty style")
        if not isinstance(row["opposite_claim"], bool):
            errors.append(f"line {n}: opposite_claim not bool")
        elif row["opposite_claim"]:
            opp[item] += 1
            if label != "incorrect":
                errors.append(f"line {n}: opposite_claim on a {label} answer")
        key = " ".join(row["text"].lower().split())
        if key in texts:
            errors.append(f"line {n}: duplicate text")
        texts.add(key)
        per_item[item][label] += 1
    for item in kinds:
        if dict(per_item[item]) != EXPECTED:
            errors.append(f"{item}: labels {dict(per_item[item])}, expected {EXPECTED}")
        if opp[item] < 1:
            errors.append(f"{item}: no opposite_claim answer")
    if sum(1 for i in kinds if opp[i] >= 2) * 2 < len(kinds):
        errors.append("fewer than half the items have 2+ opposite_claim answers")
    for problem in errors:
        print(problem)
    total = collections.Counter(lab for c in per_item.values() for lab in c.elements())
    two_plus = sum(1 for i in kinds if opp[i] >= 2)
    print(
        f"{sum(total.values())} answers, {len(per_item)} items, {dict(total)}, "
        f"opposite_claim {sum(opp.values())} ({two_plus} items with 2+)"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
