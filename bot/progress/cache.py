"""The sandbox result cache: a curated snippet's run result, keyed by code hash and torch.

The sandbox defines what a result is; here it is an opaque JSON text. A key is
``<torch version>:<sha256 of the code, 64 hex digits>``, e.g. ``2.13.0:3f5a...c2``: the
form of ``sandbox.cache.CacheKey.text()``, so the sandbox's ``ResultCache`` can be backed
by :func:`cache_get` / :func:`cache_put` with ``key.text()`` and ``RunResult`` JSON.
:func:`cache_key` builds one.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime

from bot.progress.db import Database, ts, write_transaction
from bot.progress.errors import InvalidCacheEntry

MAX_RESULT_BYTES = 256 * 1024
"""A cached result larger than 256 KiB is refused (run output is capped far below that)."""

_KEY = re.compile(r"^(?P<torch>[0-9A-Za-z.+_-]{1,64}):(?P<sha>[0-9a-f]{64})$")


def cache_key(code: str, torch_version: str) -> str:
    """The cache key of a snippet under a torch version (sha256 of the UTF-8 code)."""
    return f"{torch_version}:{hashlib.sha256(code.encode()).hexdigest()}"


def _split(key: str) -> tuple[str, str]:
    match = _KEY.match(key)
    if match is None:
        raise InvalidCacheEntry(
            f"cache key {key[:80]!r} is not '<torch version>:<64 hex digits of sha256>'"
        )
    return match["sha"], match["torch"]


def cache_get(db: Database, key: str) -> str | None:
    """The cached result JSON for ``key``, or None.

    Raises:
        InvalidCacheEntry: the key is malformed.
    """
    sha, torch = _split(key)
    row = db.execute(
        "SELECT result_json FROM sandbox_cache WHERE code_sha256 = ? AND torch_version = ?",
        [sha, torch],
    ).fetchone()
    return None if row is None else str(row[0])


def cache_put(db: Database, key: str, result_json: str, now: datetime) -> None:
    """Store (or replace) the result JSON for ``key``.

    Raises:
        InvalidCacheEntry: the key is malformed, the value is not JSON, or it is larger than
            256 KiB.
    """
    sha, torch = _split(key)
    size = len(result_json.encode())
    if size > MAX_RESULT_BYTES:
        raise InvalidCacheEntry(f"cached result is {size} bytes; at most {MAX_RESULT_BYTES}")
    try:
        json.loads(result_json)
    except ValueError as exc:
        raise InvalidCacheEntry(f"cached result is not JSON: {exc}") from None
    with write_transaction(db):
        db.execute(
            """
            INSERT INTO sandbox_cache (code_sha256, torch_version, result_json, created_at)
            VALUES (?, ?, ?, ?)
            ON CONFLICT (code_sha256, torch_version) DO UPDATE SET
                result_json = excluded.result_json, created_at = excluded.created_at
            """,
            [sha, torch, result_json, ts(now)],
        )
