"""``tutor health`` and the bot's heartbeat: what Docker's healthchecks rely on."""

from __future__ import annotations

import asyncio
import importlib.util
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import discord
import pytest
from aiohttp import web

from bot.cli import main
from bot.cli.bot import gateway_state
from bot.health import (
    GatewayState,
    HeartbeatWriter,
    check_database,
    check_heartbeat,
    check_sandbox,
    heartbeat_path,
    read_heartbeat,
)
from bot.progress.store import ProgressStore
from bot.settings import TutorSettings
from sandbox.protocol import Health, Limits
from tests.conftest import ROOT

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _settings(tmp_path: Path, **fields: object) -> TutorSettings:
    return TutorSettings(_env_file=None, database_path=tmp_path / "tutor.db", **fields)  # type: ignore[call-arg, arg-type]


def _writer(settings: TutorSettings, connected: bool, at: datetime) -> HeartbeatWriter:
    return HeartbeatWriter(
        heartbeat_path(settings),
        lambda: GatewayState(connected=connected, guilds=3, latency_ms=41.0),
        clock=lambda: at,
    )


def test_the_database_check_fails_without_the_file(tmp_path: Path) -> None:
    result = check_database(_settings(tmp_path))
    assert not result.ok
    assert "no database file" in result.detail
    assert not (tmp_path / "tutor.db").exists()


def _tutor_database(path: Path) -> Path:
    """A progress database as the bot leaves it (every migration applied)."""

    async def create() -> None:
        async with ProgressStore(path):
            pass

    asyncio.run(create())
    return path


def test_the_database_check_passes_on_a_readable_database(tmp_path: Path) -> None:
    _tutor_database(tmp_path / "tutor.db")
    assert check_database(_settings(tmp_path)).ok


def test_the_database_check_fails_on_another_apps_database_without_writing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tutor.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE foo (x)")
    conn.close()
    before = path.read_bytes()
    result = check_database(_settings(tmp_path))
    assert (result.ok, path.read_bytes()) == (False, before)
    assert "is not an autograd-tutor database (it has tables foo)" in result.detail


def test_the_database_check_fails_on_a_database_of_a_newer_version(tmp_path: Path) -> None:
    path = _tutor_database(tmp_path / "tutor.db")
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
            "VALUES ('autograd_tutor.progress', '0099_future', '2030-01-01')"
        )
    conn.close()
    result = check_database(_settings(tmp_path))
    assert not result.ok
    assert "written by a newer version of autograd-tutor" in result.detail


def test_the_database_check_fails_on_a_damaged_database(tmp_path: Path) -> None:
    path = _tutor_database(tmp_path / "tutor.db")
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE review_cards")
    conn.close()
    result = check_database(_settings(tmp_path))
    assert not result.ok
    assert "damaged or incomplete (missing review_cards)" in result.detail


def test_the_database_check_fails_on_an_empty_file_calling_it_new(tmp_path: Path) -> None:
    (tmp_path / "tutor.db").touch()
    result = check_database(_settings(tmp_path))
    assert (result.ok, (tmp_path / "tutor.db").stat().st_size) == (False, 0)
    assert "is an empty, new database" in result.detail


def _corrupt_database(path: Path) -> None:
    """A database whose table pages are overwritten with garbage (its header is intact)."""
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(200)])
    conn.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page : 6 * page] = b"\xff" * (3 * page)
    path.write_bytes(bytes(data))


def test_the_database_check_fails_on_corrupt_pages(tmp_path: Path) -> None:
    _corrupt_database(tmp_path / "tutor.db")
    result = check_database(_settings(tmp_path))
    assert not result.ok
    assert "corrupt" in result.detail


