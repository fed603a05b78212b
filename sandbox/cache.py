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

import logging
import threading
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.files import write_text_atomically
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


CACHE_REBUILT = (
    "curated results are kept in memory for this run and the file is left as it is; "
    "move it away (or fix the path) to let the cache be rebuilt there"
)
"""How every unusable cache file ends its warning: a cache is only a speed-up (reveals
are run again without it), so it never stops a command, and a file the worker did not
write is never overwritten nor deleted."""


def cache_file_problem(path: Path) -> str | None:
    """Why the existing ``path`` cannot be used as the curated-result cache, or None.

    A missing file is fine (the first result creates it; its directory must exist, which
    :class:`sandbox.settings.SandboxSettings` checks). A directory, an unreadable file, or
    one that is not a cache this worker wrote (not JSON, another JSON file) is a problem.

    Args:
        path: the cache file (``TUTOR_SANDBOX_CACHE_PATH`` or ``--cache``).

    Returns:
        One line naming the path and the reason, ending with :data:`CACHE_REBUILT`, e.g.
        ``the sandbox cache c.json is not a cache file (Invalid JSON: ...): curated
        results are kept in memory ...``; None when the file is missing or valid.
    """
    return _read_cache(path)[1]


def _read_cache(path: Path) -> tuple[dict[str, RunResult], str | None]:
    """The results stored in ``path`` and, when it cannot be used, the reason."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except IsADirectoryError:
        return {}, f"the sandbox cache {path} is a directory, not a file: {CACHE_REBUILT}"
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8"
        return {}, f"the sandbox cache {path} cannot be read ({why}): {CACHE_REBUILT}"
    try:
        return dict(_CacheFile.model_validate_json(raw).results), None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        why = f"{where}: {first['msg']}" if where else first["msg"]
        return {}, f"the sandbox cache {path} is not a cache file ({why}): {CACHE_REBUILT}"


class FileResultCache(MemoryResultCache):
    """A JSON file, rewritten atomically on every put (:func:`bot.files.write_text_atomically`).

    A missing file starts empty. A file that cannot be used (a directory, unreadable, not
    a cache: :func:`cache_file_problem`) is left untouched for good: the cache then lives
    in memory only, and :attr:`problem` says why, for the command to print.

    Args:
        path: the JSON file, e.g. ``data/sandbox-cache.json``; its directory must exist
            (none is created).

    Attributes:
        problem: why the file is not used (one line), or None.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._lock = threading.Lock()
        self._items, self.problem = _read_cache(path)  # the command prints the problem

    def put(self, key: CacheKey, result: RunResult) -> None:
        """Store ``result`` and rewrite the file atomically (in memory only when the file
        was not usable, or once writing it failed: logged, the job's result still
        returned)."""
        with self._lock:
            super().put(key, result)
            if self.problem:
                return
            body = _CacheFile(results=self._items).model_dump_json(indent=1)
            try:
                write_text_atomically(self.path, body)
            except OSError as exc:
                self.problem = (
                    f"the sandbox cache {self.path} cannot be written "
                    f"({exc.strerror or exc}): {CACHE_REBUILT}"
                )
                log.warning("%s", self.problem)
