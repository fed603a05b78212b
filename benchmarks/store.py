"""Progress store at scale: learner stats, leaderboard and attempt insert at 1M attempts.

Usage::

    python benchmarks/store.py                      # 1,000,000 attempts (builds once, ~10 min)
    python benchmarks/store.py --attempts 100000    # a quicker look
    python benchmarks/store.py --rebuild            # rebuild the cached database

The database is built once through the store's own write path (``record_attempt``, drop
ticks, reveals) and cached under ``benchmarks/results/`` (git-ignored); a rebuild is only
needed after a schema change. The build uses ``synchronous=OFF`` for speed; measurements
reopen the file with the production settings (WAL, ``synchronous=NORMAL``).

Measurements are interleaved: each round runs one learner-stats query, one leaderboard,
one attempt insert and two controls, so load from other processes hits all of them alike:
a bare-SQLite write (one-row INSERT + COMMIT into a scratch table) and a pure-Python spin
of a fixed 0.5 ms of CPU. On a machine shared with other busy processes, any operation
that needs a few hundred microseconds of CPU is sometimes preempted for a scheduler tick
(4 ms at HZ=250); the spin's wall p95 shows that share of the tail. Reported per
operation: wall p50/p95/p99 and thread CPU p95 on the sync path, wall p95 through the
async ``ProgressStore`` (owner thread + executor hop), p95 / target and p95 / the spin's
p95. Targets (issue 5): stats and leaderboard p95 <= 20 ms, insert p95 <= 2 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from datetime import time as wall_time
from functools import partial
from itertools import accumulate
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.content.models import Kind, Label  # noqa: E402
from bot.progress import attempts, drops, profiles, stats  # noqa: E402
from bot.progress.db import Database, open_database  # noqa: E402
from bot.progress.errors import ProgressError  # noqa: E402
from bot.progress.models import (  # noqa: E402
    AttemptIn,
    GuildSettings,
    ItemRef,
    LeaderboardPeriod,
)
from bot.progress.rules import tutor_scheduler  # noqa: E402
from bot.progress.schema import migrate  # noqa: E402
from bot.progress.store import ProgressStore  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
TARGETS_MS = {"learner stats": 20.0, "leaderboard": 20.0, "attempt insert": 2.0}
START = datetime(2024, 1, 1, tzinfo=UTC)
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Tokyo"]
GUILD_BASE = 1_100_000_000_000_000_000
LEARNER_BASE = 2_200_000_000_000_000_000
CHANNEL_BASE = 3_300_000_000_000_000_000
RUN = time.time_ns()
"""Prefix of this run's idempotency keys: measured inserts must be new attempts, not
duplicates of an earlier run's (the cached database keeps them)."""


@dataclass
class World:
    """The synthetic population: items, guilds, learners and how active they are."""

    items: list[ItemRef]
    item_info: dict[str, tuple[list[str], int, list[str], list[str]]]
    guilds: list[int]
    home: dict[int, int]
    second: dict[int, int]
    learners: list[int]
    activity: list[float]
    guild_weights: list[float]
    skill: dict[int, float]
    open_drops: dict[int, tuple[int, str]] = field(default_factory=dict)
    answered: set[tuple[int, int]] = field(default_factory=set)


def make_world(n_learners: int, n_guilds: int, seed: int) -> World:
    """120 items over 4 kinds; guild sizes and learner activity both Zipf-like (real
    communities: a few big guilds, a few very active learners)."""
    rng = random.Random(seed)
    tags = [f"topic-{i}" for i in range(12)]
    concepts = [f"concept-{i}" for i in range(40)]
    misconceptions = [f"misconception-{i}" for i in range(20)]
    prefix = {
        Kind.TRUE_FALSE: "TF",
        Kind.SPOT_THE_ERROR: "SE",
        Kind.WHY: "WHY",
        Kind.EDGE_CASE: "EC",
    }
    items: list[ItemRef] = []
    info: dict[str, tuple[list[str], int, list[str], list[str]]] = {}
    for kind in Kind:
        for n in range(1, 31):
            item = ItemRef(item_id=f"{prefix[kind]}{n}", kind=kind)
            items.append(item)
            info[item.item_id] = (
                rng.sample(tags, 2),
                rng.randint(1, 3),
                rng.sample(concepts, rng.randint(2, 3)),
                rng.sample(misconceptions, 2),
            )
    guilds = [GUILD_BASE + g for g in range(n_guilds)]
    guild_weights = [1 / (g + 1) for g in range(n_guilds)]
    learners = [LEARNER_BASE + n for n in range(n_learners)]
    home = dict(zip(learners, rng.choices(guilds, guild_weights, k=n_learners), strict=True))
    second = {learner: rng.choice(guilds) for learner in learners if rng.random() < 0.2}
    activity = [1 / (rank + 10) for rank in range(n_learners)]
    rng.shuffle(activity)
    skill = {learner: rng.uniform(0.2, 0.9) for learner in learners}
    # Cumulative weights: random.choices is O(log n) with them, O(n) without.
    return World(
        items,
        info,
        guilds,
        home,
        second,
        learners,
        list(accumulate(activity)),
        list(accumulate(guild_weights)),
        skill,
    )


