"""Loading question packs from YAML with errors that name file, line, item id and field.

YAML's implicit typing turns ``no``, ``on``, ``off`` into booleans and ``1e3`` into a number
(the "Norway problem"). We never let that happen to text: the file is *composed* into
nodes and every scalar becomes a string (or ``None`` for an unquoted ``null``/``~``/empty).
pydantic then converts the few fields that really are numbers or booleans, and rejects
anything that does not fit, so a text field always holds exactly what the author typed.

Composing is bounded: an alias to a node it sits inside (``a: &a [*a]``), nesting deeper
than :data:`MAX_YAML_DEPTH` levels, and a document whose aliases expand to more than
:data:`MAX_YAML_NODES` nodes (the "billion laughs") are refused as ``file:line:col`` errors
instead of a ``RecursionError`` or an exhausted memory.

Two composers give the same nodes (:func:`_compose`). libyaml's, in C, composes the 1.9 MB
bank about ten times faster than PyYAML's pure-Python one, and the limits are then checked
by an iterative walk over the node graph (:func:`_over_limits`). The pure one
(:class:`_BoundedLoader`) refuses while composing; it is used when libyaml is missing (or
has no nesting limit of its own), and it words every error: whenever the C path finds
invalid YAML or a passed limit, the text is composed again by the pure one, so a message
and its ``file:line:col`` are the same whichever composer read the file first.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
import typing
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from bot.content.models import Item, Kind, Pack
from bot.files import not_utf8_byte

MAX_PACK_BYTES = 2 * 1024 * 1024
"""A pack file larger than 2 MiB is refused before parsing (a bank is ~100 KiB)."""

MAX_YAML_DEPTH = 40
"""Collections nested deeper than 40 levels are refused (a pack needs 10; Python's default
recursion limit of 1,000 frames would end near 300 levels of the composer's recursion)."""

MAX_YAML_NODES = 250_000
"""A document that expands to more than 250,000 nodes, counting each use of an alias as a
copy of its anchored node, is refused: the largest shipped pack has about 12,000, and alias
bombs ("billion laughs", 10 aliases of 10 aliases...) grow exponentially."""

_NULLS = {"", "~", "null", "Null", "NULL"}

Loc = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class ContentError:
    """One problem in a content file.

    Attributes:
        file: the file as given (relative paths stay relative).
        line: 1-based line, or None when unknown.
        column: 1-based column, or None.
        where: ``ITEMID.field.path`` (or ``items[3].field`` before an id is known).
        message: what is wrong, in words.
    """

    file: str
    line: int | None
    column: int | None
    where: str
    message: str

    def __str__(self) -> str:
        pos = self.file
        if self.line is not None:
            pos += f":{self.line}"
            if self.column is not None:
                pos += f":{self.column}"
        return f"{pos}: {self.where}: {self.message}" if self.where else f"{pos}: {self.message}"


class ContentErrors(Exception):
    """Raised when one or more content files are invalid; ``errors`` lists every problem."""

    def __init__(self, errors: Sequence[ContentError]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(str(e) for e in self.errors))


def _fail(
    file: str, message: str, line: int | None = None, column: int | None = None
) -> ContentErrors:
    """A ContentErrors holding one file-level problem."""
    return ContentErrors([ContentError(file, line, column, "", message)])


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader whose composer refuses what would blow up when expanded.

    PyYAML composes an alias as the very node its anchor names, so a recursive alias gives
    a cyclic node graph and repeated aliases a graph exponentially larger once expanded;
    both break any walk over the nodes. Each refusal is a
    :class:`yaml.composer.ComposerError` marked where the problem starts.

    Args:
        stream: the YAML text.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._open_anchors: set[str] = set()
        self._expanded: dict[int, int] = {}  # id(node) -> its node count once expanded

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Compose one node (PyYAML's hook), enforcing the three limits."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            if event.anchor in self._open_anchors:
                raise _refusal(
                    f"recursive alias *{event.anchor}: it refers to a node it is inside",
                    event.start_mark,
                )
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_YAML_DEPTH:
            raise _refusal(f"nested deeper than {MAX_YAML_DEPTH} levels", event.start_mark)
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._open_anchors.add(anchor)
        try:
            node: yaml.Node | None = super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open_anchors.discard(anchor)
        if node is None:  # pragma: no cover - PyYAML always returns a node here
            return None
        size = 1 + sum(self._expanded.get(id(child), 1) for child in _children(node))
        if size > MAX_YAML_NODES:
            raise _refusal(
                f"expands to more than {MAX_YAML_NODES:,} nodes "
                "(each use of an alias counts as a copy of its anchored node)",
                node.start_mark,
            )
        self._expanded[id(node)] = size
        return node


def _refusal(problem: str, mark: Any) -> yaml.composer.ComposerError:
    """A composer error marked at ``mark`` (a ``yaml.Mark``), as PyYAML raises its own."""
    return yaml.composer.ComposerError(None, None, problem, mark)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _compose_pure(text: str) -> yaml.Node | None:
    """Compose one YAML document with :class:`_BoundedLoader` (pure Python, bounded).

    Raises:
        yaml.YAMLError: invalid YAML, or a limit was passed (a marked ComposerError).
    """
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


_NEST_PROBE_DEPTH = 1_100
"""Flow nesting that a libyaml with its own nesting limit (1,000 levels by default since
2024) refuses, and one without it composes harmlessly."""


@functools.cache
def _libyaml_loader() -> Any:
    """PyYAML's libyaml-backed safe loader class, or None when it is not usable here.

    libyaml's composer recurses in C, one frame (about 300 bytes) per level of nesting,
    before any limit of ours can be checked: a 2 MiB file of ``[[[[...`` would overflow
    the C stack (a crash, not an error) were nesting unbounded. libyaml builds since 2024
    refuse nesting past 1,000 levels (about 300 KB of stack, well inside a thread's 8 MiB
    on glibc); an older build, which composes the probe below, is not used.
    """
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None or not getattr(yaml, "__with_libyaml__", False):
        return None
    probe = loader("[" * _NEST_PROBE_DEPTH + "]" * _NEST_PROBE_DEPTH)
    try:
        probe.get_single_node()
    except yaml.YAMLError:
        return loader
    finally:
        probe.dispose()
    return None  # pragma: no cover - only an old libyaml composes the probe


def _over_limits(root: yaml.Node) -> yaml.composer.ComposerError | None:
    """The first limit a composed node graph passes, or None; iterative (no recursion).

    The walk sees the graph as the pure composer sees the text: children in document order,
    each distinct node entered once, at its first occurrence, which is where its anchor
    defines it (an alias always follows its anchor), so a node's depth there is its depth
    in the text and a later alias use enters nothing. Hence:

    * a child that is still open (an ancestor of itself) is a recursive alias;
    * a node entered deeper than :data:`MAX_YAML_DEPTH` is nested too deep (scalars count,
      as in :class:`_BoundedLoader`);
    * a node's expanded size is 1 plus its children's, each alias use counting its node's
      whole size again, memoised per node so a shared DAG costs its distinct nodes.

    Returns:
        A marked refusal (the pure composer words the one it meets first, see
        :func:`_compose`), or None when the graph is within every limit.
    """
    done: dict[int, int] = {}  # id(node) -> expanded size, for every finished node
    open_ids = {id(root)}
    # Each frame: [node, its remaining children, its expanded size so far].
    stack: list[list[Any]] = [[root, iter(_children(root)), 1]]
    while stack:
        frame = stack[-1]
        for child in frame[1]:
            key = id(child)
            size = done.get(key)
            if size is not None:  # an alias use of a finished node: a copy of it
                frame[2] += size
                continue
            if key in open_ids:
                return _refusal(
                    "recursive alias: a node refers to a node it is inside", child.start_mark
                )
            if len(stack) + 1 > MAX_YAML_DEPTH:
                return _refusal(f"nested deeper than {MAX_YAML_DEPTH} levels", child.start_mark)
            if isinstance(child, yaml.ScalarNode):
                done[key] = 1
                frame[2] += 1
                continue
            open_ids.add(key)
            stack.append([child, iter(_children(child)), 1])
            break
        else:
            stack.pop()
            node, size = frame[0], frame[2]
            open_ids.discard(id(node))
            if size > MAX_YAML_NODES:
                return _refusal(
                    f"expands to more than {MAX_YAML_NODES:,} nodes "
                    "(each use of an alias counts as a copy of its anchored node)",
                    node.start_mark,
                )
            done[id(node)] = size
            if stack:
                stack[-1][2] += size
    return None


def _compose(text: str) -> yaml.Node | None:
    """Compose one YAML document within the limits: libyaml when usable, else pure Python.

    libyaml composes; :func:`_over_limits` checks the graph. On anything wrong (libyaml's
    own parse errors included, whose wording and marks differ from PyYAML's) the text is
    composed again by :class:`_BoundedLoader`, which raises the error the loader has always
    reported; the walk's own refusal is raised only should the pure composer accept what
    the walk refused (never expected: both apply the same rules).

    Raises:
        yaml.YAMLError: invalid YAML, or a limit was passed (a marked ComposerError).
    """
    loader_class = _libyaml_loader()
    if loader_class is None:
        return _compose_pure(text)
    loader = loader_class(text)
    try:
        node: yaml.Node | None = loader.get_single_node()
    except yaml.YAMLError:
        return _compose_pure(text)
    finally:
        loader.dispose()
    refusal = _over_limits(node) if node is not None else None
    if refusal is None:
        return node
    _compose_pure(text)
    raise refusal  # pragma: no cover - the pure composer raised first


_ITEM_ID_LINE = re.compile(r"^\s*-\s+id:\s*[\"']?((?:TF|SE|WHY|EC)[1-9][0-9]*)\b")
"""An item's ``- id: TF3`` line (concept and misconception ids are lower case)."""


def _item_at(lines: Sequence[str], line: int) -> str:
    """The id of the item whose block holds 0-based ``line``: the nearest ``- id:`` line at
    or above it, read from the raw text (the file did not parse); "" when there is none."""
    for number in range(min(line, len(lines) - 1), -1, -1):
        found = _ITEM_ID_LINE.match(lines[number])
        if found:
            return found.group(1)
    return ""


def _open_quote_before(text: str, problem: yaml.Mark) -> yaml.ScalarToken | None:
    """The quoted scalar token that ends right before ``problem`` after running over more
    than one line: the usual cause of a parser error far below the real mistake (an
    unclosed ``"`` swallows lines until some later quote, in a comment say, closes it)."""
    last: yaml.Token | None = None
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if token.start_mark.index >= problem.index:
                break
            last = token
    except yaml.YAMLError:
        pass
    if (
        isinstance(last, yaml.ScalarToken)
        and last.style in {'"', "'"}
        and last.end_mark.line > last.start_mark.line
    ):
        return last
    return None


def _yaml_error(text: str, file: str, exc: yaml.MarkedYAMLError) -> ContentError:
    """One ``file:line:col: ITEM: invalid YAML: ...`` error for a file that does not parse.

    PyYAML marks where it noticed the problem, which can be far below the mistake: an
    unclosed quote under TF3 was reported 36 lines down, on a comment (fresh15). The
    message therefore also names where the enclosing construct began (the error's context
    mark, e.g. ``the quoted scalar opened at line 1426, column 12``), a quoted string that
    ran over several lines up to the problem, and the item whose block holds that start
    (the nearest ``- id:`` line above it in the raw text).

    Args:
        text: the YAML source.
        file: the name used in the message.
        exc: PyYAML's error, with its problem and context marks.

    Returns:
        The error, positioned at the problem mark (or the context mark when there is none).
    """
    problem_mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "invalid YAML"
    notes: list[str] = []
    start: int | None = None
    if problem_mark is not None:
        quoted = _open_quote_before(text, problem_mark)
        if quoted is not None:
            start = quoted.start_mark.line
            notes.append(
                f"the string opened at line {start + 1}, column {quoted.start_mark.column + 1} "
                f"runs on to line {quoted.end_mark.line + 1}, column {quoted.end_mark.column}: "
                "is its closing quote missing?"
            )
    context = exc.context_mark
    if exc.context and context is not None and (problem_mark is None or context != problem_mark):
        at = f"line {context.line + 1}, column {context.column + 1}"
        if exc.context == "while scanning a quoted scalar":
            notes.append(f"the string opened at {at} is never closed")
        else:
            began = exc.context.removeprefix("while ").replace("scanning", "reading")
            notes.append(f"{began.replace('parsing', 'reading')} that began at {at}")
        if start is None:
            start = context.line
    lines = text.splitlines()
    if start is None and problem_mark is not None:
        start = problem_mark.line
    item_id = _item_at(lines, start) if start is not None and lines else ""
    message = f"invalid YAML: {problem}" + "".join(f"; {note}" for note in notes)
    return ContentError(
        file,
        problem_mark.line + 1 if problem_mark else None,
        problem_mark.column + 1 if problem_mark else None,
        item_id,
        message,
    )


class _Marks:
    """Map from a data path (``("items", 3, "rubric")``) to its YAML position."""

    def __init__(self) -> None:
        self.key: dict[Loc, yaml.Mark] = {}
        self.value: dict[Loc, yaml.Mark] = {}

    def find(self, loc: Loc) -> yaml.Mark | None:
        """Position of ``loc``, or of its nearest ancestor that exists in the file."""
        for cut in range(len(loc), -1, -1):
            prefix = loc[:cut]
            if prefix in self.key:
                return self.key[prefix]
            if prefix in self.value:
                return self.value[prefix]
        return None


def _to_data(node: yaml.Node, loc: Loc, marks: _Marks, errors: list[tuple[Loc, str]]) -> Any:
    """Convert a composed node to plain data, keeping every scalar a string."""
    marks.value[loc] = node.start_mark
    if isinstance(node, yaml.ScalarNode):
        # plain style is None from PyYAML's composer, "" from libyaml's
        if not node.style and node.value in _NULLS:
            return None
        return node.value
    if isinstance(node, yaml.SequenceNode):
        return [_to_data(child, (*loc, i), marks, errors) for i, child in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                marks.key[(*loc, "?")] = key_node.start_mark
                errors.append(((*loc, "?"), "mapping keys must be plain words"))
                continue
            key = key_node.value
            child = (*loc, key)
            if key in out:
                marks.key[child] = key_node.start_mark
                errors.append((child, f"duplicate key {key!r} (the earlier value would be lost)"))
                continue
            marks.key[child] = key_node.start_mark
            out[key] = _to_data(value_node, child, marks, errors)
        return out
    raise TypeError(f"unexpected YAML node {type(node).__name__}")  # pragma: no cover


def _where(loc: Loc, data: Any) -> str:
    """Render a pydantic/raw location as ``TF3.rubric.concepts[1].weight``."""
    parts: list[str] = []
    rest = list(loc)
    if len(rest) >= 2 and rest[0] == "items" and isinstance(rest[1], int):
        index = rest[1]
        item_id = None
        if isinstance(data, dict):
            items = data.get("items")
            if isinstance(items, list) and index < len(items) and isinstance(items[index], dict):
                raw_id = items[index].get("id")
                if isinstance(raw_id, str) and raw_id:
                    item_id = raw_id
        parts.append(item_id or f"items[{index}]")
        rest = rest[2:]
    for step in rest:
        if isinstance(step, int):
            if parts:
                parts[-1] += f"[{step}]"
            else:
                parts.append(f"[{step}]")
        else:
            parts.append(str(step))
    return ".".join(parts)


_MESSAGES: dict[str, str] = {
    "missing": "missing required field",
    "extra_forbidden": "unknown key (not part of the schema; check the spelling)",
    "greater_than": "must be > {gt}",
    "greater_than_equal": "must be >= {ge}",
    "less_than": "must be < {lt}",
    "less_than_equal": "must be <= {le}",
    "too_long": "has too many entries (at most {max_length})",
    "string_too_short": "must not be empty",
    "string_too_long": "is too long (at most {max_length} characters)",
    "string_pattern_mismatch": "does not match the required pattern {pattern}",
    "enum": "must be one of {expected}",
    "literal_error": "must be {expected}",
}
"""Author-facing sentences per pydantic error type; ``{name}`` is filled from the error's ctx."""


def _message(err: Any) -> str:
    """Turn one pydantic error dict into a short sentence an author can act on."""
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "too_short":
        least = ctx.get("min_length")
        return f"needs at least {least} {'entry' if least == 1 else 'entries'}"
    template = _MESSAGES.get(kind)
    if template is not None:
        return template.format_map(defaultdict(lambda: "None", ctx))
    msg = str(err["msg"])
    if kind in {"string_type", "int_type", "float_type", "bool_type", "list_type", "dict_type"}:
        return msg.replace("Input should be", "must be")
    if kind in {"int_parsing", "float_parsing", "bool_parsing"}:
        return msg.replace("Input should be", "must be") + f" (got {err.get('input')!r})"
    if kind == "value_error":
        return str(ctx.get("error", msg))
    return msg


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation can hold (``list[Concept]``, ``Pattern`` unions...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _did_you_mean(loc: Loc) -> str | None:
    """The key the model at ``loc`` takes that is close to the unknown one (``loc`` is the
    cleaned location of an ``extra_forbidden`` error): ``difficulty`` for ``dificulty``;
    None when none is close.

    fresh26 wrote ``dificulty:`` and read only "unknown key", while ``.env`` names the
    setting meant (:func:`bot.settings`); the same :func:`difflib.get_close_matches`
    cut-off is used here.
    """
    models: list[type[BaseModel]] = [Pack]
    for step in loc[:-1]:
        if isinstance(step, int):
            continue
        models = [
            m
            for model in models
            if (info := model.model_fields.get(step)) is not None
            for m in _models_in(info.annotation)
        ]
    known = {info.alias or name for model in models for name, info in model.model_fields.items()}
    key = loc[-1] if loc else None
    if not isinstance(key, str) or not known:
        return None
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.8)
    return close[0] if close else None


def _clean_loc(loc: Loc) -> Loc:
    """Drop pydantic's union-branch markers (``str``, ``SeqPattern``...) from a location."""
    skip = {"phrase", "seq", "near", "number"}
    out: list[str | int] = []
    for i, step in enumerate(loc):
        # A tagged-union branch name sits right after a list index (patterns[0].near...).
        after_index = i > 0 and isinstance(loc[i - 1], int)
        if isinstance(step, str) and step in skip and after_index and i + 1 < len(loc):
            continue
        if isinstance(step, str) and step in skip and after_index and i + 1 == len(loc):
            continue
        out.append(step)
    return tuple(out)


ItemPositions = dict[str, tuple[int, int]]
"""Item id -> the 1-based line and column of its ``id`` key in the pack file."""


def parse_pack(text: str, file: str) -> Pack:
    """Parse and validate one pack (:func:`_parse_pack` without the item positions).

    Args:
        text: the YAML source.
        file: the name used in error messages.

    Returns:
        The validated pack.

    Raises:
        ContentErrors: invalid YAML (with line and column, the item and where the
            broken construct began: :func:`_yaml_error`; also a recursive alias,
            nesting deeper than 40 levels, or over 250,000 nodes once aliases are
            expanded), duplicate keys or ids, or any schema violation; every problem found
            is listed, not only the first.
    """
    return _parse_pack(text, file)[0]


def _parse_pack(text: str, file: str) -> tuple[Pack, ItemPositions]:
    """:func:`parse_pack`, and where each item's ``id`` key is (from the marks the parse
    keeps anyway, so :func:`load_bank` need not read the file again)."""
    try:
        node = _compose(text)
    except RecursionError:  # the depth limit keeps this away unless recursion is tight
        raise _fail(file, f"invalid YAML: nested deeper than {MAX_YAML_DEPTH} levels") from None
    except yaml.MarkedYAMLError as exc:
        raise ContentErrors([_yaml_error(text, file, exc)]) from None
    except yaml.YAMLError as exc:
        raise _fail(file, f"invalid YAML: {exc}") from None
    if node is None:
        raise _fail(file, "the file is empty", 1, 1)

    marks = _Marks()
    raw_errors: list[tuple[Loc, str]] = []
    data = _to_data(node, (), marks, raw_errors)
    if not isinstance(data, dict):
        raise _fail(file, "a pack must be a mapping with 'pack', 'title' and 'items'", 1, 1)

    items = data.get("items")
    if isinstance(items, list):
        first_seen: dict[str, int] = {}
        for index, raw in enumerate(items):
            if isinstance(raw, dict) and isinstance(raw.get("id"), str):
                iid = raw["id"]
                if iid in first_seen:
                    first = marks.find(("items", first_seen[iid], "id"))
                    where = (
                        f" (first at {file}:{first.line + 1}:{first.column + 1})" if first else ""
                    )
                    raw_errors.append((("items", index, "id"), f"duplicate item id {iid!r}{where}"))
                else:
                    first_seen[iid] = index

    errors: list[ContentError] = []

    def add(loc: Loc, message: str) -> None:
        mark = marks.find(loc)
        errors.append(
            ContentError(
                file,
                mark.line + 1 if mark else None,
                mark.column + 1 if mark else None,
                _where(loc, data),
                message,
            )
        )

    for loc, message in raw_errors:
        add(loc, message)

    pack: Pack | None = None
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = _clean_loc(tuple(err["loc"]))
            msg = _message(err)
            meant = _did_you_mean(loc) if err["type"] == "extra_forbidden" else None
            if meant is not None:
                msg = f"unknown key (not part of the schema; did you mean {meant!r}?)"
            if raw_errors and "duplicate item id" in msg:
                continue
            add(loc, msg)
    if errors:
        errors.sort(key=lambda e: (e.line or 0, e.column or 0))
        raise ContentErrors(errors)
    assert pack is not None
    positions: ItemPositions = {}
    for index, item in enumerate(pack.items):
        mark = marks.key.get(("items", index, "id"))
        if mark is not None:
            positions.setdefault(item.id, (mark.line + 1, mark.column + 1))
    return pack, positions


def load_pack(path: Path) -> Pack:
    """Read and validate one pack file.

    Raises:
        ContentErrors: unreadable, oversized (> 2 MiB), not UTF-8, or invalid content.
    """
    return _load_pack(path)[0]


def _load_pack(path: Path) -> tuple[Pack, ItemPositions]:
    """:func:`load_pack`, and where each item's ``id`` key is (:func:`_parse_pack`)."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_PACK_BYTES:
            raise _fail(name, f"file is {size} bytes; at most {MAX_PACK_BYTES}")
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # as .env and tutor grade --jsonl say it: the byte, then where (fresh18 #3)
        raise _fail(name, f"not UTF-8 ({not_utf8_byte(raw, exc)})") from None
    except OSError as exc:
        raise _fail(name, f"cannot read: {exc.strerror}") from None
    return _parse_pack(text, name)


def pack_files(paths: Iterable[Path]) -> list[Path]:
    """Expand directories to their ``*.yaml``/``*.yml`` files (sorted), keep files as given."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(sorted([*path.glob("*.yaml"), *path.glob("*.yml")]))
        else:
            out.append(path)
    return out


@dataclass(slots=True)
class Bank:
    """Every item of every pack, indexed by id. Built by :func:`load_bank`."""

    packs: list[Pack]
    items: dict[str, Item] = field(default_factory=dict)
    pack_of: dict[str, str] = field(default_factory=dict)
    file_of: dict[str, Path] = field(default_factory=dict)
    """Each item id's pack file, as given to :func:`load_bank` (empty for a bank built
    from packs in memory); :class:`SourceIndex` reads line numbers from it."""

    def __post_init__(self) -> None:
        for pack in self.packs:
            for item in pack.items:
                self.items[item.id] = item
                self.pack_of[item.id] = pack.pack

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items.values())

    def __len__(self) -> int:
        return len(self.items)

    def get(self, item_id: str) -> Item | None:
        """The item with this id, or None."""
        return self.items.get(item_id)

    def tags(self) -> list[str]:
        """Every tag used by some item, sorted."""
        return sorted({tag for item in self for tag in item.tags})

    def select(
        self,
        kind: Kind | None = None,
        tag: str | None = None,
        difficulty: int | None = None,
    ) -> list[Item]:
        """Items matching every given filter, in bank order."""
        return [
            item
            for item in self
            if (kind is None or item.kind is kind)
            and (tag is None or tag in item.tags)
            and (difficulty is None or item.difficulty == difficulty)
        ]

    def concept_descriptions(self) -> dict[str, str]:
        """Each rubric concept id with its learner-facing words (its ``description``, the
        praise shown when it is credited): the first item's, in bank order, for an id that
        several items share."""
        words: dict[str, str] = {}
        for item in self:
            for concept in item.rubric.concepts:
                words.setdefault(concept.id, concept.description)
        return words

    def fingerprint(self) -> str:
        """A short hash of every item's JSON; changes whenever any content changes."""
        digest = hashlib.sha256()
        for item in self:
            digest.update(item.model_dump_json().encode())
        return digest.hexdigest()[:16]


def load_bank(paths: Iterable[Path]) -> Bank:
    """Load every pack under ``paths`` and check ids are unique across packs.

    Args:
        paths: pack files and/or directories of ``*.yaml`` files.

    Raises:
        ContentErrors: every problem in every file, and ids repeated across packs.
    """
    errors: list[ContentError] = []
    packs: list[Pack] = []
    owners: dict[str, str] = {}
    file_of: dict[str, Path] = {}
    files = pack_files(paths)
    if not files:
        raise _fail(", ".join(str(p) for p in paths), "no pack files (*.yaml) found")
    for path in files:
        try:
            pack, positions = _load_pack(path)
        except ContentErrors as exc:
            errors.extend(exc.errors)
            continue
        for item in pack.items:
            line, column = positions.get(item.id, (None, None))
            if item.id in owners:  # worded as parse_pack words a duplicate in one file
                first = f"duplicate item id {item.id!r} (first at {owners[item.id]})"
                errors.append(ContentError(str(path), line, column, f"{item.id}.id", first))
            else:
                owners[item.id] = f"{path}:{line}:{column}" if line else str(path)
                file_of[item.id] = path
        packs.append(pack)
    if errors:
        raise ContentErrors(errors)
    return Bank(packs, file_of=file_of)


@dataclass(frozen=True, slots=True)
class SourceLine:
    """Where a node of a pack file starts.

    Attributes:
        file: the pack file as given (relative paths stay relative).
        line: 1-based line.
        column: 1-based column.
    """

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class SourceIndex:
    """Line numbers of a loaded bank's nodes, read back from its files on first use.

    The bank keeps no positions (the bot never needs them); the authoring commands that
    report on valid content (``tutor content test``) ask here. Each file is composed again
    once, on the first question about one of its items.

    Args:
        bank: a bank from :func:`load_bank` (a bank built in memory has no files: every
            :meth:`locate` is None).
    """

    def __init__(self, bank: Bank) -> None:
        self._file_of = bank.file_of
        self._lines: dict[Path, dict[str, SourceLine]] = {}

    def locate(self, where: str) -> SourceLine | None:
        """The position of a node named as ``content check`` names it.

        Args:
            where: ``ITEM.field.path``, e.g. ``TF1.samples[3]`` or
                ``TF1.rubric.concepts[0].patterns[2]``.

        Returns:
            Its file, line and column; None when the item has no file or the path is not in
            it (or the file changed since it was loaded and no longer parses).
        """
        item_id = re.split(r"[.\[]", where, maxsplit=1)[0]
        path = self._file_of.get(item_id)
        if path is None:
            return None
        if path not in self._lines:
            self._lines[path] = _node_lines(path)
        return self._lines[path].get(where)


def _node_lines(path: Path) -> dict[str, SourceLine]:
    """Every node under ``items`` in ``path`` by its ``ITEM.field.path`` name; empty when
    the file cannot be read or parsed any more."""
    try:
        node = _compose(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return {}
    if node is None:
        return {}
    marks = _Marks()
    data = _to_data(node, (), marks, [])
    return {
        _where(loc, data): SourceLine(str(path), mark.line + 1, mark.column + 1)
        for loc, mark in marks.value.items()
        if len(loc) > 2 and loc[0] == "items"
    }


def schema_json() -> str:
    """The JSON Schema of a pack file, as written to ``content/schema.json``."""
    import json

    schema = Pack.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://autograd-tutor.invalid/content/schema.json"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


__all__ = [
    "Bank",
    "ContentError",
    "ContentErrors",
    "Kind",
    "SourceIndex",
    "SourceLine",
    "load_bank",
    "load_pack",
    "pack_files",
    "parse_pack",
    "schema_json",
]
