"""The sandbox wire protocol: what the bot sends, what the worker answers.

Both sides import this module; it never imports torch. A run is one HTTP exchange::

    POST /run   {"code": "import torch\\nprint(torch.ones(2))", "limits": {"wall_s": 2}}
    200         {"stdout": "tensor([1., 1.])\\n", "stderr": "", "exit_code": 0, "signal": null,
                 "timed_out": false, "memory_exceeded": false, "cpu_exceeded": false,
                 "output_truncated": false, "duration_ms": 12.5, "status": "exit 0", ...}

Errors are an :class:`ErrorBody` with a machine ``error`` code and a human ``message``
(413 too large, 422 invalid, 403 refused, 503 busy with a ``Retry-After`` header).

A graph is drawn by the worker's service process, never by the bot::

    POST /graph.png   GraphPictureRequest {"graph": {...}, "title": "TF5"}
    200               image/png bytes

With ``"graph": true`` the result also carries the autograd graph the snippet left in its
global scope, as an :class:`AutogradGraph` (or ``graph_error`` saying why there is none)::

    POST /run   {"code": "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2",
                 "graph": true}
    200         {..., "graph": {"nodes": [
                    {"id": 0, "kind": "tensor", "label": "y", "tensor": {"names": ["y"],
                     "shape": [2], "dtype": "float32", "requires_grad": true, "is_leaf": false,
                     "grad_set": false, "retains_grad": false, "cut": null}},
                    {"id": 1, "kind": "backward", "label": "MulBackward0", "tensor": null},
                    {"id": 2, "kind": "backward", "label": "AccumulateGrad", "tensor": null},
                    {"id": 3, "kind": "tensor", "label": "x", "tensor": {"names": ["x"], ...}}],
                  "edges": [{"source": 0, "target": 1, "kind": "grad_fn"},
                            {"source": 1, "target": 2, "kind": "next"},
                            {"source": 2, "target": 3, "kind": "variable"}],
                  "truncated": false, "untracked": [], "notes": []},
                 "graph_error": null}

The graph is built inside the job, so a hostile snippet can forge it: :class:`AutogradGraph`
caps every size and refuses control characters, and renderers treat its text as untrusted.

:func:`describe_outcome` is the one place that turns an outcome into words; every front end
(Discord, ``tutor play``, ``tutor content verify``) shows :attr:`RunResult.status` as is.
"""

from __future__ import annotations

import hashlib
import signal as _signal
import unicodedata
from typing import Annotated, Final, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

MAX_CODE_BYTES = 64 * 1024
"""A snippet longer than 64 KiB (UTF-8) is refused. Curated snippets are under 1 KiB."""

DEFAULT_WALL_S = 5.0
"""Wall-clock limit per job in seconds (snekbox uses 6 s; our warm jobs take milliseconds)."""

DEFAULT_CPU_S = 5.0
"""CPU-time limit per process of a job in seconds (RLIMIT_CPU)."""

DEFAULT_MEMORY_MIB = 512
"""Memory limit per job in MiB (cgroup, swap included). torch's own pages are shared with
the warm parent and not counted; only what the job allocates is."""

DEFAULT_PIDS = 32
"""Processes plus threads a job may have at once (cgroup pids.max; snekbox uses 15)."""

DEFAULT_OUTPUT_BYTES = 64 * 1024
"""Bytes kept per stream (stdout, stderr); a job that prints more is stopped (snekbox caps
output at 1 MB; a Discord message shows at most 2,000 characters)."""

Backend = Literal["namespaces", "container", "none"]
"""How jobs are isolated.

``namespaces``: per-job net/pid/mount/ipc/uts namespaces, cgroup memory and pids, uid drop.
``container``: the container is the outer wall; per job only rlimits, a private directory,
a process group and a uid-less cleanup (learner code accepted, with the caveats in
sandbox/README.md). ``none``: no isolation; only curated snippets run.
"""


