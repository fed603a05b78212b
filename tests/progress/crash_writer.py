"""Child process for the crash-safety test: records attempts until it is killed.

Usage: ``python -m tests.progress.crash_writer DB_PATH ROUND``. After each
``record_attempt`` call returns, prints ``ack <idempotency key>`` and flushes, so every
line the parent reads is an attempt the store acknowledged.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from bot.content.models import Kind, Label
from bot.progress.models import AttemptIn
from bot.progress.store import ProgressStore


async def main(path: Path, round_no: int) -> None:
    async with ProgressStore(path) as store:
        print("ready", flush=True)
        n = 0
        while True:
            n += 1
            key = f"r{round_no}-{n}"
            await store.record_attempt(
                AttemptIn(
                    idempotency_key=key,
                    learner_id=1 + n % 50,
                    guild_id=7 if n % 3 else None,
                    item_id=f"TF{1 + n % 30}",
                    kind=Kind.TRUE_FALSE,
                    tags=["grad-accumulation"],
                    difficulty=1 + n % 3,
                    verdict=bool(n % 2),
                    verdict_correct=bool(n % 2),
                    answer_text="x" * (n % 500),
                    score=(n % 5) / 4,
                    label=Label.CORRECT if n % 2 else Label.INCORRECT,
                    concepts_hit=["accumulates"] if n % 2 else [],
                    concepts_missing=[] if n % 2 else ["accumulates"],
                    misconceptions=[] if n % 2 else ["overwrites"],
                    duration_ms=1000 * (n % 90),
                )
            )
            sys.stdout.write(f"ack {key}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
