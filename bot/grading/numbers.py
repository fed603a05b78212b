"""Numbers: stated values compared numerically, and stated arithmetic checked.

``8``, ``8.0``, ``eight`` and ``tensor([8.])`` all state the value 8 (the tokenizer keeps the
digits of ``tensor([8.])`` as a number). A stated computation such as ``4 + 4 = 8`` is
evaluated; when it is wrong (``4 + 4 = 9``) none of its numbers count as stated values,
so a learner cannot reach the right number through wrong arithmetic. Numbers that are
operands of a formula over symbols (the ``2`` of ``x ** 2`` or ``2 * x``) are not stated
values either.
"""

from __future__ import annotations

import math
from typing import Final

from bot.grading.tokens import CODE, NUM, OP, WORD

NUMBER_WORDS: Final[dict[str, float]] = {
    "zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}  # fmt: skip
"""English number words up to twenty, the tens, and hundred. "one" is left out: learners
write "the latest one" far more often than the number (write 1 or `{number: 1}` instead)."""

_WORD_OPS: Final = {"plus": "+", "minus": "-", "times": "*", "x": "*"}
_EQUALS: Final = frozenset({"=", "==", "equals", "is", "gives", "makes", "->", "=>"})
_OPS: Final = frozenset({"+", "-", "*", "/", "**", "^"})
_ARROWS: Final = frozenset({"->", "=>"})


COUNTED_NOUNS: Final = frozenset(
    {"times", "calls", "call", "steps", "step", "passes", "pass", "backward", "backwards",
     "epochs", "batches", "iterations", "elements", "tensors", "gradients", "grads", "runs",
     "branches", "outputs", "inputs", "ways", "paths", "parts", "things", "of"}
)  # fmt: skip
"""Nouns that make a number before them a count ("two backward calls"), not a value."""


def counts(surf: list[str], kind: list[int], brk: list[bool], values: dict[int, float]) -> set[int]:
    """Indices of numbers used as counts: "the two calls", "2 backward passes", "3 times".

    A number directly followed (no clause break: "eight, grads add up" states 8) by a
    counted noun (:data:`COUNTED_NOUNS`) counts things rather than stating a value.
    """
    out: set[int] = set()
    n = len(surf)
    for i in values:
        j = i + 1
        if j < n and kind[j] == WORD and not brk[j]:
            word = surf[j]
            if word in COUNTED_NOUNS:
                out.add(i)
    return out


def symbolic_operands(surf: list[str], kind: list[int], values: dict[int, float]) -> set[int]:
    """Indices of numbers that are operands of an operator applied to a symbol.

    In ``x ** 2``, ``2 * x`` and ``x = x + 1`` the number is a coefficient or exponent of a
    formula, not a value the learner states; ``4 + 4`` and ``x.grad = 8`` keep theirs.

    Args:
        surf, kind: the token stream's parallel lists.
        values: number value by token index.
    """
    out: set[int] = set()
    n = len(surf)
    for i in values:
        # The operator after the number, then the one before it, written out: no pair of
        # tuples built per number.
        operand = i + 2
        if (
            operand < n
            and kind[i + 1] == OP
            and surf[i + 1] in _OPS
            and kind[operand] in (WORD, CODE)
            and operand not in values
        ):
            out.add(i)
            continue
        operand = i - 2
        if (
            operand >= 0
            and kind[i - 1] == OP
            and surf[i - 1] in _OPS
            and kind[operand] in (WORD, CODE)
            and operand not in values
        ):
            out.add(i)
    return out


def number_value(kind: int, text: str) -> float | None:
    """The value a token states, or None.

    Args:
        kind: the token kind (:data:`bot.grading.tokens.NUM` or ``WORD``).
        text: the token text, lower-case.

    Returns:
        The value (``"8.0"`` -> 8.0, ``"eight"`` -> 8.0), or None for anything else.
    """
    if kind == NUM:
        try:
            value = float(text)
        except ValueError:
            return None
        return value if math.isfinite(value) else None
    if kind == WORD:
        found = NUMBER_WORDS.get(text)
        return float(found) if found is not None else None
    return None


def _evaluate(terms: list[float | str]) -> float | None:
    """Evaluate ``[n, op, n, op, n...]`` with the usual precedence; None if malformed."""
    if len(terms) % 2 == 0 or any(isinstance(t, str) != (i % 2 == 1) for i, t in enumerate(terms)):
        return None
    # Powers first (right-associative), then * and /, then + and -.
    values: list[float | str] = list(terms)
    for ops in (("**", "^"), ("*", "/"), ("+", "-")):
        i = len(values) - 2 if ops[0] == "**" else 1
        step = -2 if ops[0] == "**" else 2
        while 0 < i < len(values):
            op = values[i]
            if op in ops:
                a, b = values[i - 1], values[i + 1]
                if not isinstance(a, float) or not isinstance(b, float):
                    return None
                try:
                    if op in ("**", "^"):
                        result = a**b if abs(b) <= 64 and abs(a) <= 1e6 else math.inf
                    elif op == "*":
                        result = a * b
                    elif op == "/":
                        result = a / b
                    elif op == "+":
                        result = a + b
                    else:
                        result = a - b
                except (ZeroDivisionError, OverflowError):
                    return None
                if isinstance(result, complex) or not math.isfinite(result):
                    return None
                values[i - 1 : i + 2] = [float(result)]
                if step < 0:
                    i -= 2
            else:
                i += step
    return values[0] if len(values) == 1 and isinstance(values[0], float) else None


def wrong_arithmetic(
    surf: list[str],
    kind: list[int],
    sent: list[int],
    values: dict[int, float],
    brk: list[bool] | None = None,
) -> set[int]:
    """Indices of number tokens that belong to a stated computation that is wrong.

    A computation is a run of numbers and operators in one sentence split by ``=`` (or
    ``equals``/``is``/``gives`` after an operator): ``4 + 4 = 8`` holds; ``4 + 4 = 9`` and
    ``2 * 4 = 6 = 8`` do not. Only runs with at least one operator are checked. A clause
    break (a bracket, a comma) ends a run: in "2x (branch 1) + y (branch 2) = 6 + 4 = 10"
    the 2 is a label, not an operand (a dev8 WHY1 answer was told its arithmetic was wrong).
    Nor does a run start at the right operand of a symbolic term (the 2 of "3t**2 = 3*9 =
    27", a correct dev9 EC11 answer).

    Args:
        surf, kind, sent: the token stream's parallel lists.
        values: number value by token index.
        brk: whether a clause break precedes each token (``TokenStream.brk``); None: no
            breaks known.

    Returns:
        Token indices whose values must not count as stated.
    """
    bad: set[int] = set()
    n = len(surf)
    resume = 0  # the first token not yet part of a run
    for i in sorted(values):  # only a number can start a run
        if i < resume:
            continue
        if i + 2 not in values:  # every step of a run ends on a number: this one is alone
            resume = i + 1
            continue
        if i >= 2 and surf[i - 1] in _OPS and i - 2 not in values and kind[i - 2] != OP:
            # the right operand of a symbolic term ("3t**2 = 3*9 = 27"): not a value
            resume = i + 1
            continue
        # Collect a run: value (op value)* ((= value (op value)*))*
        segments: list[list[float | str]] = [[values[i]]]
        members = [i]
        saw_op = False
        j = i + 1
        while j + 1 < n and sent[j + 1] == sent[i]:
            if brk is not None and brk[j]:
                break
            tok = surf[j]
            op = _WORD_OPS.get(tok) if kind[j] == WORD else (tok if kind[j] == OP else None)
            if op in _OPS and j + 1 in values and isinstance(segments[-1][-1], float):
                segments[-1] += [op, values[j + 1]]
                members.append(j + 1)
                saw_op = True
                j += 2
            elif (
                tok in _EQUALS
                and (saw_op or (kind[j] == OP and tok not in _ARROWS))
                and (j + 1 in values)
            ):  # an arrow or a word equals only after an operator: "3 -> 3*3**2 = 27"
                segments.append([values[j + 1]])
                members.append(j + 1)
                j += 2
            else:
                break
        if saw_op and len(segments) >= 2:
            results = [_evaluate(segment) for segment in segments]
            known = [r for r in results if r is not None]
            if len(known) >= 2 and any(abs(r - known[0]) > 1e-6 for r in known[1:]):
                bad.update(members)
        resume = max(j, i + 1)
    return bad