class Limits(BaseModel):
    """Per-job limits. Every field has a unit; a request may only lower the server's values.

    Attributes:
        wall_s: wall-clock seconds from the code's start to its end.
        cpu_s: CPU seconds per process (RLIMIT_CPU).
        memory_mib: MiB of memory and swap for the whole job (cgroup).
        pids: processes and threads alive at once for the whole job (cgroup pids.max).
        output_bytes: bytes kept per stream before the job is stopped.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    wall_s: float = Field(DEFAULT_WALL_S, gt=0, le=600)
    cpu_s: float = Field(DEFAULT_CPU_S, gt=0, le=600)
    memory_mib: int = Field(DEFAULT_MEMORY_MIB, ge=16, le=64 * 1024)
    pids: int = Field(DEFAULT_PIDS, ge=1, le=4096)
    output_bytes: int = Field(DEFAULT_OUTPUT_BYTES, ge=1, le=16 * 1024 * 1024)

    def capped_by(self, ceiling: Limits) -> Limits:
        """These limits, each lowered to at most ``ceiling``'s (a caller never raises one)."""
        return Limits(
            wall_s=min(self.wall_s, ceiling.wall_s),
            cpu_s=min(self.cpu_s, ceiling.cpu_s),
            memory_mib=min(self.memory_mib, ceiling.memory_mib),
            pids=min(self.pids, ceiling.pids),
            output_bytes=min(self.output_bytes, ceiling.output_bytes),
        )


class LimitOverrides(BaseModel):
    """Limits a caller asks to lower; an omitted field keeps the server's value.

    Values above the server's are not an error: they are capped (see
    :meth:`Limits.capped_by`), so a client written for a larger server still works.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    wall_s: float | None = Field(None, gt=0, le=600)
    cpu_s: float | None = Field(None, gt=0, le=600)
    memory_mib: int | None = Field(None, ge=16, le=64 * 1024)
    pids: int | None = Field(None, ge=1, le=4096)
    output_bytes: int | None = Field(None, ge=1, le=16 * 1024 * 1024)

    def apply(self, server: Limits) -> Limits:
        """The effective limits: the server's, lowered where this asks for less."""
        asked = server.model_copy(update=self.model_dump(exclude_none=True))
        return Limits.model_validate(asked.model_dump()).capped_by(server)


def code_sha256(code: str) -> str:
    """Hex SHA-256 of the snippet's UTF-8 bytes: the identity of a snippet (cache, curated)."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


class RunRequest(BaseModel):
    """One snippet to run.

    Attributes:
        code: Python source, at most :data:`MAX_CODE_BYTES` bytes of UTF-8.
        limits: limits to lower for this run (never raised above the server's).
        use_cache: a curated snippet may be answered from the result cache; set False to
            force a real run (``tutor content verify`` does).
        graph: also return the autograd graph the snippet leaves in its global scope
            (:attr:`RunResult.graph`); see sandbox/README.md, "Graph pictures".
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    limits: LimitOverrides = Field(default_factory=LimitOverrides)
    use_cache: bool = True
    graph: bool = False

    @field_validator("code")
    @classmethod
    def _code_size(cls, value: str) -> str:
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > MAX_CODE_BYTES:
            raise ValueError(f"code is {size:,} bytes; the limit is {MAX_CODE_BYTES:,} bytes")
        return value


def first_error(exc: ValidationError) -> str:
    """``field: message`` for the first problem of a validation error, for people."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "body"
    return f"{where}: {first['msg'].removeprefix('Value error, ')}"


# --------------------------------------------------------------------------- autograd graph

MAX_GRAPH_NODES = 150
"""Nodes an :class:`AutogradGraph` may hold. The extractor stops walking at this many (and
sets ``truncated``); a picture with more boxes is unreadable at Discord's preview size."""

MAX_GRAPH_EDGES = 300
"""Edges an :class:`AutogradGraph` may hold (twice the nodes: most backward nodes have one
or two inputs)."""

MAX_GRAPH_LABEL_CHARS = 48
"""Characters of one label or name (a variable name, ``enc.weight``, ``MulBackward0``)."""

MAX_GRAPH_NAMES = 4
"""Names kept per tensor (``x``, ``orig``, ...); more names of one tensor are dropped."""

MAX_GRAPH_DIMS = 16
"""Dimensions of a shape that are kept (torch allows 64; snippets use a handful)."""

MAX_GRAPH_UNTRACKED = 12
"""Names of tensors in scope without autograd history that are listed (not drawn)."""

MAX_GRAPH_NOTES = 4
"""Notes per graph (why it is partial, what could not be read)."""

MAX_GRAPH_NOTE_CHARS = 200
"""Characters per note."""

MAX_GRAPH_BYTES = 128 * 1024
"""Bytes of graph JSON the worker reads from a job; more is refused (a graph at every cap
above takes well under this)."""

BIDI_CONTROLS: Final = frozenset(
    [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
"""The Unicode bidirectional formatting characters (UAX #9, *Explicit Directional
Embeddings/Overrides/Isolates* and the implicit marks; the set CVE-2021-42574,
"Trojan Source", lists): ALM U+061C, LRM/RLM U+200E-U+200F, LRE/RLE/PDF/LRO/RLO
U+202A-U+202E, LRI/RLI/FSI/PDI U+2066-U+2069. Shown raw, they reorder what a learner
sees (``U+202E`` makes ``tensor([1.])`` read backwards)."""


def _printable(value: str) -> str:
    """Refuse control and bidirectional-override characters (they would garble a picture).

    Every :data:`BIDI_CONTROLS` character is a format character (category ``Cf``), so the
    category test refuses them with the rest."""
    for char in value:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            raise ValueError(f"contains the control character U+{ord(char):04X}")
    return value


GraphLabel = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_GRAPH_LABEL_CHARS),
    AfterValidator(_printable),
]
"""One line of text on a graph picture: 1-48 printable characters, from an untrusted job."""

GraphNote = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_GRAPH_NOTE_CHARS),
    AfterValidator(_printable),
]
"""A sentence about the graph (at most 200 printable characters), from an untrusted job."""

