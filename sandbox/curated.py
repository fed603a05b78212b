"""The curated snippets: the question bank's own code, trusted and cacheable.

The worker loads them from ``content/*.yaml`` through :mod:`bot.content.loader` (no torch
there). Without isolation (backend ``none``) only these run; with isolation they run in the
same jail as learner code and their results may be served from the cache.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

from bot.content.loader import ContentErrors, load_bank
from sandbox.protocol import code_sha256

log = logging.getLogger(__name__)


class CuratedSnippets:
    """A set of snippets known by their SHA-256.

    Args:
        snippets: the snippets' source code.
    """

    def __init__(self, snippets: Iterable[str] = ()) -> None:
        self._by_hash = {code_sha256(code): code for code in snippets}

    @classmethod
    def load(cls, paths: Iterable[Path]) -> CuratedSnippets:
        """Every item snippet in the packs under ``paths``.

        A broken or missing pack is logged with each problem (file:line: item.field: what)
        and gives an empty set rather than stopping the worker: learner code still runs
        where isolation exists.
        """
        paths = [p for p in paths if p.exists()]
        if not paths:
            return cls()
        try:
            bank = load_bank(paths)
        except ContentErrors as exc:
            for err in exc.errors:
                log.warning("curated snippets not loaded: %s", err)
            return cls()
        return cls(item.snippet for item in bank)

    def __contains__(self, digest: object) -> bool:
        return digest in self._by_hash

    def __len__(self) -> int:
        return len(self._by_hash)

    def snippets(self) -> Iterator[str]:
        """Each snippet's code, in load order."""
        return iter(list(self._by_hash.values()))
