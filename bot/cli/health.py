"""``tutor health``: exit 0 when the tutor is healthy, 1 otherwise (Docker healthchecks).

``tutor health`` checks the database and the sandbox; ``--db PATH`` names the database to
check, as for ``tutor play`` and ``tutor stats`` (else ``TUTOR_DATABASE_PATH``, else
``data/tutor.db``; an empty or directory ``--db`` exits 2 naming the flag); ``--check
NAME`` (repeatable) picks checks from ``database``, ``sandbox`` and ``heartbeat`` (the
running bot's heartbeat file, see :mod:`bot.health`). With ``TUTOR_SANDBOX_ADDRESS=local``
(the default) the sandbox check starts a worker, asks it and stops it (about 10 s: it loads
torch), so a bad ``TUTOR_SANDBOX_*`` value exits 2 first, naming the variable (or
``--sandbox``, when the flag gave the bad address; ``--sandbox off``, which ``tutor play``
accepts, is refused here: there is no worker to check, and ``--check database`` leaves the
sandbox out). One line per check (``ok   sandbox: ...`` / ``FAIL ...``), or the results as
JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from typing import Any

from bot.cli.stats import add_db_argument
from bot.settings import TutorSettings


def _positive_seconds(text: str) -> float:
    """argparse type of ``--max-age``: a finite number of seconds above 0.

    Raises:
        argparse.ArgumentTypeError: ``-1``, ``0``, ``nan``, ``inf`` or no number, named.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"{text} is not a positive number of seconds (the heartbeat's oldest age, e.g. 90)"
        )
    return value


def register(sub: Any) -> None:
    """Add ``tutor health`` to the CLI."""
    from bot.health import CHECKS, HEARTBEAT_MAX_AGE_S

    health = sub.add_parser(
        "health", help="check the database, the sandbox and the bot's heartbeat; exit 1 if not"
    )
    health.add_argument(
        "--check",
        action="append",
        choices=CHECKS,
        default=None,
        help="a check to run (repeatable; default: database and sandbox)",
    )
    add_db_argument(health, "the SQLite file to check")
    health.add_argument(
        "--sandbox",
        default=None,
        metavar="ADDRESS",
        help="the worker to ask (default: $TUTOR_SANDBOX_ADDRESS)",
    )
    health.add_argument(
        "--max-age",
        type=_positive_seconds,
        default=HEARTBEAT_MAX_AGE_S,
        metavar="SECONDS",
        help="oldest acceptable heartbeat and gateway connection (default: %(default)g)",
    )
    health.add_argument("--json", action="store_true", help="print the results as JSON")
    health.set_defaults(handler=cmd_health)


def cmd_health(args: argparse.Namespace) -> int:
    """Run the checks; 0 when all pass, 1 when one fails, 2 on bad settings."""
    from bot.cli.settings_check import read_settings
    from bot.health import run_checks

    if args.sandbox == "off":
        print(
            "tutor health: --sandbox off: health checks a running sandbox worker, and with "
            "off there is none to check; leave the sandbox check out with --check database "
            "(and --check heartbeat)",
            file=sys.stderr,
        )
        return 2
    overrides: dict[str, object] = {"sandbox_address": args.sandbox} if args.sandbox else {}
    if args.db is not None:
        overrides["database_path"] = args.db
    settings = read_settings(
        TutorSettings,
        "tutor health",
        overrides,
        flags={"sandbox_address": "--sandbox", "database_path": "--db"},
    )
    if settings is None:
        return 2
    names = tuple(args.check or ("database", "sandbox"))
    if "sandbox" in names and settings.sandbox_endpoint.kind == "local":
        from bot.cli.sandbox import bad_sandbox_settings

        if bad_sandbox_settings("tutor health"):  # the local worker would be started with them
            return 2
    results = asyncio.run(run_checks(settings, names, max_age_s=args.max_age))
    if args.json:
        print(json.dumps([r.model_dump() for r in results]))
    else:
        for result in results:
            print(f"{'ok  ' if result.ok else 'FAIL'} {result.name}: {result.detail}")
    return 0 if all(r.ok for r in results) else 1
