"""Autograd graph extraction, run inside the job right after the snippet's code.

The job is the only place with torch and the learner's objects, so the graph is read there:
from the tensors the snippet left in its global scope (or only those it lists in
``__graph__``), the extractor walks ``grad_fn`` / ``next_functions`` breadth first and
records tensors, backward nodes and edges as an :class:`~sandbox.protocol.AutogradGraph`,
which it writes as JSON on the job's graph pipe (file descriptor :data:`GRAPH_FD`). The
worker reads that text as untrusted and validates it; nothing but JSON crosses the jail wall.

What becomes a node:

* every tensor in scope with autograd history (``requires_grad`` or a ``grad_fn``), named
  by its global names; tensors inside a global ``nn.Module`` are named by path
  (``enc.weight``), inside a global list, tuple or dict by index or key (``saved[0]``);
* every backward node reached from them, and for each ``AccumulateGrad`` the leaf tensor
  it adds into, named when a global still names it and ``(no name)`` otherwise (the old
  leaf after ``x = x + 1``);
* the last :data:`MAX_BACKWARD_ROOTS` root tensors of the snippet's ``backward()`` calls
  (``Tensor.backward``, ``torch.autograd.backward``) and outputs handed to
  ``torch.autograd.grad``, recorded while the snippet ran (:func:`start_recording`), so
  ``(x * x).sum().backward()`` draws the graph backward walked although no global names
  its root (not the tensors ``torch.func`` transforms wrap and differentiate internally);
  such a root is labelled ``root of backward()`` (``root of autograd.grad()``,
  numbered ``#1``, ``#2``... in call order when there are several) unless a global names it;
* tensors without history that the source shows were cut from tracked tensors
  (:mod:`sandbox.graph_cuts`), with a ``cut`` edge to each tracked tensor the right-hand
  side named, and inference tensors (``is_inference()``) cut the same way.

Tensors in scope with no history and no known cut are listed in ``untracked``, not drawn.

Marking: a snippet that sets ``__graph__ = loss`` (a tensor), ``__graph__ = [a, b]`` or
``__graph__ = {"loss": loss}`` gets only those tensors' graphs (globals still name nodes;
backward roots are not added).

Recording backward roots: :func:`start_recording` installs a profile function
(``sys.setprofile``) that notes the first argument of each outermost call of
``torch.autograd.backward`` (which ``Tensor.backward`` calls) and ``torch.autograd.grad``.
A profile function adds no frame to tracebacks and replaces nothing in torch, so the
snippet's output, warnings and tracebacks are those of a run without the graph; a snippet
that removes or replaces it (``sys.setprofile``, a profiler of its own) only loses those
roots from its picture. Calls nested inside a running backward (a reentrant checkpoint's
recomputation, ``autograd.grad`` inside a hook) are not roots.

Hostile code runs in the same process, so the extractor only narrows what it can do: every
tensor attribute is read through ``torch._C.TensorBase``'s own descriptors with
``__torch_function__`` disabled, containers are read only when they are exactly ``list``,
``tuple`` or ``dict``, nothing is called on user objects, the walk stops at
:data:`~sandbox.protocol.MAX_GRAPH_NODES` nodes, and a timer stops it after
:data:`BUDGET_S`. Any failure yields a graph with a note instead of breaking the run; what it
wrote is validated by the worker either way.

torch is imported by :func:`prepare` (in the zygote, before any job), never at import time:
:mod:`sandbox.worker` imports the zygote module, and the worker must stay torch-free.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import signal
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Literal

from sandbox.graph_cuts import CutHint, cut_hints
from sandbox.protocol import (
    MAX_GRAPH_DIMS,
    MAX_GRAPH_EDGES,
    MAX_GRAPH_LABEL_CHARS,
    MAX_GRAPH_NAMES,
    MAX_GRAPH_NODES,
    MAX_GRAPH_NOTE_CHARS,
    MAX_GRAPH_UNTRACKED,
    AutogradGraph,
    CutReason,
    EdgeKind,
    GraphEdge,
    GraphNode,
    TensorFacts,
)

GRAPH_FD = 255
"""The job's graph pipe is moved to this descriptor before the code runs, so the snippet's
own files get the same descriptor numbers as in a run without a graph (RLIMIT_NOFILE is
256, so 255 is the highest allowed)."""

MARKER = "__graph__"
"""The global a snippet may set to choose which tensors' graphs are drawn."""

