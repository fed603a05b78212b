"""Validate dev2.jsonl (examiner 2's development set). Run: python check_dev2.py"""

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ITEMS = (
    [f"TF{i}" for i in range(1, 9)]
    + [f"SE{i}" for i in range(1, 8)]
    + [f"WHY{i}" for i in range(1, 8)]
    + [f"EC{i}" for i in range(1, 8)]
)
LABELS = {"correct", "partial", "incorrect"}
FIELDS = {"item_id", "verdict", "text", "label", "style", "opposite_claim"}


DEV2 = Path(__file__).with_name("dev2.jsonl")


def main(path=DEV2):
    errors, seen = [], set()
    per_item = defaultdict(Counter)
    opp = Counter()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: bad JSON ({e})")
            continue
        if set(row) != FIELDS:
            errors.append(f"line {n}: fields {sorted(row)}")
            continue
        iid = row["item_id"]
        if iid not in ITEMS:
            errors.append(f"line {n}: unknown item {iid}")
        if row["label"] not in LABELS:
            errors.append(f"line {n}: label {row['label']!r}")
        if not isinstance(row["text"], str) or not row["text"].strip():
            errors.append(f"line {n}: empty text")
        if not isinstance(row["style"], str) or not row["style"]:
            errors.append(f"line {n}: style")
        if not isinstance(row["opposite_claim"], bool):
            errors.append(f"line {n}: opposite_claim not bool")
        if iid.startswith("TF"):
            if row["verdict"] not in (True, False, None):
                errors.append(f"line {n}: verdict {row['verdict']!r}")
        elif row["verdict"] is not None:
            errors.append(f"line {n}: verdict on non-true_false item")
        if row["opposite_claim"] and row["label"] != "incorrect":
            errors.append(f"line {n}: opposite_claim must be incorrect")
        key = " ".join(row["text"].lower().split())
        if key in seen:
            errors.append(f"line {n}: duplicate text")
        seen.add(key)
        per_item[iid][row["label"]] += 1
        opp[iid] += row["opposite_claim"]
    for iid in ITEMS:
        if set(per_item[iid]) != LABELS:
            errors.append(f"{iid}: labels present {dict(per_item[iid])}")
        if opp[iid] < 2:
            errors.append(f"{iid}: only {opp[iid]} opposite_claim answers")
    total = Counter()
    for c in per_item.values():
        total.update(c)
    print(
        f"{sum(total.values())} answers, {len(per_item)} items, labels {dict(total)}, "
        f"opposite_claim {sum(opp.values())}"
    )
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