def make_attempt(world: World, rng: random.Random, key: str, learner: int) -> AttemptIn:
    """One graded attempt by ``learner``: a drop answer (30%) or a quiz, in a guild or DM."""
    roll = rng.random()
    guild: int | None = world.home[learner]
    if roll < 0.1:
        guild = None
    elif roll < 0.2 and learner in world.second:
        guild = world.second[learner]
    drop_id = None
    item = rng.choice(world.items)
    if guild is not None and rng.random() < 0.3 and guild in world.open_drops:
        candidate, item_id = world.open_drops[guild]
        if (candidate, learner) not in world.answered:
            world.answered.add((candidate, learner))
            drop_id = candidate
            item = next(i for i in world.items if i.item_id == item_id)
    tags, difficulty, concepts, misconceptions = world.item_info[item.item_id]
    score = min(1.0, max(0.0, rng.gauss(world.skill[learner], 0.3)))
    label = Label.CORRECT if score >= 0.75 else Label.PARTIAL if score >= 0.4 else Label.INCORRECT
    hit = [c for c in concepts if rng.random() < score]
    return AttemptIn(
        idempotency_key=key,
        learner_id=learner,
        guild_id=guild,
        drop_id=drop_id,
        item_id=item.item_id,
        kind=item.kind,
        tags=tags,
        difficulty=difficulty,
        verdict=None,
        verdict_correct=None,
        answer_text="because " * rng.randint(3, 40),
        score=round(score, 3),
        label=label,
        concepts_hit=hit,
        concepts_missing=[c for c in concepts if c not in hit],
        misconceptions=misconceptions[:1] if label is Label.INCORRECT else [],
        duration_ms=rng.randint(5_000, 300_000),
        hint_used=rng.random() < 0.2,
    )


def run_drops(db: Database, world: World, now: datetime) -> None:
    """One scheduler tick done the way the bot does it (post, open, close, reveal)."""
    tick = drops.tick_drops(db, world.items, now)
    for drop in tick.to_post:
        drops.begin_posting(db, drop.drop_id, now)
        drops.mark_open(db, drop.drop_id, drop.drop_id + 10**15, now)
        assert drop.item_id is not None
        world.open_drops[drop.guild_id] = (drop.drop_id, drop.item_id)
    for drop in tick.to_reveal:
        drops.begin_reveal(db, drop.drop_id, now)
        drops.mark_revealed(db, drop.drop_id, drop.drop_id + 2 * 10**15, now)
        if world.open_drops.get(drop.guild_id, (0,))[0] == drop.drop_id:
            del world.open_drops[drop.guild_id]


def build(path: Path, n_attempts: int, world: World, days: int, seed: int) -> float:
    """Fill a fresh database through the store's write path; return attempts per second."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    db = open_database(path)
    db.conn.execute("PRAGMA synchronous = OFF")
    db.conn.execute("PRAGMA wal_autocheckpoint = 20000")
    migrate(db)
    rng = random.Random(seed)
    scheduler = tutor_scheduler()
    for index, guild in enumerate(world.guilds):
        profiles.save_guild_settings(
            db,
            GuildSettings(
                guild_id=guild,
                time_zone=ZONES[index % len(ZONES)],
                drops_enabled=True,
                drop_channel_id=CHANNEL_BASE + index,
                drop_time=wall_time(9, 0),
                reveal_after_hours=20.0,
            ),
            START,
        )
    step = timedelta(days=days) / n_attempts
    next_tick = START
    started = time.perf_counter()
    for n in range(n_attempts):
        now = START + step * n
        if now >= next_tick:
            run_drops(db, world, now)
            next_tick = now + timedelta(minutes=30)
        learner = rng.choices(world.learners, cum_weights=world.activity)[0]
        attempt = make_attempt(world, rng, f"b{n}", learner)
        try:
            attempts.record_attempt(db, attempt, now, scheduler=scheduler)
        except ProgressError:  # the drop closed since the last tick: answer as a quiz
            quiz = attempt.model_copy(update={"drop_id": None})
            attempts.record_attempt(db, quiz, now, scheduler=scheduler)
        if (n + 1) % 50_000 == 0:
            rate = (n + 1) / (time.perf_counter() - started)
            print(f"  built {n + 1:>9,} attempts ({rate:,.0f}/s)", flush=True)
    rate = n_attempts / (time.perf_counter() - started)
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.execute("ANALYZE")
    db.close()
    return rate


def warm_page_cache(path: Path) -> float:
    """Read the database file once so measurements start from the OS page cache; seconds."""
    started = time.perf_counter()
    with path.open("rb") as file:
        while file.read(1 << 20):
            pass
    return time.perf_counter() - started


def io_pressure() -> str:
    """The host's I/O pressure (Linux PSI, share of time some task waited on I/O)."""
    try:
        some = Path("/proc/pressure/io").read_text().splitlines()[0]
    except (OSError, IndexError):
        return "io pressure n/a"
    return "io pressure " + some.split()[1].replace("avg10=", "avg10 ") + "%"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Timings:
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    async_ms: list[float] = field(default_factory=list)