BUDGET_S = 1.0
"""Seconds the walk may take before it stops with what it has (a real snippet's graph
takes a few milliseconds). The job's wall-clock limit still bounds everything."""

HARD_STOP_S = 2.0
"""An interval timer interrupts the extraction after this many seconds whatever it is
doing (e.g. stuck in a hostile object's code)."""

MAX_BACKWARD_ROOTS = 8
"""Root tensors of the snippet's backward calls that are kept (the last ones; a reference
to each keeps its graph's nodes alive until the job ends)."""

ROOT_LABELS = {"backward": "root of backward()", "grad": "root of autograd.grad()"}
"""How an unnamed backward root is labelled, by the call that walked from it."""

MAX_CONTAINER_ITEMS = 16
"""Items of a global list, tuple or dict that are looked at."""

MAX_MODULE_PARAMETERS = 64
"""Parameters of one global ``nn.Module`` that are looked at (depth-first, in order)."""

MAX_MODULE_DEPTH = 8
"""Submodule nesting followed inside a global ``nn.Module``."""

MAX_CUT_SOURCE_PARAMETERS = 4
"""``cut`` edges drawn to the parameters of one module named on a cut's right-hand side."""

NO_NAME = "(no name)"

_DTYPE_OK = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


class OutOfTime(Exception):
    """The extraction used up its time (raised by the interval timer or the walk)."""


@dataclass(frozen=True, slots=True)
class _TorchHandles:
    """torch's types and descriptors, taken before any job code could replace them."""

    tensor_type: type
    module_type: type
    function_base: type
    accumulate_grad: type
    disable_torch_function: Any
    grad_fn: Any
    requires_grad: Any
    is_leaf: Any
    retains_grad: Any
    grad: Any
    shape: Any
    dtype: Any
    is_inference: Any
    variable: Any
    next_functions_py: Any
    backward_code: Any
    grad_code: Any
    setprofile: Any
    getprofile: Any
    is_functorch_wrapped: Any


_handles: _TorchHandles | None = None

_builtins: dict[str, Any] = {}
"""The builtins as the zygote had them; restored while the graph is read (a job may have
replaced ``type`` or ``isinstance``) and handed back to the job afterwards."""


def prepare() -> None:
    """Import torch and keep its types and descriptors for :func:`extract_graph`.

    Call it in the zygote after torch is loaded and before forking any job: the jail cannot
    import this project's modules, and a job may replace ``torch`` attributes later.
    """
    global _handles
    import sys

    import torch

    _builtins.update(vars(builtins))

    base = torch._C.TensorBase
    probe = torch.ones(1, requires_grad=True) * 2
    accumulate = type(probe.grad_fn.next_functions[0][0])  # type: ignore[union-attr]
    _handles = _TorchHandles(
        tensor_type=torch.Tensor,
        module_type=torch.nn.Module,
        function_base=torch._C._FunctionBase,
        accumulate_grad=accumulate,
        disable_torch_function=torch._C.DisableTorchFunction,
        grad_fn=base.__dict__["grad_fn"],
        requires_grad=base.__dict__["requires_grad"],
        is_leaf=base.__dict__["is_leaf"],
        retains_grad=base.__dict__["retains_grad"],
        grad=base.__dict__["grad"],
        shape=base.__dict__["shape"],
        dtype=base.__dict__["dtype"],
        is_inference=base.__dict__["is_inference"],
        variable=accumulate.__dict__["variable"],
        next_functions_py=torch._C._FunctionBase.__dict__["next_functions"],
        backward_code=getattr(torch.autograd.backward, "__code__", None),
        grad_code=getattr(torch.autograd.grad, "__code__", None),
        setprofile=sys.setprofile,
        getprofile=sys.getprofile,
        is_functorch_wrapped=torch._C._functorch.is_functorch_wrapped_tensor,
    )


