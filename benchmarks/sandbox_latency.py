"""Cold vs warm sandbox latency, sustained throughput, and worker memory, in one run.

Run on demand (not a test):  python benchmarks/sandbox_latency.py [--cold N] [--warm N]

* cold: a fresh ``python -I -c SNIPPET`` per run (what snekbox and piston do: a new
  interpreter per job, here without any jail, so cold is if anything flattered);
* warm: the same snippets end to end through ``tutor sandbox serve`` on a Unix socket
  (HTTP, queue, jail, run, answer), with the result cache bypassed;
* sustained: 2 concurrent clients sending a trivial autograd snippet for a fixed time;
* memory: RSS and PSS of the service, the zygote and one idle spare pair.

Targets (issue 3): warm p50 <= 50 ms, warm at least 50x faster than cold, >= 10 jobs/s.
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

from bot.content.loader import load_bank  # noqa: E402
from sandbox.client import LocalSandbox, SandboxClient  # noqa: E402

TRIVIAL = (
    "import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x * x).sum().backward()\n"
    "print(x.grad)\n"
)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def cold_runs(snippets: list[str], n: int) -> list[float]:
    """Wall time in ms of ``n`` fresh interpreters, cycling over the snippets."""
    times = []
    for i in range(n):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-I", "-c", snippets[i % len(snippets)]],
            capture_output=True,
            check=False,
            env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
        )
        times.append((time.perf_counter() - start) * 1000)
    return times


async def warm_runs(client: SandboxClient, snippets: list[str], n: int) -> list[float]:
    """End-to-end ms of ``n`` runs through the service (cache bypassed)."""
    times = []
    for i in range(n):
        start = time.perf_counter()
        result = await client.run(snippets[i % len(snippets)], use_cache=False)
        times.append((time.perf_counter() - start) * 1000)
        if not result.ok:
            print(f"  warning: a warm run ended with {result.status}")
    return times


async def sustained(client: SandboxClient, seconds: float, clients: int = 2) -> tuple[int, float]:
    """Jobs completed by ``clients`` concurrent loops in ``seconds``; returns (jobs, elapsed)."""
    done = 0
    deadline = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await client.run(TRIVIAL, use_cache=False)
            done += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(clients)))
    return done, time.perf_counter() - start


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in KiB; PSS splits pages shared with the zygote fairly."""
    rss = pss = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
    return rss, pss


def command_line(pid: int) -> str:
    """The first 60 characters of a process's command line."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:60]


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").iterdir():
            todo += [int(c) for c in (task / "children").read_text().split()]
    return out


async def main() -> None:
    """Run every measurement and print one report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold", type=int, default=8, help="cold runs (each takes seconds)")
    parser.add_argument("--warm", type=int, default=100, help="warm runs")
    parser.add_argument("--seconds", type=float, default=10.0, help="sustained-load duration")
    args = parser.parse_args()
    snippets = [item.snippet for item in load_bank([ROOT / "content"])]
    print(f"{len(snippets)} bank snippets; torch via {sys.executable}")

    cold = cold_runs(snippets, args.cold)
    local = LocalSandbox(content=[ROOT / "content"])
    async with local as client:
        health = await client.health()
        await warm_runs(client, snippets, 5)  # let the spare pool settle
        warm = await warm_runs(client, snippets, args.warm)
        trivial = await warm_runs(client, [TRIVIAL], args.warm)
        jobs, elapsed = await sustained(client, args.seconds)
        await asyncio.sleep(0.5)
        assert local.proc is not None
        pids = tree(local.proc.pid)
        usage = {pid: memory_kib(pid) for pid in pids}
        names = {pid: command_line(pid) for pid in pids}

    cold_p50, warm_p50 = statistics.median(cold), statistics.median(warm)
    print(f"backend: {health.backend}; concurrency {health.concurrency}")
    print(f"{'':<26}{'p50 ms':>9}{'p95 ms':>9}{'n':>6}")
    for name, values in (
        ("cold (fresh python -c)", cold),
        ("warm, bank snippets", warm),
        ("warm, trivial autograd", trivial),
    ):
        print(
            f"{name:<26}{statistics.median(values):>9.1f}{percentile(values, 95):>9.1f}"
            f"{len(values):>6}"
        )
    ratio = cold_p50 / warm_p50
    print(f"warm/cold p50 ratio: 1/{ratio:.0f} (cold is {ratio:.0f}x slower)")
    print(f"sustained, 2 clients: {jobs} jobs in {elapsed:.1f} s = {jobs / elapsed:.1f} jobs/s")
    total_rss = sum(r for r, _ in usage.values())
    total_pss = sum(p for _, p in usage.values())
    print(
        f"memory of service + zygote + idle spares ({len(pids)} processes): "
        f"RSS {total_rss / 1024:.0f} MiB (double-counts shared pages), "
        f"PSS {total_pss / 1024:.0f} MiB"
    )
    for pid, (rss, pss) in usage.items():
        mib = f"RSS {rss / 1024:6.0f} MiB  PSS {pss / 1024:6.0f} MiB"
        print(f"  pid {pid:>7}: {mib}  {names[pid]}")


if __name__ == "__main__":
    asyncio.run(main())