def timed(timings: Timings, call: Callable[[], Any]) -> None:
    cpu = time.thread_time()
    wall = time.perf_counter()
    call()
    timings.wall_ms.append((time.perf_counter() - wall) * 1000)
    timings.cpu_ms.append((time.thread_time() - cpu) * 1000)


def measure_sync(
    path: Path, world: World, samples: int, seed: int, end: datetime
) -> dict[str, Timings]:
    """Interleaved rounds on the sync path (the functions the owner thread runs)."""
    db = open_database(path)  # production settings: WAL, synchronous=NORMAL
    db.execute("CREATE TABLE IF NOT EXISTS bench_baseline (n INTEGER)")
    rng = random.Random(seed)
    scheduler = tutor_scheduler()
    results = {name: Timings() for name in (*TARGETS_MS, "baseline insert", "cpu spin 0.5ms")}
    for n in range(samples):
        now = end + timedelta(seconds=n)
        learner = rng.choice(world.learners)
        scope = rng.choice([None, world.home[learner]])
        guild = rng.choices(world.guilds, cum_weights=world.guild_weights)[0]
        period: LeaderboardPeriod = rng.choice(["week", "all"])
        attempt = make_attempt(world, rng, f"m{RUN}-{n}", rng.choice(world.learners))
        attempt = attempt.model_copy(update={"drop_id": None})
        calls: dict[str, Callable[[], object]] = {
            "learner stats": partial(stats.learner_stats, db, learner, now, scope),
            "leaderboard": partial(stats.leaderboard, db, guild, period, now, learner_id=learner),
            "attempt insert": partial(
                attempts.record_attempt, db, attempt, now, scheduler=scheduler
            ),
            "baseline insert": partial(baseline_insert, db, n),
            "cpu spin 0.5ms": partial(spin, 0.0005),
        }
        for name, call in calls.items():
            timed(results[name], call)
    db.close()
    return results


def spin(cpu_s: float) -> None:
    """Burn ``cpu_s`` seconds of this thread's CPU time (the scheduling control)."""
    until = time.thread_time() + cpu_s
    while time.thread_time() < until:
        pass


def baseline_insert(db: Database, n: int) -> None:
    """A one-row write transaction: what any SQLite write costs on this machine right now."""
    db.conn.execute("BEGIN IMMEDIATE")
    db.conn.execute("INSERT INTO bench_baseline VALUES (?)", [n])
    db.conn.execute("COMMIT")