def clean_label(text: str, limit: int = MAX_GRAPH_LABEL_CHARS) -> str:
    """``text`` made valid as a graph label: control characters become ``?``, at most
    ``limit`` characters (cut with an ellipsis), never empty."""
    chars = []
    for char in text:
        category = unicodedata.category(char)
        bad = category in ("Cc", "Cf", "Cs", "Zl", "Zp") or char in "\u200e\u200f"
        chars.append("?" if bad else char)
    out = "".join(chars) or "?"
    return out if len(out) <= limit else out[: limit - 1] + "…"


# --------------------------------------------------------------------------- backward roots


@dataclass(frozen=True, slots=True)
class BackwardRoot:
    """A tensor one of the snippet's backward calls started from.

    Attributes:
        call: ``"backward"`` (``Tensor.backward`` or ``torch.autograd.backward``) or
            ``"grad"`` (an output handed to ``torch.autograd.grad``).
        tensor: the root tensor (a ``torch.Tensor``; anything else is ignored by the walk).
    """

    call: Literal["backward", "grad"]
    tensor: Any


@dataclass(slots=True)
class _Recording:
    roots: deque[BackwardRoot]
    profile: Callable[[FrameType, str, Any], None]


_recording: _Recording | None = None


def start_recording() -> None:
    """Start noting the roots of the snippet's backward calls in this process.

    Call it in the job, just before the snippet's code runs and only when its graph was
    asked for; :func:`stop_recording` (called by :func:`send_graph`) ends it. It installs a
    profile function (``sys.setprofile``, this thread only) that, on each outermost call of
    ``torch.autograd.backward`` or ``torch.autograd.grad``, keeps a reference to the tensors
    of its first argument (the last :data:`MAX_BACKWARD_ROOTS` of them). It never raises
    into the snippet and adds no frame to its tracebacks.

    Raises:
        RuntimeError: :func:`prepare` was not called in this process.
    """
    global _recording
    h = _handles
    if h is None:
        raise RuntimeError("sandbox.graph_extract.prepare() was not called")
    if h.backward_code is None or h.grad_code is None:
        return  # torch wrapped them: no roots, the picture is as before
    roots: deque[BackwardRoot] = deque(maxlen=MAX_BACKWARD_ROOTS)
    recording = _Recording(roots, _root_recorder(h, roots))
    _recording = recording
    h.setprofile(recording.profile)


def stop_recording() -> list[BackwardRoot]:
    """Remove the profile function (if the snippet left it in place) and return the roots.

    Returns:
        The roots noted since :func:`start_recording`, oldest first, at most
        :data:`MAX_BACKWARD_ROOTS`; empty when recording was not started.
    """
    global _recording
    recording, _recording = _recording, None
    if recording is None or _handles is None:
        return []
    if _handles.getprofile() is recording.profile:
        _handles.setprofile(None)
    return list(recording.roots)[-MAX_BACKWARD_ROOTS:]


def _root_recorder(
    h: _TorchHandles, roots: deque[BackwardRoot]
) -> Callable[[FrameType, str, Any], None]:
    """The profile function :func:`start_recording` installs.

    Everything it uses is bound now (defaults and closure), so a snippet that replaces
    builtins cannot make it raise; an error inside it is swallowed, since an exception
    leaving a profile function would surface in the snippet's own code.
    """
    backward_code, grad_code, tensor_type = h.backward_code, h.grad_code, h.tensor_type
    depth = [0]  # backward/grad calls in progress: only the outermost one is a root

    def profile(
        frame: FrameType,
        event: str,
        arg: Any,
        _type: Any = type,
        _issubclass: Any = issubclass,
        _base: Any = BaseException,
        _root: Any = BackwardRoot,
        _limit: int = MAX_BACKWARD_ROOTS,
    ) -> None:
        try:
            if event == "call":
                code = frame.f_code
                if code is not backward_code and code is not grad_code:
                    return
                depth[0] += 1
                if depth[0] != 1:
                    return
                call = "backward" if code is backward_code else "grad"
                value = frame.f_locals.get("tensors" if call == "backward" else "outputs")
                kind = _type(value)
                if _issubclass(kind, tensor_type):
                    roots.append(_root(call, value))
                elif kind is list or kind is tuple:
                    items: Any = value
                    for item in items[:_limit]:
                        if _issubclass(_type(item), tensor_type):
                            roots.append(_root(call, item))
            elif event == "return":
                code = frame.f_code
                if code is backward_code or code is grad_code:
                    depth[0] -= 1
        except _base:  # never into the snippet: it costs at most the roots
            pass

    return profile


