"""The code-aware tokenizer: one whitespace-separated chunk -> lexical pieces.

Learners mix prose and code. Splitting on dots (as most tokenizers do) breaks ``x.grad`` and
``loss.backward()``; here a dotted path stays one CODE piece with a canonical form:

* ``x.grad.zero_()`` -> ``x.grad.zero_``, ``optimizer.zero_grad()`` -> ``optimizer.zero_grad``
  (call parentheses are dropped, so ``zero_grad`` and ``zero_grad()`` meet);
* ``.grad`` -> ``.grad`` (a leading dot marks an attribute);
* ``requires_grad=True`` -> ``requires_grad=true`` (a keyword and its value stay together, so
  ``=True`` never equals ``=False``; ``x.is_leaf == False`` and ``is_leaf is False`` become
  ``x.is_leaf=false``; the spaced forms are joined by :mod:`bot.grading.sentences`);
* ``tensor([8.])`` -> ``tensor``, ``[``, ``8``, ... (the number stays a number);
* ``non-leaf`` -> ``non``, ``leaf`` (a hyphen between letters joins words, it is not minus);
* ``2x``, ``2nd`` stay one word: a coefficient or an ordinal is not a stated number;
* ``.5`` is the number 0.5 (``tensor([.5, 0., .5])``), unless a word or a bracket comes
  right before the dot (``x.5`` is not a number);
* ``e.g.`` / ``i.e.`` are words, and their dots never end a sentence.

A dotted path is code when it has a call, an underscore, a leading dot, a short first part
(``x.grad``, ``nn.Linear``) or a known PyTorch attribute; otherwise (``adds.The`` typed
without a space) it is two words with a sentence end between. Pieces are cached per chunk:
learners reuse a small vocabulary, so almost every chunk after warm-up is one dict lookup.
"""

from __future__ import annotations

import re
from typing import Final

from bot.grading.normalize import expand_contractions

WORD: Final = 0
CODE: Final = 1
NUM: Final = 2
OP: Final = 3
BREAK: Final = 4
END: Final = 5
QEND: Final = 6

Piece = tuple[int, str]
"""(kind, text): kind is one of the module constants WORD..QEND."""

API_NAMES: Final = frozenset(
    {
        "grad", "backward", "data", "detach", "detach_", "item", "numpy", "zero_", "requires_grad",
        "requires_grad_", "grad_fn", "is_leaf", "retain_grad", "torch", "nn", "optim", "autograd",
        "sum", "mean", "tensor", "step", "clone", "register_hook", "no_grad", "enable_grad",
        "shape", "weight", "bias", "parameters", "cpu", "view", "size", "zero_grad",
        "retain_graph", "create_graph", "functional", "inference_mode", "ones", "zeros",
        "randn", "rand", "exp", "pow", "relu", "sigmoid", "linear", "next_functions", "t",
        "add_", "mul_", "copy_", "fill_", "tolist", "dtype", "device", "version", "_version",
    }
)  # fmt: skip
"""Attribute and module names that make a dotted path code (``loss.backward``)."""

ABBREVIATIONS: Final = frozenset(
    {"eg", "ie", "etc", "vs", "cf", "approx", "resp", "esp", "viz", "wrt", "aka", "incl"}
)
"""Words whose trailing dot never ends a sentence."""

_PIECE = re.compile(
    r"(?P<num>(?:(?<![\w)\]])-)?(?:\d+(?:\.\d+)?|(?<![\w)\].])\.\d+)(?:e[-+]?\d+)?)"
    r"|(?P<path>\.?[^\W\d]\w*(?:\.[^\W\d]\w*)*(?:\(\s*\))?)"
    r"|(?P<op>\+=|-=|\*=|/=|==|!=|<=|>=|->|=>|\*\*|[-+*/=<>^%])"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<qend>\?[?!.]*)"
    r"|(?P<dots>\.{2,})"
    r"|(?P<end>[.!]+)"
    r"|(?P<brk>[,;:\"'|&])"
    r"|(?P<other>\S)"
)

KEYWORD_VALUES: Final = frozenset({"true", "false", "none"})
"""Values joined to a keyword argument: ``retain_graph=True`` is one token."""
_CACHE_LIMIT: Final = 100_000
_cache: dict[str, tuple[Piece, ...]] = {}