async def measure_async(
    path: Path, world: World, samples: int, seed: int, end: datetime, results: dict[str, Timings]
) -> None:
    """The same operations through ``ProgressStore`` (what the bot awaits)."""
    rng = random.Random(seed)
    clock_now = [end]
    # Keep every answer text: the dataset stays the worst case for size and reads.
    async with ProgressStore(
        path, clock=lambda: clock_now[0], answer_retention_days=36500
    ) as store:
        for n in range(samples):
            clock_now[0] = end + timedelta(seconds=n)
            learner = rng.choice(world.learners)
            guild = rng.choices(world.guilds, cum_weights=world.guild_weights)[0]
            attempt = make_attempt(world, rng, f"a{RUN}-{n}", rng.choice(world.learners))
            attempt = attempt.model_copy(update={"drop_id": None})
            calls: dict[str, Callable[[], Awaitable[object]]] = {
                "learner stats": partial(
                    store.learner_stats, learner, guild_id=world.home[learner]
                ),
                "leaderboard": partial(store.leaderboard, guild, "week", learner_id=learner),
                "attempt insert": partial(store.record_attempt, attempt),
            }
            for name, call in calls.items():
                wall = time.perf_counter()
                await call()
                results[name].async_ms.append((time.perf_counter() - wall) * 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--learners", type=int, default=10_000)
    parser.add_argument("--guilds", type=int, default=100)
    parser.add_argument("--days", type=int, default=365, help="the attempts span this many days")
    parser.add_argument("--samples", type=int, default=2_000, help="measured rounds")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--build-only", action="store_true", help="build the database, exit")
    args = parser.parse_args()

    RESULTS.mkdir(parents=True, exist_ok=True)
    tag = f"{args.attempts}-{args.learners}-{args.guilds}-{args.days}-{args.seed}"
    path = RESULTS / f"store-{tag}.db"
    built_marker = RESULTS / f"store-{tag}.built.json"
    world = make_world(args.learners, args.guilds, args.seed)
    if args.rebuild or not built_marker.exists():
        print(
            f"building {args.attempts:,} attempts, {args.learners:,} learners, {args.guilds} guilds"
        )
        rate = build(path, args.attempts, world, args.days, args.seed)
        built_marker.write_text(json.dumps({"attempts_per_s": rate}))
    build_rate = json.loads(built_marker.read_text())["attempts_per_s"]
    if args.build_only:
        return 0
    # Drop state from the build is not needed for measuring; open drops are left closed.
    world.open_drops.clear()
    end = START + timedelta(days=args.days)

    db = open_database(path)
    counts = {
        table: db.table(table).count  # sqlite-utils: SELECT count(*)
        for table in ("attempts", "drops", "learners")
    }
    db.close()
    size_mib = path.stat().st_size / 2**20
    print(
        f"database: {counts['attempts']:,} attempts, {counts['learners']:,} learners, "
        f"{counts['drops']:,} drops, {size_mib:,.0f} MiB; built at {build_rate:,.0f} attempts/s"
    )

    warm_s = warm_page_cache(path)
    print(f"read the file once in {warm_s:.1f} s (a running bot's database is in the page cache)")
    pressure_before = io_pressure()
    results = measure_sync(path, world, args.samples, args.seed + 1, end)
    asyncio.run(
        measure_async(
            path, world, args.samples // 2, args.seed + 2, end + timedelta(days=1), results
        )
    )

    spin_p95 = pct(results["cpu spin 0.5ms"].wall_ms, 0.95)
    load = os.getloadavg()[0]
    print(f"\nload average {load:.1f}; {pressure_before} before, {io_pressure()} after")
    print(f"\n{args.samples:,} interleaved rounds (sync) + {args.samples // 2:,} via ProgressStore")
    header = (
        f"{'operation':<16}{'p50':>8}{'p95':>8}{'p99':>8}{'cpu p95':>9}{'async p95':>11}"
        f"{'target':>8}{'p95/target':>12}{'p95/spin':>10}"
    )
    print(header + "\n" + "-" * len(header))
    report: dict[str, Any] = {
        "attempts": counts["attempts"],
        "size_mib": round(size_mib),
        "build_attempts_per_s": round(build_rate),
    }
    for name, timing in results.items():
        p95 = pct(timing.wall_ms, 0.95)
        target = TARGETS_MS.get(name)
        async_p95 = pct(timing.async_ms, 0.95) if timing.async_ms else None
        row = {
            "p50_ms": round(pct(timing.wall_ms, 0.5), 3),
            "p95_ms": round(p95, 3),
            "p99_ms": round(pct(timing.wall_ms, 0.99), 3),
            "cpu_p95_ms": round(pct(timing.cpu_ms, 0.95), 3),
            "async_p95_ms": round(async_p95, 3) if async_p95 is not None else None,
            "mean_ms": round(statistics.mean(timing.wall_ms), 3),
        }
        report[name] = row
        print(
            f"{name:<16}{row['p50_ms']:>8.2f}{p95:>8.2f}{row['p99_ms']:>8.2f}{row['cpu_p95_ms']:>9.2f}"
            + (f"{async_p95:>11.2f}" if async_p95 is not None else f"{'-':>11}")
            + (f"{target:>8.0f}{p95 / target:>12.2f}" if target else f"{'-':>8}{'-':>12}")
            + f"{p95 / spin_p95:>10.2f}"
        )
    (RESULTS / f"store-{tag}.json").write_text(json.dumps(report, indent=2))
    missed = [n for n, t in TARGETS_MS.items() if report[n]["p95_ms"] > t]
    cpu_missed = [n for n, t in TARGETS_MS.items() if report[n]["cpu_p95_ms"] > t]
    print("\nwall p95 within every target" if not missed else f"\nwall p95 over target: {missed}")
    print("cpu p95 within every target" if not cpu_missed else f"cpu p95 over target: {cpu_missed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
