"""``tutor play``: the tutor in a terminal, with embedded defaults and no Discord token.

The composition root of the terminal front end: builds :class:`TutorSettings` (environment,
``.env``, then the flags below), opens the services (the question bank, the grader, the
SQLite store at ``data/tutor.db``, a local sandbox worker started and stopped with the
session) and runs one of two front ends:

* interactive (standard input is a terminal): menus and panels, see
  :mod:`bot.play.terminal`;
* the line protocol (input piped, or ``--script``/``--json``): one command per line, see
  :mod:`bot.play.protocol`.

Exit status: 0; 1 when a script line was refused, the content is invalid or the database
cannot be opened; 2 on bad settings or flags (``TUTOR_SANDBOX_*`` ones too, when a local
worker would be started); 130 after Ctrl-C. A local worker that fails to start does not
stop the session: the reason (its last log line) is shown with the sandbox's state, and
``TUTOR_LOG_LEVEL=DEBUG`` prints its last log lines.
"""

from __future__ import annotations

import argparse
import logging
import random
import sqlite3
import sys
from contextlib import ExitStack
from typing import Any

from bot.cli.stats import _snowflake, add_db_argument
from bot.settings import LOCAL_SANDBOX, TutorSettings


def opening_text(settings: TutorSettings, *, sandbox_off: bool) -> str:
    """What the interactive start-up spinner says: a local worker is started only when
    the sandbox is ``local`` and not turned off."""
    if sandbox_off:
        return "Opening the question bank and the database (the sandbox is off)"
    if settings.sandbox_address == LOCAL_SANDBOX:
        # under 80 columns with rich's spinner: a wrapped status line repeats on every tick
        return "Opening the bank and starting the sandbox worker (torch loads, ~10 s)"
    return f"Opening the bank and asking the sandbox at {settings.sandbox_address}"


def register(sub: Any) -> None:
    """Add ``tutor play`` to the CLI."""
    play = sub.add_parser(
        "play",
        help="the tutor in this terminal (no Discord needed); pipe commands in to script it",
        description="Answer trap questions about PyTorch autograd in the terminal. "
        "Interactive on a terminal; with piped input (or --script) it reads one command "
        "per line: quiz [kind=K] [topic=T] [difficulty=N] | item ID | review | hint | "
        "verdict true|false | answer TEXT | skip | stats | topics | graph DIR | quit.",
    )
    play.add_argument(
        "--learner",
        type=_snowflake,
        default=None,
        metavar="ID",
        help="learner id to record as (default: $TUTOR_PLAY_LEARNER_ID or 1)",
    )
    add_db_argument(play, "SQLite file")
    play.add_argument(
        "--sandbox",
        default=None,
        metavar="ADDRESS",
        help="local (start a worker; the default), off (show recorded outputs), "
        "unix:/path.sock or http://host:port (default: $TUTOR_SANDBOX_ADDRESS)",
    )
    play.add_argument(
        "--script", action="store_true", help="read the line protocol even on a terminal"
    )
    play.add_argument(
        "--json", action="store_true", help="line protocol with one JSON event per line"
    )
    play.add_argument(
        "--seed", type=int, default=None, help="seed the choice of questions (reproducible)"
    )
    play.set_defaults(handler=cmd_play)


def _settings(args: argparse.Namespace) -> TutorSettings | None:
    """The settings with the flags applied, or None after naming each bad value."""
    from bot.cli.settings_check import read_settings

    overrides: dict[str, object] = {}
    if args.db is not None:
        overrides["database_path"] = args.db
    if args.sandbox is not None and args.sandbox != "off":
        overrides["sandbox_address"] = args.sandbox
    return read_settings(
        TutorSettings,
        "tutor play",
        overrides,
        flags={"database_path": "--db", "sandbox_address": "--sandbox"},
        # the flag also takes off, which the variable does not
        messages={
            "sandbox_address": "must be local, off (no sandbox: show the recorded outputs), "
            "unix:/path/to.sock or http://host:port (several workers separated by "
            f"commas), got {args.sandbox!r}"
        },
    )


def _configure_logging(settings: TutorSettings) -> None:
    """Errors only, unless ``TUTOR_LOG_LEVEL`` is set: the session's events already say
    what a learner needs (e.g. that an output is the recorded one)."""
    level = settings.log_level if "log_level" in settings.model_fields_set else "ERROR"
    logging.basicConfig(
        level=logging.getLevelNamesMapping()[level],
        stream=sys.stderr,
        format="tutor play: %(levelname)s %(name)s: %(message)s",
    )


def cmd_play(args: argparse.Namespace) -> int:
    """Open the services and run the interactive or the scripted front end."""
    from rich.console import Console

    from bot.content.loader import ContentErrors
    from bot.play.app import open_play
    from bot.play.script import run_script
    from bot.play.session import INTERACTIVE_WORDS, SCRIPT_WORDS, PlaySession
    from bot.play.terminal import run_interactive

    settings = _settings(args)
    if settings is None:
        return 2
    if args.sandbox != "off" and settings.sandbox_endpoint.kind == "local":
        from bot.cli.sandbox import bad_sandbox_settings

        if bad_sandbox_settings("tutor play"):
            return 2
    _configure_logging(settings)
    learner = args.learner if args.learner is not None else settings.play_learner_id
    interactive = sys.stdin.isatty() and not (args.script or args.json)
    sandbox_off = args.sandbox == "off"
    console = Console(highlight=False)
    try:
        with ExitStack() as stack:
            if interactive:
                with console.status(opening_text(settings, sandbox_off=sandbox_off)):
                    context = stack.enter_context(open_play(settings, sandbox_off=sandbox_off))
            else:
                context = stack.enter_context(open_play(settings, sandbox_off=sandbox_off))
            session = PlaySession(
                context.services,
                learner,
                measure_time=interactive,
                rng=random.Random(args.seed),  # noqa: S311 - choosing questions
                words=INTERACTIVE_WORDS if interactive else SCRIPT_WORDS,
            )
            if interactive:
                return run_interactive(context, session, console)
            return run_script(context, session, sys.stdin, sys.stdout, sys.stderr, json=args.json)
    except ContentErrors as exc:
        from bot.cli.content import bank_not_found

        missing = bank_not_found(settings.content_dir)
        for err in [missing] if missing else exc.errors:  # prefixed as tutor grade does
            print(f"tutor play: {err}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:
        from bot.progress.db import describe_open_error

        why = describe_open_error(settings.database_path, exc)
        print(
            f"tutor play: cannot open the progress database {settings.database_path}: {why}",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("tutor play: interrupted; every answer graded so far is saved", file=sys.stderr)
        return 130
