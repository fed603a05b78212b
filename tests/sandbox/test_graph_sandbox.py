"""Graphs through the real worker (namespaces backend, root): issue 8 end to end.

The graph is extracted inside the jail and validated by the worker; these tests check that
asking for it never changes a snippet's own result, that curated graphs are cached, and
that a hostile job can neither forge an accepted graph nor hang or crash the worker.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.content.loader import Bank
from sandbox.cache import CacheKey
from sandbox.curated import CuratedSnippets
from sandbox.protocol import MAX_GRAPH_NODES, RunRequest, RunResult, code_sha256
from sandbox.settings import SandboxSettings
from sandbox.worker import Worker
from tests.conftest import CONTENT, run_tutor

pytestmark = pytest.mark.slow

TRIVIAL = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\n"


class Box:
    """A started worker on its own event loop, called synchronously.

    Nothing is curated unless a test says so with :meth:`curate` (a curated snippet always
    runs with its graph, so comparing runs with and without it needs learner code).
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        settings = SandboxSettings(backend="namespaces", content=[CONTENT], wall_s=10)
        self.worker = Worker(settings, curated=CuratedSnippets())
        self.loop.run_until_complete(self.worker.start())

    def curate(self, *codes: str) -> None:
        """Make these snippets curated (trusted, cached) from now on."""
        self.worker.curated = CuratedSnippets(codes)

    def run(self, code: str, **fields: Any) -> RunResult:
        request = RunRequest(code=code, **{"use_cache": False, **fields})
        return self.loop.run_until_complete(self.worker.run(request))

    def close(self) -> None:
        self.loop.run_until_complete(self.worker.close())
        self.loop.close()


@pytest.fixture(scope="module")
def box() -> Iterator[Box]:
    if os.geteuid() != 0:
        pytest.skip("the namespaces backend needs root (CI runs as root)")
    started = Box()
    yield started
    started.close()


