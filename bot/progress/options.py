"""The store's connection options as plain values, importable without sqlite-utils.

Settings classes (``bot.settings``, ``bot.progress.settings``) declare their fields with
these, so reading the configuration never imports the database layer (sqlite-utils imports
numpy when it is installed, ~10 MiB a ``tutor`` command does not need).
"""

from __future__ import annotations

from typing import Literal

Synchronous = Literal["NORMAL", "FULL"]
"""SQLite ``PRAGMA synchronous`` levels we allow.

``NORMAL`` (the default): in WAL mode a commit is durable once written to the WAL file, so
a killed process loses nothing it acknowledged; a power cut may lose the last commits.
``FULL`` also fsyncs the WAL on every commit (sqlite.org/pragma.html#pragma_synchronous).
"""

DEFAULT_BUSY_TIMEOUT_S = 5.0
"""How long a writer waits for another process's write lock before failing (seconds)."""