CutReason = Literal["detached", "no_grad", "inference_mode"]
"""Why a tensor computed from tracked tensors has no autograd history.

``detached``: ``.detach()``, ``.data``, ``.numpy()``, ``.item()`` or ``.tolist()`` on the
right-hand side of its assignment; ``no_grad``: assigned inside ``with torch.no_grad()`` or
``torch.set_grad_enabled(False)``; ``inference_mode``: an inference tensor.
"""

EdgeKind = Literal["next", "grad_fn", "variable", "cut"]
"""What an edge means.

``next``: backward node -> one of its ``next_functions`` (the way ``backward()`` goes);
``grad_fn``: tensor -> the backward node that made it (its ``grad_fn``);
``variable``: ``AccumulateGrad`` -> the leaf tensor whose ``.grad`` it adds into;
``cut``: tensor without history -> a tracked tensor it was computed from (no gradient flows).
"""

_EDGE_ENDS: dict[str, tuple[str, str]] = {
    "next": ("backward", "backward"),
    "grad_fn": ("tensor", "backward"),
    "variable": ("backward", "tensor"),
    "cut": ("tensor", "tensor"),
}


class TensorFacts(BaseModel):
    """What the graph says about one tensor.

    Attributes:
        names: the global names (or ``module.param`` paths, ``items[0]``) bound to it, at
            most :data:`MAX_GRAPH_NAMES`; empty for a leaf no name reaches any more (the old
            ``x`` after ``x = x + 1``) and for the unnamed root of a ``backward()`` call.
        shape: its sizes, e.g. ``[2, 3]`` (``[]`` for a 0-d tensor), at most 16 dims.
        dtype: ``float32``, ``float64``, ``int64``, ...
        requires_grad: ``tensor.requires_grad``.
        is_leaf: ``tensor.is_leaf``.
        grad_set: a leaf (or ``retain_grad()`` tensor) whose ``.grad`` is not None.
        retains_grad: ``retain_grad()`` was called on this non-leaf.
        cut: why it has no history although it came from tracked tensors, else None.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    names: list[GraphLabel] = Field(default_factory=list, max_length=MAX_GRAPH_NAMES)
    shape: list[Annotated[int, Field(ge=0, lt=2**63)]] = Field(max_length=MAX_GRAPH_DIMS)
    dtype: str = Field(pattern=r"^[a-z][a-z0-9_]{0,23}$")
    requires_grad: bool
    is_leaf: bool
    grad_set: bool = False
    retains_grad: bool = False
    cut: CutReason | None = None


class GraphNode(BaseModel):
    """A box in the graph: a tensor, or a backward node (``MulBackward0``, ``AccumulateGrad``).

    Attributes:
        id: unique within the graph, ``0 <= id < MAX_GRAPH_NODES``.
        kind: ``tensor`` or ``backward``.
        label: the text on the box: the tensor's first name (``"root of backward()"``,
            ``"root of autograd.grad()"``, numbered ``#1``... when several, for the unnamed
            root of such a call; ``"(no name)"`` for another unnamed tensor), or the backward
            node's class name.
        tensor: the tensor's facts; set exactly when ``kind`` is ``tensor``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int = Field(ge=0, lt=MAX_GRAPH_NODES)
    kind: Literal["tensor", "backward"]
    label: GraphLabel
    tensor: TensorFacts | None = None

    @model_validator(mode="after")
    def _facts_match_kind(self) -> Self:
        if (self.kind == "tensor") != (self.tensor is not None):
            raise ValueError("a tensor node needs tensor facts and a backward node has none")
        return self


