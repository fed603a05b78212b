"""Check the dev4 examiner set: run `python tests/grading/eval6/validate.py` from the repo root.

It checks what the brief for this set asks for: every line is a JSON object with the fields
item_id, verdict, text, label, style and opposite_claim of the right types; labels are
correct/partial/incorrect; verdict is set only for true_false items; every item listed in
/work/notes/items_public.md (or the ids given with --items) has all three labels and at least
one "right words, opposite claim" answer; no text repeats; opposite_claim only on incorrect.
"""

import argparse
import collections
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
LABELS = ("correct", "partial", "incorrect")
FIELDS = {"item_id", "verdict", "text", "label", "style", "opposite_claim"}


def item_kinds(items_md: Path) -> dict[str, str]:
    """Map item id to kind from the examiners' public item list.

    Args:
        items_md: the markdown file with one "## ID (kind, difficulty N)" heading per item.

    Returns:
        item id -> kind, e.g. {"TF3": "true_false"}.
    """
    text = items_md.read_text(encoding="utf-8")
    return dict(re.findall(r"^## (\w+) \((\w+),", text, re.M))


def problems(path: Path, kinds: dict[str, str]) -> list[str]:
    """List every problem found in a JSON-lines examiner set.

    Args:
        path: the .jsonl file.
        kinds: item id -> kind, from item_kinds().

    Returns:
        One message per problem, naming the line and item; empty when the set is valid.
    """
    errs: list[str] = []
    seen: set[str] = set()
    per: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            errs.append(f"{path}:{n}: not JSON ({e})")
            continue
        if not isinstance(row, dict) or set(row) != FIELDS:
            errs.append(f"{path}:{n}: fields must be exactly {sorted(FIELDS)}")
            continue
        iid = row["item_id"]
        where = f"{path}:{n} ({iid})"
        if iid not in kinds:
            errs.append(f"{where}: unknown item id")
        if row["label"] not in LABELS:
            errs.append(f"{where}: label {row['label']!r} not one of {LABELS}")
        if kinds.get(iid) == "true_false":
            if row["verdict"] not in (True, False, None):
                errs.append(f"{where}: verdict must be true, false or null")
        elif row["verdict"] is not None:
            errs.append(f"{where}: verdict given on a {kinds.get(iid)} item")
        if not isinstance(row["text"], str) or not row["text"].strip():
            errs.append(f"{where}: empty text")
            continue
        if not isinstance(row["style"], str) or not row["style"]:
            errs.append(f"{where}: empty style")
        if not isinstance(row["opposite_claim"], bool):
            errs.append(f"{where}: opposite_claim must be a boolean")
        elif row["opposite_claim"] and row["label"] != "incorrect":
            errs.append(f"{where}: opposite_claim on a {row['label']} answer")
        key = " ".join(row["text"].lower().split())
        if key in seen:
            errs.append(f"{where}: duplicate text")
        seen.add(key)
        per[iid][row["label"]] += 1
        per[iid]["opposite_claim"] += row["opposite_claim"] is True
    for iid in kinds:
        for need in (*LABELS, "opposite_claim"):
            if per[iid][need] == 0:
                errs.append(f"{path}: item {iid} has no {need} answer")
    return errs


def main() -> int:
    """Validate the set and print its counts; exit status 1 when a problem is found."""
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl", nargs="?", type=Path, default=HERE / "dev4.jsonl")
    ap.add_argument("--items", type=Path, default=Path("/work/notes/items_public.md"))
    args = ap.parse_args()
    kinds = item_kinds(args.items)
    errs = problems(args.jsonl, kinds)
    if errs:
        print("\n".join(errs))
        return 1
    rows = [json.loads(line) for line in args.jsonl.read_text(encoding="utf-8").splitlines()]
    labels = collections.Counter(r["label"] for r in rows)
    opposite = sum(r["opposite_claim"] for r in rows)
    print(f"{len(rows)} answers, {len(kinds)} items, {dict(labels)}, opposite_claim {opposite}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
