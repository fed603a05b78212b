"""The ``tutor`` command line: one adapter over the domain, one subcommand per module.

Each module listed in :data:`COMMAND_MODULES` exposes ``register(subparsers)``, which adds
its subcommand and sets ``handler`` (a function taking the parsed ``argparse.Namespace`` and
returning the process exit status). Modules are imported lazily so ``tutor content check``
never pays for discord.py.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import sys
from collections.abc import Sequence
from typing import TextIO

COMMAND_MODULES: tuple[str, ...] = (
    "bot.cli.content",
    "bot.cli.grade",
    "bot.cli.stats",
    "bot.cli.play",
    "bot.cli.health",
    "bot.cli.sandbox",
    "bot.cli.bot",
)
"""Modules that contribute subcommands, in help order."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (every subcommand registered)."""
    from bot.cli.settings_check import SETTINGS_READ

    read = "".join(f"  {commands}: {which}\n" for commands, which in SETTINGS_READ.items())
    parser = argparse.ArgumentParser(
        prog="tutor",
        description="autograd-tutor: trap questions about PyTorch autograd, graded and proven.",
        epilog="Settings come from TUTOR_* variables, then .env (a variable set in the "
        "environment wins,\neven empty: NAME= means the default). A bad value stops every "
        "command that\nreads it (exit 2, naming it), and no other; the commands read:\n" + read,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for command in sub.choices.values():
        # main() reports a stray argument with the subcommand's own usage, not tutor's.
        command.set_defaults(command_parser=command)
    return parser


def tolerant_stdin(stream: TextIO) -> None:
    """Decode ``stream`` as UTF-8 with undecodable bytes replaced by U+FFFD.

    Piped answers and keys typed on a terminal (``input()`` decodes with the stream's
    encoding and error handler too) then never raise :class:`UnicodeDecodeError` nor carry
    ``surrogateescape``'s lone surrogates: ``caf\\xe9`` reads as ``caf\ufffd``. A stream
    that is not a real text file (a test's ``StringIO``) is left alone.

    Args:
        stream: usually ``sys.stdin``, before anything was read from it (a stream already
            read from is left as it is: Python cannot change its decoder any more).
    """
    if isinstance(stream, io.TextIOWrapper):
        # A stream already read from cannot be changed (main() runs before any read).
        with contextlib.suppress(io.UnsupportedOperation):
            stream.reconfigure(encoding="utf-8", errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI.

    Standard input is decoded as UTF-8 with undecodable bytes replaced
    (:func:`tolerant_stdin`).

    Returns:
        The exit status: 0 on success, 1 when the command found problems, 2 on bad usage
        (argparse prints the subcommand's usage: ``tutor play --bogus`` shows play's, and
        ``tutor --bogus`` names the option rather than a missing command) or
        a ``.env`` that cannot be used (:func:`bot.settings.check_env_file`) or a bad
        ``TUTOR_*`` setting the command reads (:class:`~bot.cli.settings_check.
        SettingsRefused`, or the command's own check). A ``TUTOR_*``
        name in ``.env`` that no setting has is one warning line, never a stop
        (:func:`bot.settings.env_file_unknown_names`).
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        # argparse reports the missing COMMAND first, which hides the real mistake (fresh9)
        parser.error(f"unrecognized option {argv[0]}: options go after a command (tutor --help)")
    args, extra = parser.parse_known_args(argv)
    if extra:
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    tolerant_stdin(sys.stdin)
    from bot.cli.settings_check import SettingsRefused, known_setting_names
    from bot.settings import EnvFileError, check_env_file, env_file_unknown_names

    # "tutor content check", not "tutor content": the prefix names the action too
    action = getattr(args, f"{args.command}_command", None)
    prefix = f"tutor {args.command}" + (f" {action}" if action else "")
    try:
        check_env_file()  # every command reads settings from it (sandbox's too)
    except EnvFileError as exc:
        print(f"{prefix}: {exc}", file=sys.stderr)
        return 2
    for warning in env_file_unknown_names(known_setting_names()):
        print(f"{prefix}: warning: {warning}", file=sys.stderr)
    try:
        return int(args.handler(args))
    except SettingsRefused:  # each problem was printed, naming the command and the setting
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