class GraphEdge(BaseModel):
    """An arrow between two nodes (see :data:`EdgeKind`); parallel edges are allowed
    (``x * x`` gives ``MulBackward0`` two edges to the same ``AccumulateGrad``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: int = Field(ge=0, lt=MAX_GRAPH_NODES)
    target: int = Field(ge=0, lt=MAX_GRAPH_NODES)
    kind: EdgeKind


class AutogradGraph(BaseModel):
    """The autograd graph a snippet left behind, as the job saw it after its code ran.

    Built inside the job (sandbox/graph_extract.py) from the tensors in the snippet's global
    scope, or only those it names in ``__graph__``; validated here on the worker side because
    a hostile job can write anything: every list and string is capped, node ids are unique,
    every edge joins existing nodes of the right kinds, and the graph has no cycle.

    Attributes:
        nodes: at most :data:`MAX_GRAPH_NODES` boxes.
        edges: at most :data:`MAX_GRAPH_EDGES` arrows.
        truncated: the walk stopped at a cap; more of the graph exists than is drawn.
        untracked: names of tensors in scope that have no autograd history and were not
            found to be cut from one (listed, not drawn).
        notes: sentences for the reader (e.g. why the graph is partial).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    nodes: list[GraphNode] = Field(default_factory=list, max_length=MAX_GRAPH_NODES)
    edges: list[GraphEdge] = Field(default_factory=list, max_length=MAX_GRAPH_EDGES)
    truncated: bool = False
    untracked: list[GraphLabel] = Field(default_factory=list, max_length=MAX_GRAPH_UNTRACKED)
    notes: list[GraphNote] = Field(default_factory=list, max_length=MAX_GRAPH_NOTES)

    @model_validator(mode="after")
    def _well_formed(self) -> Self:
        kinds: dict[int, str] = {}
        for index, node in enumerate(self.nodes):
            if node.id in kinds:
                raise ValueError(f"nodes.{index}: the id {node.id} is used twice")
            kinds[node.id] = node.kind
        successors: dict[int, list[int]] = {node_id: [] for node_id in kinds}
        for index, edge in enumerate(self.edges):
            for end in (edge.source, edge.target):
                if end not in kinds:
                    raise ValueError(f"edges.{index}: no node has the id {end}")
            if edge.source == edge.target:
                raise ValueError(f"edges.{index}: an edge from a node to itself")
            want = _EDGE_ENDS[edge.kind]
            if (kinds[edge.source], kinds[edge.target]) != want:
                raise ValueError(f"edges.{index}: a {edge.kind} edge joins {want[0]} -> {want[1]}")
            successors[edge.source].append(edge.target)
        if _has_cycle(successors):
            raise ValueError("edges: the graph has a cycle (an autograd graph never does)")
        return self

    @property
    def empty(self) -> bool:
        """True when there is nothing to draw."""
        return not self.nodes


