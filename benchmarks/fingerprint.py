"""Grade fingerprint: proof that a grader change (a speed-up) leaves every grade unchanged.

Grades one fixed corpus and hashes every ``GradeResult`` (its ``model_dump_json``):

* every marked set (``tests/grading/eval*/*.jsonl``, ``tests/grading/advanced_eval/*.jsonl``)
  against the shipped bank (``content/``);
* every item's marked ``samples`` in the shipped bank;
* ``tests/grading/answers.yaml`` against ``tests/grading/pack.yaml``;
* the speed benchmark's generated 1,000-character answers (:mod:`benchmarks.grading`), on
  the test pack and on the shipped bank;
* mutated answers: bank samples and marked answers with seeded typos, case changes,
  inserted punctuation, markdown, Unicode and negations, so the rarer paths (typo
  tolerance, cache misses, normalisation) are covered too.

The whole corpus is graded twice in one process; the second (warm-cache) pass must equal
the first, so a cache that changes a result is caught even without a reference.

Two ways to compare:

* ``--against REV`` (default ``main``): the grading engine (``bot/``) of git revision REV is
  extracted to a temporary directory and run in a subprocess on the same corpus and the
  same ``content/`` as this tree, so content edits on other branches never make the check
  stale;
* ``--save FILE`` / ``--check FILE``: record the digests once, compare later.

Only counts and line numbers are printed, never an answer's text (some sets are held out).
Exit status 1 on any difference (or a warm pass unlike the cold one), 0 otherwise.

Usage (from the repository root)::

    python -m benchmarks.fingerprint                  # this tree against main's engine
    python -m benchmarks.fingerprint --against HEAD~1
    python -m benchmarks.fingerprint --save /tmp/grades.json
    python -m benchmarks.fingerprint --check /tmp/grades.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # bot is imported late: --engine may put another version first
    from bot.grading import Grader, Response

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
PACK = ROOT / "tests/grading/pack.yaml"
ANSWERS = ROOT / "tests/grading/answers.yaml"
MARKED_GLOBS = ("tests/grading/eval*/*.jsonl", "tests/grading/advanced_eval/*.jsonl")
BENCH_ANSWERS = 1500
"""Generated 1,000-character answers per grader (pack and bank)."""
MUTANTS_PER_TEXT = 2
"""Mutated copies of each bank sample and marked answer."""

Corpus = dict[str, list[tuple["Response", str]]]
"""Set name -> (response, label shown on a difference: a line or an index, never text)."""

_NOISE = [
    " not",
    " don't",
    ",",
    ".",
    "?",
    " - ",
    "`",
    "**",
    "_",
    "é",
    "’",
    " 8",
    " = ",
    "\n",
    " x.grad",
    " zero_grad()",
    " btw",
    " also",
    " i think",
]


def _mutate(text: str, rng: random.Random) -> str:
    """``text`` with one to three seeded edits (typo, case, noise), at most 4,000 chars."""
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        if not chars:
            break
        at = rng.randrange(len(chars))
        edit = rng.randrange(6)
        if edit == 0 and at + 1 < len(chars):
            chars[at], chars[at + 1] = chars[at + 1], chars[at]
        elif edit == 1:
            del chars[at]
        elif edit == 2:
            chars.insert(at, rng.choice("abcdefghijklmnopqrstuvwxyz"))
        elif edit == 3:
            chars[at] = chars[at].upper()
        else:
            chars[at:at] = list(rng.choice(_NOISE))
    return "".join(chars)[:4000] or "x"


def build_corpus() -> tuple[Corpus, dict[str, Grader]]:
    """Every response of the corpus by set, and the grader each set is graded with."""
    import yaml

    from benchmarks.grading import make_answers
    from bot.content.loader import load_bank
    from bot.grading import Grader, Response
    from bot.grading.evaluation import load_marked

    bank_grader = Grader(load_bank([CONTENT]))
    pack_grader = Grader(load_bank([PACK]))
    corpus: Corpus = {}
    graders: dict[str, Grader] = {}
    rng = random.Random(4)
    mutants: list[tuple[Response, str]] = []

    def add(name: str, grader: Grader, entries: list[tuple[Response, str]]) -> None:
        corpus[name] = entries
        graders[name] = grader

    for pattern in MARKED_GLOBS:
        for path in sorted(ROOT.glob(pattern)):
            entries = [
                (Response(item_id=a.item_id, verdict=a.verdict, text=a.text), f"line {a.line}")
                for a in load_marked(path)
                if a.item_id in bank_grader
            ]
            add(str(path.relative_to(ROOT)), bank_grader, entries)
    samples = [
        (Response(item_id=item.id, verdict=s.verdict, text=s.text), f"{item.id} sample {k}")
        for item_id in bank_grader.item_ids
        for item in (bank_grader.item(item_id),)
        for k, s in enumerate(item.samples)
    ]
    add("bank samples", bank_grader, samples)
    for name in list(corpus):
        for response, where in corpus[name]:
            for m in range(MUTANTS_PER_TEXT):
                text = _mutate(response.text, rng)
                mutants.append(
                    (response.model_copy(update={"text": text}), f"{name} {where} mutant {m}")
                )
    add("mutated", bank_grader, mutants)
    raw = yaml.safe_load(ANSWERS.read_text(encoding="utf-8"))
    add(
        "answers.yaml",
        pack_grader,
        [
            (Response(item_id=group.split("-")[0], verdict=e["v"], text=e["t"]), f"{group} {k}")
            for group, entries in raw.items()
            for k, e in enumerate(entries)
        ],
    )
    for name, grader in (("pack", pack_grader), ("bank", bank_grader)):
        generated = make_answers(grader, BENCH_ANSWERS, seed=1)
        add(f"benchmark answers ({name})", grader, [(r, f"#{k}") for k, r in enumerate(generated)])
    return corpus, graders


def digests(corpus: Corpus, graders: dict[str, Grader]) -> dict[str, list[str]]:
    """Per set, one short hash per response: its grade's JSON, or the exception's type."""
    out: dict[str, list[str]] = {}
    for name, entries in corpus.items():
        grader = graders[name]
        hashes: list[str] = []
        for response, _ in entries:
            try:
                text = grader.grade(response).model_dump_json()
            except Exception as exc:  # a raise is a result to compare too
                text = f"raised {type(exc).__name__}"
            hashes.append(hashlib.sha256(text.encode()).hexdigest()[:16])
        out[name] = hashes
    return out


def run(engine: Path | None) -> dict[str, Any]:
    """Grade the corpus twice with the engine in ``engine`` (None: this tree)."""
    if engine is not None:
        sys.path.insert(0, str(engine))
    import bot

    corpus, graders = build_corpus()
    cold = digests(corpus, graders)
    warm = digests(corpus, graders)
    return {
        "engine": str(Path(bot.__file__).resolve().parent),
        "labels": {name: [where for _, where in entries] for name, entries in corpus.items()},
        "cold": cold,
        "warm": warm,
    }


def engine_of(revision: str, into: Path) -> Path:
    """Extract ``bot/`` of git ``revision`` into ``into``; returns ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "bot"],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryFile() as file:
        file.write(archive)
        file.seek(0)
        with tarfile.open(fileobj=file) as tar:
            tar.extractall(into, filter="data")
    return into


