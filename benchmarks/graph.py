"""Graph pictures: extraction cost in the job, drawing in the worker service, bot memory.

Run on demand (not a test):  python -m benchmarks.graph [--rounds 5] [--renders 3]

1. Extraction: every bank snippet through a warm worker (cache bypassed), ``--rounds``
   times without and with ``graph=True``, side by side in one run: the job's own duration
   (``duration_ms``, code start to interpreter gone) and the end-to-end time of
   ``Worker.run``; p50 / p95 and the with/without ratio. Also the graph JSON size.
2. Drawing: the worker's real HTTP service (``POST /graph.png``, its render process) on a
   Unix socket, called with ``SandboxClient.render_graph`` for each bank graph: the first
   request (drawn) and ``--renders`` repeats (kept pictures); then, side by side in the same
   run, ``render_graph_png`` called directly in this process; the ratio of the two. PNG size
   and pixel size. Then four forged graphs at the protocol's caps (what a hostile ``/run``
   could send): time and picture size, which the renderer bounds.
3. Memory (VmRSS, MiB): the render process warmed up and after drawing; the worker service (this
   process) and whether it loaded matplotlib before step 2's direct calls; a bot-like child
   process (the Discord modules and the service layer imported) idle and after fetching one
   picture, and whether it loaded matplotlib. Target (issue 6): bot RSS <= 100 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import struct
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aiohttp import web  # noqa: E402

from bot.content.loader import load_bank  # noqa: E402
from sandbox.client import SandboxClient  # noqa: E402
from sandbox.curated import CuratedSnippets  # noqa: E402
from sandbox.graph_pictures import GraphPictures  # noqa: E402
from sandbox.protocol import (  # noqa: E402
    AutogradGraph,
    GraphEdge,
    GraphNode,
    RunRequest,
)
from sandbox.service import build_app  # noqa: E402
from sandbox.settings import SandboxSettings  # noqa: E402
from sandbox.worker import Worker  # noqa: E402

Graphs = list[tuple[str, AutogradGraph]]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def line(label: str, values: list[float], unit: str = "ms") -> str:
    """``label  p50  p95`` for a list of measurements."""
    return (
        f"  {label:<40} p50 {percentile(values, 50):8.1f} {unit}   "
        f"p95 {percentile(values, 95):8.1f} {unit}"
    )


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from the PNG's IHDR chunk."""
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def rss_mib(pid: int | str = "self") -> float:
    """VmRSS of a process in MiB."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return float("nan")


def render_process_pid() -> int | None:
    """The render process: this process's ``spawn`` child running ``spawn_main``."""
    me = str(os.getpid())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if ppid == me and b"spawn_main" in cmdline:
            return int(proc.name)
    return None


async def extraction(worker: Worker, rounds: int) -> Graphs:
    """Measure runs with and without the graph; return one graph per bank item."""
    bank = load_bank([ROOT / "content"])
    job: dict[bool, list[float]] = {False: [], True: []}
    wall: dict[bool, list[float]] = {False: [], True: []}
    sizes: list[float] = []
    graphs: Graphs = []
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


def forged_graphs() -> Graphs:
    """Four graphs at the protocol's caps (150 nodes, 300 edges, 48-character labels)."""
    long = "M" * 48
    chain = [GraphNode(id=i, kind="backward", label=long) for i in range(150)]
    links = [GraphEdge(source=i, target=i + 1, kind="next") for i in range(149)]
    spans = [GraphEdge(source=i % 3, target=149 - i % 3, kind="next") for i in range(151)]
    rng = random.Random(1)
    dense: list[GraphEdge] = []
    while len(dense) < 300:
        a = rng.randrange(149)
        dense.append(GraphEdge(source=a, target=rng.randrange(a + 1, 150), kind="next"))
    wide = [GraphNode(id=0, kind="backward", label="SumBackward0")]
    wide += [GraphNode(id=i, kind="backward", label=long) for i in range(1, 150)]
    fan = [GraphEdge(source=0, target=i, kind="next") for i in range(1, 150)]
    return [
        ("chain of 150", AutogradGraph(nodes=chain, edges=links, truncated=True)),
        ("chain + 151 edges over it", AutogradGraph(nodes=chain, edges=links + spans)),
        ("random DAG, 300 edges", AutogradGraph(nodes=chain, edges=dense)),
        ("149 boxes in one row", AutogradGraph(nodes=wide, edges=fan)),
    ]