def _has_cycle(successors: dict[int, list[int]]) -> bool:
    """Iterative three-colour depth-first search (no recursion on untrusted input)."""
    state = dict.fromkeys(successors, 0)  # 0 unseen, 1 on the stack, 2 done
    for start in successors:
        if state[start]:
            continue
        stack = [(start, iter(successors[start]))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state[child] == 1:
                return True
            elif state[child] == 0:
                state[child] = 1
                stack.append((child, iter(successors[child])))
    return False


MAX_GRAPH_TITLE_CHARS = 60
"""Characters of a picture's title (an item id, "your snippet")."""

MAX_GRAPH_REQUEST_BYTES = MAX_GRAPH_BYTES + 4 * 1024
"""Bytes of a ``POST /graph.png`` body: a graph as large as the worker accepts from a job,
plus room for the title and the envelope. A larger body is answered 413."""

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
"""The first eight bytes of every PNG file (RFC 2083, section 3.1)."""


class GraphPictureRequest(BaseModel):
    """``POST /graph.png``: draw this graph.

    The graph is validated exactly as one read from a job (:class:`AutogradGraph`): a bot
    sends back what the worker gave it, but the service trusts no caller with the renderer.
    Example body::

        {"graph": {"nodes": [...], "edges": [...], "truncated": false, "untracked": [],
                   "notes": []},
         "title": "TF5"}

    Attributes:
        graph: the graph to draw.
        title: shown after "Autograd graph" at the top, e.g. an item id; at most
            :data:`MAX_GRAPH_TITLE_CHARS` printable characters.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    graph: AutogradGraph
    title: (
        Annotated[
            str,
            StringConstraints(min_length=1, max_length=MAX_GRAPH_TITLE_CHARS),
            AfterValidator(_printable),
        ]
        | None
    ) = None

    def digest(self) -> str:
        """Hex SHA-256 of this request's JSON: the identity of a picture (the same graph and
        title always draw the same PNG)."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()