# --------------------------------------------------------------------------- the walk


@dataclass
class _Builder:
    """The graph under construction, with its caps."""

    h: _TorchHandles
    deadline: float
    max_nodes: int = MAX_GRAPH_NODES
    max_edges: int = MAX_GRAPH_EDGES
    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)
    names: dict[int, list[str]] = field(default_factory=dict)
    keep: dict[int, Any] = field(default_factory=dict)  # id -> object, so ids stay unique
    tensor_nodes: dict[int, int] = field(default_factory=dict)
    fn_nodes: dict[int, int] = field(default_factory=dict)
    cuts: dict[int, CutReason] = field(default_factory=dict)
    root_labels: dict[int, str] = field(default_factory=dict)  # unnamed backward roots

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise OutOfTime

    # -- naming

    def name(self, tensor: Any, name: str) -> None:
        key = id(tensor)
        self.keep[key] = tensor
        known = self.names.setdefault(key, [])
        label = clean_label(name)
        if label not in known and len(known) < MAX_GRAPH_NAMES:
            known.append(label)

    # -- nodes and edges

    def _room(self) -> bool:
        if len(self.nodes) >= self.max_nodes:
            self.truncated = True
            return False
        return True

    def tensor_node(self, tensor: Any) -> int | None:
        key = id(tensor)
        if key in self.tensor_nodes:
            return self.tensor_nodes[key]
        if not self._room():
            return None
        self.keep[key] = tensor
        names = self.names.get(key, [])
        node = GraphNode(
            id=len(self.nodes),
            kind="tensor",
            label=names[0] if names else self.root_labels.get(key, NO_NAME),
            tensor=self.facts(tensor, names),
        )
        self.nodes.append(node)
        self.tensor_nodes[key] = node.id
        return node.id

    def fn_node(self, fn: Any) -> int | None:
        key = id(fn)
        if key in self.fn_nodes:
            return self.fn_nodes[key]
        if not self._room():
            return None
        self.keep[key] = fn
        node = GraphNode(id=len(self.nodes), kind="backward", label=clean_label(type(fn).__name__))
        self.nodes.append(node)
        self.fn_nodes[key] = node.id
        return node.id

    def edge(self, source: int, target: int, kind: EdgeKind) -> None:
        if len(self.edges) >= self.max_edges:
            self.truncated = True
            return
        self.edges.append(GraphEdge(source=source, target=target, kind=kind))

    # -- reading tensors through torch's own descriptors

    def facts(self, tensor: Any, names: list[str]) -> TensorFacts:
        h = self.h
        is_leaf = bool(h.is_leaf.__get__(tensor))
        retains = not is_leaf and bool(h.retains_grad.__get__(tensor))
        grad_set = (is_leaf or retains) and h.grad.__get__(tensor) is not None
        dtype = str(h.dtype.__get__(tensor)).removeprefix("torch.")
        if not (dtype[:1].isalpha() and set(dtype) <= _DTYPE_OK and len(dtype) <= 24):
            dtype = "unknown"
        return TensorFacts(
            names=names,
            shape=[int(size) for size in tuple(h.shape.__get__(tensor))[:MAX_GRAPH_DIMS]],
            dtype=dtype,
            requires_grad=bool(h.requires_grad.__get__(tensor)),
            is_leaf=is_leaf,
            grad_set=grad_set,
            retains_grad=retains,
            cut=self.cuts.get(id(tensor)),
        )

    def tracked(self, tensor: Any) -> bool:
        h = self.h
        return bool(h.requires_grad.__get__(tensor)) or h.grad_fn.__get__(tensor) is not None

    def next_functions(self, fn: Any) -> tuple[Any, ...]:
        h = self.h
        if isinstance(fn, h.function_base):
            pairs = h.next_functions_py.__get__(fn)
        else:
            descriptor = type(fn).__dict__.get("next_functions")
            pairs = descriptor.__get__(fn) if descriptor is not None else ()
        if type(pairs) is not tuple:
            return ()
        return tuple(p[0] for p in pairs if type(p) is tuple and len(p) == 2)


