"""Cheap forks and exits for the zygote: its heap moved onto transparent huge pages.

After importing torch (with ``torch._dynamo``, sympy and numpy) the zygote holds ~220 MiB of
anonymous memory, the Python heap. Every fork copies a page-table entry per 4 KiB page of
it (~56,000), and every exit of a forked process takes each one down again (with a reverse
mapping update per page): measured here, ~4 ms per fork and ~5-20 ms per exit, two of each
per job (spare and jailed interpreter). ``madvise(MADV_COLLAPSE)`` (Linux >= 6.1,
``mm/khugepaged.c``) rebuilds those regions from 2 MiB pages in place, so a fork copies one
entry per 2 MiB and an exit drops one (~1 ms each). A child that writes to a shared huge
page gets the PMD split and copies only the 4 KiB page it wrote (Linux >= 5.8), so a job's
memory use and its cgroup charge are as before.

No torch here: this walks ``/proc/self/maps`` and calls ``madvise`` through ctypes.
"""

from __future__ import annotations

import ctypes
import os
import time
from dataclasses import dataclass

MADV_COLLAPSE = 25
"""``<linux/mman.h>`` (``include/uapi/asm-generic/mman-common.h``), Linux >= 6.1."""

HUGE_PAGE_BYTES = 2 * 1024 * 1024
"""A PMD-sized transparent huge page on x86_64 and on aarch64 with 4 KiB pages."""

_libc = ctypes.CDLL(None, use_errno=True)
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


@dataclass(frozen=True, slots=True)
class Collapse:
    """What :func:`collapse_heap` did.

    Attributes:
        regions: anonymous writable regions holding at least one aligned 2 MiB range.
        collapsed: of those, regions the kernel rebuilt from huge pages.
        huge_bytes: anonymous memory on huge pages afterwards (``AnonHugePages``), bytes.
        seconds: time taken, seconds.
        error: why the last region that failed could not be collapsed (e.g. EINVAL before
            Linux 6.1, EAGAIN when memory is too fragmented), or None when none failed.
    """

    regions: int
    collapsed: int
    huge_bytes: int
    seconds: float
    error: str | None = None


def _anonymous_regions() -> list[tuple[int, int]]:
    """``(start, end)`` of each private writable anonymous mapping (``[heap]`` included)."""
    regions = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            name = fields[5] if len(fields) > 5 else ""
            if fields[1].startswith("rw") and fields[1][3] == "p" and name in ("", "[heap]"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                regions.append((start, end))
    return regions


def collapse_heap() -> Collapse:
    """Move the calling process's anonymous memory onto 2 MiB pages, where it can.

    Best effort: a region the kernel cannot collapse (too fragmented, or a kernel before
    6.1, which answers EINVAL) keeps its 4 KiB pages; nothing else changes. Only aligned
    2 MiB ranges inside a region are collapsed. The sysfs THP setting is not changed and
    new allocations are not made huge (``MADV_COLLAPSE`` ignores the sysfs policy and sets
    no flag on the mapping). Takes ~0.5-1 s for the zygote's ~220 MiB.

    Returns:
        What was collapsed, and how long it took.
    """
    started = time.monotonic()
    regions = collapsed = 0
    error = None
    for start, end in _anonymous_regions():
        low = -(-start // HUGE_PAGE_BYTES) * HUGE_PAGE_BYTES
        high = end // HUGE_PAGE_BYTES * HUGE_PAGE_BYTES
        if high <= low:
            continue
        regions += 1
        if _libc.madvise(low, high - low, MADV_COLLAPSE) == 0:
            collapsed += 1
        else:
            error = os.strerror(ctypes.get_errno())
    return Collapse(
        regions=regions,
        collapsed=collapsed,
        huge_bytes=_anon_huge_bytes(),
        seconds=time.monotonic() - started,
        error=error,
    )


def _anon_huge_bytes() -> int:
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1]) * 1024
    return 0
