"""The zygote's heap moved onto huge pages (no torch: a child process with a plain heap)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

CHILD = """
import json, mmap
from sandbox.hugepages import collapse_heap
flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
region = mmap.mmap(-1, 64 << 20, flags=flags)  # 64 MiB of private anonymous memory ...
for offset in range(0, len(region), 4096):
    region[offset] = 1                         # ... faulted in as 4 KiB pages
data = bytes(region[::4096])
c = collapse_heap()
print(json.dumps({"huge": c.huge_bytes, "collapsed": c.collapsed, "error": c.error,
                  "intact": bytes(region[::4096]) == data}))
"""


def _collapse_in_a_child() -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True
    )
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def test_anonymous_memory_is_moved_onto_huge_pages_with_its_contents_intact() -> None:
    answer = _collapse_in_a_child()
    if answer["collapsed"] == 0 and answer["error"] is not None:
        pytest.skip(f"this kernel collapses nothing (before Linux 6.1?): {answer['error']}")
    assert answer["intact"] is True
    assert isinstance(answer["huge"], int)
    assert answer["huge"] >= 32 << 20  # most of the 64 MiB region, whatever its alignment
