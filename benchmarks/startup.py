"""Start-up of the one-shot commands: ``tutor grade ITEM --text ...`` and loading the bank,
PyYAML's pure-Python composer against libyaml's, side by side.

Run on demand (not a test), from the repository root::

    python -m benchmarks.startup [--rounds N] [--item TF3] [--text "it accumulates"]

Each round runs, in fresh interpreters on the same machine and load (the variants
alternate, so a change of load hits them all):

* loading the bank (``load_bank(["content"])``, both packs, 1.9 MB), timed inside the
  interpreter, once with the pure composer and once with libyaml; both must give the same
  bank (same fingerprint);
* ``tutor grade ITEM --text TEXT`` as a user runs it, whole (interpreter start, imports,
  bank, grader, grading, output), in four variants: each composer, with every rubric
  compiled first (``eager``, what it did before) or only the graded one (``lazy``, now).
  ``libyaml, lazy`` is exactly ``python -m bot grade``; the others patch the loader or the
  grader in the same wrapper.

Wall time is elapsed time; CPU time is user + system, of the process (the bank load) or of
the child (``tutor grade``, from ``getrusage``). On a loaded machine the wall time mostly
measures the load; the CPU time is the steadier figure. Medians are printed, then ratios.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOAD_CODE = """
import json, sys, time
from pathlib import Path
from bot.content import loader
if sys.argv[1] == "pure":
    loader._libyaml_loader = lambda: None
elif loader._libyaml_loader() is None:
    sys.exit("libyaml (with its nesting limit) is not available here")
wall, cpu = time.perf_counter(), time.process_time()
bank = loader.load_bank([Path("content")])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"wall": wall, "cpu": cpu, "items": len(bank), "print": bank.fingerprint()}))
"""

GRADE_CODE = """
import sys
from bot.cli import grade, main
from bot.content import loader
composer, compile_ = sys.argv[1], sys.argv[2]
if composer == "pure":
    loader._libyaml_loader = lambda: None
if compile_ == "eager":
    lazy_capable = grade.Grader
    grade.Grader = lambda bank, warm=True, eager=True: lazy_capable(bank, warm)
sys.exit(main(sys.argv[3:]))
"""

GRADE_VARIANTS = [
    ("pure", "eager"),
    ("pure", "lazy"),
    ("libyaml", "eager"),
    ("libyaml", "lazy"),
]


def _load_once(composer: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", LOAD_CODE, composer],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    parsed: dict[str, float] = json.loads(out)
    return parsed


def _grade_once(composer: str, compile_: str, item: str, text: str) -> tuple[float, float]:
    """Wall and CPU seconds of one whole ``tutor grade ITEM --text TEXT``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", GRADE_CODE, composer, compile_, "grade", item, "--text", text],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def main() -> None:
    """Measure ``--rounds`` rounds (default 3); print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--item", default="TF3")
    parser.add_argument("--text", default="it accumulates")
    args = parser.parse_args()
    rows: dict[str, list[tuple[float, float]]] = {}
    prints: set[str] = set()
    load_start = _load()
    for _ in range(args.rounds):
        for composer in ("pure", "libyaml"):
            got = _load_once(composer)
            prints.add(str(got["print"]))
            rows.setdefault(f"load bank, {composer}", []).append((got["wall"], got["cpu"]))
        for composer, compile_ in GRADE_VARIANTS:
            rows.setdefault(f"tutor grade, {composer}, {compile_}", []).append(
                _grade_once(composer, compile_, args.item, args.text)
            )
    if len(prints) != 1:
        sys.exit(f"the two composers built different banks: fingerprints {sorted(prints)}")
    medians = {
        name: (statistics.median(w for w, _ in values), statistics.median(c for _, c in values))
        for name, values in rows.items()
    }
    print(
        f"median of {args.rounds} rounds, seconds (load average {load_start:.1f} at the start, "
        f"{_load():.1f} at the end); same bank from both composers ({prints.pop()})"
    )
    print(f"  {'':<34} {'wall':>7} {'CPU':>7}")
    for name, (wall, cpu) in medians.items():
        print(f"  {name:<34} {wall:7.2f} {cpu:7.2f}")
    ratios = [
        ("load bank: pure / libyaml", "load bank, pure", "load bank, libyaml"),
        (
            "grade: pure / libyaml (both eager)",
            "tutor grade, pure, eager",
            "tutor grade, libyaml, eager",
        ),
        (
            "grade: pure / libyaml (both lazy)",
            "tutor grade, pure, lazy",
            "tutor grade, libyaml, lazy",
        ),
        (
            "grade: eager / lazy (libyaml)",
            "tutor grade, libyaml, eager",
            "tutor grade, libyaml, lazy",
        ),
        ("grade: before / now", "tutor grade, pure, eager", "tutor grade, libyaml, lazy"),
    ]
    print(f"  {'ratios':<34} {'wall':>7} {'CPU':>7}")
    for label, slow, fast in ratios:
        wall = medians[slow][0] / medians[fast][0]
        cpu = medians[slow][1] / medians[fast][1]
        print(f"  {label:<34} {wall:6.1f}x {cpu:6.1f}x")


if __name__ == "__main__":
    main()