def _is_tensor(h: _TorchHandles, value: Any) -> bool:
    return issubclass(type(value), h.tensor_type)


def _module_parameters(h: _TorchHandles, module: Any) -> list[tuple[str, Any]]:
    """``(path, parameter)`` of a module, read from ``_parameters``/``_modules`` dicts only."""
    found: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any, int]] = [("", module, 0)]
    while stack and len(found) < MAX_MODULE_PARAMETERS:
        prefix, current, depth = stack.pop()
        try:
            attrs = object.__getattribute__(current, "__dict__")
        except AttributeError:
            continue
        if type(attrs) is not dict:
            continue
        params = attrs.get("_parameters")
        if type(params) is dict:
            for pname, param in list(params.items()):
                if type(pname) is str and _is_tensor(h, param):
                    found.append((prefix + pname, param))
        children = attrs.get("_modules")
        if type(children) is dict and depth < MAX_MODULE_DEPTH:
            for cname, child in reversed(list(children.items())):
                if type(cname) is str and issubclass(type(child), h.module_type):
                    stack.append((f"{prefix}{cname}.", child, depth + 1))
    return found[:MAX_MODULE_PARAMETERS]


def _scope(h: _TorchHandles, namespace: dict[str, Any]) -> list[tuple[str, Any]]:
    """``(name, tensor)`` for every tensor a global reaches, in the globals' order."""
    found: list[tuple[str, Any]] = []
    for name, value in list(namespace.items()):
        if type(name) is not str or name.startswith("__"):
            continue
        found.extend(_reached(h, name, value))
    return found


def _reached(h: _TorchHandles, name: str, value: Any) -> list[tuple[str, Any]]:
    if _is_tensor(h, value):
        return [(name, value)]
    if issubclass(type(value), h.module_type):
        return [(f"{name}.{path}", p) for path, p in _module_parameters(h, value)]
    if type(value) in (list, tuple):
        return [
            (f"{name}[{i}]", item)
            for i, item in enumerate(value[:MAX_CONTAINER_ITEMS])
            if _is_tensor(h, item)
        ]
    if type(value) is dict:
        return [
            (f"{name}[{key!r}]", item)
            for key, item in list(value.items())[:MAX_CONTAINER_ITEMS]
            if type(key) in (str, int) and _is_tensor(h, item)
        ]
    return []


def _marked(h: _TorchHandles, marker: Any) -> list[tuple[str, Any]] | None:
    """The tensors ``__graph__`` names, or None when it does not name any."""
    if marker is None:
        return None
    if _is_tensor(h, marker):
        return [(MARKER, marker)]
    if type(marker) in (list, tuple):
        items = list(marker[:MAX_CONTAINER_ITEMS])
        return [(f"{MARKER}[{i}]", t) for i, t in enumerate(items) if _is_tensor(h, t)]
    if type(marker) is dict:
        pairs = list(marker.items())[:MAX_CONTAINER_ITEMS]
        return [(k, t) for k, t in pairs if type(k) is str and _is_tensor(h, t)]
    return None


def extract_graph(
    namespace: dict[str, Any],
    source: str,
    *,
    backward_roots: Sequence[BackwardRoot] = (),
    max_nodes: int = MAX_GRAPH_NODES,
    max_edges: int = MAX_GRAPH_EDGES,
    budget_s: float = BUDGET_S,
) -> AutogradGraph:
    """Read the autograd graph the snippet left in ``namespace``.

    Args:
        namespace: the snippet's globals after its code ran.
        source: the snippet's code (read for ``.detach()`` and ``no_grad``; see
            :mod:`sandbox.graph_cuts`).
        backward_roots: the roots of the snippet's backward calls
            (:func:`stop_recording`), walked after the globals' tensors unless
            ``__graph__`` chooses; a root a global names is drawn once, by that name.
        max_nodes: stop walking at this many nodes (``truncated`` is then set).
        max_edges: stop adding edges at this many.
        budget_s: seconds the walk may take before it stops with what it has.

    Returns:
        The graph; partial (``truncated``, with a note) when a cap or the budget was hit.

    Raises:
        RuntimeError: :func:`prepare` was not called in this process.
    """
    h = _handles
    if h is None:
        raise RuntimeError("sandbox.graph_extract.prepare() was not called")
    b = _Builder(h, time.monotonic() + budget_s, max_nodes, max_edges)
    try:
        with h.disable_torch_function():
            _build(b, namespace, source, backward_roots)
    except OutOfTime:
        b.truncated = True
        b.notes.append(f"The walk stopped after {budget_s:g} s; the graph is partial.")
    if b.truncated and not b.notes:
        b.notes.append(
            f"Only the first {len(b.nodes)} nodes and {len(b.edges)} edges are drawn; "
            "the graph is larger."
        )
    return AutogradGraph(
        nodes=b.nodes,
        edges=b.edges,
        truncated=b.truncated,
        untracked=b.untracked[:MAX_GRAPH_UNTRACKED],
        notes=[n[:MAX_GRAPH_NOTE_CHARS] for n in b.notes[:4]],
    )


