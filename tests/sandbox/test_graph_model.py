"""The graph a job sends is untrusted: every forged or oversized shape is refused by name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox.internal import JobAnswer
from sandbox.protocol import MAX_GRAPH_EDGES, MAX_GRAPH_NODES, AutogradGraph, JobOutcome
from sandbox.worker import GraphReading, read_graph

LEAF = {"names": ["x"], "shape": [2], "dtype": "float32", "requires_grad": True, "is_leaf": True}


def graph(**changes: Any) -> dict[str, Any]:
    """``x * 2`` as the extractor writes it, with ``changes`` applied on top."""
    body: dict[str, Any] = {
        "nodes": [
            {"id": 0, "kind": "tensor", "label": "y", "tensor": {**LEAF, "is_leaf": False}},
            {"id": 1, "kind": "backward", "label": "MulBackward0"},
            {"id": 2, "kind": "backward", "label": "AccumulateGrad"},
            {"id": 3, "kind": "tensor", "label": "x", "tensor": LEAF},
        ],
        "edges": [
            {"source": 0, "target": 1, "kind": "grad_fn"},
            {"source": 1, "target": 2, "kind": "next"},
            {"source": 2, "target": 3, "kind": "variable"},
        ],
    }
    body.update(changes)
    return body


def refusal(body: dict[str, Any]) -> str:
    answer = JobAnswer(outcome=JobOutcome(exit_code=0), graph_text=json.dumps(body))
    reading = read_graph(answer)
    assert reading.graph is None
    assert reading.error is not None
    return reading.error


def test_a_well_formed_graph_is_accepted() -> None:
    answer = JobAnswer(outcome=JobOutcome(exit_code=0), graph_text=json.dumps(graph()))
    reading = read_graph(answer)
    assert reading.error is None
    assert reading.graph is not None
    assert [n.label for n in reading.graph.nodes] == ["y", "MulBackward0", "AccumulateGrad", "x"]


def test_parallel_edges_are_kept() -> None:
    edges = [*graph()["edges"], {"source": 1, "target": 2, "kind": "next"}]
    assert len(AutogradGraph.model_validate(graph(edges=edges)).edges) == 4


def test_an_edge_to_a_missing_node_is_refused() -> None:
    edges = [{"source": 1, "target": 9, "kind": "next"}]
    assert "edges.0: no node has the id 9" in refusal(graph(edges=edges))


def test_an_edge_joining_the_wrong_kinds_of_node_is_refused() -> None:
    edges = [{"source": 3, "target": 1, "kind": "variable"}]
    assert "edges.0: a variable edge joins backward -> tensor" in refusal(graph(edges=edges))


def test_a_cycle_is_refused() -> None:
    nodes = [
        {"id": 0, "kind": "backward", "label": "A"},
        {"id": 1, "kind": "backward", "label": "B"},
    ]
    edges = [
        {"source": 0, "target": 1, "kind": "next"},
        {"source": 1, "target": 0, "kind": "next"},
    ]
    assert "the graph has a cycle" in refusal({"nodes": nodes, "edges": edges})


def test_a_node_id_used_twice_is_refused() -> None:
    nodes = graph()["nodes"]
    nodes[1] = {**nodes[1], "id": 0}
    assert "nodes.1: the id 0 is used twice" in refusal(graph(nodes=nodes))


def test_a_tensor_node_without_facts_is_refused() -> None:
    nodes = graph()["nodes"]
    nodes[3] = {"id": 3, "kind": "tensor", "label": "x"}
    assert "a tensor node needs tensor facts" in refusal(graph(nodes=nodes))


def test_more_nodes_than_the_cap_are_refused() -> None:
    nodes = [
        {"id": i % MAX_GRAPH_NODES, "kind": "backward", "label": "N"}
        for i in range(MAX_GRAPH_NODES + 1)
    ]
    assert "nodes: List should have at most 150 items" in refusal({"nodes": nodes})


def test_more_edges_than_the_cap_are_refused() -> None:
    edges = [{"source": 1, "target": 2, "kind": "next"}] * (MAX_GRAPH_EDGES + 1)
    assert "edges: List should have at most 300 items" in refusal(graph(edges=edges))


def test_an_over_long_label_is_refused() -> None:
    nodes = graph()["nodes"]
    nodes[1] = {**nodes[1], "label": "M" * 49}
    assert "nodes.1.label: String should have at most 48 characters" in refusal(graph(nodes=nodes))


@pytest.mark.parametrize("char", ["\x1b", "\u202e", "\n", "\x00"])
def test_control_characters_in_a_label_are_refused(char: str) -> None:
    nodes = graph()["nodes"]
    nodes[1] = {**nodes[1], "label": f"Mul{char}Backward0"}
    assert f"contains the control character U+{ord(char):04X}" in refusal(graph(nodes=nodes))


def test_a_shape_with_too_many_dimensions_is_refused() -> None:
    nodes = graph()["nodes"]
    nodes[3] = {**nodes[3], "tensor": {**LEAF, "shape": [1] * 17}}
    assert "nodes.3.tensor.shape" in refusal(graph(nodes=nodes))


def test_a_dtype_that_is_not_a_dtype_name_is_refused() -> None:
    nodes = graph()["nodes"]
    nodes[3] = {**nodes[3], "tensor": {**LEAF, "dtype": "<script>"}}
    assert "nodes.3.tensor.dtype" in refusal(graph(nodes=nodes))


def test_unknown_fields_are_refused() -> None:
    assert "Extra inputs are not permitted" in refusal(graph(code="import os"))


def test_text_that_is_not_json_is_refused() -> None:
    answer = JobAnswer(outcome=JobOutcome(exit_code=0), graph_text='{"nodes": [')
    error = read_graph(answer).error
    assert error is not None
    assert error.startswith("the job's graph was refused: ")


def test_no_graph_text_keeps_the_spares_reason() -> None:
    answer = JobAnswer(outcome=JobOutcome(exit_code=0), graph_problem="too large")
    assert read_graph(answer) == GraphReading(None, "too large")


def test_the_refusal_is_a_short_sentence_that_does_not_echo_the_input() -> None:
    nodes = graph()["nodes"]
    nodes[1] = {**nodes[1], "label": "<@everyone>" * 100}
    error = refusal(graph(nodes=nodes))
    assert "<@everyone>" not in error
    assert len(error) < 200
