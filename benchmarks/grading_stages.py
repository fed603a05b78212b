"""Grading time per pipeline stage, for comparing two engines (pure Python, the compiled copy).

Each stage runs alone over the same 1,000-character answers :mod:`benchmarks.grading`
generates, inputs prepared beforehand (normalise on the raw text, segment on normalised
text, negation scopes on token streams, the per-answer ``Matcher`` and then every concept
and misconception rule, and the whole grade), timed in CPU time; the best of ``--rounds``
is printed in µs per answer. Run it from this tree and from ``build/compiled``
(``scripts/build-compiled-grader``), alternating, to see which stage a change moved: the
figures of docs/GRADING.md "Speed, round 5" come from it.

Usage (from the repository root)::

    python -m benchmarks.grading_stages [--content tests/grading/pack.yaml] [--rounds 3]
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.grading import make_answers
from bot.content.loader import load_bank
from bot.grading import Grader
from bot.grading import grader as grader_module
from bot.grading.matching import Matcher
from bot.grading.negation import scope
from bot.grading.normalize import normalize
from bot.grading.sentences import segment

ANSWERS = 3000


def main(argv: list[str] | None = None) -> None:
    """Time each stage and print one line: µs per answer, and answers/s for the grade."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--content", type=Path, default=Path("tests/grading/pack.yaml"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    grader = Grader(load_bank([args.content]))
    answers = make_answers(grader, ANSWERS, seed=1)
    for response in make_answers(grader, 300, seed=2) + answers:  # warm every cache
        grader.grade(response)
    texts = [r.text for r in answers]
    normalised = [normalize(t) for t in texts]
    streams = [segment(t) for t in normalised]
    negations = [scope(s) for s in streams]
    compiled = [grader._items[r.item_id] for r in answers]
    prepared = list(zip(compiled, streams, negations, strict=True))

    def matchers() -> None:
        for item, stream, negation in prepared:
            Matcher(item.compiler, stream, negation)

    def rules() -> None:
        for item, stream, negation in prepared:
            matcher = Matcher(item.compiler, stream, negation)
            for rule in item.concepts + item.misconceptions:
                matcher.rule(rule)

    stages: list[tuple[str, Callable[[], object]]] = [
        ("normalise", lambda: [normalize(t) for t in texts]),
        ("segment", lambda: [segment(t) for t in normalised]),
        ("negation", lambda: [scope(s) for s in streams]),
        ("matcher", matchers),
        ("matcher+rules", rules),
        ("grade", lambda: [grader.grade(r) for r in answers]),
    ]
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, run in stages:
            gc.collect()
            start = time.thread_time()
            run()
            per_answer = (time.thread_time() - start) / len(answers) * 1e6
            best[name] = min(best.get(name, per_answer), per_answer)
    engine = "pure" if grader_module.__file__.endswith(".py") else "compiled"
    cells = "  ".join(f"{name} {us:.1f}" for name, us in best.items())
    print(f"{engine:<8} µs/answer: {cells}  => {1e6 / best['grade']:,.0f}/s")


if __name__ == "__main__":
    main()