def is_keyword_target(before: list[Piece]) -> bool:
    """Whether ``before`` ends with ``NAME =`` (or ``==``, ``is``) where NAME is a keyword or
    flag such as ``requires_grad`` or ``x.is_leaf``.

    Only names whose last part has an underscore qualify, so ``x.grad = 8`` keeps its number.
    """
    if len(before) < 2 or before[-1] not in ((OP, "="), (OP, "=="), (WORD, "is")):
        return False
    kind, name = before[-2]
    return kind == CODE and "=" not in name and "_" in name.rsplit(".", 1)[-1]


def _path_pieces(text: str) -> list[Piece]:
    """Classify one dotted path / identifier as code or word(s)."""
    called = text.endswith(")")
    name = text[: text.index("(")] if called else text
    if "." not in name:
        if called or "_" in name:
            return [(CODE, name)]
        return [(WORD, name)]
    if name.startswith("."):
        return [(CODE, name)]
    parts = name.split(".")
    if all(len(p) == 1 for p in parts):  # e.g, i.e, a.k.a
        return [(WORD, "".join(parts))]
    if called or "_" in name or len(parts[0]) <= 2 or any(p in API_NAMES for p in parts):
        return [(CODE, name)]
    out: list[Piece] = []
    for part in parts:  # "accumulates.the": a missing space after a full stop
        if out:
            out.append((END, "."))
        out.append((WORD, part))
    return out


def pieces(chunk: str) -> tuple[Piece, ...]:
    """Split one whitespace-free chunk of normalised text into pieces.

    Contractions are expanded first (``doesn't`` -> ``does``, ``not``).

    Args:
        chunk: lower-case text without whitespace, e.g. ``"x.grad.zero_(),"``.

    Returns:
        The pieces in order, e.g. ``((CODE, "x.grad.zero_"), (BREAK, ","))``. Brackets and
        quotes become BREAK pieces; a ``.`` after a number and before a bracket (``[8.]``)
        or after an abbreviation is dropped rather than ending the sentence.
    """
    hit = _cache.get(chunk)
    if hit is not None:
        return hit
    expanded = expand_contractions(chunk)
    if expanded is chunk:
        result = _pieces(chunk)
    else:
        result = tuple(piece for part in expanded.split() for piece in _pieces(part))
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[chunk] = result
    return result


def _pieces(chunk: str) -> tuple[Piece, ...]:
    raw: list[Piece] = []
    for match in _PIECE.finditer(chunk):
        group = match.lastgroup
        text = match.group()
        if group == "path":
            raw.extend(_path_pieces(text))
        elif group == "num":
            raw.append((NUM, text))
        elif group == "op":
            raw.append((OP, text))
        elif group == "end":
            raw.append((END, text))
        elif group == "qend":
            raw.append((QEND, text))
        elif group in ("open", "close", "brk", "dots"):
            raw.append((BREAK, text))
        # "other" (emoji, stray symbols) is dropped: it carries nothing we grade.
    out: list[Piece] = []
    for i, (kind, text) in enumerate(raw):
        prev = raw[i - 1] if i else None
        nxt = raw[i + 1] if i + 1 < len(raw) else None
        if kind == OP and text == "-":
            if prev is None and nxt is None:
                out.append((BREAK, "-"))  # a spaced dash separates clauses
                continue
            if prev is not None and nxt is not None and prev[0] == WORD and nxt[0] == WORD:
                continue  # non-leaf, define-by-run: a joiner, not minus
        if kind == END:
            if prev is not None and prev[0] == WORD and prev[1] in ABBREVIATIONS:
                continue
            if prev is not None and prev[0] == NUM and nxt is not None and nxt[0] == BREAK:
                continue  # tensor([8.]) prints a trailing decimal point
        if kind == WORD and out and out[-1][0] == NUM and raw[i - 1][0] == NUM:
            out[-1] = (WORD, out[-1][1] + text)  # 2x, 2nd, 3d: a coefficient or ordinal
            continue
        if kind == WORD and text in KEYWORD_VALUES and is_keyword_target(out):
            out.pop()
            name = out.pop()[1]
            out.append((CODE, f"{name}={text}"))
            continue
        out.append((kind, text))
    return tuple(out)
