"""Graph extraction on real torch, in this process: the structures issue 8 asks for.

Each snippet runs in a fresh namespace as the job would run it, then the extractor reads
the graph from that namespace exactly as it does inside the jail.
"""

from __future__ import annotations

import builtins
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
        exec(compile(code, "<string>", "exec"), namespace)  # noqa: S102 - test snippets
        return Graph(graph_extract.extract_graph(namespace, code))

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
    g = extract(bank.items["WHY1"].snippet)
    into_x = g.sources(g.accumulate_grad("x"), "next")
    assert sorted(n.label for n in into_x) == ["MulBackward0", "PowBackward0"]
    assert [n.label for n in g.sources(g.accumulate_grad("y"), "next")] == ["MulBackward0"]


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
