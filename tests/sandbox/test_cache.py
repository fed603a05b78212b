"""The curated-result cache: keyed by code hash and torch version, survives restarts."""

from __future__ import annotations

from pathlib import Path

from sandbox.cache import (
    CACHE_REBUILT,
    CacheKey,
    FileResultCache,
    MemoryResultCache,
    cache_file_problem,
)
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


def test_a_corrupt_cache_file_is_never_overwritten_and_the_cache_works_in_memory(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cache.json"
    path.write_text("garbage{")
    cache = FileResultCache(path)
    cache.put(KEY, RESULT)
    assert cache.get(KEY) == RESULT
    assert path.read_text() == "garbage{"
    assert sorted(tmp_path.iterdir()) == [path]


def test_a_corrupt_cache_file_is_named_with_the_rebuild_advice(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    path.write_text("garbage{")
    problem = cache_file_problem(path)
    assert problem is not None
    assert problem.startswith(f"the sandbox cache {path} is not a cache file (")
    assert problem.endswith(CACHE_REBUILT)
    assert "\n" not in problem


def test_a_directory_as_the_cache_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    cache = FileResultCache(tmp_path)
    cache.put(KEY, RESULT)
    assert cache.get(KEY) == RESULT
    assert (
        cache.problem == f"the sandbox cache {tmp_path} is a directory, not a file: {CACHE_REBUILT}"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_missing_or_valid_cache_file_is_no_problem(tmp_path: Path) -> None:
    path = tmp_path / "cache.json"
    assert cache_file_problem(path) is None
    FileResultCache(path).put(KEY, RESULT)
    assert cache_file_problem(path) is None
