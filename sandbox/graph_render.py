"""Draw an :class:`~sandbox.protocol.AutogradGraph` as a PNG, outside the job.

The one renderer of graph pictures. It runs in the sandbox worker's service process
(``POST /graph.png``, :mod:`sandbox.graph_pictures`), never in the jailed job and never in
the bot, and anywhere the ``sandbox`` extra (matplotlib, networkx) is installed::

    from sandbox.graph_render import render_graph_png, save_graph_png

    png = render_graph_png(result.graph, title="TF5")          # bytes
    save_graph_png(result.graph, Path("tf5-graph.png"))       # a file

Layout: a layered drawing, the named output tensors at the top and the leaf tensors at the
bottom, every arrow pointing the way ``backward()`` goes (tensor -> its ``grad_fn`` ->
``next_functions`` -> ``AccumulateGrad`` -> the leaf whose ``.grad`` it fills). Layers come
from the longest path (networkx), nodes are then pulled down next to what they feed, an
edge crossing several layers gets a bend point in each, barycenter sweeps order the rows
and pull boxes over their neighbours (Sugiyama's method, simplified). Drawn with
matplotlib's Agg canvas (no pyplot, no display), about 1,100 px wide with 9-16 pt monospace
text so it stays legible when Discord shows it ~400 px wide. Leaf tensors (green), tensors
with a ``grad_fn`` (blue), cut tensors (red, dashed outline) and backward nodes (grey)
differ in colour and text; cut edges are red, dashed and labelled; a legend says so.

matplotlib and networkx are imported on the first call, not at import time (importing this
module costs nothing; the worker service warms it up once at start). All text comes from an
untrusted job: glyphs the font lacks become ``?`` and mathtext is off (``$`` is just a
dollar sign). Calls are serialised by a lock: matplotlib is not thread-safe.
"""

from __future__ import annotations

import io
import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sandbox.protocol import AutogradGraph, GraphEdge, GraphNode

if TYPE_CHECKING:
    from matplotlib.axes import Axes

TARGET_WIDTH_PX = 1100
"""Width the picture is laid out for; Discord previews it about 400 px wide."""

MIN_WIDTH_PX = 800
"""A narrow graph is centred on a canvas at least this wide, so its text is not enlarged."""

MAX_FONT_PT = 16.0
"""Font size for small graphs (points at 100 dpi: ~22 px tall, ~9 px in a 400 px preview)."""

MIN_FONT_PT = 9.0
"""Smallest font; a wider graph makes a wider picture instead of smaller text."""

MAX_HEIGHT_PX = 3200
"""A deep graph's font shrinks (down to MIN_FONT_PT) to keep the picture at most this tall."""

MAX_CANVAS_PX = 4096
"""Hard cap on each side of the picture, in pixels (at most 64 MiB of RGBA while drawing).
A graph too wide or deep for it at MIN_FONT_PT is drawn with smaller text, and the picture
says so: a forged graph at the caps (150 boxes in one row) would otherwise need a canvas
~59,000 px wide and ~860 MiB to draw."""

TOO_LARGE = "This graph is too large to draw legibly; its text is smaller than usual."

DPI = 100

FONT_FAMILY = "DejaVu Sans Mono"
"""Ships with matplotlib, so the picture looks the same everywhere; monospace makes box
widths exact (a glyph is 0.602 em wide)."""

CHAR_EM = 0.602
LINE_EM = 1.3
DUMMY_WIDTH_EM = 1.0
DUMMY_BASE = 10_000
"""Bend points get ids from here up (node ids are below MAX_GRAPH_NODES)."""

MAX_BEND_POINTS = 300
"""Bend points in one picture. An edge that would take the total past this is drawn
straight instead: a forged graph at the caps (150 nodes, 300 edges each spanning ~150
layers) would otherwise need ~45,000 of them and take minutes to draw. The bank's graphs
need a few dozen at most."""

LEAF_FILL, LEAF_EDGE = "#d5efd9", "#1e7b34"
TENSOR_FILL, TENSOR_EDGE = "#dbe8f7", "#1f5fa8"
CUT_FILL, CUT_EDGE = "#fde3e1", "#c0392b"
NODE_FILL, NODE_EDGE = "#ececec", "#555555"
ACCUMULATE_FILL = "#f7f7f7"
NEXT_COLOUR = "#333333"

CUT_WORDS = {
    "detached": "detached",
    "no_grad": "made under no_grad",
    "inference_mode": "inference tensor",
}

_lock = threading.Lock()


class RendererUnavailable(RuntimeError):
    """matplotlib or networkx is not installed, so no picture can be drawn."""