def _build(
    b: _Builder, namespace: dict[str, Any], source: str, backward_roots: Sequence[BackwardRoot]
) -> None:
    h = b.h
    in_scope = _scope(h, namespace)
    marker = namespace.get(MARKER)
    marked = _marked(h, marker)
    chosen = type(marker) is dict  # the snippet's own names come first; __graph__[0] last
    for name, tensor in (marked or []) if chosen else []:
        b.name(tensor, name)
    for name, tensor in in_scope:
        b.name(tensor, name)
    for name, tensor in [] if chosen else (marked or []):
        b.name(tensor, name)
    roots = marked if marked is not None else in_scope + _label_roots(b, backward_roots)
    if marked == []:
        b.notes.append("__graph__ names no tensor, so nothing is drawn.")

    hints = cut_hints(source)
    cut_sources: dict[int, CutHint] = {}
    queue: deque[Any] = deque()
    seen_roots: set[int] = set()
    for name, tensor in roots:
        b.tick()
        if id(tensor) in seen_roots:
            continue
        seen_roots.add(id(tensor))
        if b.tracked(tensor):
            node = b.tensor_node(tensor)
            fn = h.grad_fn.__get__(tensor)
            if node is not None and fn is not None:
                fn_id = b.fn_node(fn)
                if fn_id is not None:
                    b.edge(node, fn_id, "grad_fn")
                    queue.append(fn)
            continue
        reason, hint = _cut_of(b, namespace, name, tensor, hints)
        if reason is None:
            if len(b.untracked) < MAX_GRAPH_UNTRACKED:
                b.untracked.append(clean_label(name))
            continue
        b.cuts[id(tensor)] = reason
        if b.tensor_node(tensor) is not None and hint is not None:
            cut_sources[id(tensor)] = hint

    expanded: set[int] = set()
    while queue:
        b.tick()
        fn = queue.popleft()
        if id(fn) in expanded:
            continue
        expanded.add(id(fn))
        source_id = b.fn_nodes[id(fn)]
        for nxt in b.next_functions(fn):
            if nxt is None:
                continue
            new = id(nxt) not in b.fn_nodes
            target = b.fn_node(nxt)
            if target is None:
                break
            b.edge(source_id, target, "next")
            if not new:
                continue
            if type(nxt) is h.accumulate_grad:
                leaf = h.variable.__get__(nxt)
                if _is_tensor(h, leaf):
                    leaf_id = b.tensor_node(leaf)
                    if leaf_id is not None:
                        b.edge(target, leaf_id, "variable")
            else:
                queue.append(nxt)

    for key, hint in cut_sources.items():
        b.tick()
        _cut_edges(b, namespace, b.tensor_nodes[key], hint)