def test_a_fresh_connected_heartbeat_is_healthy(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _writer(settings, True, NOW).beat()
    result = check_heartbeat(settings, now=NOW + timedelta(seconds=20))
    assert result.ok, result.detail
    assert "3 guild(s), gateway latency 41 ms" in result.detail


def test_a_stale_heartbeat_is_unhealthy(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _writer(settings, True, NOW).beat()
    result = check_heartbeat(settings, now=NOW + timedelta(seconds=91))
    assert not result.ok
    assert "91 s ago" in result.detail


def test_a_bot_disconnected_longer_than_the_limit_is_unhealthy(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _writer(settings, True, NOW).beat()
    later = NOW + timedelta(seconds=120)
    writer = _writer(settings, False, later)
    writer.connected_at = NOW
    writer.beat()
    result = check_heartbeat(settings, now=later)
    assert not result.ok
    assert "disconnected from Discord for 120 s" in result.detail


def test_a_bot_that_never_connected_is_unhealthy(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    _writer(settings, False, NOW).beat()
    assert not check_heartbeat(settings, now=NOW).ok


def test_a_missing_or_garbled_heartbeat_is_unhealthy(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    assert not check_heartbeat(settings, now=NOW).ok
    heartbeat_path(settings).write_text("{not json")
    assert read_heartbeat(heartbeat_path(settings)) is None
    assert not check_heartbeat(settings, now=NOW).ok


async def test_the_writer_keeps_beating_until_cancelled(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    beats = 0
    third = asyncio.Event()

    def probe() -> GatewayState:
        nonlocal beats
        beats += 1
        if beats == 3:
            third.set()
        return GatewayState(connected=True)

    writer = HeartbeatWriter(heartbeat_path(settings), probe, interval_s=0.01)
    task = asyncio.create_task(writer.run())
    await asyncio.wait_for(third.wait(), 10)
    task.cancel()
    assert read_heartbeat(heartbeat_path(settings)) is not None


def test_a_client_that_never_logged_in_reports_not_connected() -> None:
    state = gateway_state(discord.Client(intents=discord.Intents.none()))
    assert state == GatewayState(connected=False, guilds=0, latency_ms=state.latency_ms)


def _health(ready: bool) -> Health:
    return Health(
        ready=ready,
        backend="container",
        learner_code=True,
        isolated=[],
        not_isolated=[],
        reason="test",
        torch_version="2.13.0",
        running=0,
        queued=0,
        concurrency=1,
        queue_limit=8,
        curated_snippets=50,
        cached_results=0,
        limits=Limits(),
    )


@pytest.fixture
async def worker_socket(tmp_path: Path) -> AsyncIterator[tuple[Path, list[bool]]]:
    """A socket answering GET /health as a worker would; flip ``state[0]`` for readiness."""
    state = [True]

    async def health(request: web.Request) -> web.Response:
        body = _health(state[0]).model_dump_json()
        return web.Response(body=body, status=200 if state[0] else 503)

    app = web.Application()
    app.router.add_get("/health", health)
    runner = web.AppRunner(app)
    await runner.setup()
    path = tmp_path / "sandbox.sock"
    await web.UnixSite(runner, str(path)).start()
    yield path, state
    await runner.cleanup()


async def test_the_sandbox_check_asks_the_worker(
    tmp_path: Path, worker_socket: tuple[Path, list[bool]]
) -> None:
    path, state = worker_socket
    settings = _settings(tmp_path, sandbox_address=f"unix:{path}")
    assert (await check_sandbox(settings)).ok
    state[0] = False
    result = await check_sandbox(settings)
    assert not result.ok
    assert result.detail.endswith("not ready")


async def test_the_sandbox_check_fails_when_nothing_listens(tmp_path: Path) -> None:
    settings = _settings(tmp_path, sandbox_address=f"unix:{tmp_path / 'none.sock'}")
    result = await check_sandbox(settings)
    assert not result.ok
    assert "cannot be reached" in result.detail


async def test_an_unreachable_socket_is_named_in_plain_words(tmp_path: Path) -> None:
    socket_path = tmp_path / "none.sock"
    result = await check_sandbox(_settings(tmp_path, sandbox_address=f"unix:{socket_path}"))
    assert f"cannot be reached at unix:{socket_path}: No such file or directory" in result.detail
    assert "ssl:default" not in result.detail


async def test_a_local_sandbox_that_cannot_start_fails_the_check_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    result = await check_sandbox(_settings(tmp_path))  # sandbox_address defaults to "local"
    assert not result.ok
    assert result.detail.startswith("local: TUTOR_SANDBOX_ADDRESS=local starts a sandbox worker")
    assert "no torch" in result.detail


@pytest.mark.slow
async def test_the_local_sandbox_check_starts_the_zygote_with_tutor_sandbox_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_PYTHON", str(tmp_path / "no-such-python"))
    result = await check_sandbox(_settings(tmp_path, content_dir=ROOT / "content"))
    assert not result.ok
    assert f"could not start the sandbox with {tmp_path / 'no-such-python'}" in result.detail


@pytest.mark.slow
async def test_the_local_sandbox_check_starts_a_worker_and_asks_it(tmp_path: Path) -> None:
    result = await check_sandbox(_settings(tmp_path, content_dir=ROOT / "content"))
    assert result.ok, result.detail
    assert result.detail.startswith("local: started a worker for this check")
    assert "torch 2.13.0, backend " in result.detail


def test_tutor_health_exits_1_when_a_check_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "tutor.db"))
    assert main(["health", "--check", "database", "--check", "heartbeat"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in out] == [["FAIL", "database:"], ["FAIL", "heartbeat:"]]


def test_tutor_health_exits_0_when_every_check_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "tutor.db"))
    _tutor_database(tmp_path / "tutor.db")
    settings = _settings(tmp_path)
    _writer(settings, True, datetime.now(UTC)).beat()
    assert main(["health", "--check", "database", "--check", "heartbeat"]) == 0


def test_tutor_health_db_names_the_database_to_check_over_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--db`` as ``tutor play`` and ``tutor stats`` take it (fresh24 finding 7)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "missing.db"))
    good = _tutor_database(tmp_path / "good.db")
    assert main(["health", "--check", "database", "--db", str(good)]) == 0
    assert capsys.readouterr().out.startswith("ok   database:")
    assert main(["health", "--check", "database", "--db", str(tmp_path / "none.db")]) == 1
    assert f"no database file at {tmp_path / 'none.db'}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("db", "said"),
    [
        ("", "tutor health: --db: the path is empty"),
        (".", "is a directory, not a progress database"),
        ("gone/x.db", "tutor health: --db: the directory 'gone' does not exist"),
    ],
)
def test_tutor_health_refuses_a_bad_db_naming_the_flag_as_stats_does(
    db: str,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["health", "--check", "database", "--db", db]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "--db:" in err
    assert main(["stats", "--db", db]) == 2
    assert said.replace("tutor health", "tutor stats") in capsys.readouterr().err
