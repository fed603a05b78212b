"""Sanity checks for tests/grading/eval-adv/dev.jsonl (run: python validate.py [path])."""

import collections
import json
import pathlib
import sys

ITEMS = (
    [f"TF{i}" for i in range(9, 15)]
    + [f"SE{i}" for i in range(8, 13)]
    + [f"WHY{i}" for i in range(8, 12)]
    + [f"EC{i}" for i in range(8, 14)]
)
TF_TRUTH = {"TF9": False, "TF10": False, "TF11": False, "TF12": False, "TF13": True, "TF14": False}
LABELS = {"correct", "partial", "incorrect"}
KEYS = {"item_id", "verdict", "text", "label", "style", "opposite_claim"}


def main(path):
    errors, texts = [], set()
    per = collections.defaultdict(collections.Counter)
    opp = collections.Counter()
    for n, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"line {n}: bad JSON ({e})")
            continue
        if set(r) != KEYS:
            errors.append(f"line {n}: keys {sorted(r)}")
            continue
        item = r["item_id"]
        if item not in ITEMS:
            errors.append(f"line {n}: unknown item {item}")
        if r["label"] not in LABELS:
            errors.append(f"line {n}: label {r['label']!r}")
        if not isinstance(r["text"], str) or not r["text"].strip():
            errors.append(f"line {n}: empty text")
        if not isinstance(r["style"], str) or not isinstance(r["opposite_claim"], bool):
            errors.append(f"line {n}: style/opposite_claim types")
        if item in TF_TRUTH:
            if r["verdict"] not in (True, False, None):
                errors.append(f"line {n}: verdict {r['verdict']!r}")
            # a wrong button can never be better than incorrect (MARKING.md)
            if (
                r["verdict"] is not None
                and r["verdict"] != TF_TRUTH[item]
                and r["label"] != "incorrect"
            ):
                errors.append(f"line {n}: wrong button but label {r['label']}")
        elif r["verdict"] is not None:
            errors.append(f"line {n}: verdict set on non-true_false item")
        if r["opposite_claim"] and r["label"] != "incorrect":
            errors.append(f"line {n}: opposite_claim must be incorrect")
        key = " ".join(r["text"].lower().split())
        if key in texts:
            errors.append(f"line {n}: duplicate text")
        texts.add(key)
        per[item][r["label"]] += 1
        opp[item] += r["opposite_claim"]
    for item in ITEMS:
        if item not in per:
            errors.append(f"{item}: missing")
        elif set(per[item]) != LABELS:
            errors.append(f"{item}: labels {dict(per[item])}")
        if opp[item] < 2:
            errors.append(f"{item}: only {opp[item]} opposite-claim answers")
    total = collections.Counter()
    for item in ITEMS:
        c = per[item]
        total.update(c)
        print(
            f"{item:6} C={c['correct']:2} P={c['partial']:2} I={c['incorrect']:2} opp={opp[item]}"
        )
    print("total", sum(total.values()), dict(total), "opposite_claim", sum(opp.values()))
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(
        main(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).with_name("dev.jsonl"))
    )
