"""Files the CLI writes: refuse paths that cannot work up front (then write them with
:func:`bot.files.write_text_atomically`).

Every ``tutor`` path that names a new file (``content schema --output``, ``--db``,
``sandbox serve --unix``, ``--graph-png``, ``TUTOR_SANDBOX_CACHE_PATH``) refuses a missing
directory rather than creating it, so a mistyped path never makes ``/nonexistent/`` at the
root nor scatters files elsewhere (fresh8 #5).
"""

from __future__ import annotations

from pathlib import Path

from bot.settings import missing_directory


def new_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot name a file to write, before anything is written.

    Args:
        path: the file asked for (relative to the working directory or absolute).

    Returns:
        One clause for the caller to prefix with the flag and path (``is a directory: ...``,
        ``the directory '/x' does not exist: ...``, ``'/etc/passwd' is not a directory:
        ...``), or None when its directory exists and the path itself is not a directory.
    """
    if path.is_dir():
        return "is a directory: name the file to write"
    return missing_directory(path)
