"""Graph extraction on real torch, in this process: the structures issue 8 asks for.

Each snippet runs in a fresh namespace as the job would run it, with the roots of its
backward calls recorded, then the extractor reads the graph from that namespace and those
roots exactly as it does inside the jail.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable

import pytest

from bot.content.loader import Bank
from sandbox import graph_extract
from sandbox.protocol import MAX_GRAPH_NODES, AutogradGraph, GraphNode, TensorFacts

pytestmark = pytest.mark.slow

Extract = Callable[[str], "Graph"]


class Graph:
    """Questions about an extracted graph, by tensor name."""

    def __init__(self, graph: AutogradGraph) -> None:
        self.graph = graph
        self.by_id = {node.id: node for node in graph.nodes}

    def tensor(self, name: str) -> GraphNode:
        [node] = [n for n in self.graph.nodes if n.tensor and name in n.tensor.names]
        return node

    def tensor_by_label(self, label: str) -> GraphNode:
        [node] = [n for n in self.graph.nodes if n.tensor and n.label == label]
        return node

    def facts(self, name: str) -> TensorFacts:
        facts = self.tensor(name).tensor
        assert facts is not None
        return facts

    def targets(self, node: GraphNode, kind: str) -> list[GraphNode]:
        return [
            self.by_id[e.target] for e in self.graph.edges if e.source == node.id and e.kind == kind
        ]

    def sources(self, node: GraphNode, kind: str) -> list[GraphNode]:
        return [
            self.by_id[e.source] for e in self.graph.edges if e.target == node.id and e.kind == kind
        ]

    def grad_fn(self, name: str) -> GraphNode:
        [fn] = self.targets(self.tensor(name), "grad_fn")
        return fn

    def accumulate_grad(self, leaf: str) -> GraphNode:
        [acc] = self.sources(self.tensor(leaf), "variable")
        return acc

    def reaches(self, start: GraphNode, goal: GraphNode) -> bool:
        """A path of grad_fn/next/variable edges (the way backward() goes), no cut edges."""
        todo, seen = [start.id], set()
        while todo:
            node = todo.pop()
            if node == goal.id:
                return True
            if node in seen:
                continue
            seen.add(node)
            todo += [e.target for e in self.graph.edges if e.source == node and e.kind != "cut"]
        return False


@pytest.fixture(scope="module")
def extract() -> Extract:
    graph_extract.prepare()

    def run(code: str) -> Graph:
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        graph_extract.start_recording()
        try:
            exec(compile(code, "<string>", "exec"), namespace)  # noqa: S102 - test snippets
        finally:
            roots = graph_extract.stop_recording()
        return Graph(graph_extract.extract_graph(namespace, code, backward_roots=roots))

    return run


def test_rebinding_x_to_x_plus_1_leaves_the_old_leaf_behind(extract: Extract, bank: Bank) -> None:
    g = extract(bank.items["TF5"].snippet)
    assert (g.facts("x").is_leaf, g.grad_fn("x").label) == (False, "AddBackward0")
    assert [n.label for n in g.targets(g.grad_fn("x"), "next")] == ["AccumulateGrad"]
    assert g.targets(g.accumulate_grad("orig"), "variable") == [g.tensor("orig")]
    assert "x" not in g.facts("orig").names
    assert g.facts("orig").grad_set


def test_a_rebound_leaf_that_no_name_reaches_is_drawn_without_a_name(extract: Extract) -> None:
    g = extract("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\nx = x + 1\n")
    [acc] = g.targets(g.grad_fn("x"), "next")
    [leaf] = g.targets(acc, "variable")
    assert leaf.label == "(no name)"
    assert leaf.tensor is not None
    assert (leaf.tensor.names, leaf.tensor.is_leaf, leaf.tensor.requires_grad) == ([], True, True)


ENCODER = """\
import torch
from torch import nn
torch.manual_seed(0)
enc, head = nn.Linear(2, 2), nn.Linear(2, 1)
h = enc(torch.ones(1, 2))
feats = h.detach()
loss = head(feats).sum()
loss.backward()
"""


def test_detach_severs_the_encoder_from_the_loss(extract: Extract) -> None:
    g = extract(ENCODER)
    loss = g.tensor("loss")
    assert not g.reaches(loss, g.tensor("enc.weight"))
    assert not g.reaches(loss, g.accumulate_grad("enc.weight"))
    assert g.reaches(loss, g.tensor("head.weight"))


def test_the_detached_tensor_is_a_cut_pointing_back_at_the_encoder_output(
    extract: Extract,
) -> None:
    g = extract(ENCODER)
    feats = g.tensor("feats")
    assert g.facts("feats").cut == "detached"
    assert g.targets(feats, "cut") == [g.tensor("h")]
    assert g.targets(feats, "grad_fn") == []
    assert g.reaches(g.tensor("h"), g.tensor("enc.weight"))


def test_a_detached_branch_beside_a_live_one_gives_no_gradient_path(
    extract: Extract, bank: Bank
) -> None:
    g = extract(bank.items["EC7"].snippet)
    assert g.facts("cut").cut == "detached"
    assert g.targets(g.tensor("cut"), "cut") == [g.tensor("x")]
    branches = g.targets(g.grad_fn("z"), "next")
    assert sorted(b.label for b in branches) == ["MulBackward0", "MulBackward0"]
    to_x = [b for b in branches if g.reaches(b, g.tensor("x"))]
    assert to_x == [g.grad_fn("live")]
    assert g.sources(g.accumulate_grad("x"), "next") == [g.grad_fn("live")]


def test_a_tensor_used_in_two_branches_gets_two_edges_into_its_accumulate_grad(
    extract: Extract, bank: Bank
) -> None:
    g = extract(bank.items["WHY1"].snippet)  # L's graph, beside the two fresh grad() graphs
    from_l = [n for n in g.sources(g.accumulate_grad("x"), "next") if g.reaches(g.tensor("L"), n)]
    assert sorted(n.label for n in from_l) == ["MulBackward0", "PowBackward0"]
    into_y = [n for n in g.sources(g.accumulate_grad("y"), "next") if g.reaches(g.tensor("L"), n)]
    assert [n.label for n in into_y] == ["MulBackward0"]


def test_x_times_x_gives_two_parallel_edges(extract: Extract) -> None:
    g = extract("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * x\n")
    assert g.targets(g.grad_fn("y"), "next") == [g.accumulate_grad("x")] * 2


def test_a_tensor_made_under_no_grad_is_a_cut(extract: Extract, bank: Bank) -> None:
    g = extract(bank.items["TF7"].snippet)
    assert g.facts("y").cut == "no_grad"
    assert g.targets(g.tensor("y"), "cut") == [g.tensor("x")]


def test_an_inference_tensor_is_a_cut(extract: Extract, bank: Bank) -> None:
    g = extract(bank.items["TF11"].snippet)
    assert g.facts("b").cut == "inference_mode"


def test_tensors_without_history_are_listed_not_drawn(extract: Extract) -> None:
    g = extract("import torch\nplain = torch.ones(2)\nw = torch.ones(2, requires_grad=True)\n")
    assert g.graph.untracked == ["plain"]
    assert [n.label for n in g.graph.nodes] == ["w"]


def test_graph_marks_which_tensors_are_drawn(extract: Extract) -> None:
    code = (
        "import torch\nx = torch.ones(2, requires_grad=True)\na = x.exp()\nb = x * 3\n"
        "__graph__ = {'loss': b}\n"
    )
    g = extract(code)
    assert g.tensor("loss") == g.tensor("b")
    assert "ExpBackward0" not in [n.label for n in g.graph.nodes]


def test_a_marked_list_keeps_the_global_names_first(extract: Extract) -> None:
    code = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 3\n__graph__ = [y]\n"
    assert extract(code).graph.nodes[0].label == "y"


def test_a_huge_graph_is_cut_at_the_cap_with_a_note(extract: Extract) -> None:
    code = (
        "import torch\nx = torch.ones(1, requires_grad=True)\ny = x\n"
        "for _ in range(20000):\n    y = y * 1.0001\n"
    )
    g = extract(code)
    assert g.graph.truncated
    assert len(g.graph.nodes) == MAX_GRAPH_NODES
    [note] = g.graph.notes
    assert note.startswith("Only the first 150 nodes and ")
    assert note.endswith(" edges are drawn; the graph is larger.")


# --------------------------------------------------------------------------- backward roots

NO_BACKWARD_NODE = {
    "EC11": "torch.func.grad differentiates its own wrapped copy of x inside the transform; "
    "x never tracks history, which is the point of the item",
    "EC13": "calls no backward; leaves only leaves and their detached copies",
}
"""Bank items whose picture rightly has no backward node, by reason."""


def labels(g: Graph, kind: str) -> list[str]:
    return [n.label for n in g.graph.nodes if n.kind == kind]


def test_backward_on_an_unnamed_result_draws_the_graph_backward_walked(extract: Extract) -> None:
    g = extract("import torch\nx = torch.ones(2, requires_grad=True)\n(x * x).sum().backward()\n")
    [root] = [n for n in g.graph.nodes if n.label == "root of backward()"]
    [sum_fn] = g.targets(root, "grad_fn")
    [mul_fn] = g.targets(sum_fn, "next")
    assert (sum_fn.label, mul_fn.label) == ("SumBackward0", "MulBackward0")
    assert g.targets(mul_fn, "next") == [g.accumulate_grad("x")] * 2
    assert root.tensor is not None
    assert (root.tensor.names, root.tensor.shape, root.tensor.is_leaf) == ([], [], False)


def test_a_root_a_global_also_names_is_drawn_once_by_that_name(extract: Extract) -> None:
    g = extract(
        "import torch\nx = torch.ones(2, requires_grad=True)\nloss = (x * x).sum()\n"
        "loss.backward()\n"
    )
    assert labels(g, "tensor") == ["x", "loss"]
    assert labels(g, "backward") == ["SumBackward0", "MulBackward0", "AccumulateGrad"]


def test_several_unnamed_roots_are_numbered_in_call_order(extract: Extract) -> None:
    g = extract(
        "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n"
        "x.exp().sum().backward()\n"
    )
    first = g.tensor_by_label("root of backward() #1")
    second = g.tensor_by_label("root of backward() #2")
    assert g.targets(g.targets(first, "grad_fn")[0], "next")[0].label == "MulBackward0"
    assert g.targets(g.targets(second, "grad_fn")[0], "next")[0].label == "ExpBackward0"


def test_outputs_handed_to_autograd_grad_are_roots(extract: Extract) -> None:
    g = extract(
        "import torch\nx = torch.ones(2, requires_grad=True)\n"
        "(gx,) = torch.autograd.grad(x.sin().sum(), x)\n"
    )
    root = g.tensor_by_label("root of autograd.grad()")
    [sum_fn] = g.targets(root, "grad_fn")
    assert g.targets(sum_fn, "next")[0].label == "SinBackward0"


def test_torch_autograd_backward_with_a_list_records_each_tensor(extract: Extract) -> None:
    g = extract(
        "import torch\nx = torch.ones(2, requires_grad=True)\n"
        "torch.autograd.backward([x.sum(), (x * 3).sum()])\n"
    )
    roots = [n for n in g.graph.nodes if n.label.startswith("root of backward()")]
    assert [n.label for n in roots] == ["root of backward() #1", "root of backward() #2"]


def test_only_the_last_roots_are_kept(extract: Extract) -> None:
    g = extract(
        "import torch\nx = torch.ones(1, requires_grad=True)\n"
        "for i in range(20):\n    (x * i).sum().backward()\n"
    )
    roots = [n for n in g.graph.nodes if n.label.startswith("root of backward()")]
    assert len(roots) == graph_extract.MAX_BACKWARD_ROOTS


def test_a_failed_backward_on_a_tensor_without_history_adds_no_node(extract: Extract) -> None:
    g = extract(
        "import torch\ntry:\n    torch.ones(2).sum().backward()\nexcept RuntimeError:\n    pass\n"
    )
    assert g.graph.nodes == []


def test_graph_marker_leaves_the_backward_roots_out(extract: Extract) -> None:
    g = extract(
        "import torch\nx = torch.ones(2, requires_grad=True)\n(x * x).sum().backward()\n"
        "__graph__ = x\n"
    )
    assert labels(g, "tensor") == ["x"]


def test_a_snippet_that_removes_the_recorder_loses_only_its_roots(extract: Extract) -> None:
    g = extract(
        "import sys, torch\nsys.setprofile(None)\nx = torch.ones(2, requires_grad=True)\n"
        "y = x * 2\n(x * x).sum().backward()\n"
    )
    assert labels(g, "tensor") == ["x", "y"]


def test_recording_stops_with_the_snippet(extract: Extract) -> None:
    extract("import torch\nx = torch.ones(2, requires_grad=True)\nx.sum().backward()\n")
    assert sys.getprofile() is None


def test_every_bank_snippet_that_walks_a_graph_draws_a_backward_node(
    extract: Extract, bank: Bank, capsys: pytest.CaptureFixture[str]
) -> None:
    without = {item.id for item in bank if not labels(extract(item.snippet), "backward")}
    capsys.readouterr()
    assert without == set(NO_BACKWARD_NODE)
