"""Discord bot benchmark: idle memory and interaction acknowledgement under a slow sandbox.

Run on demand (not in the test suite):

    python -m benchmarks.discord_bot [--flows 100] [--sandbox-delay 4]

1. Idle RSS: a child process builds the bot exactly as ``tutor bot`` does (settings, bank,
   services, ``create_bot``), logs it in against the loopback fake Discord, runs
   ``setup_hook``, then reports its resident set size (VmRSS from /proc, MiB). Side by
   side, in the same run: a bare interpreter, and one that imports torch (what the bot
   must never do). Target (issue 6): bot idle RSS <= 100 MB.
2. Acknowledgement: ``--flows`` learners each run /quiz -> Answer -> submit -> "Run the
   snippet" while every sandbox call takes ``--sandbox-delay`` seconds; prints the p50,
   p99 and max time from dispatch to Discord receiving the interaction callback, against
   Discord's 3 s deadline. Target: 100% within 3 s.

Services are the in-memory fakes from the tests (the real store, grader and sandbox
client are wired in phase 2); the numbers measure the Discord adapter itself.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    import discord
    from bot.content.loader import load_bank
    from bot.discord_app.app import Services, create_bot
    from bot.settings import TutorSettings
    from tests.discord_app.conftest import FIXTURE_PACKS
    from tests.discord_app.fakes import Clock, FakeGrader, FakeSandbox, FakeStore
    from tests.discord_app.harness import TOKEN, FakeDiscord
    from datetime import UTC, datetime
    from pathlib import Path

    def rss_mib():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    async def main():
        fake = FakeDiscord()
        discord.http.Route.BASE = (await fake.start()) + "/api/v10"
        bank = load_bank([Path("content"), *FIXTURE_PACKS])
        clock = Clock(datetime.now(UTC))
        store = FakeStore(bank, clock)
        services = Services(bank=bank, grader=FakeGrader(bank), sandbox=FakeSandbox(),
                            progress=store, drops=store, clock=clock)
        settings = TutorSettings(_env_file=None, discord_token=TOKEN)
        bot = create_bot(settings, services)
        await bot.login(TOKEN)
        await asyncio.sleep(0.5)
        print(f"{rss_mib():.1f} {int('torch' in sys.modules)}")
        await bot.close()
        await fake.stop()

    asyncio.run(main())
    """
)


def _child_rss(code: str) -> tuple[float, bool]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    out = done.stdout.split()
    return float(out[-2]), out[-1] == "1"


RSS_SNIPPET = (
    "import sys\n{imports}\n"
    "rss=[int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS:')][0]\n"
    "print(f\"{{rss/1024:.1f}} {{int('torch' in sys.modules)}}\")"
)


def memory() -> None:
    bot, bot_torch = _child_rss(CHILD)
    bare, _ = _child_rss(RSS_SNIPPET.format(imports=""))
    try:
        torch, _ = _child_rss(RSS_SNIPPET.format(imports="import torch"))
    except RuntimeError:
        torch = float("nan")
    print("idle RSS (MiB, one run, side by side)")
    print(f"  bare python          {bare:7.1f}")
    print(f"  bot, logged in, idle {bot:7.1f}   torch imported: {bot_torch}")
    print(f"  python + torch       {torch:7.1f}")
    print(f"  bot / target 100 MB  {bot * 1.048576 / 100:7.2f}   (MB = 10^6 bytes)")
    print(f"  bot / python+torch   {bot / torch:7.2f}")


async def acknowledgements(flows: int, delay_s: float) -> None:
    from datetime import UTC, datetime

    import discord

    from bot.content.loader import load_bank
    from bot.discord_app.app import Services
    from bot.settings import TutorSettings
    from tests.discord_app.conftest import FIXTURE_PACKS
    from tests.discord_app.fakes import Clock, FakeGrader, FakeSandbox, FakeStore
    from tests.discord_app.harness import TOKEN, FakeDiscord, Harness, Person

    fake = FakeDiscord()
    discord.http.Route.BASE = (await fake.start()) + "/api/v10"
    bank = load_bank(FIXTURE_PACKS)
    clock = Clock(datetime.now(UTC))
    store = FakeStore(bank, clock)
    sandbox = FakeSandbox()
    sandbox.mode = "slow"
    services = Services(
        bank=bank,
        grader=FakeGrader(bank),
        sandbox=sandbox,
        progress=store,
        drops=store,
        clock=clock,
    )
    settings = TutorSettings(_env_file=None, discord_token=TOKEN)  # type: ignore[call-arg,arg-type]
    harness = Harness(fake, settings, services)
    await harness.boot()

    async def flow(n: int) -> None:
        who = Person(name=f"learner{n}")
        quiz = await harness.slash("quiz", who, kind="why")
        click = await harness.click(quiz.reply, "tutor:answer:WHY1:x:0", who)
        submit = await harness.submit(click.modal, "the graph is freed", who=who)
        run = await harness.click(submit.reply, "tutor:snippet:WHY1:0", who, wait=False)
        await run.finish(limit_s=delay_s + 30)

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
    await harness.close()
    await fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, default=100, help="concurrent learner flows")
    parser.add_argument("--sandbox-delay", type=float, default=4.0, help="seconds per sandbox call")
    args = parser.parse_args()
    memory()
    asyncio.run(acknowledgements(args.flows, args.sandbox_delay))


if __name__ == "__main__":
    main()
