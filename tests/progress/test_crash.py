"""Crash safety: a writer SIGKILLed mid-stream loses no acknowledged attempt.

A child process records attempts through the real store and reports each acknowledged
idempotency key on stdout; the parent kills it with SIGKILL at a random point, three times
over the same file (each round also recovers the previous round's WAL). Then the file must
pass ``PRAGMA integrity_check`` and hold every acknowledged attempt, with summaries that
agree with the attempts.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.progress.db import open_database
from tests.conftest import ROOT

ROUNDS = 3


def _run_and_kill(db_path: Path, round_no: int, after_acks: int) -> set[str]:
    """Start a writer, kill it with SIGKILL after ``after_acks`` acks; return every ack."""
    errors = db_path.with_suffix(f".stderr{round_no}")
    acked: set[str] = set()
    with (
        errors.open("w") as stderr,
        subprocess.Popen(
            [sys.executable, "-m", "tests.progress.crash_writer", str(db_path), str(round_no)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        ) as child,
    ):
        assert child.stdout is not None
        try:
            assert child.stdout.readline().strip() == "ready", errors.read_text()
            while len(acked) < after_acks:
                line = child.stdout.readline()
                assert line, f"writer died early: {errors.read_text()}"
                acked.add(line.split()[1])
            child.send_signal(signal.SIGKILL)
            # Lines already written before the kill are acknowledged attempts too.
            for line in child.stdout:
                if line.startswith("ack ") and line.endswith("\n"):
                    acked.add(line.split()[1])
        finally:
            child.kill()
            child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    return acked


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    """A database written by three writers, each killed mid-stream."""
    db_path = tmp_path_factory.mktemp("crash") / "tutor.db"
    chance = random.Random(5)
    acked: set[str] = set()
    for round_no in range(ROUNDS):
        acked |= _run_and_kill(db_path, round_no, chance.randint(150, 400))
    return db_path, acked


def test_database_passes_integrity_check_after_kill_9(crashed: tuple[Path, set[str]]) -> None:
    db = open_database(crashed[0])
    result = db.execute("PRAGMA integrity_check").fetchall()
    db.close()
    assert result == [("ok",)]


def test_every_acknowledged_attempt_survives_kill_9(crashed: tuple[Path, set[str]]) -> None:
    db_path, acked = crashed
    db = open_database(db_path)
    stored = {row[0] for row in db.execute("SELECT idempotency_key FROM attempts")}
    db.close()
    assert len(acked) >= 450
    assert acked - stored == set()


def test_summaries_agree_with_attempts_after_kill_9(crashed: tuple[Path, set[str]]) -> None:
    db = open_database(crashed[0])
    attempts = db.execute("SELECT count(*) FROM attempts").fetchone()[0]
    counted = db.execute("SELECT sum(attempts) FROM learner_items WHERE scope = 0").fetchone()[0]
    cards = db.execute("SELECT sum(reviews) FROM review_cards").fetchone()[0]
    db.close()
    assert attempts == counted == cards
