"""argparse types for numeric flags: a value outside its range is refused by argparse itself,
naming the flag (``argument --min-accuracy: 5 is not a fraction from 0 to 1``), exit 2,
before the command does any work (fresh8 #7: ``--min-accuracy 5`` ran and then asked for
"at least 500% agreement")."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel


def fraction(text: str) -> float:
    """argparse type: a finite number from 0 to 1 inclusive (an accuracy, 0.95 = 95%).

    Raises:
        argparse.ArgumentTypeError: not a number, not finite, or outside 0-1, named.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 0 to 1") from None
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise argparse.ArgumentTypeError(
            f"{text} is not a fraction from 0 to 1 (0.95 means 95% agreement)"
        )
    return value


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a whole number from ``low`` to ``high`` inclusive.

    Args:
        low: the smallest value accepted.
        high: the largest value accepted.

    Returns:
        The type function; it raises :class:`argparse.ArgumentTypeError` naming the
        range for anything else.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a whole number from {low} to {high}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not from {low} to {high}")
        return value

    parse.__name__ = f"int_in_{low}_{high}"
    return parse


def field_int_range(model: type[BaseModel], name: str) -> tuple[int, int]:
    """The inclusive range a settings class allows an integer field (its ``ge``/``gt``
    and ``le``/``lt``), so a flag standing for it is checked by the same numbers.

    Args:
        model: the settings class, e.g. :class:`sandbox.settings.SandboxSettings`.
        name: the field, e.g. ``concurrency``.

    Returns:
        ``(low, high)``.

    Raises:
        ValueError: the field has no lower or no upper bound (a programming error).
    """
    low = high = None
    for rule in model.model_fields[name].metadata:
        if isinstance(rule, Ge):
            low = int(rule.ge)  # type: ignore[call-overload]
        elif isinstance(rule, Gt):
            low = int(rule.gt) + 1  # type: ignore[call-overload]
        elif isinstance(rule, Le):
            high = int(rule.le)  # type: ignore[call-overload]
        elif isinstance(rule, Lt):
            high = int(rule.lt) - 1  # type: ignore[call-overload]
    if low is None or high is None:
        raise ValueError(f"{model.__name__}.{name} has no lower and upper bound")
    return low, high