@dataclass
class _Box:
    """A node's box, or (``node`` None) a bend point of an edge that spans several layers."""

    node: GraphNode | None
    lines: list[str] = field(default_factory=list)
    fill: str = "none"
    edge: str = "none"
    style: str = "-"
    width_em: float = DUMMY_WIDTH_EM
    height_em: float = 0.0
    layer: int = 0
    x: float = 0.0
    y: float = 0.0
    patch: Any = None


@dataclass
class _Route:
    """One edge drawn as a path through bend points: ``ids`` from source to target."""

    edge: GraphEdge
    ids: list[int]


@dataclass
class _Layout:
    boxes: dict[int, _Box]
    rows: list[list[int]] = field(default_factory=list)
    routes: list[_Route] = field(default_factory=list)


def render_graph_png(graph: AutogradGraph, *, title: str | None = None) -> bytes:
    """Draw ``graph`` as a PNG.

    Args:
        graph: a validated graph (from ``RunResult.graph``); its text is treated as
            untrusted.
        title: shown after "Autograd graph" (e.g. an item id); clipped to 60 characters.

    Returns:
        PNG bytes, about 1,100 px wide (wider only for graphs too wide for 9 pt text) and
        as tall as the graph's layers need: the text shrinks to keep it within 3,200 px,
        which holds up to ~50 layers; a deeper (truncated) chain makes a taller picture.
        An empty graph gives a small picture saying there is nothing to draw.

    Raises:
        RendererUnavailable: matplotlib or networkx is missing.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - both are dependencies of the project
        raise RendererUnavailable(
            "graph pictures need matplotlib and networkx (pip install matplotlib networkx)"
        ) from exc
    with _lock:
        safe = _glyph_filter()
        layout = _layout(graph, safe)
        heading = "Autograd graph" + (f" · {safe(title)[:60]}" if title else "")
        footer = _footer(graph, safe)
        return _draw(Figure, FigureCanvasAgg, layout, heading, footer)


def save_graph_png(graph: AutogradGraph, path: Path, *, title: str | None = None) -> Path:
    """Draw ``graph`` into the PNG file ``path``, whose directory must exist.

    No directory is created, so a mistyped path fails instead of making one.

    Args:
        graph: the graph to draw.
        path: where to write, e.g. ``data/graphs/TF5.png``.
        title: as for :func:`render_graph_png`.

    Returns:
        ``path``.

    Raises:
        RendererUnavailable: matplotlib or networkx is missing.
        OSError: the file cannot be written (``FileNotFoundError`` when its directory is
            missing, ``FileExistsError`` when it exists: nothing is overwritten).
    """
    data = render_graph_png(graph, title=title)
    with path.open("xb") as out:  # never overwrite: a tester's snippet became a PNG
        out.write(data)
    return path


# --------------------------------------------------------------------------- text


_charmap: frozenset[int] | None = None


def _glyph_filter() -> Any:
    """A function replacing characters the font cannot draw with ``?`` (no warning spam)."""
    global _charmap
    if _charmap is None:
        from matplotlib import font_manager, ft2font

        path = font_manager.findfont(font_manager.FontProperties(family=FONT_FAMILY))
        _charmap = frozenset(ft2font.FT2Font(path).get_charmap())
    charmap = _charmap

    def safe(text: str) -> str:
        return "".join(c if ord(c) in charmap else "?" for c in text)

    return safe


def _shape(node: GraphNode) -> str:
    assert node.tensor is not None
    dims = node.tensor.shape
    inner = ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "")
    text = f"({inner}) {node.tensor.dtype}"
    return text if len(text) <= 32 else text[:31] + "…"


def _box(node: GraphNode, safe: Any) -> _Box:
    if node.tensor is None:
        accumulate = node.label == "AccumulateGrad"
        return _Box(
            node, [safe(node.label)], ACCUMULATE_FILL if accumulate else NODE_FILL, NODE_EDGE
        )
    facts = node.tensor
    lines = [safe(node.label), _shape(node)]
    if facts.cut is not None:
        lines.append(CUT_WORDS[facts.cut])
        fill, edge, style = CUT_FILL, CUT_EDGE, "--"
    elif facts.is_leaf:
        lines.append(".grad set" if facts.grad_set else ".grad None")
        fill, edge, style = LEAF_FILL, LEAF_EDGE, "-"
    else:
        lines.append("retain_grad · .grad set" if facts.grad_set else "has grad_fn")
        fill, edge, style = TENSOR_FILL, TENSOR_EDGE, "-"
    if len(facts.names) > 1:
        also = "also " + ", ".join(safe(n) for n in facts.names[1:])
        lines.append(also if len(also) <= 32 else also[:31] + "…")
    return _Box(node, lines, fill, edge, style)


def _footer(graph: AutogradGraph, safe: Any) -> list[str]:
    lines = [safe(note) for note in graph.notes]
    if graph.untracked:
        names = ", ".join(safe(n) for n in graph.untracked)
        lines.append(f"Not drawn (no autograd history): {names}")
    if graph.empty and not lines:
        lines.append("No tensor in scope has autograd history: there is no graph to draw.")
    elif graph.empty:
        lines.insert(0, "No tensor in scope has autograd history: there is no graph to draw.")
    return [_wrap(line, 90) for line in lines]


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text


# --------------------------------------------------------------------------- layout


def _layout(graph: AutogradGraph, safe: Any) -> _Layout:
    """Sugiyama-style: layers by longest path (then pulled down to what each node feeds),
    a bend point in every layer a long edge crosses, and barycenter ordering."""
    import networkx as nx

    boxes = {node.id: _box(node, safe) for node in graph.nodes}
    for box in boxes.values():
        box.width_em = max(len(line) for line in box.lines) * CHAR_EM + 1.4
        box.height_em = len(box.lines) * LINE_EM + 0.9
    if not boxes:
        return _Layout(boxes)
    g = nx.MultiDiGraph()
    g.add_nodes_from(boxes)
    g.add_edges_from((e.source, e.target) for e in graph.edges)
    dag = nx.condensation(g)  # a validated graph has no cycle; this keeps a forged one drawable
    member = dag.graph["mapping"]
    order = list(nx.topological_sort(dag))
    level: dict[int, int] = {}
    for comp in order:
        preds = [level[p] for p in dag.predecessors(comp)]
        level[comp] = max(preds) + 1 if preds else 0
    bottom = max(level.values())
    for comp in reversed(order):
        succs = [level[s] for s in dag.successors(comp)]
        level[comp] = min(succs) - 1 if succs else bottom
    for node_id, box in boxes.items():
        box.layer = level[member[node_id]]

    ordering = nx.DiGraph()
    ordering.add_nodes_from(boxes)
    routes: list[_Route] = []
    next_dummy = DUMMY_BASE
    for edge in graph.edges:
        ids = [edge.source]
        between = range(boxes[edge.source].layer + 1, boxes[edge.target].layer)
        if next_dummy - DUMMY_BASE + len(between) <= MAX_BEND_POINTS:
            for layer in between:
                boxes[next_dummy] = _Box(None, layer=layer)
                ids.append(next_dummy)
                next_dummy += 1
        ids.append(edge.target)
        ordering.add_edges_from(itertools.pairwise(ids))
        routes.append(_Route(edge, ids))
    rows: list[list[int]] = [[] for _ in range(bottom + 1)]
    for box_id in sorted(boxes):
        rows[boxes[box_id].layer].append(box_id)
    _reduce_crossings(rows, ordering)
    return _Layout(boxes, rows, routes)


def _reduce_crossings(rows: list[list[int]], g: Any) -> None:
    """Down-and-up barycenter sweeps (Sugiyama's ordering step)."""
    for _ in range(3):
        for index in range(1, len(rows)):
            _sort_by(rows[index], rows[index - 1], g.predecessors)
        for index in range(len(rows) - 2, -1, -1):
            _sort_by(rows[index], rows[index + 1], g.successors)


def _sort_by(row: list[int], fixed: list[int], neighbours: Any) -> None:
    where = {node: pos for pos, node in enumerate(fixed)}
    current = {node: pos for pos, node in enumerate(row)}

    def key(node: int) -> float:
        near = [where[n] for n in neighbours(node) if n in where]
        return sum(near) / len(near) if near else float(current[node])

    row.sort(key=key)


# --------------------------------------------------------------------------- drawing


GAP_X_EM = 1.4
"""Horizontal space between two boxes of a row, in em."""

GAP_Y_EM = 2.6
"""Vertical space between two rows (room for the arrows), in em."""

MARGIN_EM = 1.2


def _place(layout: _Layout) -> float:
    """Give every box a centre in em (x from the left, y down from the first row's top).

    Rows are first packed side by side, then each box is pulled toward the mean x of its
    neighbours in the row above (then below), keeping the row's order and gaps, which
    straightens long edges through their bend points.

    Returns:
        The width of the drawing in em.
    """
    rows = layout.rows
    boxes = layout.boxes
    above: dict[int, list[int]] = {}
    below: dict[int, list[int]] = {}
    for route in layout.routes:
        for a, b in itertools.pairwise(route.ids):
            below.setdefault(a, []).append(b)
            above.setdefault(b, []).append(a)
    for row in rows:
        x = 0.0
        for box_id in row:
            box = boxes[box_id]
            box.x = x + box.width_em / 2
            x += box.width_em + GAP_X_EM
    for _ in range(4):
        for row in rows[1:]:
            _pull(row, boxes, above)
        for row in reversed(rows[:-1]):
            _pull(row, boxes, below)
    left = min((b.x - b.width_em / 2 for b in boxes.values()), default=0.0)
    right = max((b.x + b.width_em / 2 for b in boxes.values()), default=0.0)
    for box in boxes.values():
        box.x -= left
    top = 0.0
    for row in rows:
        height = max((boxes[n].height_em for n in row), default=0.0)
        for box_id in row:
            boxes[box_id].y = top + height / 2
        top += height + GAP_Y_EM
    return right - left


def _pull(row: list[int], boxes: dict[int, _Box], neighbours: dict[int, list[int]]) -> None:
    """Move a row's boxes toward their neighbours' mean x, keeping order and gaps."""
    if not row:
        return
    wanted = []
    for box_id in row:
        near = [boxes[n].x for n in neighbours.get(box_id, [])]
        wanted.append(sum(near) / len(near) if near else boxes[box_id].x)
    placed: list[float] = []
    for index, box_id in enumerate(row):
        x = wanted[index]
        if placed:
            previous = boxes[row[index - 1]]
            x = max(x, placed[-1] + (previous.width_em + boxes[box_id].width_em) / 2 + GAP_X_EM)
        placed.append(x)
    shift = sum(w - p for w, p in zip(wanted, placed, strict=True)) / len(row)
    for box_id, x in zip(row, placed, strict=True):
        boxes[box_id].x = x + shift


def _height_em(head_em: float, content_h: float, footer: list[str], legend_em: float) -> float:
    """The picture's height in em: heading, graph, footer lines and legend."""
    footer_lines = sum(text.count("\n") + 1 for text in footer)
    return head_em + content_h + 1.5 + footer_lines * 1.1 + legend_em + MARGIN_EM


def _font(width_em: float, height_em: float) -> tuple[float, bool]:
    """The font size in points for a drawing ``width_em`` x ``height_em`` em.

    Returns:
        The size, and whether it had to go below :data:`MIN_FONT_PT` to keep each side
        within :data:`MAX_CANVAS_PX`.
    """
    font = min(MAX_FONT_PT, TARGET_WIDTH_PX * 72 / DPI / width_em)
    font = max(MIN_FONT_PT, min(font, MAX_HEIGHT_PX * 72 / DPI / height_em))
    limit = MAX_CANVAS_PX * 72 / DPI / max(width_em, height_em)
    return min(font, limit), font > limit


def _draw(
    figure_cls: Any, canvas_cls: Any, layout: _Layout, heading: str, footer: list[str]
) -> bytes:
    from matplotlib.patches import FancyBboxPatch

    content_w = _place(layout) if layout.boxes else 30.0
    rows_h = [max((layout.boxes[n].height_em for n in row), default=0.0) for row in layout.rows]
    content_h = sum(rows_h) + GAP_Y_EM * max(len(rows_h) - 1, 0)
    legend_em = 5.2
    head_em = 2.6
    width_em = max(content_w, 46.0) + 2 * MARGIN_EM
    font, squeezed = _font(width_em, _height_em(head_em, content_h, footer, legend_em))
    if squeezed:
        footer = [*footer, TOO_LARGE]
        font, _ = _font(width_em, _height_em(head_em, content_h, footer, legend_em))
    height_em = _height_em(head_em, content_h, footer, legend_em)
    em = font
    width_pt = max(width_em * em, MIN_WIDTH_PX * 72 / DPI)
    height_pt = height_em * em
    left_pt = (width_pt - content_w * em) / 2
    top_pt = height_pt - head_em * em

    fig = figure_cls(figsize=(width_pt / 72, height_pt / 72), dpi=DPI, facecolor="white")
    canvas_cls(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width_pt)
    ax.set_ylim(0, height_pt)
    ax.axis("off")
    ax.text(
        width_pt / 2,
        height_pt - 1.4 * em,
        heading,
        ha="center",
        va="center",
        fontsize=font * 1.15,
        family=FONT_FAMILY,
        weight="bold",
        parse_math=False,
    )
    for box in layout.boxes.values():
        box.x = left_pt + box.x * em
        box.y = top_pt - box.y * em
        if box.node is None:
            continue
        w, h = box.width_em * em, box.height_em * em
        box.patch = FancyBboxPatch(
            (box.x - w / 2, box.y - h / 2),
            w,
            h,
            boxstyle=f"round,pad=0,rounding_size={0.35 * em}",
            facecolor=box.fill,
            edgecolor=box.edge,
            linewidth=2.0,
            linestyle=box.style,
            zorder=2,
        )
        ax.add_patch(box.patch)
        ax.text(
            box.x,
            box.y,
            "\n".join(box.lines),
            ha="center",
            va="center",
            fontsize=font,
            family=FONT_FAMILY,
            linespacing=LINE_EM,
            parse_math=False,
            zorder=3,
        )
    _draw_edges(ax, layout, em)

    y = top_pt - (content_h + 1.0) * em
    for text in footer:
        ax.text(
            MARGIN_EM * em,
            y,
            text,
            ha="left",
            va="top",
            fontsize=font * 0.85,
            family=FONT_FAMILY,
            color="#444444",
            parse_math=False,
        )
        y -= (text.count("\n") + 1) * 1.1 * em
    _legend(ax, font)

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


_EDGE_STYLE: dict[str, dict[str, Any]] = {
    "next": {"color": NEXT_COLOUR, "linestyle": "-", "linewidth": 1.8},
    "grad_fn": {"color": TENSOR_EDGE, "linestyle": "-", "linewidth": 1.8},
    "variable": {"color": LEAF_EDGE, "linestyle": "-", "linewidth": 1.8},
    "cut": {"color": CUT_EDGE, "linestyle": (0, (5, 3)), "linewidth": 2.2},
}


def _draw_edges(ax: Axes, layout: _Layout, em: float) -> None:
    """Each edge as segments through its bend points; the arrow head on the last one."""
    from matplotlib.patches import FancyArrowPatch

    seen: dict[tuple[int, int], int] = {}
    labelled: set[int] = set()
    for route in layout.routes:
        edge = route.edge
        pair = (edge.source, edge.target)
        nth = seen.get(pair, 0)
        seen[pair] = nth + 1
        direct = len(route.ids) == 2
        rad = 0.0 if nth == 0 or not direct else (0.3 if nth % 2 else -0.3) * ((nth + 1) // 2)
        style = _EDGE_STYLE[edge.kind]
        hops = list(itertools.pairwise(route.ids))
        for index, (a_id, b_id) in enumerate(hops):
            a, b = layout.boxes[a_id], layout.boxes[b_id]
            last = index == len(hops) - 1
            ax.add_patch(
                FancyArrowPatch(
                    (a.x, a.y),
                    (b.x, b.y),
                    patchA=a.patch,
                    patchB=b.patch,
                    arrowstyle="-|>" if last else "-",
                    mutation_scale=em * 1.3,
                    shrinkA=1 if a.patch is not None else 0,
                    shrinkB=2 if b.patch is not None else 0,
                    connectionstyle=f"arc3,rad={rad}",
                    zorder=1,
                    **style,
                )
            )
        if edge.kind == "cut" and edge.source not in labelled:
            labelled.add(edge.source)
            a, b = layout.boxes[route.ids[0]], layout.boxes[route.ids[1]]
            ax.text(
                (a.x + b.x) / 2,
                (a.y + b.y) / 2,
                "no gradient",
                ha="center",
                va="center",
                fontsize=em * 0.75,
                family=FONT_FAMILY,
                color=CUT_EDGE,
                parse_math=False,
                zorder=4,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"},
            )


def _legend(ax: Axes, font: float) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor=LEAF_FILL, edgecolor=LEAF_EDGE, linewidth=2, label="leaf tensor"),
        Patch(
            facecolor=TENSOR_FILL, edgecolor=TENSOR_EDGE, linewidth=2, label="tensor with grad_fn"
        ),
        Patch(
            facecolor=CUT_FILL,
            edgecolor=CUT_EDGE,
            linewidth=2,
            linestyle="--",
            label="cut: no history",
        ),
        Patch(facecolor=NODE_FILL, edgecolor=NODE_EDGE, linewidth=2, label="backward node"),
        Line2D(
            [],
            [],
            color=NEXT_COLOUR,
            linewidth=2,
            marker=">",
            markersize=font * 0.6,
            label="backward() goes this way",
        ),
        Line2D(
            [], [], color=CUT_EDGE, linewidth=2.2, linestyle="--", label="cut edge: no gradient"
        ),
    ]
    legend = ax.legend(
        handles=handles,
        loc="lower center",
        ncol=2,
        frameon=True,
        bbox_to_anchor=(0.5, 0.005),
        handlelength=2.2,
        columnspacing=1.6,
        prop={"family": FONT_FAMILY, "size": font * 0.85},
    )
    legend.get_frame().set_edgecolor("#bbbbbb")
