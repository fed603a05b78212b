"""The ``tutor`` command line: one adapter over the domain, one subcommand per module.

Each module listed in :data:`COMMAND_MODULES` exposes ``register(subparsers)``, which adds
its subcommand and sets ``handler`` (a function taking the parsed ``argparse.Namespace`` and
returning the process exit status). Modules are imported lazily so ``tutor content check``
never pays for discord.py.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

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
    parser = argparse.ArgumentParser(
        prog="tutor",
        description="autograd-tutor: trap questions about PyTorch autograd, graded and proven.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI.

    Returns:
        The exit status: 0 on success, 1 when the command found problems, 2 on bad usage.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
