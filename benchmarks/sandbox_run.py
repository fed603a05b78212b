"""Where ``tutor sandbox run FILE``'s seconds go, and the one-job start against the old one.

Run on demand (not a test):  python benchmarks/sandbox_run.py [--rounds N]

Each round measures, side by side on the same machine and load:

* ``import torch`` alone in a fresh interpreter (the floor of any worker start);
* the CLI's own imports (``bot.cli``, ``bot.cli.sandbox``, ``sandbox.worker``);
* loading the curated snippets (parsing ``content/*.yaml``);
* ``before``: the start ``tutor sandbox run`` made until this change: the curated snippets
  loaded first, then a zygote with the service's warm pool (2 spares per slot, the heap
  collapsed onto huge pages);
* ``one job``: what it does now: no curated load (it matters only without isolation), one
  spare, no collapse.

For both starts: the zygote's own start-up (torch import and warm-up, ``startup_s`` of its
greeting), the wait for its greeting, the job, and the close; the totals' ratio is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sandbox.curated import CuratedSnippets  # noqa: E402
from sandbox.protocol import RunRequest  # noqa: E402
from sandbox.settings import SandboxSettings  # noqa: E402
from sandbox.worker import Worker  # noqa: E402

TRIVIAL = (
    "import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x * x).sum().backward()\n"
    "print(x.grad)\n"
)


def _subprocess_s(code: str) -> float:
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    return time.monotonic() - start


async def _start_run_close(one_job: bool) -> dict[str, float]:
    """Seconds of each phase of one start, run and close."""
    settings = SandboxSettings(content=[ROOT / "content"])
    times: dict[str, float] = {}
    start = time.monotonic()
    if one_job:
        worker = Worker(settings, curated=CuratedSnippets(), one_job=True)
    else:
        worker = Worker(settings, curated=CuratedSnippets.load(settings.content))
    times["curated"] = time.monotonic() - start
    hello = await worker.start()
    times["greeting"] = time.monotonic() - start - times["curated"]
    times["zygote startup_s"] = hello.startup_s
    mark = time.monotonic()
    result = await worker.run(RunRequest(code=TRIVIAL))
    assert result.stdout == "tensor([4.])\n", result
    times["job"] = time.monotonic() - mark
    mark = time.monotonic()
    await worker.close()
    times["close"] = time.monotonic() - mark
    times["total"] = time.monotonic() - start
    return times


def main() -> None:
    """Measure ``--rounds`` rounds (default 3), alternating the two starts; print medians."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    rows: dict[str, list[float]] = {}

    def add(name: str, seconds: float) -> None:
        rows.setdefault(name, []).append(seconds)

    for _ in range(rounds):
        add("import torch (fresh interpreter)", _subprocess_s("import torch"))
        add(
            "CLI imports (fresh interpreter)",
            _subprocess_s("import bot.cli, bot.cli.sandbox, sandbox.worker"),
        )
        mark = time.monotonic()
        CuratedSnippets.load([ROOT / "content"])
        add("curated snippets load", time.monotonic() - mark)
        for one_job, label in ((False, "before"), (True, "one job")):
            for phase, seconds in asyncio.run(_start_run_close(one_job)).items():
                add(f"{label}: {phase}", seconds)
    print(f"median of {rounds} rounds, seconds (load average {_load():.1f} at the end)")
    for name, values in rows.items():
        print(f"  {name:<40} {statistics.median(values):7.2f}")
    before = statistics.median(rows["before: total"])
    now = statistics.median(rows["one job: total"])
    print(f"  one job / before (total)                 {now / before:7.2f}x")


def _load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


if __name__ == "__main__":
    main()
