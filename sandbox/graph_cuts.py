"""Where a snippet cuts the graph, read from its source: ``.detach()`` and ``no_grad`` blocks.

A tensor made by ``(x * 5).detach()`` or under ``torch.no_grad()`` carries nothing at run
time that says where it came from: it is a leaf with ``grad_fn=None``, like a tensor made
with ``torch.ones``. Its history is in the code, so the extractor (sandbox/graph_extract.py)
asks this module, per global name, how the snippet last assigned it, and then checks the
claim against the tensor itself (only a tensor without ``grad_fn`` and without
``requires_grad`` is drawn as cut).

What is read (module-level statements, also inside ``if``/``for``/``while``/``try``/``with``
bodies; never inside ``def``, ``class``, lambdas or comprehensions):

* ``name = <expr>`` (also annotated, and ``a, b = e1, e2`` element-wise) where ``<expr>``
  contains ``.detach()``, ``.detach_()``, ``.data``, ``.numpy()``, ``.item()``,
  ``.tolist()`` or ``torch.detach(...)``: reason ``detached``;
* an assignment inside ``with torch.no_grad():`` or ``with torch.set_grad_enabled(False):``
  (``torch.enable_grad()`` inside one turns it back on): reason ``no_grad``; inside
  ``torch.inference_mode()``: ``inference_mode``.

The sources are the names the right-hand side reads (``x`` in ``(x * 5).detach()``), minus
the assigned name itself. The last assignment to a name in source order wins, which is the
one that ran last unless loops or branches reorder them.

Imports no torch: it runs in the job, but is plain ``ast`` and tested without torch.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Literal

Reason = Literal["detached", "no_grad", "inference_mode"]

DETACHING_ATTRIBUTES = frozenset({"detach", "detach_", "data", "numpy", "item", "tolist"})
"""Attribute names whose use leaves the autograd graph (``.data`` as an attribute, the others
called as methods; ``torch.detach(t)`` counts as well)."""

GRAD_OFF = frozenset({"no_grad"})
"""Context managers (by their last dotted name) that switch recording off."""

INFERENCE = frozenset({"inference_mode"})
"""Context managers that make inference tensors."""


@dataclass(frozen=True, slots=True)
class CutHint:
    """How the snippet last assigned a global name, when that assignment cut the graph.

    Attributes:
        name: the global name assigned.
        reason: how the graph was cut.
        sources: names read on the right-hand side, in order, without ``name`` itself.
        line: the 1-based line of the assignment.
    """

    name: str
    reason: Reason
    sources: tuple[str, ...]
    line: int


def cut_hints(source: str) -> dict[str, CutHint]:
    """The cutting assignments of each global name, as far as the source shows them.

    Args:
        source: the snippet's code.

    Returns:
        name -> its last assignment when that assignment cut the graph; a name whose last
        assignment did not cut is absent. Empty when the code does not parse.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    hints: dict[str, CutHint] = {}
    _walk(tree.body, None, hints)
    return hints


def _walk(body: list[ast.stmt], mode: Reason | None, hints: dict[str, CutHint]) -> None:
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                _assign(target, stmt.value, mode, stmt.lineno, hints)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            _assign(stmt.target, stmt.value, mode, stmt.lineno, hints)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            inner = mode
            for item in stmt.items:
                inner = _context_mode(item.context_expr, inner)
                if item.optional_vars is not None:
                    _forget(item.optional_vars, hints)
            _walk(stmt.body, inner, hints)
        elif isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While):
            if isinstance(stmt, ast.For | ast.AsyncFor):
                _forget(stmt.target, hints)
            _walk(stmt.body, mode, hints)
            _walk(stmt.orelse, mode, hints)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            _walk(stmt.body, mode, hints)
            for handler in stmt.handlers:
                if handler.name:
                    hints.pop(handler.name, None)
                _walk(handler.body, mode, hints)
            _walk(stmt.orelse, mode, hints)
            _walk(stmt.finalbody, mode, hints)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            hints.pop(stmt.name, None)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                hints.pop((alias.asname or alias.name).split(".")[0], None)


def _context_mode(expr: ast.expr, outer: Reason | None) -> Reason | None:
    """The recording mode inside ``with expr:`` given the mode outside it."""
    if not isinstance(expr, ast.Call):
        return outer
    name = _last_name(expr.func)
    if name in GRAD_OFF:
        return outer if outer == "inference_mode" else "no_grad"
    if name in INFERENCE:
        off = not expr.args or _is_constant(expr.args[0], True)
        return "inference_mode" if off else outer
    if name == "set_grad_enabled" and expr.args:
        if _is_constant(expr.args[0], False):
            return outer if outer == "inference_mode" else "no_grad"
        if _is_constant(expr.args[0], True):
            return None if outer == "no_grad" else outer
    if name == "enable_grad":
        return None if outer == "no_grad" else outer
    return outer


def _is_constant(expr: ast.expr, value: bool) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is value


def _last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return None


def _assign(
    target: ast.expr,
    value: ast.expr,
    mode: Reason | None,
    line: int,
    hints: dict[str, CutHint],
) -> None:
    if (
        isinstance(target, ast.Tuple | ast.List)
        and isinstance(value, ast.Tuple | ast.List)
        and len(target.elts) == len(value.elts)
        and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
    ):
        for sub_target, sub_value in zip(target.elts, value.elts, strict=True):
            _assign(sub_target, sub_value, mode, line, hints)
        return
    names = _target_names(target)
    reason: Reason | None = "detached" if _detaches(value) else mode
    for name in names:
        if reason is None:
            hints.pop(name, None)
            continue
        sources = tuple(n for n in _read_names(value) if n != name)
        hints[name] = CutHint(name=name, reason=reason, sources=sources, line=line)


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _target_names(elt)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _forget(target: ast.expr, hints: dict[str, CutHint]) -> None:
    for name in _target_names(target):
        hints.pop(name, None)


def _detaches(expr: ast.expr) -> bool:
    for node in _own_scope(expr):
        if isinstance(node, ast.Attribute) and node.attr in DETACHING_ATTRIBUTES:
            if node.attr == "data":
                return True
            # the method is called: t.detach(), not a reference such as f = t.detach
            if any(isinstance(p, ast.Call) and p.func is node for p in _own_scope(expr)):
                return True
    return False


def _read_names(expr: ast.expr) -> list[str]:
    seen: list[str] = []
    for node in _own_scope(expr):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
            seen.append(node.id)
    return seen


def _own_scope(expr: ast.expr) -> list[ast.AST]:
    """Every node of ``expr`` in source order, not descending into lambdas or comprehensions
    (their names are their own)."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp):
            continue
        if isinstance(node, ast.GeneratorExp):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return found
