"""Structural check of the held-out examiner set test2.jsonl (reads no rubric, prints no texts).

Run: python tests/grading/eval3/validate_set.py [path]
"""

import collections
import json
import pathlib
import re
import sys

# Correct verdicts of the true/false items (from the public item view).
TF = {
    "TF1": False,
    "TF2": False,
    "TF3": False,
    "TF4": True,
    "TF5": False,
    "TF6": False,
    "TF7": False,
    "TF8": True,
    "TF9": False,
    "TF10": False,
    "TF11": False,
    "TF12": False,
    "TF13": True,
    "TF14": False,
}
OTHER = (
    [f"SE{i}" for i in range(1, 13)]
    + [f"WHY{i}" for i in range(1, 12)]
    + [f"EC{i}" for i in range(1, 14)]
)
ITEMS = set(TF) | set(OTHER)
LABELS = {"correct", "partial", "incorrect"}
FIELDS = {
    "item_id": str,
    "verdict": (bool, type(None)),
    "text": str,
    "label": str,
    "style": str,
    "opposite_claim": bool,
}
TRUE_OPEN = re.compile(r"^\s*((it|this|that) is |that'?s )?(true|yes|yep|correct)\b", re.I)
FALSE_OPEN = re.compile(r"^\s*((it|this|that) is |that'?s )?(false|no|nope|nah|not true)\b", re.I)


def text_verdict(text):
    if FALSE_OPEN.match(text):
        return False
    if TRUE_OPEN.match(text):
        return True
    return None


def main(path):
    errors, rows = [], []
    for n, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: invalid JSON ({e})")
            continue
        if set(r) != set(FIELDS):
            errors.append(f"line {n}: fields {sorted(r)}")
            continue
        for k, t in FIELDS.items():
            if not isinstance(r[k], t):
                errors.append(f"line {n}: {k} has type {type(r[k]).__name__}")
        if r["item_id"] not in ITEMS:
            errors.append(f"line {n}: unknown item {r['item_id']}")
        if r["label"] not in LABELS:
            errors.append(f"line {n}: label {r['label']!r}")
        if not r["text"].strip():
            errors.append(f"line {n}: empty text")
        if r["opposite_claim"] and r["label"] != "incorrect":
            errors.append(f"line {n}: opposite_claim but label {r['label']}")
        if r["item_id"] in TF:
            want = TF[r["item_id"]]
            v = r["verdict"] if r["verdict"] is not None else text_verdict(r["text"])
            if r["label"] != "incorrect" and v != want:
                errors.append(f"line {n}: {r['item_id']} label {r['label']} with verdict {v}")
            if r["verdict"] is not None and r["verdict"] != want and r["label"] != "incorrect":
                errors.append(f"line {n}: wrong button must be incorrect")
        elif r["verdict"] is not None:
            errors.append(f"line {n}: verdict on a non-true_false item")
        rows.append(r)
    texts = collections.Counter(r["text"].strip().lower() for r in rows)
    errors += [f"duplicate text ({c}x)" for t, c in texts.items() if c > 1]
    per = collections.defaultdict(collections.Counter)
    opp = collections.Counter()
    for r in rows:
        per[r["item_id"]][r["label"]] += 1
        opp[r["item_id"]] += r["opposite_claim"]
    for i in sorted(ITEMS):
        if i not in per:
            errors.append(f"{i}: no answers")
            continue
        missing = LABELS - set(per[i])
        if missing:
            errors.append(f"{i}: missing labels {sorted(missing)}")
        if opp[i] < 1:
            errors.append(f"{i}: no opposite-claim answer")
    total = collections.Counter(r["label"] for r in rows)
    print(
        f"{len(rows)} answers, {len(per)} items, labels {dict(sorted(total.items()))}, "
        f"opposite_claim {sum(opp.values())}, "
        f"tf no-button {sum(1 for r in rows if r['item_id'] in TF and r['verdict'] is None)}"
    )
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    default = pathlib.Path(__file__).with_name("test2.jsonl")
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else default))
