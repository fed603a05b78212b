"""``tutor grade``: grade answers from the command line.

``tutor grade --jsonl`` is the contract for tools and tests: it reads JSON lines on stdin,
one answer each, and writes exactly one JSON line per input line, in order, each carrying
the input's 1-based ``line``::

    in:  {"item_id": "TF3", "verdict": false, "text": "nope, grads pile up"}
    out: {"item_id": "TF3", "score": 0.85, "label": "correct", ..., "line": 1}

Besides ``item_id``/``verdict``/``text`` a line may carry a marked set's own fields
(``label``, ``style``, ``opposite_claim``, ``line``: :class:`bot.grading.evaluation.MarkedAnswer`),
which are ignored, so an evaluation set can be piped in as it is; any other key is an
``invalid_request`` naming it (``"verdit"`` for ``"verdict"`` was graded with no verdict).
A line that cannot be graded gives an error object instead of a result, and the run goes
on::

    {"line": 3, "item_id": "TF99", "error": "unknown_item", "message": "unknown item id 'TF99'"}

Errors: ``blank_line`` (nothing on the line), ``invalid_json`` (also a line whose arrays or
objects nest past about 1,000 levels: ``nested too deeply``), ``invalid_request``
(missing/ill-typed fields; ``verdict`` is ``true``, ``false`` or ``null``, never ``1`` or
``"true"``), ``unknown_item``, ``empty_answer`` (a text that is empty after
normalisation: blank, or only markup such as a lone code fence, ``****`` or ``<b></b>``;
``--text``, ``tutor play`` and Discord refuse it with the same words), ``answer_too_long``
(over 4,000 characters).
A line holding a byte that is not UTF-8, anywhere (JSON text is UTF-8: RFC 8259 section
8.1), is an ``invalid_json`` naming its first such byte, ``not UTF-8 (byte 0xff at position
0)``, whether or not the rest would parse: a bad byte is never graded as U+FFFD.
Exit status: 0 when every line was graded, 1 when any line gave an error object (or the
content is invalid), 2 on bad usage.

``tutor grade ITEM --text "..." [--verdict true|false]`` grades one answer and prints the
feedback a learner would see, as plain terminal text (``tutor play``'s words, without the
Discord markdown), then the grade's numbers. A ``--verdict`` given for an item that is not
true/false is ignored with a note on stderr (those items have no verdict buttons).

Item ids are accepted in any case (``se1``, ``item_id: "tf3"``:
:func:`bot.content.models.canonical_item_id`); the output carries the canonical ``SE1``.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable
from typing import Any, Final, Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from bot.cli.content import PATHS_HELP, given_pack_paths, load_bank_or_report
from bot.content.models import Kind, canonical_item_id
from bot.files import not_utf8_byte
from bot.grading import (
    AnswerTooLong,
    EmptyAnswer,
    Grader,
    GradingError,
    UnknownItem,
    render_feedback,
)
from bot.grading.models import (
    MAX_ANSWER_CHARS,
    GradeResult,
    replace_lone_surrogates,
)
from bot.json_input import JsonInputError, loads_user_json


class GradeRequest(BaseModel):
    """One input line of ``tutor grade --jsonl``.

    Attributes:
        item_id: the item answered (any case).
        verdict: JSON ``true``, ``false`` or ``null``; pydantic's lax mode would take ``1``,
            ``"yes"`` or ``"true"`` as true (fresh7 #10), so the field is strict and those are
            refused as ``invalid_request`` naming ``verdict``.
        text: the answer.
    """

    model_config = ConfigDict(extra="ignore")

    item_id: str
    verdict: StrictBool | None = None
    text: str


MARKED_SET_KEYS: Final = frozenset({"label", "style", "opposite_claim", "line"})
"""Keys of a marked answer set (:class:`~bot.grading.evaluation.MarkedAnswer`) that a
``--jsonl`` line may carry and that are ignored; any other key but the request's is refused."""
REQUEST_KEYS: Final = ("item_id", "verdict", "text")


GradeLineErrorKind = Literal[
    "blank_line",
    "invalid_json",
    "invalid_request",
    "unknown_item",
    "empty_answer",
    "answer_too_long",
]


class GradeLineError(BaseModel):
    """One output line for an input that could not be graded.

    Attributes:
        line: the input line, 1-based.
        item_id: the item the line named (at most 16 characters), if any.
        error: what was wrong, as a stable code.
        message: the same in words.
    """

    model_config = ConfigDict(extra="forbid")

    line: int = Field(ge=1)
    item_id: str | None
    error: GradeLineErrorKind
    message: str


class GradedLine(GradeResult):
    """One output line for a graded input: the :class:`GradeResult` and its input line.

    Attributes:
        line: the input line, 1-based.
    """

    line: int = Field(ge=1)


def register(sub: Any) -> None:
    """Add ``tutor grade`` to the CLI."""
    grade = sub.add_parser(
        "grade",
        help="grade answers: --jsonl on stdin/stdout, or one ITEM --text",
        description="Grade answers with the real grader. With ITEM --text: the feedback a "
        "learner sees, then one line for scripts: label=correct|partial|incorrect "
        "score=0-1 confidence=0-1 hit=[...] contradicted=[...] misconceptions=[...], "
        "the lists holding the rubric's concept and misconception ids (an author's "
        "names, as in the item's rubric). With --jsonl: one JSON result per input line.",
    )
    grade.add_argument(
        "item",
        nargs="?",
        type=canonical_item_id,
        help="item id (any case: se1 is SE1), to grade one answer given by --text",
    )
    grade.add_argument("--text", help="the answer to grade (with ITEM)")
    grade.add_argument(
        "--verdict",
        choices=["true", "false"],
        help="the true/false button pressed (with a true/false ITEM; ignored, with a note on "
        "stderr, for other kinds)",
    )
    grade.add_argument(
        "--jsonl",
        action="store_true",
        help='read JSON lines on stdin ({"item_id": "TF3", "verdict": false, "text": "..."}; '
        "verdict is a JSON boolean, true or false, or null), write results as JSON",
    )
    grade.add_argument(
        "--content", action="append", type=str, default=None, metavar="PATH",
        help=PATHS_HELP,
    )  # fmt: skip
    grade.set_defaults(handler=cmd_grade)


def _error(
    line: int, item_id: str | None, kind: GradeLineErrorKind, message: str
) -> GradeLineError:
    if item_id is not None:
        item_id = replace_lone_surrogates(item_id[:16])
    return GradeLineError(line=line, item_id=item_id, error=kind, message=message)


def _json_kind(value: object) -> str:
    """What JSON value ``value`` was decoded from, in JSON's words (``an array``)."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true or false"
    if value is None:
        return "null"
    return "a number"


def grade_line(
    grader: Grader, number: int, raw: str, *, not_utf8: str | None = None
) -> GradedLine | GradeLineError:
    """Grade one input line of ``tutor grade --jsonl``.

    Args:
        grader: the grader over the bank.
        number: the line's 1-based number, copied into the output.
        raw: the line as read (a JSON object, see :class:`GradeRequest`).
        not_utf8: where the line's first byte that is not UTF-8 was (``byte 0xff at
            position 0``), None when it was all UTF-8: such a line is an ``invalid_json``
            error naming that byte, and ``raw`` is not looked at.

    Returns:
        The result, or the error object saying what was wrong with the line.
    """
    if not_utf8 is not None:
        message = f"not UTF-8 ({not_utf8}): a JSON line is UTF-8 text"
        return _error(number, None, "invalid_json", message)
    if not raw.strip():
        return _error(number, None, "blank_line", "blank line: expected one JSON object")
    try:
        data = loads_user_json(raw)
    except JsonInputError as exc:
        return _error(number, None, "invalid_json", exc.reason)
    if not isinstance(data, dict):
        message = f"each line must be a JSON object, not {_json_kind(data)}"
        return _error(number, None, "invalid_request", message)
    item_id = data.get("item_id")
    item_id = item_id if isinstance(item_id, str) else None
    unknown = [key for key in data if key not in REQUEST_KEYS and key not in MARKED_SET_KEYS]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        message = (
            f"unknown key{'s' if len(unknown) > 1 else ''} {names}: a line holds "
            f"{', '.join(REQUEST_KEYS)} (and may carry a marked set's "
            f"{', '.join(sorted(MARKED_SET_KEYS))})"
        )
        return _error(number, item_id, "invalid_request", message)
    text = data.get("text")
    if isinstance(text, str) and len(text) > MAX_ANSWER_CHARS:
        return _error(number, item_id, "answer_too_long", str(AnswerTooLong(len(text))))
    try:
        request = GradeRequest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "line"
        return _error(number, item_id, "invalid_request", f"{where}: {first['msg']}")
    try:
        item_id = canonical_item_id(request.item_id[:16])
        response = grader.response(item_id, request.verdict, request.text)
        result = grader.grade(response)
    except UnknownItem as exc:
        return _error(number, exc.item_id, "unknown_item", str(exc))
    except EmptyAnswer as exc:
        return _error(number, item_id, "empty_answer", str(exc))
    except GradingError as exc:  # pragma: no cover - AnswerTooLong is caught above
        return _error(number, item_id, "answer_too_long", str(exc))
    return GradedLine(**result.model_dump(), line=number)


def _decode(raw: bytes) -> tuple[str, str | None]:
    """A line's bytes as text and where its first byte that is not UTF-8 was (then the
    text is empty: the line is refused unread)."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return "", not_utf8_byte(raw, exc)


