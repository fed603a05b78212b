"""Cold vs warm sandbox latency, sustained throughput, and worker memory, in one run.

Run on demand (not a test):  python benchmarks/sandbox_latency.py [--cold N] [--warm N]

* cold: a fresh ``python -I -c SNIPPET`` per run (what snekbox and piston do: a new
  interpreter per job, here without any jail, so cold is if anything flattered);
* warm: the same snippets end to end through ``tutor sandbox serve`` on a Unix socket
  (HTTP, queue, jail, run, answer), with the result cache bypassed;
* breakdown: where a warm trivial job's milliseconds go, hop by hop (the service's
  ``Server-Timing`` phases plus the client's and the snippet's own timestamps), for jobs
  sent back to back and for jobs sent alone (0.3 s apart, like a Discord channel);
* sustained: 2 concurrent clients sending a trivial autograd snippet for a fixed time;
* memory: RSS and PSS of the service, the zygote and one idle spare pair.

Targets (issue 3): warm p50 <= 50 ms, warm at least 50x faster than cold, >= 10 jobs/s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bot.content.loader import load_bank  # noqa: E402
from sandbox.client import LocalSandbox, SandboxClient  # noqa: E402
from sandbox.protocol import RunRequest, RunResult  # noqa: E402
from sandbox.trace import PHASES, ServerTiming  # noqa: E402

TRIVIAL = (
    "import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x * x).sum().backward()\n"
    "print(x.grad)\n"
)


PROFILED = (
    "import time as _t\n_t0 = _t.monotonic()\n"
    + TRIVIAL
    + "import sys as _s\n_s.stderr.write(f'@{_t0!r} {_t.monotonic()!r}')\n"
)
"""TRIVIAL, stamping its first and last statement (CLOCK_MONOTONIC, shared with the jail)."""


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


async def cold_run(snippet: str) -> float:
    """Wall time in ms of one fresh interpreter running ``snippet`` (no jail)."""
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-c",
        snippet,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    await proc.wait()
    return (time.perf_counter() - start) * 1000


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


async def settled_tree(pid: int, timeout_s: float = 15.0) -> list[int]:
    """``tree(pid)`` once the spares used by the last jobs are replaced (1 s unchanged)."""
    deadline = time.monotonic() + timeout_s
    pids = tree(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        now = tree(pid)
        if sorted(now) == sorted(pids):
            break
        pids = now
    return pids


async def breakdown(socket_path: Path, n: int, gap_s: float = 0.0) -> dict[str, list[float]]:
    """Per-hop ms of ``n`` warm trivial jobs, from the client's send to its parsed result.

    Uses the same HTTP exchange as :class:`SandboxClient` (one keep-alive session over the
    Unix socket), adds the client's own stamps and the snippet's (first and last statement)
    to the service's ``Server-Timing`` phases, and splits the ``job`` phase in three.
    """
    phases: dict[str, list[float]] = {}
    body = RunRequest(code=PROFILED, use_cache=False).model_dump_json().encode()
    connector = aiohttp.UnixConnector(path=str(socket_path))
    async with aiohttp.ClientSession(connector=connector) as session:
        for _ in range(n):
            await asyncio.sleep(gap_s)
            sent = time.monotonic()
            async with session.post(
                "http://sandbox/run", data=body, headers={"Content-Type": "application/json"}
            ) as response:
                raw = await response.read()
                timing = ServerTiming.parse(response.headers["Server-Timing"])
            result = RunResult.model_validate_json(raw)
            done = time.monotonic()
            first, last = (float(t) for t in result.stderr.rsplit("@", 1)[1].split())
            row = [("request", (timing.origin_s - sent) * 1000)]
            at = timing.origin_s
            for phase in timing.phases:
                if phase.name == "job":
                    row += [
                        ("job: interpreter starts", (first - at) * 1000),
                        ("job: the code", (last - first) * 1000),
                        ("job: interpreter exits", (at + phase.ms / 1000 - last) * 1000),
                    ]
                else:
                    row.append((phase.name, phase.ms))
                at += phase.ms / 1000
            row.append(("response", (done - at) * 1000))
            row.append(("total", (done - sent) * 1000))
            for name, ms in row:
                phases.setdefault(name, []).append(ms)
    return phases


def print_breakdown(phases: dict[str, list[float]]) -> None:
    """One line per phase: p50, p95 and the share of the p50 total."""
    words = {name: what for name, what in PHASES.values()}
    words |= {
        "request": "client builds and sends the request; aiohttp reads it",
        "response": "aiohttp sends the answer; the client reads and validates it",
        "job: interpreter starts": "code written, read, compiled; streams set up",
        "job: the code": "first to last statement of the snippet",
        "job: interpreter exits": "flush, threads, atexit, process exit (kernel teardown)",
    }
    total = statistics.median(phases["total"])
    print(f"{'where a warm trivial job goes':<26}{'p50 ms':>9}{'p95 ms':>9}{'share':>7}")
    for name, values in phases.items():
        p50 = statistics.median(values)
        share = "" if name == "total" else f"{100 * p50 / total:6.0f}%"
        print(
            f"  {name:<24}{p50:>9.2f}{percentile(values, 95):>9.2f}{share:>7}  "
            f"{words.get(name, '')}"
        )


def load() -> str:
    """The 1-minute load average, for printing next to a number (2 cores here)."""
    return f"{os.getloadavg()[0]:.2f}"


async def main() -> None:
    """Run every measurement and print one report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cold", type=int, default=8, help="rounds; each runs 2 cold jobs")
    parser.add_argument("--warm", type=int, default=100, help="warm runs of each kind")
    parser.add_argument("--seconds", type=float, default=10.0, help="sustained-load duration")
    parser.add_argument("--profile", type=int, default=100, help="profiled trivial runs")
    args = parser.parse_args()
    snippets = [item.snippet for item in load_bank([ROOT / "content"])]
    print(f"{len(snippets)} bank snippets; torch via {sys.executable}; load {load()}")

    per_round = -(-args.warm // args.cold)
    cold: dict[str, list[float]] = {"trivial": [], "bank": []}
    warm: dict[str, list[float]] = {"trivial": [], "bank": []}
    local = LocalSandbox(content=[ROOT / "content"])
    async with local as client:
        health = await client.health()
        await warm_runs(client, snippets, 5)  # let the spare pool settle
        loads = [load()]
        # Cold and warm interleaved, so a change of load on the shared cores hits both.
        for i in range(args.cold):
            cold["trivial"].append(await cold_run(TRIVIAL))
            cold["bank"].append(await cold_run(snippets[i % len(snippets)]))
            warm["trivial"] += await warm_runs(client, [TRIVIAL], per_round)
            bank = snippets[i * per_round :] + snippets[: i * per_round]
            warm["bank"] += await warm_runs(client, bank, per_round)
        loads.append(load())
        back_to_back = await breakdown(local.socket_path, args.profile)
        loads.append(load())
        alone = await breakdown(local.socket_path, args.profile, gap_s=0.3)
        loads.append(load())
        jobs, elapsed = await sustained(client, args.seconds)
        loads.append(load())
        assert local.proc is not None
        pids = await settled_tree(local.proc.pid)
        usage = {pid: memory_kib(pid) for pid in pids}
        names = {pid: command_line(pid) for pid in pids}

    print(f"backend: {health.backend}; concurrency {health.concurrency}")
    print(f"cold and warm, interleaved (load {loads[0]} -> {loads[1]})")
    print(f"{'':<32}{'p50 ms':>9}{'p95 ms':>9}{'n':>6}")
    for name, values in (
        ("cold, trivial autograd", cold["trivial"]),
        ("cold, bank snippets", cold["bank"]),
        ("warm, trivial autograd", warm["trivial"]),
        ("warm, bank snippets", warm["bank"]),
    ):
        print(
            f"{name:<32}{statistics.median(values):>9.1f}{percentile(values, 95):>9.1f}"
            f"{len(values):>6}"
        )
    for kind in ("trivial", "bank"):
        ratio = statistics.median(cold[kind]) / statistics.median(warm[kind])
        print(f"cold / warm p50, {kind}: {ratio:.0f}x")
    print(f"\nback to back (load {loads[1]} -> {loads[2]})")
    print_breakdown(back_to_back)
    print(f"\nalone, 0.3 s apart (load {loads[2]} -> {loads[3]})")
    print_breakdown(alone)
    print(
        f"\nsustained, 2 clients: {jobs} jobs in {elapsed:.1f} s = {jobs / elapsed:.1f} jobs/s "
        f"(load {loads[3]} -> {loads[4]})"
    )
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
