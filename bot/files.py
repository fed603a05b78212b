"""Writing a file so a reader never sees it half-written, and naming a byte that is not UTF-8.

One writer for every file the project rewrites whole: ``tutor content schema --output``
and the sandbox's curated-result cache (``TUTOR_SANDBOX_CACHE_PATH``). The bot's heartbeat
keeps its own unsynced rename (bot/health.py): it is rewritten every 30 s from the event
loop, where an fsync could stall the gateway.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` so a reader never sees it half-written.

    A regular file (or a new one) is written to a temporary file in the same directory, then
    renamed over ``path`` (:func:`os.replace`, atomic on POSIX): a failure such as a full
    disk leaves the old file as it was and no temporary file behind. A symbolic link is
    followed (the file it points to is replaced, the link stays). Anything else that exists
    (``/dev/stdout``, a FIFO, ``/dev/full``) is written in place: renaming over a device
    would replace the device itself. The file keeps its permission bits (a new one gets
    0666 less the umask, as :func:`open` gives).

    Args:
        path: the file; its directory must exist (:func:`bot.cli.files.new_file_problem`).
        text: the whole content.

    Raises:
        OSError: the file cannot be written (``strerror`` says why: no space left on
            device, permission denied, read-only file system...).
    """
    try:
        mode = path.stat().st_mode  # through a symbolic link, as open() goes
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = stat.S_IFREG | (0o666 & ~umask)  # what open() would have made
    if not stat.S_ISREG(mode):
        with path.open("w", encoding="utf-8") as f:
            f.write(text)
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(mode))  # mkstemp makes 0600; keep the usual mode
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def not_utf8_byte(raw: bytes, error: UnicodeDecodeError) -> str:
    """Where ``raw`` stopped decoding, as every refusal of non-UTF-8 input words it (a pack,
    ``.env``, a ``tutor grade --jsonl`` line, a sandbox snippet file): ``byte 0xff at
    position 0``.

    Args:
        raw: the bytes that were decoded.
        error: the error :meth:`bytes.decode` raised on them (``start`` is 0-based).
    """
    return f"byte 0x{raw[error.start]:02x} at position {error.start}"
