"""``tutor content``: check, verify, test the rubrics of, and export the schema of the packs."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.cli.numbers import fraction
from bot.content.lint import PatternWarning, unmatchable_patterns
from bot.content.loader import Bank, ContentErrors, SourceIndex, load_bank, schema_json
from bot.content.models import Item, canonical_item_id
from bot.content.patterns import Pattern
from bot.content.verify import SandboxRunner, SubprocessRunner, VerifyResult, verify_items
from bot.grading import Grader
from bot.grading.evaluation import EvalReport, MarkedFileError, evaluate, load_marked
from bot.grading.samples import MIN_ACCURACY, SampleReport, evaluate_samples
from sandbox.errors import SandboxError, SandboxStartFailed

SCHEMA_NAME = "schema.json"
MAX_LISTED_SILENT_PATTERNS = 20
"""``content test`` lists the patterns that matched no sample when there are at most this
many (one item's, say); above it, a count (the shipped bank has about 2,000: most are
alternative wordings no sample happens to use), and ``--verbose`` lists them all."""
PATHS_HELP = "pack files or directories (default: $TUTOR_CONTENT_DIR, else content/)"


def _add_item_filter(parser: argparse.ArgumentParser) -> None:
    """``--item ID`` (repeatable, any case): only these items."""
    parser.add_argument(
        "--item",
        action="append",
        default=[],
        type=canonical_item_id,
        help="only these item ids (any case)",
    )


def configured_content(prog: str) -> Path:
    """The packs' directory the front ends load: ``TUTOR_CONTENT_DIR`` (environment, then
    ``.env``), else ``content/``; the default of every command that reads packs.

    Args:
        prog: the command, named before a bad value (``tutor grade``).

    Raises:
        SettingsRefused: ``TUTOR_CONTENT_DIR`` is set to a path that is not a directory,
            after one line ``tutor grade: TUTOR_CONTENT_DIR: the directory '/x' does not
            exist: ...`` on stderr (:func:`bot.cli.main` exits 2 on it).
    """
    from bot.cli.settings_check import SettingsRefused, read_settings
    from bot.settings import ContentSettings

    settings = read_settings(ContentSettings, prog)
    if settings is None:
        raise SettingsRefused(prog)
    return settings.content_dir


def bank_not_found(content: Path, *, given: bool = False) -> str | None:
    """Why the question bank ``content`` cannot be used, when it does not exist.

    The usual cause of a missing default is a front end started outside the checkout,
    where the relative ``content/`` is missing; a path typed on the command line is simply
    wrong, and the checkout or ``TUTOR_CONTENT_DIR`` has nothing to do with it (fresh18 #3).

    Args:
        content: the packs' directory (:func:`configured_content`) or a path given.
        given: ``content`` was typed on the command line (``tutor content check FILE``).

    Returns:
        One sentence naming the path (absolute too, when relative), and for the default
        ``TUTOR_CONTENT_DIR``; None when the path exists.
    """
    if content.exists():
        return None
    where = f"{content}" if content.is_absolute() else f"{content} ({content.absolute()})"
    if given:
        return f"the path given, {where}, does not exist"
    return (
        f"the question bank {where} does not exist: run from the autograd-tutor checkout, "
        "or set TUTOR_CONTENT_DIR to its content/ directory"
    )


def given_pack_paths(texts: Sequence[str] | None, prog: str) -> list[Path] | None:
    """The pack paths typed on the command line, as paths, refusing an empty one.

    The arguments are read as strings, not :class:`~pathlib.Path`: ``Path("")`` is
    ``Path(".")``, so ``tutor content check ""`` checked the working directory (fix19 #1)
    and reported its YAML files (``docker-compose.yml``) as broken packs.

    Args:
        texts: the ``PATH`` arguments (or ``--content`` values) as typed; None or empty
            when none were given.
        prog: the command, named first as in its other errors (``tutor content check``).

    Returns:
        The paths (empty when none were given), or None after one line on stderr when one
        of them is empty (the command then exits 1, as for a path that does not exist).
    """
    if any(not text for text in texts or ()):
        print(
            f"{prog}: a path given is empty: name a pack file or directory, or give none "
            "for the configured one ($TUTOR_CONTENT_DIR, else content/)",
            file=sys.stderr,
        )
        return None
    return [Path(text) for text in texts or ()]


def report_missing_banks(paths: list[Path], prog: str, *, given: bool) -> bool:
    """Print :func:`bank_not_found`'s sentence, after ``prog:``, for each of ``paths`` that
    does not exist.

    Args:
        paths: the packs' paths.
        prog: the command, named first as in its other errors (``tutor grade``).
        given: the paths were typed on the command line, not the configured default.

    Returns:
        True when one was missing (the command then exits 1).
    """
    missing = [bank_not_found(path, given=given) for path in paths]
    for why in missing:
        if why is not None:
            print(f"{prog}: {why}", file=sys.stderr)
    return any(why is not None for why in missing)


def load_bank_or_report(
    paths: Sequence[Path] | None, prog: str, *, given: bool | None = None
) -> Bank | None:
    """Load the packs at ``paths`` (None or empty: the configured content directory), or
    print every problem to stderr after ``prog:`` and return None.

    Each problem is one ``prog: file:line:col: ITEM.field: message`` line, so a command can
    exit 1 without a traceback. A path that does not exist gets :func:`bank_not_found`'s
    sentence (for the default, its absolute path and ``TUTOR_CONTENT_DIR``): a new user
    running ``tutor grade`` outside the checkout saw only "content: cannot read: No such
    file or directory".

    Args:
        paths: the packs' paths.
        prog: the command, named first as in its other errors (``tutor grade``).
        given: ``paths`` were typed on the command line (default: when there are some).
    """
    chosen = list(paths) if paths else [configured_content(prog)]
    if report_missing_banks(chosen, prog, given=bool(paths) if given is None else given):
        return None
    try:
        return load_bank(chosen)
    except ContentErrors as exc:
        for err in exc.errors:
            print(f"{prog}: {err}", file=sys.stderr)
        return None


def select_items(bank: Bank, ids: Sequence[str]) -> list[Item] | None:
    """The items of ``bank`` named by ``ids`` (all of them when ``ids`` is empty), in bank order.

    Returns None after printing ``unknown item id(s): ...`` to stderr when an id is not in
    the bank.
    """
    items = [item for item in bank if not ids or item.id in ids]
    unknown = set(ids) - {item.id for item in items}
    if unknown:
        print(f"unknown item id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return None
    return items


def register(sub: Any) -> None:
    """Add ``tutor content ...`` to the CLI."""
    content = sub.add_parser("content", help="check, verify and test the question packs")
    csub = content.add_subparsers(dest="content_command", metavar="ACTION", required=True)

    check = csub.add_parser(
        "check",
        help="validate every pack; exit 1 on any problem; warn (exit 0) on rubric patterns "
        "that can never match",
    )
    check.add_argument("paths", nargs="*", type=str, metavar="PATH", help=PATHS_HELP)
    check.add_argument(
        "--verbose",
        action="store_true",
        help="also list each dead alternative inside a pattern that still matches "
        "(counted otherwise)",
    )
    check.set_defaults(handler=cmd_check)

    verify = csub.add_parser(
        "verify", help="run every snippet and compare with expected_output; exit 1 on mismatch"
    )
    verify.add_argument("paths", nargs="*", type=str, metavar="PATH", help=PATHS_HELP)
    _add_item_filter(verify)
    verify.add_argument(
        "--python",
        default=None,
        help="interpreter with torch to run snippets in (default: this one)",
    )
    verify.add_argument(
        "--runner",
        choices=["sandbox", "subprocess"],
        default="sandbox",
        help="sandbox: a local isolated warm worker (default); subprocess: a plain "
        "`python -c` per snippet, no isolation",
    )
    verify.add_argument("--show-output", action="store_true", help="print each real output")
    verify.set_defaults(handler=cmd_verify)

    test = csub.add_parser(
        "test",
        help="grade every item's marked samples and its own answer; exit 1 below 95%% "
        "agreement, on an incorrect sample graded correct, or an answer key not graded correct",
    )
    test.add_argument("paths", nargs="*", type=str, metavar="PATH", help=PATHS_HELP)
    _add_item_filter(test)
    test.add_argument(
        "--min-accuracy",
        type=fraction,
        default=MIN_ACCURACY,
        help="the accuracy gate, a fraction from 0 to 1 (default: %(default)s)",
    )
    test.add_argument(
        "--quiet", action="store_true", help="print only the overall line and failures"
    )
    test.add_argument(
        "--verbose",
        action="store_true",
        help=f"list every rubric pattern that matched no sample (file:line and path; "
        f"listed anyway when there are at most {MAX_LISTED_SILENT_PATTERNS}, counted otherwise)",
    )
    test.set_defaults(handler=cmd_test)

    evaluate = csub.add_parser(
        "eval",
        help="grade a marked JSONL file: agreement, confusion matrix, per-item misses; "
        "exit 1 when issue 4's targets are missed",
    )
    evaluate.add_argument("file", type=Path, metavar="FILE.jsonl", help="marked answers")
    evaluate.add_argument(
        "--content", action="append", type=str, default=None, metavar="PATH",
        help=PATHS_HELP,
    )  # fmt: skip
    _add_item_filter(evaluate)
    evaluate.add_argument(
        "--numbers-only",
        action="store_true",
        help="print no answer text (for a held-out split such as tests/grading/eval/test.jsonl)",
    )
    evaluate.set_defaults(handler=cmd_eval)

    schema = csub.add_parser("schema", help="write content/schema.json from the models")
    schema.add_argument(
        "--output",
        type=Path,
        default=None,
        help=f"the file to write (its directory must exist; default: {SCHEMA_NAME} in "
        f"$TUTOR_CONTENT_DIR, else content/{SCHEMA_NAME})",
    )
    schema.set_defaults(handler=cmd_schema)


def cmd_check(args: argparse.Namespace) -> int:
    """Validate packs; print every problem as ``file:line:col: ITEM.field: message``."""
    given = given_pack_paths(args.paths, "tutor content check")
    if given is None:
        return 1
    paths = given or [configured_content("tutor content check")]
    if report_missing_banks(paths, "tutor content check", given=bool(given)):
        return 1
    try:
        bank = load_bank(paths)
    except ContentErrors as exc:
        for err in exc.errors:
            print(err, file=sys.stderr)
        print(f"{len(exc.errors)} problem(s) found", file=sys.stderr)
        return 1
    kinds: dict[str, int] = {}
    for item in bank:
        kinds[item.kind.value] = kinds.get(item.kind.value, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    warnings = unmatchable_patterns(bank)
    # The count on stdout too: a bare "ok" read alone (stderr hidden or scrolled past) said
    # the packs were clean while 24 alternatives were dead (fresh24 #6). Warnings, not
    # problems: exit 0.
    noted = f"; {len(warnings)} pattern warning(s) on stderr" if warnings else ""
    print(f"ok: {len(bank)} items in {len(bank.packs)} pack(s) ({summary}){noted}")
    print_pattern_warnings(warnings, verbose=args.verbose)
    return 0


def print_pattern_warnings(warnings: Sequence[PatternWarning], verbose: bool = False) -> None:
    """Print :func:`bot.content.lint.unmatchable_patterns`' warnings to stderr.

    Patterns that never match are always listed; dead alternatives inside patterns that
    still match are listed with ``verbose``, else counted in one line (the shipped packs
    have about 30).
    """
    never = [w for w in warnings if w.severity == "never matches"]
    dead = [w for w in warnings if w.severity == "dead alternative"]
    for warning in [*never, *(dead if verbose else [])]:
        print(warning, file=sys.stderr)
    if never:
        print(f"warning: {len(never)} rubric pattern(s) can never match", file=sys.stderr)
    if dead:
        more = "" if verbose else " (--verbose lists them)"
        print(
            f"warning: {len(dead)} pattern(s) hold an alternative that can never match{more}",
            file=sys.stderr,
        )


def cmd_verify(args: argparse.Namespace) -> int:
    """Run snippets and diff against ``expected_output``.

    Exit status: 0 when every snippet matches; 1 on a mismatch, invalid content, or a
    local sandbox that did not start (with its last log lines); 2 on an unknown item id
    or, with ``--runner sandbox``, a bad ``TUTOR_SANDBOX_*`` value (one line each).
    """
    given = given_pack_paths(args.paths, "tutor content verify")
    if given is None:
        return 1
    paths = given or [configured_content("tutor content verify")]
    bank = load_bank_or_report(paths, "tutor content verify", given=bool(given))
    if bank is None:
        return 1
    items = select_items(bank, args.item)
    if items is None:
        return 2
    if args.runner == "sandbox":
        from bot.cli.sandbox import bad_sandbox_settings

        if bad_sandbox_settings("tutor content verify"):
            return 2
    runner: SubprocessRunner | SandboxRunner
    if args.runner == "subprocess":
        runner = SubprocessRunner(python=args.python)
    else:
        runner = SandboxRunner(content=paths, python=args.python)

    def progress(done: int, total: int, result: VerifyResult) -> None:
        mark = "ok" if result.matched else "MISMATCH"
        print(
            f"[{done:>3}/{total}] {result.item_id:<6} {mark:<8} "
            f"({result.status}, {result.duration_s * 1000:.0f} ms)",
            flush=True,
        )
        if args.show_output:
            print(result.actual)

    if isinstance(runner, SandboxRunner):
        try:
            with runner:
                results = verify_items(items, runner, progress)
        except SandboxStartFailed as exc:
            print(f"sandbox: {exc.details()}", file=sys.stderr)
            return 1
        except SandboxError as exc:
            print(f"sandbox: {exc}", file=sys.stderr)
            return 1
    else:
        results = verify_items(items, runner, progress)
    bad = [r for r in results if not r.matched]
    for result in bad:
        print(f"\n--- {result.item_id}: {result.status}", file=sys.stderr)
        if result.diff:
            print(result.diff, file=sys.stderr)
        else:
            print(result.actual or "(no output)", file=sys.stderr)
    print(f"\n{len(results) - len(bad)}/{len(results)} snippets match their expected_output")
    return 1 if bad else 0


def _short(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _at(sources: SourceIndex | None, where: str) -> str:
    """``file:line: `` of the node ``where`` (``TF1.samples[3]``), or "" when unknown."""
    found = sources.locate(where) if sources is not None else None
    return f"{found}: " if found is not None else ""


def print_sample_report(
    report: SampleReport, quiet: bool = False, sources: SourceIndex | None = None
) -> None:
    """Print the per-item table, every misgraded sample, and the overall line.

    Args:
        report: the graded samples.
        quiet: print only the failures and the overall lines.
        sources: where each item's nodes are, so a misgraded sample or answer key starts
            with its ``file:line:`` (as ``content check`` names problems); None: no positions.
    """
    if not quiet:
        print(f"{'item':<7}{'samples':>8}{'agree':>7}{'acc':>7}{'false+':>8}{'false-':>8}  silent")
    for item in report.items:
        silent = [*item.silent_concepts, *(f"!{m}" for m in item.silent_misconceptions)]
        if not quiet:
            accuracy = item.agreed / item.total if item.total else 1.0
            print(
                f"{item.item_id:<7}{item.total:>8}{item.agreed:>7}{accuracy:>7.0%}"
                f"{item.false_accepts:>8}{item.false_rejects:>8}  {', '.join(silent) or '-'}"
            )
        for outcome in item.outcomes:
            if outcome.ok:
                continue
            worst = (
                " INCORRECT GRADED CORRECT"
                if outcome.expected.value == "incorrect" and (outcome.got.value == "correct")
                else ""
            )
            at = _at(sources, f"{item.item_id}.samples[{outcome.index}]")
            print(
                f"    {at}{item.item_id}[{outcome.index}] marked {outcome.expected.value}, graded "
                f"{outcome.got.value} (score {outcome.score:.2f}, confidence "
                f"{outcome.confidence:.2f}){worst}: {_short(outcome.text)}"
            )
        if not item.answer.ok:
            at = _at(sources, f"{item.item_id}.answer.text")
            print(
                f"    {at}{item.item_id}[answer] the item's own answer graded "
                f"{item.answer.got.value} (score {item.answer.score:.2f}) ANSWER KEY NOT "
                f"CORRECT: {_short(item.answer.text)}"
            )
    false_accepts = sum(i.false_accepts for i in report.items)
    false_rejects = sum(i.false_rejects for i in report.items)
    agreed = sum(i.agreed for i in report.items)
    keys = len(report.items) - len(report.answers_not_correct)
    print(f"answer keys: {keys}/{len(report.items)} graded correct")
    print(
        f"overall: {agreed}/{report.total} samples agree ({report.accuracy:.1%}); "
        f"{false_accepts} false accepts, {false_rejects} false rejects; "
        f"{report.incorrect_as_correct} incorrect graded correct"
    )


def _pattern_text(item: Item, path: str) -> str:
    """The source of the rubric pattern at ``path`` (``rubric.concepts[0].patterns[2]``)."""
    found = re.fullmatch(r"rubric\.(concepts|misconceptions)\[(\d+)\]\.patterns\[(\d+)\]", path)
    pattern: Pattern
    if found:
        rules = item.rubric.concepts if found[1] == "concepts" else item.rubric.misconceptions
        pattern = rules[int(found[2])].patterns[int(found[3])]
    else:
        pattern = item.rubric.gist[int(path.removeprefix("rubric.gist[").rstrip("]"))]
    if isinstance(pattern, str):
        return repr(pattern)
    return repr(pattern.model_dump(exclude_defaults=True))


def print_silent_patterns(
    bank: Bank, report: SampleReport, sources: SourceIndex, verbose: bool = False
) -> None:
    """Print the rubric patterns that matched no sample (nor the answer key), as warnings.

    Each is ``file:line: TF1.rubric.concepts[0].patterns[2]: warning: pattern 'x' matched
    no sample`` on stdout; listed when there are at most
    :data:`MAX_LISTED_SILENT_PATTERNS` or with ``verbose``, else counted in one line. They
    never change the exit status: most are wordings no sample uses yet.
    """
    silent = [(item.item_id, path) for item in report.items for path in item.silent_patterns]
    if not silent:
        return
    if verbose or len(silent) <= MAX_LISTED_SILENT_PATTERNS:
        for item_id, path in silent:
            where = f"{item_id}.{path}"
            text = _pattern_text(bank.items[item_id], path)
            print(f"{_at(sources, where)}{where}: warning: pattern {text} matched no sample")
        print(f"warning: {len(silent)} rubric pattern(s) matched no sample")
    else:
        print(
            f"warning: {len(silent)} rubric pattern(s) matched no sample "
            "(--verbose lists them with file:line)"
        )


def cmd_test(args: argparse.Namespace) -> int:
    """Grade every item's samples; exit 1 below the accuracy gate or on incorrect-as-correct."""
    given = given_pack_paths(args.paths, "tutor content test")
    if given is None:
        return 1
    bank = load_bank_or_report(given, "tutor content test")
    if bank is None:
        return 1
    items = select_items(bank, args.item)
    if items is None:
        return 2
    report = evaluate_samples(items)
    sources = SourceIndex(bank)
    print_sample_report(report, quiet=args.quiet, sources=sources)
    print_silent_patterns(bank, report, sources, verbose=args.verbose)
    if report.passes(args.min_accuracy):
        return 0
    print(
        f"FAILED: needs at least {args.min_accuracy:.0%} agreement, no incorrect sample "
        "graded correct, and every item's own answer graded correct",
        file=sys.stderr,
    )
    return 1


def print_eval_report(report: EvalReport, numbers_only: bool = False) -> None:
    """Print the targets, the confusion matrix, the per-item table and (unless
    ``numbers_only``) every miss with its text."""
    print(report.targets_summary())
    print()
    print(report.confusion_table())
    print()
    print(report.item_table())
    misses = report.misses
    if numbers_only or not misses:
        return
    print(f"\n{len(misses)} misses:")
    for g in misses:
        answer = g.answer
        got = g.got.value if g.got else f"refused ({g.error})"
        tags = ", ".join(t for t in (answer.style, "opposite claim" * answer.opposite_claim) if t)
        verdict = "" if answer.verdict is None else f" [{'true' if answer.verdict else 'false'}]"
        print(
            f"  {answer.item_id:<5} line {answer.line:<4} marked {answer.label.value}, graded "
            f"{got} (score {g.score:.2f}, confidence {g.confidence:.2f})"
            f"{f' {{{tags}}}' if tags else ''}{verdict}: {_short(answer.text)}"
        )


def cmd_eval(args: argparse.Namespace) -> int:
    """Grade a marked JSONL file and print how the grader fared; exit 1 below the targets."""
    content = given_pack_paths(args.content, "tutor content eval")
    if content is None:
        return 1
    bank = load_bank_or_report(content, "tutor content eval")
    if bank is None:
        return 1
    try:
        answers = load_marked(args.file)
    except MarkedFileError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    if args.item:
        unknown = set(args.item) - {a.item_id for a in answers}
        if unknown:
            print(f"no answers for item id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        answers = [a for a in answers if a.item_id in args.item]
    report = evaluate(Grader(bank), answers)
    items = len({a.item_id for a in answers})
    print(f"{report.total} marked answers to {items} items in {args.file}\n")
    print_eval_report(report, numbers_only=args.numbers_only)
    return 0 if report.meets_targets() else 1


def cmd_schema(args: argparse.Namespace) -> int:
    """Write the JSON Schema for editors, atomically (a temp file renamed over the old one).

    Exit status: 0 once written; 2 when the path cannot name a file (a directory, or its
    directory is missing: none is created); 1 when writing failed (no space, permission
    denied...), the old file, if any, left as it was. Each failure is one line naming
    the path and the reason.
    """
    from bot.cli.files import new_file_problem
    from bot.files import write_text_atomically

    output = args.output or configured_content("tutor content schema") / SCHEMA_NAME
    flag = "--output " if args.output is not None else ""
    if problem := new_file_problem(output):
        print(f"tutor content schema: {flag}{output}: {problem}", file=sys.stderr)
        return 2
    try:
        write_text_atomically(output, schema_json())
    except OSError as exc:
        why = exc.strerror or str(exc)
        print(f"tutor content schema: cannot write {output}: {why}", file=sys.stderr)
        return 1
    print(f"wrote {output}", file=sys.stderr)  # stdout may be the file (--output /dev/stdout)
    return 0
