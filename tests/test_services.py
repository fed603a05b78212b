"""The service layer: opening everything from settings, and the store-backed result cache."""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.content.loader import Bank
from bot.progress.store import StoreClosed
from bot.services import Services, Snippets, StoreResultCache, open_services, sandbox_runner
from bot.settings import TutorSettings
from sandbox.cache import CacheKey
from sandbox.client import SandboxClient
from sandbox.errors import SandboxRejected, SandboxUnavailable
from sandbox.protocol import code_sha256
from tests.conftest import CONTENT
from tests.fake_sandbox import Clock, FakeSandboxRunner, run_result

LEARNER = 3_000_000_000_000_000_003


def _settings(tmp_path: Path, **values: object) -> TutorSettings:
    (tmp_path / "data").mkdir(exist_ok=True)
    fields: dict[str, object] = {
        "database_path": tmp_path / "data" / "tutor.db",
        "content_dir": CONTENT,
        **values,
    }
    return TutorSettings(_env_file=None, **fields)  # type: ignore[call-arg,arg-type]


@pytest.fixture
def runner(bank: Bank) -> FakeSandboxRunner:
    return FakeSandboxRunner(bank)


@pytest.fixture
async def services(
    tmp_path: Path, bank: Bank, runner: FakeSandboxRunner
) -> AsyncIterator[Services]:
    async with open_services(_settings(tmp_path), bank=bank, clock=Clock(), runner=runner) as s:
        yield s


# --- opening and closing -------------------------------------------------------------------


async def test_open_services_loads_the_bank_from_the_content_dir(
    tmp_path: Path, runner: FakeSandboxRunner
) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    shutil.copy(CONTENT / "autograd-core.yaml", packs)
    settings = _settings(tmp_path, content_dir=packs)
    async with open_services(settings, runner=runner) as services:
        assert services.bank.get("TF1") is not None
        assert services.bank.get("TF9") is None  # only the core pack was copied
        assert "TF1" in services.grader


async def test_open_services_creates_the_database_and_closes_it_on_exit(
    tmp_path: Path, bank: Bank, runner: FakeSandboxRunner
) -> None:
    settings = _settings(tmp_path)
    async with open_services(settings, bank=bank, runner=runner) as services:
        assert settings.database_path.exists()
        assert await services.store.integrity_check() == "ok"
    with pytest.raises(StoreClosed):
        await services.store.recent_items(LEARNER)


async def test_open_services_passes_the_store_options_from_settings(
    tmp_path: Path, bank: Bank, runner: FakeSandboxRunner
) -> None:
    settings = _settings(tmp_path, answer_retention_days=0)
    async with open_services(settings, bank=bank, runner=runner) as services:
        assert services.store.answer_retention_days == 0


async def test_open_services_learns_the_workers_torch_version(services: Services) -> None:
    assert services.snippets.torch_version == "2.13.0"
    assert services.snippets.health is not None


async def test_a_sandbox_down_at_start_is_not_fatal(
    tmp_path: Path, bank: Bank, runner: FakeSandboxRunner
) -> None:
    runner.mode = "down"
    async with open_services(_settings(tmp_path), bank=bank, runner=runner) as services:
        assert services.snippets.torch_version is None


async def test_the_grader_grades_the_banks_items(services: Services) -> None:
    response = services.grader.response("TF3", False, "gradients accumulate in .grad")
    assert services.grader.grade(response).item_id == "TF3"


# --- sandbox addresses ---------------------------------------------------------------------


async def test_a_unix_address_makes_a_client_on_that_socket(tmp_path: Path) -> None:
    settings = _settings(tmp_path, sandbox_address="unix:/run/sandbox/sandbox.sock")
    async with sandbox_runner(settings) as runner:
        assert isinstance(runner, SandboxClient)
        assert runner.unix_path == Path("/run/sandbox/sandbox.sock")
        assert runner.timeout_s == settings.sandbox_timeout_s