def _label_roots(b: _Builder, backward_roots: Sequence[BackwardRoot]) -> list[tuple[str, Any]]:
    """The tracked backward roots as ``(name, tensor)``, each unnamed one labelled."""
    h = b.h
    fresh: list[BackwardRoot] = []
    seen: set[int] = set()
    for root in list(backward_roots)[-MAX_BACKWARD_ROOTS:]:
        b.tick()
        if type(root) is not BackwardRoot:
            continue
        call: Any = root.call  # a snippet may reach the recording and store anything
        tensor = root.tensor
        if type(call) is not str or call not in ROOT_LABELS or not _is_tensor(h, tensor):
            continue
        if id(tensor) in seen or h.is_functorch_wrapped(tensor):
            continue  # a torch.func transform's own tensor, not the snippet's graph
        seen.add(id(tensor))
        if b.tracked(tensor):
            fresh.append(root)
    unnamed = [root for root in fresh if id(root.tensor) not in b.names]
    totals = {call: sum(r.call == call for r in unnamed) for call in ROOT_LABELS}
    counts = dict.fromkeys(ROOT_LABELS, 0)
    for root in unnamed:
        counts[root.call] += 1
        number = f" #{counts[root.call]}" if totals[root.call] > 1 else ""
        b.root_labels[id(root.tensor)] = ROOT_LABELS[root.call] + number
        b.keep[id(root.tensor)] = root.tensor
    return [(ROOT_LABELS[root.call], root.tensor) for root in fresh]


def _cut_of(
    b: _Builder,
    namespace: dict[str, Any],
    name: str,
    tensor: Any,
    hints: dict[str, CutHint],
) -> tuple[CutReason | None, CutHint | None]:
    """Why ``tensor`` (no history) counts as cut, and the assignment that cut it."""
    hint = hints.get(name)
    tracked_source = hint is not None and any(
        _tracked_value(b, namespace.get(source)) for source in hint.sources
    )
    if _inference(b, tensor):
        return ("inference_mode", hint) if tracked_source else (None, None)
    if hint is not None and tracked_source:
        return hint.reason, hint
    return None, None


def _inference(b: _Builder, tensor: Any) -> bool:
    return bool(b.h.is_inference(tensor))


def _tracked_value(b: _Builder, value: Any) -> bool:
    h = b.h
    if _is_tensor(h, value):
        return b.tracked(value)
    if issubclass(type(value), h.module_type):
        return any(b.tracked(p) for _, p in _module_parameters(h, value))
    return False


def _cut_edges(b: _Builder, namespace: dict[str, Any], cut_id: int, hint: CutHint) -> None:
    h = b.h
    for source in hint.sources:
        value = namespace.get(source)
        if _is_tensor(h, value):
            targets = [value] if b.tracked(value) else []
        elif issubclass(type(value), h.module_type):
            params = [p for _, p in _module_parameters(h, value) if b.tracked(p)]
            targets = params[:MAX_CUT_SOURCE_PARAMETERS]
        else:
            continue
        for tensor in targets:
            target = b.tensor_node(tensor)
            if target is not None and target != cut_id:
                b.edge(cut_id, target, "cut")


# --------------------------------------------------------------------------- in the job


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise OutOfTime


def send_graph(namespace: dict[str, Any], source: str, fd: int = GRAPH_FD) -> None:
    """Extract the graph and write it as JSON on ``fd``, then close ``fd``; never raises.

    Called by the job's runner after the snippet's code (and before its threads are
    joined). It first ends :func:`start_recording` and walks from the roots it noted too.
    A failure of any kind gives a graph with a note saying the graph could not be read; the
    snippet's own output and exit status are never touched.

    Args:
        namespace: the snippet's globals.
        source: the snippet's code.
        fd: the graph pipe's write end.
    """
    graph: AutogradGraph
    previous: Any = None
    table = builtins.__dict__
    theirs = dict(table)
    if _builtins:
        table.update(_builtins)
    roots: list[BackwardRoot] = []
    try:  # noqa: SIM105 - written out like run_code's guard around start_recording
        roots = stop_recording()
    except BaseException:  # noqa: S110 - a broken recording costs only the roots
        pass
    try:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, HARD_STOP_S)
        try:
            graph = extract_graph(namespace, source, backward_roots=roots)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException as exc:
        word = "took too long" if isinstance(exc, OutOfTime) else f"failed ({type(exc).__name__})"
        graph = AutogradGraph(notes=[clean_label(f"Reading the graph {word}.", 200)])
    finally:
        with contextlib.suppress(BaseException):
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
    try:
        data = graph.model_dump_json().encode()
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:  # noqa: S110 - the pipe is gone: the worker reports no graph
        pass
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
        table.clear()  # no builtin may be looked up until the next line has run
        table.update(theirs)
