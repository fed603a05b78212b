"""Discord bot benchmark: idle memory and interaction acknowledgement under a slow sandbox.

Run on demand (not in the test suite), from the repository root:

    python -m benchmarks.discord_bot [--flows 100] [--sandbox-delay 4]

1. Idle RSS: a child process opens the services as ``tutor bot`` does, in its order
   (settings, the grader's word list, then ``open_services``: the shipped bank under
   ``content/``, the real grader, the real SQLite progress store on a fresh file, a
   ``SandboxClient`` for a remote worker), builds the bot with ``create_bot``, logs it in
   against the fake Discord served by this parent process (``setup_hook`` runs, cogs and
   persistent buttons load), then reports its resident set size (VmRSS from /proc, MiB).
   Then it takes one graph picture the way "Show graph" does (``quiz.draw_graph``: the
   sandbox service draws it, here the real ``POST /graph.png`` served by this parent with
   a fake worker) and wraps it in a ``discord.File``, and reports its RSS again and
   whether matplotlib was imported. Twice: in this venv, where numpy is installed for torch
   and sqlite-utils imports it, and with numpy hidden, as in the bot image (no torch, no
   numpy, no matplotlib). Side by side, in the same run: a bare interpreter, the service
   layer alone, and an interpreter that imports torch (what the bot must never do). Target
   (issue 6): bot RSS <= 100 MB. The sandbox worker and its render process are separate
   processes, not counted.
2. Acknowledgement: ``--flows`` learners at once each run /quiz -> Answer -> submit ->
   "Run the snippet" on the shipped bank's WHY items, against the real grader and store,
   while the sandbox takes ``--sandbox-delay`` seconds to answer; prints the p50, p99 and
   max time from dispatch to Discord receiving the interaction callback, against
   Discord's 3 s deadline. Target: 100% within 3 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import NamedTuple

from aiohttp import web

CHILD = textwrap.dedent(
    """
    import sys
    if sys.argv[3] == "no-numpy":
        sys.modules["numpy"] = None  # as in the bot image, which has no numpy (no torch)
    import asyncio, tempfile
    from pathlib import Path

    def rss_mib():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    async def main(url, with_bot, sandbox_url):
        from bot.settings import TutorSettings
        settings = TutorSettings(
            _env_file=None, discord_token="fake-token.for.benchmarks",
            content_dir=Path("content"), database_path=Path(tempfile.mkdtemp()) / "tutor.db",
            sandbox_address=sandbox_url,  # a remote worker (the parent's /graph.png)
        )
        from bot.cli.bot import preload  # in the order of bot/cli/bot.py:cmd_bot
        preload()
        import discord
        from bot.services import open_services
        discord.http.Route.BASE = url + "/api/v10"
        async with open_services(settings) as services:
            if with_bot:
                from bot.discord_app.app import create_bot
                bot = create_bot(services)
                await bot.login("fake-token.for.benchmarks")
            await asyncio.sleep(0.5)
            idle = rss_mib()
            picture_mib, png_bytes = idle, 0
            if with_bot:
                import io
                from bot import quiz
                from tests.fake_sandbox import small_graph
                picture = await quiz.draw_graph(services, small_graph(), title="TF5")
                attachment = discord.File(io.BytesIO(picture.png), filename="graph.png")
                await asyncio.sleep(0.2)
                picture_mib, png_bytes = rss_mib(), len(picture.png)
                attachment.close()
                await bot.close()
            print(
                f"{idle:.1f} {picture_mib:.1f} {png_bytes} {int('matplotlib' in sys.modules)} "
                f"{int('torch' in sys.modules)} {len(services.bank)}"
            )

    asyncio.run(main(sys.argv[1], sys.argv[2] == "bot", sys.argv[4]))
    """
)

RSS_SNIPPET = (
    "import sys\n{imports}\n"
    "rss=[int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS:')][0]\n"
    "print(f\"{{rss/1024:.1f}} {{rss/1024:.1f}} 0 0 {{int('torch' in sys.modules)}} 0\")"
)


class Measured(NamedTuple):
    """What a child process printed: RSS idle and after a picture (MiB), and what it loaded."""

    idle_mib: float
    picture_mib: float
    png_bytes: int
    matplotlib: bool
    torch: bool
    items: int


async def _child(code: str, *args: str) -> Measured:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        code,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(err.decode())
    fields = out.decode().split()[-6:]
    return Measured(
        float(fields[0]),
        float(fields[1]),
        int(fields[2]),
        fields[3] == "1",
        fields[4] == "1",
        int(fields[5]),
    )


async def _picture_service() -> tuple[web.AppRunner, str]:
    """The real ``POST /graph.png`` (its render process) on loopback, with a fake worker."""
    from sandbox.service import build_app
    from tests.sandbox.test_service import FakeWorker

    runner = web.AppRunner(build_app(FakeWorker(), max_request_bytes=256 * 1024))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}"


async def memory() -> None:
    """Print RSS of the bot idle and after a picture, the services alone, bare Python and
    Python + torch.

    The fake Discord and the picture service run in this (parent) process, so the child
    measures the bot alone.
    """
    from tests.discord_app.harness import FakeDiscord

    fake = FakeDiscord()
    url = await fake.start()
    pictures, sandbox_url = await _picture_service()
    bare = await _child(RSS_SNIPPET.format(imports=""))
    rows = []
    for numpy in ("numpy", "no-numpy"):
        services = await _child(CHILD, url, "services", numpy, sandbox_url)
        bot = await _child(CHILD, url, "bot", numpy, sandbox_url)
        rows.append((numpy, services, bot))
    try:
        torch = (await _child(RSS_SNIPPET.format(imports="import torch"))).idle_mib
    except RuntimeError:
        torch = float("nan")
    await pictures.cleanup()
    await fake.stop()
    print(f"RSS (MiB, one run, side by side; {rows[0][2].items} items in the bank)")
    print(f"  bare python                                  {bare.idle_mib:7.1f}")
    for numpy, services, bot in rows:
        where = "dev venv, numpy installed" if numpy == "numpy" else "bot image, no numpy"
        print(f"  [{where}]")
        print(f"    services (bank, grader, store, client)   {services.idle_mib:7.1f}")
        idle = bot.idle_mib
        print(f"    bot, logged in, idle                     {idle:7.1f}   torch: {bot.torch}")
        print(
            f"    bot after one graph picture              {bot.picture_mib:7.1f}   "
            f"matplotlib: {bot.matplotlib}   PNG {bot.png_bytes:,} bytes"
        )
        print(f"    bot / target 100 MB (idle, picture)      {bot.idle_mib * 1.048576 / 100:7.2f}"
              f" {bot.picture_mib * 1.048576 / 100:5.2f}")  # fmt: skip
    print(f"  python + torch                               {torch:7.1f}")
    print(f"  bot (image) / python+torch                   {rows[1][2].idle_mib / torch:7.2f}")


async def acknowledgements(flows: int, delay_s: float) -> None:
    """Print acknowledgement latencies of ``flows`` concurrent answer flows."""
    import discord

    from bot.content.loader import load_bank
    from bot.services import open_services
    from bot.settings import TutorSettings
    from tests.discord_app.harness import TOKEN, FakeDiscord, Harness, Person
    from tests.discord_app.helpers import custom_ids
    from tests.fake_sandbox import FakeSandboxRunner

    fake = FakeDiscord()
    discord.http.Route.BASE = (await fake.start()) + "/api/v10"
    bank = load_bank([Path("content")])
    sandbox = FakeSandboxRunner(bank)
    sandbox.mode = "slow"
    settings = TutorSettings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=TOKEN,  # type: ignore[arg-type]
        database_path=Path(tempfile.mkdtemp()) / "tutor.db",
    )
    harness = Harness(fake, lambda: open_services(settings, bank=bank, runner=sandbox))
    await harness.boot()

    async def flow(n: int) -> None:
        who = Person(name=f"learner{n}")
        quiz = await harness.slash("quiz", who, kind="why")
        click = await harness.click(quiz.reply, custom_ids(quiz.reply)[0], who)
        submit = await harness.submit(click.modal, "the graph is freed after backward", who=who)
        snippet = next(c for c in custom_ids(submit.reply) if c.startswith("tutor:snippet:"))
        run = await harness.click(submit.reply, snippet, who, wait=False)
        await run.finish(limit_s=delay_s + 60)

    started = time.monotonic()
    release = asyncio.get_running_loop().call_later(delay_s, sandbox.gate.set)
    await asyncio.gather(*(flow(n) for n in range(flows)))
    release.cancel()
    elapsed = time.monotonic() - started
    latencies = sorted(d.ack_latency_s * 1000 for d in harness.dispatched)
    within = sum(latency <= 3000 for latency in latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"acknowledgement, {flows} concurrent flows, sandbox answering after {delay_s} s")
    print(f"  interactions         {len(latencies)} in {elapsed:.1f} s")
    p50 = statistics.median(latencies)
    print(f"  ack p50 / p99 / max  {p50:.1f} / {p99:.1f} / {latencies[-1]:.1f} ms")
    print(
        f"  within 3 s           {within}/{len(latencies)} ({100 * within / len(latencies):.0f}%)"
    )
    print(f"  max / 3 s deadline   {latencies[-1] / 3000:.3f}")
    print(f"  sandbox runs         {len(sandbox.runs)} (curated results cached in the store)")
    await harness.close()
    await fake.stop()


def main() -> None:
    """Run both measurements."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--flows", type=int, default=100, help="concurrent learner flows")
    parser.add_argument("--sandbox-delay", type=float, default=4.0, help="seconds per sandbox call")
    args = parser.parse_args()
    asyncio.run(memory())
    asyncio.run(acknowledgements(args.flows, args.sandbox_delay))


if __name__ == "__main__":
    main()