async def test_an_http_address_makes_a_client_on_that_url(tmp_path: Path) -> None:
    settings = _settings(tmp_path, sandbox_address="http://sandbox:8060")
    async with sandbox_runner(settings) as runner:
        assert isinstance(runner, SandboxClient)
        assert runner.base_url == "http://sandbox:8060"


async def test_a_local_sandbox_without_torch_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    with pytest.raises(SandboxUnavailable, match="this Python, which has no torch"):
        async with sandbox_runner(_settings(tmp_path)):
            pass


# --- the curated-result cache ---------------------------------------------------------------


async def test_a_curated_snippet_runs_once_then_comes_from_the_store(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    item = bank.items["TF3"]
    first = await services.snippets.run_curated(item)
    second = await services.snippets.run_curated(item)
    assert runner.runs == [item.snippet]
    assert (first.cached, second.cached) == (False, True)
    assert second.stdout == first.stdout == item.expected_output


async def test_the_cache_survives_a_restart_and_a_sandbox_going_down(
    tmp_path: Path, bank: Bank, runner: FakeSandboxRunner
) -> None:
    item = bank.items["TF3"]
    settings = _settings(tmp_path)
    async with open_services(settings, bank=bank, runner=runner) as services:
        await services.snippets.run_curated(item)
    runner.mode = "down"
    async with open_services(settings, bank=bank, runner=runner) as services:
        result = await services.snippets.run_curated(item)
    assert result.cached
    assert result.stdout == item.expected_output
    assert runner.runs == [item.snippet]


async def test_concurrent_reveals_of_one_snippet_share_one_run(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    runner.mode = "slow"
    item = bank.items["WHY2"]
    waiting = [asyncio.create_task(services.snippets.run_curated(item)) for _ in range(5)]
    await asyncio.sleep(0.05)
    runner.gate.set()
    results = await asyncio.gather(*waiting)
    assert runner.runs == [item.snippet]
    assert sorted(r.cached for r in results) == [False, True, True, True, True]


async def test_a_run_that_did_not_finish_is_not_cached(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    item = bank.items["TF3"]
    timed_out = run_result("", status="timed out after 5 s", ok=False, timed_out=True)

    async def slow_once(code: str, **_: object) -> object:
        runner.runs.append(code)
        return timed_out

    runner.run = slow_once  # type: ignore[assignment,method-assign]
    assert (await services.snippets.run_curated(item)).status == "timed out after 5 s"
    key = CacheKey(code_sha256=code_sha256(item.snippet), torch_version="2.13.0")
    assert await StoreResultCache(services.store).get(key) is None


async def test_a_down_sandbox_without_a_cached_result_raises(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    runner.mode = "down"
    with pytest.raises(SandboxUnavailable):
        await services.snippets.run_curated(bank.items["TF3"])


async def test_a_new_torch_on_the_worker_runs_the_snippet_again(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    item = bank.items["TF3"]
    await services.snippets.run_curated(item)
    runner.torch_version = "2.14.0"
    await services.snippets.probe()
    rerun = await services.snippets.run_curated(item)
    assert (rerun.cached, rerun.torch_version) == (False, "2.14.0")
    assert len(runner.runs) == 2


async def test_a_down_sandbox_is_probed_at_most_once_a_minute(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    now = [0.0]
    snippets = Snippets(runner, StoreResultCache(services.store), clock=lambda: now[0])
    runner.mode = "down"
    before = runner.health_calls
    for moment in (0.0, 30.0, 59.0):
        now[0] = moment
        with pytest.raises(SandboxUnavailable):
            await snippets.run_curated(bank.items["TF3"])
    assert runner.health_calls == before + 1
    now[0] = 60.0
    with pytest.raises(SandboxUnavailable):
        await snippets.run_curated(bank.items["TF3"])
    assert runner.health_calls == before + 2


async def test_an_unreadable_cache_entry_is_a_miss(services: Services, bank: Bank) -> None:
    key = CacheKey(code_sha256="a" * 64, torch_version="2.13.0")
    await services.store.cache_put(key.text(), '{"written_by": "an older protocol"}')
    assert await StoreResultCache(services.store).get(key) is None


# --- graphs through the cache ---------------------------------------------------------------


async def test_a_curated_run_without_graph_leaves_the_graph_out(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    result = await services.snippets.run_curated(bank.items["TF3"])
    assert (result.graph, result.graph_error) == (None, None)


async def test_one_stored_run_answers_the_output_and_then_the_graph(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    item = bank.items["TF3"]
    await services.snippets.run_curated(item)
    shown = await services.snippets.run_curated(item, graph=True)
    assert runner.runs == [item.snippet]
    assert shown.cached
    assert shown.graph == runner.graph


async def test_a_stored_run_from_before_graphs_is_run_again_for_its_graph(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    item = bank.items["TF3"]
    key = CacheKey(code_sha256=code_sha256(item.snippet), torch_version="2.13.0")
    await StoreResultCache(services.store).put(key, run_result(item.expected_output))
    assert (await services.snippets.run_curated(item)).cached
    shown = await services.snippets.run_curated(item, graph=True)
    assert (shown.cached, shown.graph) == (False, runner.graph)
    assert runner.runs == [item.snippet]


async def test_a_graph_the_job_could_not_write_is_cached_with_its_reason(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    item = bank.items["TF3"]
    runner.graph = None
    await services.snippets.run_curated(item, graph=True)
    again = await services.snippets.run_curated(item, graph=True)
    assert (again.cached, again.graph_error) == (True, runner.graph_error)
    assert runner.runs == [item.snippet]


async def test_a_result_too_large_for_the_store_is_still_returned(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    item = bank.items["TF3"]
    runner.curated[code_sha256(item.snippet)] = "x" * 300_000
    result = await services.snippets.run_curated(item)
    assert (result.ok, len(result.stdout)) == (True, 300_000)
    key = CacheKey(code_sha256=code_sha256(item.snippet), torch_version="2.13.0")
    assert await StoreResultCache(services.store).get(key) is None


async def test_a_learner_run_asks_for_the_graph_when_told(
    services: Services, runner: FakeSandboxRunner
) -> None:
    result = await services.snippets.run_learner("print(1)", graph=True)
    assert result.graph == runner.graph
    assert (runner.graph_asks, runner.use_cache) == ([True], [False])


async def test_learner_code_is_never_answered_from_a_cache(
    services: Services, runner: FakeSandboxRunner
) -> None:
    result = await services.snippets.run_learner("print(1)")
    assert result.stdout == "tensor([2.])\n"
    assert runner.use_cache == [False]


async def test_a_refusal_of_learner_code_reaches_the_caller(
    services: Services, runner: FakeSandboxRunner
) -> None:
    runner.mode = "refusing"
    with pytest.raises(SandboxRejected) as refused:
        await services.snippets.run_learner("print(1)")
    assert refused.value.code == "refused"


@pytest.mark.slow
async def test_the_default_address_starts_a_local_worker_with_real_torch(
    tmp_path: Path, bank: Bank
) -> None:
    settings = _settings(tmp_path)  # sandbox_address defaults to "local"
    item = bank.items["TF3"]
    async with open_services(settings, bank=bank) as services:
        assert services.snippets.torch_version == "2.13.0"
        first = await services.snippets.run_curated(item)
        again = await services.snippets.run_curated(item)
        socket = services.snippets.runner.unix_path  # type: ignore[attr-defined]
        assert socket.exists()
    assert first.ok
    assert first.stdout.rstrip("\n") == item.expected_output.rstrip("\n")
    assert again.cached
    assert not socket.exists()  # the worker was stopped and its directory removed