def assert_next_graph_ok(box: Box) -> None:
    result = box.run(TRIVIAL, graph=True)
    assert result.status == "exit 0"
    assert result.graph is not None
    assert [n.label for n in result.graph.nodes] == [
        "x",
        "y",
        "SumBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ]


def test_asking_for_the_graph_changes_no_bank_snippets_output(box: Box, bank: Bank) -> None:
    for item in bank:
        plain = box.run(item.snippet)
        drawn = box.run(item.snippet, graph=True)
        assert (drawn.stdout, drawn.stderr, drawn.status) == (
            plain.stdout,
            plain.stderr,
            plain.status,
        ), item.id
        assert drawn.graph is not None, (item.id, drawn.graph_error)


def test_a_bank_snippet_that_calls_backward_on_an_unnamed_result_draws_that_graph(
    box: Box, bank: Bank
) -> None:
    result = box.run(bank.items["TF3"].snippet, graph=True)  # (x * 3).sum().backward() twice
    assert result.graph is not None
    graph = result.graph
    assert sorted(n.label for n in graph.nodes) == [
        "AccumulateGrad",
        "MulBackward0",
        "MulBackward0",
        "SumBackward0",
        "SumBackward0",
        "root of backward() #1",
        "root of backward() #2",
        "x",
    ]
    [acc] = [n.id for n in graph.nodes if n.label == "AccumulateGrad"]
    assert [e.kind for e in graph.edges if e.target == acc] == ["next", "next"]


def test_a_snippet_that_hijacks_the_root_recorder_keeps_its_output_and_its_graph(
    box: Box,
) -> None:
    hostile = (
        "import sys, torch\nrecorder = sys.getprofile()\n"
        "recorder(None, 'call', None)\nsys.setprofile(lambda *a: None)\n"
        "x = torch.ones(2, requires_grad=True)\n(x * x).sum().backward()\nprint(x.grad)\n"
    )
    result = box.run(hostile, graph=True)
    assert (result.stdout, result.stderr, result.status) == ("tensor([2., 2.])\n", "", "exit 0")
    assert result.graph is not None
    assert [n.label for n in result.graph.nodes] == ["x"]
    assert_next_graph_ok(box)


def test_a_run_without_the_graph_carries_none(box: Box) -> None:
    result = box.run(TRIVIAL)
    assert (result.graph, result.graph_error) == (None, None)


def test_a_curated_graph_is_served_from_the_cache_the_second_time(box: Box, bank: Bank) -> None:
    code = bank.items["TF5"].snippet
    box.curate(code)
    first = box.run(code, graph=True, use_cache=True)
    second = box.run(code, graph=True, use_cache=True)
    assert second.cached
    assert second.graph == first.graph


def test_one_cache_entry_answers_with_and_without_the_graph(box: Box, bank: Bank) -> None:
    code = bank.items["EC7"].snippet
    box.curate(code)
    plain = box.run(code, use_cache=True)
    drawn = box.run(code, graph=True, use_cache=True)
    assert (plain.graph, drawn.cached) == (None, True)
    assert drawn.graph is not None


def test_a_cached_result_from_before_graphs_is_run_again_for_its_graph(
    box: Box, bank: Bank
) -> None:
    code = bank.items["WHY1"].snippet
    box.curate(code)
    first = box.run(code, use_cache=True)
    key = CacheKey(code_sha256=code_sha256(code), torch_version=first.torch_version)
    box.worker.cache.put(key, first.model_copy(update={"graph": None, "graph_error": None}))
    drawn = box.run(code, graph=True, use_cache=True)
    assert not drawn.cached
    assert drawn.graph is not None


def test_a_snippet_that_raises_still_returns_its_graph_and_traceback(box: Box) -> None:
    result = box.run(TRIVIAL + "y.backward()\ny.backward()\n", graph=True)
    assert result.status == "exit 1"
    assert "Trying to backward through the graph a second time" in result.stderr
    assert "graph_extract" not in result.stderr
    assert result.graph is not None
    assert "y" in [n.label for n in result.graph.nodes]


def test_a_forged_graph_is_refused_and_the_run_result_is_kept(box: Box) -> None:
    forged = (
        "import os, json\nprint('hello')\n"
        'body = {"nodes": [{"id": 0, "kind": "backward", "label": "A"}], '
        '"edges": [{"source": 0, "target": 7, "kind": "next"}]}\n'
        "os.write(255, json.dumps(body).encode())\nos._exit(0)\n"
    )
    result = box.run(forged, graph=True)
    assert (result.stdout, result.status) == ("hello\n", "exit 0")
    assert result.graph is None
    assert result.graph_error == ("the job's graph was refused: edges.0: no node has the id 7")
    assert_next_graph_ok(box)


def test_an_oversized_graph_is_refused_without_stopping_the_job(box: Box) -> None:
    flood = (
        "import os\ntry:\n    os.write(255, b'[' * 200_000)\n"
        "except BrokenPipeError:\n    print('pipe closed')\nprint('still running')\nos._exit(0)\n"
    )
    result = box.run(flood, graph=True)
    assert result.status == "exit 0"
    assert result.stdout.endswith("still running\n")
    assert result.graph_error == "the job wrote more than 131,072 bytes of graph"
    assert_next_graph_ok(box)


def test_graph_bytes_that_are_not_utf8_are_refused(box: Box) -> None:
    result = box.run("import os\nos.write(255, b'\\xff\\xfe')\nos._exit(0)\n", graph=True)
    assert result.graph_error == "the job's graph is not UTF-8 (byte 0)"


def test_a_snippet_that_exits_early_reports_no_graph(box: Box) -> None:
    result = box.run("import os\nprint(1)\nos._exit(3)\n", graph=True)
    assert (result.stdout, result.status) == ("1\n", "exit 3")
    assert result.graph_error == "the snippet ended before its graph was written"


def test_monkeypatching_torch_and_builtins_cannot_break_the_run(box: Box) -> None:
    hostile = (
        "import builtins, torch\n"
        "x = torch.ones(2, requires_grad=True)\ny = x * 2\n"
        "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
        "torch.Tensor.grad_fn = property(boom)\n"
        "torch.Tensor.requires_grad = property(boom)\n"
        "builtins.type = boom\nbuiltins.isinstance = boom\n"
        "print('patched')\n"
    )
    result = box.run(hostile, graph=True)
    assert (result.stdout, result.stderr, result.status) == ("patched\n", "", "exit 0")
    assert result.graph is not None
    assert_next_graph_ok(box)


def test_a_tensor_subclass_that_loops_in_torch_function_cannot_hang_extraction(
    box: Box,
) -> None:
    hostile = (
        "import torch\n"
        "class Evil(torch.Tensor):\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, *args, **kwargs):\n"
        "        while True:\n            pass\n"
        "with torch._C.DisableTorchFunctionSubclass():\n"
        "    e = torch.ones(2, requires_grad=True).as_subclass(Evil)\n"
        "print('made')\n"
    )
    result = box.run(hostile, graph=True, limits={"wall_s": 5})
    assert (result.stdout, result.status) == ("made\n", "exit 0")
    assert result.graph is not None
    labels = [n.label for n in result.graph.nodes]
    assert labels == ["e", "AliasBackward0", "AccumulateGrad", "(no name)"]


def test_a_huge_graph_is_truncated_and_the_worker_stays_fast(box: Box) -> None:
    chain = (
        "import torch\nx = torch.ones(1, requires_grad=True)\ny = x\n"
        "for _ in range(100_000):\n    y = y * 1.0\n"
    )
    result = box.run(chain, graph=True)
    assert result.status == "exit 0"
    assert result.graph is not None
    assert result.graph.truncated
    assert len(result.graph.nodes) == MAX_GRAPH_NODES
    assert_next_graph_ok(box)


def test_sandbox_run_graph_png_draws_the_graph_into_a_file(box: Box, tmp_path: Path) -> None:
    snippet = tmp_path / "tf5.py"
    snippet.write_text(TRIVIAL)
    out = tmp_path / "tf5.png"  # an existing directory: none is created
    done = run_tutor("sandbox", "run", str(snippet), "--graph-png", str(out))
    assert done.returncode == 0, done.stderr
    assert f"graph: 5 nodes drawn in {out}" in done.stderr
    assert out.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
