"""``tutor content``: check, verify and export the schema of the question packs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.content.loader import ContentErrors, load_bank, schema_json
from bot.content.verify import SandboxRunner, SubprocessRunner, VerifyResult, verify_items
from sandbox.errors import SandboxError

DEFAULT_CONTENT = Path("content")
SCHEMA_PATH = DEFAULT_CONTENT / "schema.json"


def register(sub: Any) -> None:
    """Add ``tutor content ...`` to the CLI."""
    content = sub.add_parser("content", help="check, verify and test the question packs")
    csub = content.add_subparsers(dest="content_command", metavar="ACTION", required=True)

    check = csub.add_parser("check", help="validate every pack; exit 1 on any problem")
    check.add_argument("paths", nargs="*", type=Path, default=[DEFAULT_CONTENT], metavar="PATH")
    check.set_defaults(handler=cmd_check)

    verify = csub.add_parser(
        "verify", help="run every snippet and compare with expected_output; exit 1 on mismatch"
    )
    verify.add_argument("paths", nargs="*", type=Path, default=[DEFAULT_CONTENT], metavar="PATH")
    verify.add_argument("--item", action="append", default=[], help="only these item ids")
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

    schema = csub.add_parser("schema", help="write content/schema.json from the models")
    schema.add_argument("--output", type=Path, default=SCHEMA_PATH)
    schema.set_defaults(handler=cmd_schema)


def cmd_check(args: argparse.Namespace) -> int:
    """Validate packs; print every problem as ``file:line:col: ITEM.field: message``."""
    try:
        bank = load_bank(args.paths)
    except ContentErrors as exc:
        for err in exc.errors:
            print(err, file=sys.stderr)
        print(f"{len(exc.errors)} problem(s) found", file=sys.stderr)
        return 1
    kinds: dict[str, int] = {}
    for item in bank:
        kinds[item.kind.value] = kinds.get(item.kind.value, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    print(f"ok: {len(bank)} items in {len(bank.packs)} pack(s) ({summary})")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Run snippets and diff against ``expected_output``."""
    try:
        bank = load_bank(args.paths)
    except ContentErrors as exc:
        for err in exc.errors:
            print(err, file=sys.stderr)
        return 1
    items = [item for item in bank if not args.item or item.id in args.item]
    unknown = set(args.item) - {item.id for item in items}
    if unknown:
        print(f"unknown item id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    runner: SubprocessRunner | SandboxRunner
    if args.runner == "subprocess":
        runner = SubprocessRunner(python=args.python)
    else:
        runner = SandboxRunner(content=args.paths, python=args.python)

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


def cmd_schema(args: argparse.Namespace) -> int:
    """Write the JSON Schema for editors."""
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(schema_json(), encoding="utf-8")
    print(f"wrote {args.output}")
    return 0
