"""The curated-result cache: keyed by code hash and torch version, survives restarts."""

from __future__ import annotations

from pathlib import Path

from sandbox.cache import CacheKey, FileResultCache, MemoryResultCache
from sandbox.protocol import JobOutcome, Limits, RunResult, code_sha256

RESULT = RunResult.from_outcome(
    JobOutcome(stdout="tensor([3.])\n", exit_code=0), Limits(), "namespaces", "2.13.0"
)
KEY = CacheKey(code_sha256=code_sha256("print(1)"), torch_version="2.13.0")


def test_a_stored_result_is_returned_for_its_key() -> None:
    cache = MemoryResultCache()
    cache.put(KEY, RESULT)
    assert cache.get(KEY) == RESULT


def test_another_torch_version_is_a_miss() -> None:
    cache = MemoryResultCache()
    cache.put(KEY, RESULT)
    assert cache.get(KEY.model_copy(update={"torch_version": "2.14.0"})) is None


def test_the_file_cache_survives_a_restart(tmp_path: Path) -> None:
    FileResultCache(tmp_path / "cache.json").put(KEY, RESULT)
    assert FileResultCache(tmp_path / "cache.json").get(KEY) == RESULT


def test_a_corrupt_cache_file_starts_empty_and_is_not_overwritten_on_load(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    path.write_text("{not json")
    cache = FileResultCache(path)
    assert len(cache) == 0
    assert path.read_text() == "{not json"