def grade_lines(grader: Grader, lines: Iterable[str | bytes], out: TextIO) -> int:
    """Grade every JSON line of ``lines``, writing exactly one JSON line per input line.

    Args:
        grader: the grader over the bank.
        lines: JSON lines, one answer each (:class:`GradeRequest`): text, or bytes (stdin's
            buffer) decoded here as UTF-8, so a line with a byte that is not UTF-8 is an
            error object naming that byte (the other lines are still graded, in order).
        out: where :class:`GradedLine` and :class:`GradeLineError` lines go, in input
            order, each flushed as written.

    Returns:
        The number of lines that produced an error object.
    """
    errors = 0
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            text, not_utf8 = _decode(raw)
        else:
            text, not_utf8 = raw, None
        row = grade_line(grader, number, text, not_utf8=not_utf8)
        errors += isinstance(row, GradeLineError)
        print(row.model_dump_json(), file=out, flush=True)
    return errors


def cmd_grade(args: argparse.Namespace) -> int:
    """Grade JSON lines from stdin, or one answer given on the command line."""
    content = given_pack_paths(args.content, "tutor grade")
    if content is None:
        return 1
    bank = load_bank_or_report(content, "tutor grade")
    if bank is None:
        return 1
    # One answer needs one rubric: compile it when it is graded, not all 50 (1.5-2 s of
    # CPU, most of the start-up). --jsonl, a batch, compiles every rubric first as before.
    grader = Grader(bank, eager=bool(args.jsonl))
    if args.jsonl:
        given = [w for w, on in (("ITEM", args.item), ("--text", args.text is not None)) if on]
        if given:
            print(  # only what was given: "drop ITEM and --text" when only ITEM was
                f"tutor grade: --jsonl reads every answer from stdin; drop {' and '.join(given)}",
                file=sys.stderr,
            )
            return 2
        # The bytes, when stdin has them: a line's UTF-8 fault is then named as such.
        source = sys.stdin.buffer if isinstance(sys.stdin, io.TextIOWrapper) else sys.stdin
        return 1 if grade_lines(grader, source, sys.stdout) else 0
    if not args.item or args.text is None:
        print("tutor grade: give --jsonl, or an ITEM and its --text", file=sys.stderr)
        return 2
    verdict = None if args.verdict is None else args.verdict == "true"
    try:
        response = grader.response(args.item, verdict, args.text)
    except GradingError as exc:
        print(f"tutor grade: {exc}", file=sys.stderr)
        return 2
    kind = grader.item(args.item).kind
    if verdict is not None and kind is not Kind.TRUE_FALSE:
        print(
            f"tutor grade: --verdict {args.verdict} ignored: {args.item} is "
            f"{kind.with_article} item, and only true/false items have a verdict "
            "(the answer text is graded alone, as in tutor play and Discord)",
            file=sys.stderr,
        )
    result = grader.grade(response)
    print(render_feedback(result, grader.item(args.item), flavour="plain"))
    print(
        f"\nlabel={result.label.value} score={result.score:.3f} "
        f"confidence={result.confidence:.2f} hit={result.concepts_hit} "
        f"contradicted={result.concepts_contradicted} misconceptions={result.misconceptions}"
    )
    return 0
