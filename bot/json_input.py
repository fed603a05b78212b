"""Decoding JSON that a user wrote: every failure is a ``ValueError`` with a message.

:func:`json.loads` raises :class:`RecursionError` (not a :class:`json.JSONDecodeError`) on
arrays or objects nested deeper than the interpreter's recursion limit (about 1,000 levels in
CPython 3.11: ``sys.getrecursionlimit()``), which a 10 KB line of ``[[[[...`` reaches. A
caller that reads user input line by line would crash and drop every later line; this module
turns that case into an ordinary error it can report for the one line.
"""

from __future__ import annotations

import json
from typing import Any


class DuplicateKey(ValueError):
    """An object names the same key twice; :func:`json.loads` alone keeps the last value
    without a word (RFC 8259 section 4: names "SHOULD be unique")."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object as a dict, refusing a key given twice."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(key)
        found[key] = value
    return found


class JsonInputError(ValueError):
    """A JSON document that could not be decoded.

    Attributes:
        reason: what was wrong, in words for the user (``not JSON: Expecting value``,
            ``nested too deeply: ...``), without the file or line, which the caller adds.
        too_deep: the document may be valid JSON, but nests too deeply to decode.
    """

    def __init__(self, reason: str, *, too_deep: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.too_deep = too_deep


NESTED_TOO_DEEPLY = "nested too deeply: arrays/objects inside one another past about 1,000 levels"
"""The reason given for a document past the decoder's depth (the recursion limit)."""


def loads_user_json(text: str) -> object:
    """Decode one JSON document that came from a user (a line of a JSONL file or stdin).

    Args:
        text: the document, as text.

    Returns:
        The decoded value (dict, list, str, int, float, bool or None).

    Raises:
        JsonInputError: the text is not JSON (``reason`` is ``not JSON: <decoder message>``),
            an object names a key twice (``the key "item_id" appears twice ...``), or its
            arrays/objects nest past the decoder's recursion limit (``too_deep``).
    """
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"not JSON: {exc.msg}") from None
    except DuplicateKey as exc:
        shown = json.dumps(exc.key[:40])
        raise JsonInputError(
            f"the key {shown} appears twice in one object: give each key once"
        ) from None
    except RecursionError:
        raise JsonInputError(NESTED_TOO_DEEPLY, too_deep=True) from None


__all__ = ["NESTED_TOO_DEEPLY", "JsonInputError", "loads_user_json"]
