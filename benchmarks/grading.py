"""Grading throughput and latency on 1,000-character answers (issue 4 targets).

Targets: at least 5,000 answers per second in one process, p99 latency at most 2 ms.

Answers are built from realistic learner phrases (negations, code, numbers, typos,
markdown) and each item's own samples, cut to 1,000 characters, so every rubric, the
negation scoper and the number checker all do real work. The run prints, side by side:
the full grade in wall time and in CPU time (on a shared machine the wall-clock tail is the
scheduler's, not ours), the CPU share of each stage (normalise, segment, negation), a cold
start (fresh caches, unseen words), the examiner's dev answers as written (short, real),
and the ratio of each measure to its target. It says which engine ran: pure Python, or the
optional mypyc build when run from ``build/compiled`` (``scripts/build-compiled-grader``).

Usage (from the repository root)::

    python -m benchmarks.grading [--answers 5000] [--content tests/grading/pack.yaml]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bot.content.loader import load_bank
from bot.grading import Grader, Response
from bot.grading import grader as grader_module
from bot.grading.evaluation import load_marked
from bot.grading.negation import scope
from bot.grading.normalize import normalize
from bot.grading.sentences import segment

ANSWER_CHARS = 1000
DEV_SPLIT = Path("tests/grading/eval/dev.jsonl")
"""Real learner answers (median ~80 characters), graded as written for comparison."""
TARGET_PER_SECOND = 5000
TARGET_P99_MS = 2.0

PHRASES = [
    "False, because gradients accumulate in .grad across backward calls.",
    "Honestly I'm not sure, but I think it doesn't overwrite the old value;",
    "it keeps adding onto x.grad unless you call optimizer.zero_grad() first.",
    "If you don't zero them, they pile up — that's why training loops reset them.",
    "x = x + 1 creates a new tensor with grad_fn=<AddBackward0>, so it's not a leaf.",
    "The second y.backward() raises a RuntimeError since the graph was freed,",
    "unless retain_graph=True was passed on the first call.",
    "tensor([4.]) then tensor([8.]) because 4 + 4 = 8, so x.grad is eight.",
    "**Nope** - requires_grad=False tensors still end up in the graph when combined.",
    "It is not true that .grad only holds the latest gradient; it holds the sum.",
    "acumulates the gradiants (sorry for typos) and never replaces them.",
    "```python\nx.grad.zero_()\ny.backward()\n```",
    "grad_fn is None for a leaf because no operation created it.",
    "Backward starts from a seed of 1, dL/dL = 1, which needs a scalar output.",
    "idk maybe something with the graph? <@123> @everyone",
    "without torch.no_grad() every op is recorded, wasting memory.",
]


def make_answers(grader: Grader, count: int, seed: int) -> list[Response]:
    """``count`` responses of exactly 1,000 characters, spread over every item."""
    rng = random.Random(seed)
    items = [grader.item(i) for i in grader.item_ids]
    out: list[Response] = []
    for n in range(count):
        item = items[n % len(items)]
        pool = PHRASES + [s.text for s in item.samples]
        parts: list[str] = []
        while sum(len(p) + 1 for p in parts) < ANSWER_CHARS:
            parts.append(rng.choice(pool))
        text = " ".join(parts)[:ANSWER_CHARS]
        verdict = rng.choice([None, True, False]) if item.answer.verdict is not None else None
        out.append(Response(item_id=item.id, verdict=verdict, text=text))
    return out


def timed(
    fn: Callable[[Response], object], answers: list[Response], clock: Callable[[], float]
) -> list[float]:
    """Per-answer time in seconds, by ``clock`` (wall: perf_counter; CPU: thread_time)."""
    gc.collect()
    out: list[float] = []
    for response in answers:
        start = clock()
        fn(response)
        out.append(clock() - start)
    return out


def summary(name: str, times: list[float], full: float | None = None) -> str:
    """One table row: answers/s, p50 and p99 in ms, and the share of ``full`` seconds."""
    per_second = len(times) / sum(times)
    p50 = statistics.median(times) * 1000
    p99 = statistics.quantiles(times, n=100)[98] * 1000
    share = f"{sum(times) / full:6.1%} of grade" if full else ""
    return f"{name:<32}{per_second:>9,.0f}/s {p50:>8.3f} ms {p99:>8.3f} ms  {share}"


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=int, default=5000)
    parser.add_argument("--content", type=Path, default=Path("tests/grading/pack.yaml"))
    args = parser.parse_args(argv)

    bank = load_bank([args.content])
    grader = Grader(bank)
    answers = make_answers(grader, args.answers, seed=1)
    for response in make_answers(grader, 300, seed=2):  # warm the per-item token caches
        grader.grade(response)

    wall, cpu = time.perf_counter, time.thread_time
    full = timed(grader.grade, answers, wall)
    full_cpu = timed(grader.grade, answers, cpu)
    total = sum(full_cpu)
    stages = [
        ("normalise", timed(lambda r: normalize(r.text), answers, cpu)),
        ("normalise+segment", timed(lambda r: segment(normalize(r.text)), answers, cpu)),
        (
            "normalise+seg+negation",
            timed(lambda r: scope(segment(normalize(r.text))), answers, cpu),
        ),
    ]
    marked = [
        Response(item_id=a.item_id, verdict=a.verdict, text=a.text)
        for a in load_marked(DEV_SPLIT)
        if a.item_id in grader
    ]
    for response in marked:  # warm, as the 1,000-character answers were
        grader.grade(response)
    real = timed(grader.grade, marked * max(1, 3000 // max(1, len(marked))), cpu)
    cold_grader = Grader(bank)
    unseen = [
        Response(item_id=r.item_id, verdict=r.verdict, text=r.text.replace("e", "é"))
        for r in make_answers(cold_grader, 300, seed=3)
    ]
    cold = timed(cold_grader.grade, unseen, wall)

    compiled = not grader_module.__file__.endswith(".py")  # scripts/build-compiled-grader
    engine = "compiled (mypyc)" if compiled else "pure Python"
    print(f"{len(full)} answers of {ANSWER_CHARS} characters, {len(bank)} items; {engine}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall time includes")
    print("time this process waited for a CPU; CPU time does not)")
    print(f"{'':<32}{'answers':>11} {'p50':>11} {'p99':>11}")
    print(summary("grade, wall (warm)", full))
    print(summary("grade, CPU (warm)", full_cpu))
    for name, times in stages:
        print(summary(f"  {name}, CPU", times, total))
    print(summary("grade, wall (cold)", cold))
    print(summary(f"examiner's dev answers, CPU ({len(marked)})", real))
    for name, times in (("wall", full), ("CPU", full_cpu)):
        per_second = len(times) / sum(times)
        p99_ms = statistics.quantiles(times, n=100)[98] * 1000
        print(
            f"{name:>4}: {per_second:,.0f}/s = {per_second / TARGET_PER_SECOND:.2f}x the "
            f"{TARGET_PER_SECOND:,}/s target; p99 {p99_ms:.3f} ms = "
            f"{p99_ms / TARGET_P99_MS:.2f}x the {TARGET_P99_MS} ms limit"
        )


if __name__ == "__main__":
    main()