def compare(name_a: str, a: dict[str, list[str]], name_b: str, b: dict[str, Any]) -> int:
    """Print per-set agreement between two digest maps; returns the number of differences."""
    labels: dict[str, list[str]] = b["labels"]
    other: dict[str, list[str]] = b["cold"]
    differences = 0
    for name in sorted(set(a) | set(other)):
        mine, theirs = a.get(name), other.get(name)
        if mine is None or theirs is None or len(mine) != len(theirs):
            print(f"  {name}: only in one of {name_a} / {name_b}, or sizes differ")
            differences += 1
            continue
        bad = [k for k, (x, y) in enumerate(zip(mine, theirs, strict=True)) if x != y]
        differences += len(bad)
        status = "identical" if not bad else f"{len(bad)} DIFFERENT"
        print(f"  {name:<44}{len(mine):>6} grades  {status}")
        for k in bad[:10]:
            print(f"      {labels[name][k]}")
    return differences


def main(argv: list[str] | None = None) -> int:
    """Run the check; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="main", help="git revision (default: main)")
    parser.add_argument("--save", type=Path, help="write this tree's digests to FILE")
    parser.add_argument("--check", type=Path, help="compare with digests saved in FILE")
    parser.add_argument("--engine", type=Path, help=argparse.SUPPRESS)  # subprocess use
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)  # subprocess use
    args = parser.parse_args(argv)

    if args.dump is not None:
        args.dump.write_text(json.dumps(run(args.engine)), encoding="utf-8")
        return 0
    mine = run(None)
    total = sum(len(v) for v in mine["cold"].values())
    unstable = [
        (name, k)
        for name, hashes in mine["cold"].items()
        for k, (x, y) in enumerate(zip(hashes, mine["warm"][name], strict=True))
        if x != y
    ]
    print(f"{total} grades over {len(mine['cold'])} sets; engine {mine['engine']}")
    if unstable:
        print(f"warm pass differs from the cold one on {len(unstable)} answers:")
        for name, k in unstable[:10]:
            print(f"      {name}: {mine['labels'][name][k]}")
    else:
        print("warm pass: identical to the cold one")
    if args.save is not None:
        args.save.write_text(json.dumps(mine), encoding="utf-8")
        print(f"saved to {args.save}")
        return 1 if unstable else 0
    if args.check is not None:
        reference = json.loads(args.check.read_text(encoding="utf-8"))
        print(f"against {args.check} (engine {reference['engine']}):")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            engine = engine_of(args.against, Path(tmp) / "engine")
            dump = Path(tmp) / "dump.json"
            command = [sys.executable, "-m", "benchmarks.fingerprint"]
            subprocess.run(
                [*command, "--engine", str(engine), "--dump", str(dump)],
                check=True,
                cwd=ROOT,
            )
            reference = json.loads(dump.read_text(encoding="utf-8"))
        print(f"against the engine of {args.against}:")
    differences = compare("this tree", mine["cold"], "the reference", reference)
    print("IDENTICAL" if not differences and not unstable else f"{differences} DIFFERENCES")
    return 1 if differences or unstable else 0


if __name__ == "__main__":
    sys.exit(main())
