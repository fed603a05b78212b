"""The sandbox result cache: get/put keyed by code sha256 and torch version."""

from __future__ import annotations

import pytest

from bot.progress.cache import MAX_RESULT_BYTES, cache_key
from bot.progress.errors import InvalidCacheEntry
from bot.progress.store import ProgressStore

CODE = "import torch\nprint(torch.ones(2))\n"
KEY = cache_key(CODE, "2.13.0")


def test_cache_key_is_code_sha256_and_torch_version() -> None:
    assert KEY == "2.13.0:86091ecaffe4dfc6ef46f768d6488a814c48f298c9bb63bc53a0c7fb0dca31ff"


async def test_missing_entry_is_none(store: ProgressStore) -> None:
    assert await store.cache_get(KEY) is None


async def test_put_then_get_returns_the_stored_json(store: ProgressStore) -> None:
    await store.cache_put(KEY, '{"stdout": "tensor([1., 1.])\\n"}')
    assert await store.cache_get(KEY) == '{"stdout": "tensor([1., 1.])\\n"}'


async def test_put_replaces_an_entry(store: ProgressStore) -> None:
    await store.cache_put(KEY, '{"v": 1}')
    await store.cache_put(KEY, '{"v": 2}')
    assert await store.cache_get(KEY) == '{"v": 2}'


async def test_entries_are_separate_per_torch_version(store: ProgressStore) -> None:
    await store.cache_put(KEY, '{"v": 1}')
    assert await store.cache_get(cache_key(CODE, "2.12.0")) is None


async def test_malformed_key_is_refused(store: ProgressStore) -> None:
    with pytest.raises(InvalidCacheEntry, match="not '<torch version>:<64 hex digits"):
        await store.cache_get("print(1)")


async def test_value_that_is_not_json_is_refused(store: ProgressStore) -> None:
    with pytest.raises(InvalidCacheEntry, match="not JSON"):
        await store.cache_put(KEY, "tensor([1.])")


async def test_oversized_value_is_refused(store: ProgressStore) -> None:
    with pytest.raises(InvalidCacheEntry, match="bytes; at most"):
        await store.cache_put(KEY, '"' + "x" * MAX_RESULT_BYTES + '"')
