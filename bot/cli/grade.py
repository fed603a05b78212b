"""``tutor grade``: grade answers from the command line.

``tutor grade --jsonl`` is the contract for tools and tests: it reads JSON lines on stdin,
one answer each, and writes one JSON line per answer, in order::

    in:  {"item_id": "TF3", "verdict": false, "text": "nope, grads pile up"}
    out: {"item_id": "TF3", "score": 0.85, "label": "correct", "verdict": false, ...}

Fields other than ``item_id``/``verdict``/``text`` are ignored (an evaluation set may carry
its labels). A line that cannot be graded gives an error object instead of a result, and
the run goes on::

    {"line": 3, "item_id": "TF99", "error": "unknown_item", "message": "unknown item id 'TF99'"}

Errors: ``invalid_json``, ``invalid_request`` (missing/ill-typed fields), ``unknown_item``,
``answer_too_long`` (over 4,000 characters). Blank lines are skipped. The exit status is 0
even when some lines had errors (they are data, not failures), 1 when the content is invalid.

``tutor grade ITEM --text "..." [--verdict true|false]`` grades one answer and prints the
feedback a learner would see, as plain terminal text (``tutor play``'s words, without the
Discord markdown), then the grade's numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Literal, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.content.loader import ContentErrors, load_bank
from bot.grading import AnswerTooLong, Grader, GradingError, UnknownItem, render_feedback
from bot.grading.models import MAX_ANSWER_CHARS, Response

DEFAULT_CONTENT = Path("content")


class GradeRequest(BaseModel):
    """One input line of ``tutor grade --jsonl``."""

    model_config = ConfigDict(extra="ignore")

    item_id: str
    verdict: bool | None = None
    text: str


class GradeLineError(BaseModel):
    """One output line for an input that could not be graded."""

    model_config = ConfigDict(extra="forbid")

    line: int
    item_id: str | None
    error: Literal["invalid_json", "invalid_request", "unknown_item", "answer_too_long"]
    message: str


def register(sub: Any) -> None:
    """Add ``tutor grade`` to the CLI."""
    grade = sub.add_parser(
        "grade", help="grade answers: --jsonl on stdin/stdout, or one ITEM --text"
    )
    grade.add_argument("item", nargs="?", help="item id, to grade one answer given by --text")
    grade.add_argument("--text", help="the answer to grade (with ITEM)")
    grade.add_argument(
        "--verdict", choices=["true", "false"], help="the true/false button pressed (with ITEM)"
    )
    grade.add_argument(
        "--jsonl", action="store_true", help="read JSON lines on stdin, write results as JSON"
    )
    grade.add_argument(
        "--content", action="append", type=Path, default=None, metavar="PATH",
        help="pack files or directories (default: content/)",
    )  # fmt: skip
    grade.set_defaults(handler=cmd_grade)


def _error(line: int, item_id: str | None, kind: str, message: str) -> str:
    error = GradeLineError.model_validate(
        {"line": line, "item_id": item_id, "error": kind, "message": message}
    )
    return error.model_dump_json()


def grade_lines(grader: Grader, lines: TextIO, out: TextIO) -> int:
    """Grade every JSON line of ``lines``, writing one JSON line per input to ``out``.

    Returns:
        The number of lines that produced an error object.
    """
    errors = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            errors += 1
            print(_error(number, None, "invalid_json", f"not JSON: {exc.msg}"), file=out)
            continue
        item_id = data.get("item_id") if isinstance(data, dict) else None
        item_id = item_id[:16] if isinstance(item_id, str) else None
        text = data.get("text") if isinstance(data, dict) else None
        if isinstance(text, str) and len(text) > MAX_ANSWER_CHARS:
            errors += 1
            message = str(AnswerTooLong(len(text)))
            print(_error(number, item_id, "answer_too_long", message), file=out)
            continue
        try:
            request = GradeRequest.model_validate(data)
            response = Response(
                item_id=request.item_id[:16] or "?", verdict=request.verdict, text=request.text
            )
            result = grader.grade(response)
        except ValidationError as exc:
            errors += 1
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            message = f"{where}: {first['msg']}"
            print(_error(number, item_id, "invalid_request", message), file=out)
            continue
        except UnknownItem as exc:
            errors += 1
            print(_error(number, exc.item_id, "unknown_item", str(exc)), file=out)
            continue
        except GradingError as exc:  # pragma: no cover - AnswerTooLong is caught above
            errors += 1
            print(_error(number, item_id, "answer_too_long", str(exc)), file=out)
            continue
        print(result.model_dump_json(), file=out, flush=True)
    return errors


def cmd_grade(args: argparse.Namespace) -> int:
    """Grade JSON lines from stdin, or one answer given on the command line."""
    try:
        bank = load_bank(args.content or [DEFAULT_CONTENT])
    except ContentErrors as exc:
        for err in exc.errors:
            print(err, file=sys.stderr)
        return 1
    grader = Grader(bank)
    if args.jsonl:
        if args.item or args.text is not None:
            print("--jsonl reads every answer from stdin; drop ITEM and --text", file=sys.stderr)
            return 2
        grade_lines(grader, sys.stdin, sys.stdout)
        return 0
    if not args.item or args.text is None:
        print("give --jsonl, or an ITEM and its --text", file=sys.stderr)
        return 2
    verdict = None if args.verdict is None else args.verdict == "true"
    try:
        response = grader.response(args.item, verdict, args.text)
    except GradingError as exc:
        print(exc, file=sys.stderr)
        return 2
    result = grader.grade(response)
    print(render_feedback(result, grader.item(args.item), flavour="plain"))
    print(
        f"\nlabel={result.label.value} score={result.score:.3f} "
        f"confidence={result.confidence:.2f} hit={result.concepts_hit} "
        f"contradicted={result.concepts_contradicted} misconceptions={result.misconceptions}"
    )
    return 0