class JobOutcome(BaseModel):
    """What the worker observed about one job, before it is put into words.

    Attributes:
        stdout: standard output, decoded as UTF-8 (invalid bytes replaced), at most
            ``limits.output_bytes`` bytes before decoding.
        stderr: standard error, likewise.
        exit_code: the exit status when the job exited; None when a signal ended it.
        signal: the number of the signal that ended it, or None.
        timed_out: the wall-clock limit was reached and the job was killed.
        memory_exceeded: the kernel killed a process of the job for memory (cgroup OOM).
        cpu_exceeded: a process used up its CPU-time limit.
        file_limit_mib: when a process wrote a file past the file-size limit
            (RLIMIT_FSIZE, the size of the job's tmpfs, ``TUTOR_SANDBOX_TMP_MIB``) and was
            stopped by SIGXFSZ: that limit in MiB, to quote it; None when not hit.
        pids_exceeded: the job tried to have more than ``limits.pids`` tasks at once.
        output_truncated: a stream went past ``limits.output_bytes``; the job was stopped.
        duration_ms: wall time from the code's start to the job's end, milliseconds.
        peak_memory_bytes: the job's peak memory (cgroup), or None where not measured.
        error: the worker could not run the job at all (set up failed); words for logs.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    memory_exceeded: bool = False
    cpu_exceeded: bool = False
    file_limit_mib: int | None = Field(None, ge=1)
    pids_exceeded: bool = False
    output_truncated: bool = False
    duration_ms: float = 0.0
    peak_memory_bytes: int | None = None
    error: str | None = None


class RunResult(JobOutcome):
    """The answer to a :class:`RunRequest`: the outcome, its words, and where it ran.

    Attributes:
        status: one human line, from :func:`describe_outcome` ("exit 0", "timed out after
            5 s", "ran out of memory (limit 512 MiB)", "killed by SIGSEGV", ...).
        ok: the snippet ran to its end by itself (no limit hit, no signal, no worker error);
            its exit code may still be non-zero.
        limits: the limits the job ran under.
        backend: how it was isolated (see :data:`Backend`).
        cached: answered from the curated-result cache, not run now.
        torch_version: the torch the worker has loaded, e.g. ``2.13.0``.
        graph: with ``RunRequest.graph``: the autograd graph left in the snippet's global
            scope (validated; its text is untrusted), or None when not asked or unreadable.
        graph_error: with ``RunRequest.graph`` and no ``graph``: why, in words ("the snippet
            ended before its graph was read", "the job's graph was refused: ...").
    """

    status: str
    ok: bool
    limits: Limits
    backend: Backend
    cached: bool = False
    torch_version: str
    graph: AutogradGraph | None = None
    graph_error: str | None = Field(None, max_length=500)

    @classmethod
    def from_outcome(
        cls,
        outcome: JobOutcome,
        limits: Limits,
        backend: Backend,
        torch_version: str,
        cached: bool = False,
        graph: AutogradGraph | None = None,
        graph_error: str | None = None,
    ) -> Self:
        """Wrap an outcome with its status line, provenance and (when asked) its graph."""
        return cls(
            **outcome.model_dump(),
            status=describe_outcome(outcome, limits),
            ok=outcome_ok(outcome),
            limits=limits,
            backend=backend,
            cached=cached,
            torch_version=torch_version,
            graph=graph,
            graph_error=graph_error,
        )

    @property
    def output(self) -> str:
        """stdout followed by stderr, as a terminal would show a short run."""
        return self.stdout + self.stderr

    @property
    def graph_read(self) -> bool:
        """The graph was asked for when this ran: ``graph`` or ``graph_error`` is set (a
        result stored before graphs existed has neither)."""
        return self.graph is not None or self.graph_error is not None

    def as_asked(self, *, graph: bool) -> Self:
        """This result as a request asked for it: without the graph fields unless ``graph``.

        One cached run of a curated snippet (always extracted with its graph) answers
        requests with and without ``graph``.
        """
        if graph:
            return self
        return self.model_copy(update={"graph": None, "graph_error": None})


def outcome_ok(outcome: JobOutcome) -> bool:
    """True when the job ended by itself: no limit hit (time, memory, CPU, output, process
    count, file size), no signal, no worker error. A fork bomb stopped at the process limit
    was reported ``"ok": true`` beside ``pids_exceeded`` (a new user, stop 14)."""
    return not (
        outcome.error
        or outcome.timed_out
        or outcome.memory_exceeded
        or outcome.cpu_exceeded
        or outcome.output_truncated
        or outcome.pids_exceeded
        or outcome.file_limit_mib is not None
        or outcome.signal is not None
    )


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _bytes(value: int) -> str:
    if value % (1024 * 1024) == 0:
        return f"{value // (1024 * 1024)} MiB"
    if value % 1024 == 0:
        return f"{value // 1024} KiB"
    return f"{value} bytes"


def signal_name(number: int) -> str:
    """``SIGSEGV`` for 11; ``signal 99`` for a number this platform does not name."""
    try:
        return _signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_outcome(outcome: JobOutcome, limits: Limits) -> str:
    """The one human status line for an outcome; the only place outcomes become words.

    The most telling cause wins: worker error, wall time, memory, CPU time, output cap,
    file size, signal, then the exit status. A process limit that was hit is appended as a note.

    Args:
        outcome: what the worker observed.
        limits: the limits the job ran under (quoted in the words).

    Returns:
        e.g. ``"timed out after 5 s"``, ``"ran out of memory (limit 512 MiB)"``,
        ``"stopped: wrote a file past the file-size limit (16 MiB)"``, ``"killed by
        SIGSEGV"``, ``"exit 1"``, ``"stopped: hit the limit of 32 processes (the snippet's
        own exit status was 0)"``. A process limit that was hit never reads
        as ``exit 0``: the run did not end as the snippet meant (``tutor sandbox run``
        exits 9), whatever status its main process returned.
    """
    if outcome.error:
        return f"could not run: {outcome.error}"
    if outcome.pids_exceeded and not (
        outcome.timed_out
        or outcome.memory_exceeded
        or outcome.cpu_exceeded
        or outcome.output_truncated
        or outcome.signal is not None
    ):
        return (
            f"stopped: hit the limit of {limits.pids} processes "
            f"(the snippet's own exit status was {outcome.exit_code})"
        )
    if outcome.timed_out:
        words = f"timed out after {_seconds(limits.wall_s)}"
    elif outcome.memory_exceeded:
        words = f"ran out of memory (limit {limits.memory_mib} MiB)"
    elif outcome.cpu_exceeded:
        words = f"used up its CPU time (limit {_seconds(limits.cpu_s)})"
    elif outcome.output_truncated:
        words = f"stopped: printed more than {_bytes(limits.output_bytes)}"
    elif outcome.file_limit_mib is not None:
        words = f"stopped: wrote a file past the file-size limit ({outcome.file_limit_mib} MiB)"
    elif outcome.signal is not None:
        words = f"killed by {signal_name(outcome.signal)}"
    else:
        words = f"exit {outcome.exit_code}"
    if outcome.pids_exceeded:
        words += f" (it also hit the limit of {limits.pids} processes)"
    return words


INVISIBLE_FORMATS: Final = frozenset([0x200B, 0x2060, 0xFEFF])
"""Zero-width characters that show nothing and join nothing: ZERO WIDTH SPACE U+200B, WORD
JOINER U+2060, ZERO WIDTH NO-BREAK SPACE U+FEFF. Shown raw, they hide in output (a learner
copying ``tensor([1.])`` gets a different string); ZWJ/ZWNJ (U+200C-U+200D) are left alone:
emoji and several scripts need them (fresh16)."""


_CONTROL_PICTURES: Final = {
    **{code: chr(0x2400 + code) for code in range(0x20) if chr(code) not in "\t\n"},
    0x7F: "\u2421",
    **{code: f"\\x{code:02x}" for code in range(0x80, 0xA0)},
    **{code: f"\u27e8U+{code:04X}\u27e9" for code in BIDI_CONTROLS | INVISIBLE_FORMATS},
}
"""Each control character but tab and newline, by code point, and what shows it: C0 and
DEL as their Unicode Control Pictures (U+2400 block: ESC is ``␛``, CR ``␍``), C1 as a
``\\x9b``-style escape (no picture exists), a bidirectional control or an invisible format
character (:data:`INVISIBLE_FORMATS`) as ``⟨U+202E⟩``."""


def visible_controls(text: str) -> str:
    """``text`` with every control character but newline and tab made visible and inert.

    A snippet's output is untrusted: a raw ``\\x1b[2J`` would clear the learner's terminal
    and ``\\r`` would overwrite a line; a bidirectional override (U+202E) would make the
    shown output lie about what was printed ("Trojan Source"). Human renderers (``tutor
    sandbox run``, ``tutor play``, Discord code blocks and the attached full output) show
    output through this; JSON keeps it raw (it is data).

    Args:
        text: any text, e.g. :attr:`RunResult.stdout`.

    Returns:
        The same text, one visible character (or ``\\xNN``, or ``⟨U+202E⟩`` for a
        bidirectional control, :data:`BIDI_CONTROLS`) per control character:
        ``"\\x1b[31mred"`` becomes ``"␛[31mred"``.
    """
    return text.translate(_CONTROL_PICTURES)


class ErrorBody(BaseModel):
    """An error answer from the service (and ``tutor sandbox run --json`` on refusal).

    Attributes:
        error: a stable code: ``too_large``, ``invalid``, ``refused``, ``busy``,
            ``unavailable``; for ``POST /graph.png`` also ``unsupported`` (the worker has no
            renderer: matplotlib and networkx are not installed) and ``failed`` (the renderer
            raised on a valid graph: a bug, logged by the service).
        message: one sentence for a person, naming what was wrong.
        retry_after_s: for ``busy``: seconds to wait before retrying.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    error: Literal[
        "too_large", "invalid", "refused", "busy", "unavailable", "unsupported", "failed"
    ]
    message: str
    retry_after_s: float | None = None


class FileRefused(ErrorBody):
    """``tutor sandbox run FILE --json``'s answer when it refuses the file before or instead
    of running it (cannot be read, not UTF-8, too large, no isolation for learner code):
    an :class:`ErrorBody` that names the file, in ``message`` too (fresh22 #10: a missing
    file was ``cannot read: No such file or directory``, naming nothing). The service's
    HTTP errors stay plain :class:`ErrorBody` objects (no path).

    Attributes:
        path: the file as given on the command line.
    """

    path: str


class Health(BaseModel):
    """``GET /health``: is the worker up, how does it isolate, and how loaded is it.

    Attributes:
        ready: the warm worker is up and accepts jobs.
        backend: how jobs are isolated.
        learner_code: whether code other than curated snippets is accepted.
        isolated: what each job is isolated by, in words.
        not_isolated: what is knowingly not isolated under this backend, in words.
        reason: why the backend was chosen (e.g. why isolation is unavailable).
        torch_version: the torch the worker has loaded.
        running: jobs running now.
        queued: jobs waiting for a slot.
        concurrency: jobs that may run at once.
        queue_limit: jobs that may wait; beyond that the service answers busy.
        curated_snippets: curated snippets known (hashes loaded from content/; 0 until
            they are loaded, which the worker does while its zygote starts).
        cached_results: results in the curated-result cache.
        limits: the server's default (and maximum) limits.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    ready: bool
    backend: Backend
    learner_code: bool
    isolated: list[str]
    not_isolated: list[str]
    reason: str
    torch_version: str
    running: int
    queued: int
    concurrency: int
    queue_limit: int
    curated_snippets: int
    cached_results: int
    limits: Limits
