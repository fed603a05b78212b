"""Graph pictures: a valid PNG sized for Discord, styles that tell kinds apart, inert text."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from matplotlib import colors, image

from sandbox.graph_render import (
    CUT_FILL,
    LEAF_FILL,
    MAX_CANVAS_PX,
    NODE_FILL,
    render_graph_png,
    save_graph_png,
)
from sandbox.protocol import (
    MAX_GRAPH_NODES,
    AutogradGraph,
    GraphEdge,
    GraphNode,
    TensorFacts,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def facts(name: str, *, leaf: bool, cut: str | None = None) -> TensorFacts:
    return TensorFacts.model_validate(
        {
            "names": [name],
            "shape": [2],
            "dtype": "float32",
            "requires_grad": cut is None,
            "is_leaf": leaf,
            "cut": cut,
        }
    )


def ec7_like(*, with_cut: bool) -> AutogradGraph:
    """z = x * 3 + cut * w, with ``cut`` detached from x (or left out)."""
    nodes = [
        GraphNode(id=0, kind="tensor", label="z", tensor=facts("z", leaf=False)),
        GraphNode(id=1, kind="backward", label="AddBackward0"),
        GraphNode(id=2, kind="backward", label="MulBackward0"),
        GraphNode(id=3, kind="backward", label="MulBackward0"),
        GraphNode(id=4, kind="backward", label="AccumulateGrad"),
        GraphNode(id=5, kind="backward", label="AccumulateGrad"),
        GraphNode(id=6, kind="tensor", label="x", tensor=facts("x", leaf=True)),
        GraphNode(id=7, kind="tensor", label="w", tensor=facts("w", leaf=True)),
    ]
    edges = [
        GraphEdge(source=0, target=1, kind="grad_fn"),
        GraphEdge(source=1, target=2, kind="next"),
        GraphEdge(source=1, target=3, kind="next"),
        GraphEdge(source=2, target=4, kind="next"),
        GraphEdge(source=3, target=5, kind="next"),
        GraphEdge(source=4, target=6, kind="variable"),
        GraphEdge(source=5, target=7, kind="variable"),
    ]
    if with_cut:
        cut = facts("cut", leaf=True, cut="detached")
        nodes.append(GraphNode(id=8, kind="tensor", label="cut", tensor=cut))
        edges.append(GraphEdge(source=8, target=6, kind="cut"))
    return AutogradGraph(nodes=nodes, edges=edges)


def decode(png: bytes) -> np.ndarray:
    return image.imread(io.BytesIO(png), format="png")


def pixels_of(png: bytes, colour: str) -> int:
    rgb = np.array(colors.to_rgb(colour))
    picture = decode(png)[..., :3]
    return int(np.all(np.abs(picture - rgb) < 0.01, axis=-1).sum())


def test_a_graph_becomes_a_png_sized_for_discord() -> None:
    png = render_graph_png(ec7_like(with_cut=True), title="EC7")
    assert png.startswith(PNG_SIGNATURE)
    height, width = decode(png).shape[:2]
    assert 800 <= width <= 1200
    assert 400 <= height <= 1600


def test_a_cut_tensor_is_drawn_in_its_own_style() -> None:
    with_cut = render_graph_png(ec7_like(with_cut=True))
    without = render_graph_png(ec7_like(with_cut=False))
    assert pixels_of(with_cut, CUT_FILL) > pixels_of(without, CUT_FILL) + 1000


def test_leaf_tensors_and_backward_nodes_have_their_own_fills() -> None:
    png = render_graph_png(ec7_like(with_cut=False))
    legend_only = render_graph_png(AutogradGraph(untracked=["a"]))
    assert pixels_of(png, LEAF_FILL) > pixels_of(legend_only, LEAF_FILL) + 1000
    assert pixels_of(png, NODE_FILL) > pixels_of(legend_only, NODE_FILL) + 1000


def test_an_empty_graph_still_gives_a_picture() -> None:
    assert render_graph_png(AutogradGraph(untracked=["plain"])).startswith(PNG_SIGNATURE)


def test_untrusted_text_is_drawn_literally_without_mathtext_or_missing_glyph_errors() -> None:
    odd = "$\\frac{a}{b}$ 你好 🙂"[:48]
    graph = AutogradGraph(
        nodes=[GraphNode(id=0, kind="tensor", label=odd, tensor=facts(odd, leaf=True))],
        notes=["$x^2$ " * 30],
    )
    assert render_graph_png(graph, title="$\\alpha$").startswith(PNG_SIGNATURE)


def test_a_graph_at_the_node_cap_renders() -> None:
    nodes = [GraphNode(id=i, kind="backward", label="MulBackward0") for i in range(MAX_GRAPH_NODES)]
    edges = [GraphEdge(source=i, target=i + 1, kind="next") for i in range(MAX_GRAPH_NODES - 1)]
    png = render_graph_png(AutogradGraph(nodes=nodes, edges=edges, truncated=True))
    assert png.startswith(PNG_SIGNATURE)
    assert len(png) < 10 * 1024 * 1024


def test_save_writes_the_png(tmp_path: Path) -> None:
    path = save_graph_png(ec7_like(with_cut=True), tmp_path / "EC7.png")
    assert path.read_bytes().startswith(PNG_SIGNATURE)


def test_save_into_a_missing_directory_fails_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        save_graph_png(ec7_like(with_cut=True), tmp_path / "typo" / "EC7.png")
    assert not (tmp_path / "typo").exists()


def test_a_graph_too_wide_for_legible_text_stays_within_the_canvas_cap() -> None:
    row = [GraphNode(id=0, kind="backward", label="SumBackward0")]
    row += [GraphNode(id=i, kind="backward", label="W" * 48) for i in range(1, 150)]
    fan = [GraphEdge(source=0, target=i, kind="next") for i in range(1, 150)]
    height, width = decode(render_graph_png(AutogradGraph(nodes=row, edges=fan))).shape[:2]
    assert max(width, height) <= MAX_CANVAS_PX


def test_edges_spanning_every_layer_still_draw_within_the_canvas_cap() -> None:
    chain = [GraphNode(id=i, kind="backward", label="MulBackward0") for i in range(150)]
    links = [GraphEdge(source=i, target=i + 1, kind="next") for i in range(149)]
    spans = [GraphEdge(source=i % 3, target=149 - i % 3, kind="next") for i in range(151)]
    png = render_graph_png(AutogradGraph(nodes=chain, edges=links + spans))
    assert max(decode(png).shape[:2]) <= MAX_CANVAS_PX