async def drawing(client: SandboxClient, graphs: Graphs, renders: int) -> list[float]:
    """Time pictures through the service (drawn, then kept); returns the drawn times."""
    drawn: list[float] = []
    kept: list[float] = []
    sizes: list[float] = []
    widths: list[int] = []
    heights: list[int] = []
    for item_id, graph in graphs:
        start = time.perf_counter()
        png = await client.render_graph(graph, title=item_id)
        drawn.append((time.perf_counter() - start) * 1000)
        for _ in range(renders):
            start = time.perf_counter()
            await client.render_graph(graph, title=item_id)
            kept.append((time.perf_counter() - start) * 1000)
        sizes.append(len(png) / 1024)
        width, height = png_size(png)
        widths.append(width)
        heights.append(height)
    print(f"\n2. drawing ({len(graphs)} bank graphs; POST /graph.png over a Unix socket)")
    print(line("service, drawn in the render process", drawn))
    print(line(f"service, kept picture (x{renders})", kept))
    print(line("PNG size", sizes, "KiB"))
    print(f"  width px: min {min(widths)}, max {max(widths)}; "
          f"height px: min {min(heights)}, max {max(heights)}")  # fmt: skip
    print("  forged graphs at the caps, through the service:")
    for name, graph in forged_graphs():
        start = time.perf_counter()
        png = await client.render_graph(graph, title=name)
        took = time.perf_counter() - start
        width, height = png_size(png)
        print(f"    {name:<28} {took:6.2f} s  {len(png) / 1024:6.0f} KiB  {width} x {height} px")
    return drawn


def direct(graphs: Graphs) -> list[float]:
    """Time ``render_graph_png`` in this process (imports matplotlib here)."""
    from sandbox.graph_render import render_graph_png

    render_graph_png(graphs[0][1])  # the first call imports matplotlib and loads the font
    times: list[float] = []
    for item_id, graph in graphs:
        start = time.perf_counter()
        render_graph_png(graph, title=item_id)
        times.append((time.perf_counter() - start) * 1000)
    return times


BOT_CHILD = textwrap.dedent(
    """
    import asyncio, io, sys
    from pathlib import Path
    def rss():
        for row in open("/proc/self/status"):
            if row.startswith("VmRSS:"):
                return int(row.split()[1]) / 1024
    import discord
    import bot.discord_app.app, bot.discord_app.graphs, bot.services, bot.quiz, bot.cli
    from sandbox.client import SandboxClient
    from tests.fake_sandbox import small_graph
    async def main():
        idle = rss()
        async with SandboxClient(unix_path=Path(sys.argv[1])) as client:
            png = await client.render_graph(small_graph(), title="TF5")
            discord.File(io.BytesIO(png), filename="graph.png").close()
        print(f"{idle:.1f} {rss():.1f} {int('matplotlib' in sys.modules)} "
              f"{int('torch' in sys.modules)}")
    asyncio.run(main())
    """
)


async def bot_memory(socket: Path) -> str:
    """RSS of a bot-like process before and after it fetches one picture from ``socket``."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        BOT_CHILD,
        str(socket),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(err.decode())
    idle, after, mpl, torch = out.decode().split()
    return (
        f"  bot-like process, Discord modules, idle    {float(idle):7.1f}\n"
        f"  ... after fetching one picture             {float(after):7.1f}   "
        f"matplotlib loaded: {mpl == '1'}, torch loaded: {torch == '1'}"
    )


async def main_async(rounds: int, renders: int) -> None:
    """Run the three measurements against one worker and its service."""
    # Nothing curated: a curated snippet always runs with its graph (one cache entry for
    # both), so the comparison runs the bank's snippets as learner code (needs isolation).
    async with Worker(SandboxSettings(), curated=CuratedSnippets()) as worker:
        graphs = await extraction(worker, rounds)
        socket = Path(tempfile.mkdtemp(prefix="graph-bench-")) / "sandbox.sock"
        pictures = GraphPictures()
        runner = web.AppRunner(build_app(worker, 256 * 1024, pictures))
        await runner.setup()
        await web.UnixSite(runner, str(socket)).start()
        warming = pictures.warm_up()
        assert warming is not None, "matplotlib and networkx are needed (the sandbox extra)"
        await warming
        render_pid = render_process_pid()
        warm_rss = rss_mib(render_pid) if render_pid else float("nan")
        async with SandboxClient(unix_path=socket, timeout_s=60) as client:
            drawn = await drawing(client, graphs, renders)
            render_rss = rss_mib(render_pid) if render_pid else float("nan")
            service_mpl = "matplotlib" in sys.modules
            service_rss = rss_mib()
            bot = await bot_memory(socket)
        await runner.cleanup()
        pictures.close()
    times = direct(graphs)
    print(line("direct render_graph_png, this process", times))
    ratio = statistics.median(drawn) / statistics.median(times)
    print(f"  p50 ratio service (drawn) / direct       {ratio:.2f}x")
    print("\n3. memory (VmRSS, MiB)")
    print(f"  render process, warmed up (empty graph)    {warm_rss:7.1f}")
    print(f"  render process, after the bank and forged  {render_rss:7.1f}")
    print(f"  worker service (this process)              {service_rss:7.1f}   "
          f"matplotlib loaded: {service_mpl}")  # fmt: skip
    print(bot)
    print("  target: bot <= 100 MB; matplotlib never in the bot")


def main() -> None:
    """Run the measurements and print them."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--renders", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main_async(args.rounds, args.renders))


if __name__ == "__main__":
    main()
