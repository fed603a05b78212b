"""A cache of curated snippets' results, keyed by (code hash, torch version).

A reveal shows the item's real output; with the cache it never waits for torch. The
interface is two methods so the bot can back it with its SQLite store later::

    class ResultCache(Protocol):
        def get(self, key: CacheKey) -> RunResult | None: ...
        def put(self, key: CacheKey, result: RunResult) -> None: ...

Only results of curated snippets that ran to their end under the server's default limits are
stored (the worker decides); a new torch version is a different key, so nothing stale is
served after an upgrade.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sandbox.protocol import RunResult

log = logging.getLogger(__name__)


class CacheKey(BaseModel):
    """What a cached result is valid for.

    Attributes:
        code_sha256: :func:`sandbox.protocol.code_sha256` of the snippet.
        torch_version: the torch that produced the result, e.g. ``2.13.0``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    code_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    torch_version: str = Field(min_length=1, max_length=64)

    def text(self) -> str:
        """The key as one string, ``<torch_version>:<sha256>``."""
        return f"{self.torch_version}:{self.code_sha256}"


class ResultCache(Protocol):
    """Where curated results are kept; implementations must be safe to call from one loop."""

    def get(self, key: CacheKey) -> RunResult | None:
        """The stored result for ``key``, or None."""
        ...

    def put(self, key: CacheKey, result: RunResult) -> None:
        """Store ``result`` under ``key``, replacing any earlier one."""
        ...

    def __len__(self) -> int:
        """How many results are stored."""
        ...


class MemoryResultCache:
    """A dict in memory; lost when the worker stops."""

    def __init__(self) -> None:
        self._items: dict[str, RunResult] = {}

    def get(self, key: CacheKey) -> RunResult | None:
        """The stored result for ``key``, or None."""
        return self._items.get(key.text())

    def put(self, key: CacheKey, result: RunResult) -> None:
        """Store ``result`` under ``key``."""
        self._items[key.text()] = result

    def __len__(self) -> int:
        return len(self._items)


class _CacheFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    results: dict[str, RunResult] = Field(default_factory=dict)


class FileResultCache(MemoryResultCache):
    """A JSON file, rewritten atomically (temp file + rename) on every put.

    A missing file starts empty; an unreadable or invalid one is logged (naming the file
    and the problem) and left in place untouched, and the cache starts empty in memory
    without overwriting it until the next successful put replaces it.

    Args:
        path: the JSON file, e.g. ``data/sandbox-cache.json``.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._lock = threading.Lock()
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        try:
            self._items = dict(_CacheFile.model_validate_json(raw).results)
        except (ValidationError, json.JSONDecodeError) as exc:
            log.warning("ignoring the sandbox cache %s: %s", path, str(exc).splitlines()[0])

    def put(self, key: CacheKey, result: RunResult) -> None:
        """Store ``result`` and rewrite the file atomically."""
        with self._lock:
            super().put(key, result)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            body = _CacheFile(results=self._items).model_dump_json(indent=1)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".sandbox-cache-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(body)
            os.replace(tmp, self.path)
