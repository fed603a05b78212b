"""Graph pictures: extraction cost in the job, answer size, rendering time, bot memory.

Run on demand (not a test):  python -m benchmarks.graph [--rounds 5] [--renders 3]

1. Extraction: every bank snippet through a warm worker (cache bypassed), ``--rounds``
   times without and with ``graph=True``, side by side in one run: the job's own duration
   (``duration_ms``, code start to interpreter gone) and the end-to-end time of
   ``Worker.run``; p50 / p95 and the with/without ratio. Also the graph JSON size.
2. Rendering: each bank graph drawn ``--renders`` times by ``render_graph_png``:
   p50 / p95 ms, PNG size and pixel size.
3. Bot memory: a child process imports every Discord module the bot loads (idle), then
   draws one graph; its RSS (VmRSS, MiB) before and after, and whether matplotlib was
   imported while idle. Target (issue 6): idle RSS <= 100 MB, matplotlib never at idle.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.content.loader import load_bank  # noqa: E402
from sandbox.curated import CuratedSnippets  # noqa: E402
from sandbox.protocol import AutogradGraph, RunRequest  # noqa: E402
from sandbox.settings import SandboxSettings  # noqa: E402
from sandbox.worker import Worker  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def line(label: str, values: list[float], unit: str = "ms") -> str:
    """``label  p50  p95`` for a list of measurements."""
    return (
        f"  {label:<34} p50 {percentile(values, 50):8.1f} {unit}   "
        f"p95 {percentile(values, 95):8.1f} {unit}"
    )


async def extraction(rounds: int) -> list[tuple[str, AutogradGraph]]:
    """Measure runs with and without the graph; return one graph per bank item."""
    bank = load_bank([ROOT / "content"])
    job = {False: [], True: []}  # type: dict[bool, list[float]]
    wall = {False: [], True: []}  # type: dict[bool, list[float]]
    sizes: list[float] = []
    graphs: list[tuple[str, AutogradGraph]] = []
    # Nothing curated: a curated snippet always runs with its graph (one cache entry for
    # both), so the comparison runs the bank's snippets as learner code (needs isolation).
    async with Worker(SandboxSettings(), curated=CuratedSnippets()) as worker:
        assert worker.hello is not None
        print(f"worker backend: {worker.hello.backend}; {len(bank)} bank snippets x {rounds}")
        for round_no in range(rounds):
            for item in bank:
                for graph in (False, True):  # interleaved, so load hits both alike
                    request = RunRequest(code=item.snippet, use_cache=False, graph=graph)
                    start = time.perf_counter()
                    result = await worker.run(request)
                    wall[graph].append((time.perf_counter() - start) * 1000)
                    job[graph].append(result.duration_ms)
                    if graph and result.graph is not None and round_no == 0:
                        sizes.append(len(result.graph.model_dump_json()))
                        graphs.append((item.id, result.graph))
    print("\n1. extraction (same snippets, same run)")
    print(line("job duration, no graph", job[False]))
    print(line("job duration, graph=True", job[True]))
    print(line("end to end, no graph", wall[False]))
    print(line("end to end, graph=True", wall[True]))
    ratio = statistics.median(wall[True]) / statistics.median(wall[False])
    added = statistics.median(job[True]) - statistics.median(job[False])
    print(f"  end-to-end p50 ratio graph/no graph  {ratio:.2f}x   job p50 +{added:.1f} ms")
    print(f"  graph JSON bytes: p50 {percentile(sizes, 50):.0f}, max {max(sizes):.0f} (cap 131072)")
    return graphs


def rendering(graphs: list[tuple[str, AutogradGraph]], renders: int) -> None:
    """Time ``render_graph_png`` on every graph."""
    from matplotlib import image

    from bot.graph_render import render_graph_png

    render_graph_png(graphs[0][1])  # the first call imports matplotlib and loads the font
    times: list[float] = []
    sizes: list[float] = []
    widths: list[float] = []
    heights: list[float] = []
    for item_id, graph in graphs:
        for _ in range(renders):
            start = time.perf_counter()
            png = render_graph_png(graph, title=item_id)
            times.append((time.perf_counter() - start) * 1000)
        sizes.append(len(png) / 1024)
        import io

        h, w = image.imread(io.BytesIO(png), format="png").shape[:2]
        widths.append(w)
        heights.append(h)
    print(f"\n2. rendering ({len(graphs)} bank graphs x {renders})")
    print(line("render_graph_png", times))
    print(line("PNG size", sizes, "KiB"))
    print(f"  width px: min {min(widths):.0f}, max {max(widths):.0f}; "
          f"height px: min {min(heights):.0f}, max {max(heights):.0f}")  # fmt: skip


CHILD = textwrap.dedent(
    """
    import sys
    def rss():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    import bot.discord_app.app, bot.discord_app.graphs, bot.cli
    idle = rss()
    idle_mpl = "matplotlib" in sys.modules
    from bot.graph_render import render_graph_png
    from tests.discord_app.fakes import small_graph
    render_graph_png(small_graph())
    print(f"{idle:.1f} {rss():.1f} {int(idle_mpl)} {int('torch' in sys.modules)}")
    """
)


def memory() -> None:
    """RSS of a bot-like process before and after its first picture."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, cwd=ROOT, check=True
    )
    idle, after, mpl, torch = done.stdout.split()
    print("\n3. bot process memory (VmRSS, MiB)")
    print(
        f"  discord modules imported, idle     {float(idle):7.1f}   matplotlib loaded: {mpl == '1'}"
    )
    print(
        f"  after drawing one graph            {float(after):7.1f}   torch loaded: {torch == '1'}"
    )
    print(f"  idle / target 100 MB               {float(idle) * 1.048576 / 100:7.2f}")


def main() -> None:
    """Run the three measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--renders", type=int, default=3)
    args = parser.parse_args()
    graphs = asyncio.run(extraction(args.rounds))
    rendering(graphs, args.renders)
    memory()


if __name__ == "__main__":
    main()
