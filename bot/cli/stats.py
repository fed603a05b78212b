"""``tutor stats``: a learner's progress from the SQLite store, for people or tools.

``tutor stats [--learner ID] [--guild ID] --json`` prints :class:`LearnerStats` as JSON (the
contract for tools); without ``--json`` a short text summary. Without ``--learner`` it is
the terminal player's (``TUTOR_PLAY_LEARNER_ID``, else 1), as ``tutor play`` records.
The database is ``--db PATH``, else ``TUTOR_DATABASE_PATH`` (environment, then ``.env``,
as for every command), else ``data/tutor.db``, and stderr names the file read; a missing file is an
error (reading stats never creates a database), and the file is opened read-only: a
copy or a read-only mount of a server's database can be read. The store is imported only when the
command runs, so other ``tutor`` commands never load sqlite-utils.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.progress.models import LearnerStats
    from bot.progress.settings import ProgressSettings

MAX_SNOWFLAKE = 2**63 - 1


def _snowflake(text: str) -> int:
    """argparse type: a Discord id (positive 64-bit integer)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a Discord id (digits only)") from None
    if not 0 < value <= MAX_SNOWFLAKE:
        raise argparse.ArgumentTypeError(f"{text} is not a Discord id (1 to 2^63-1)")
    return value


def add_db_argument(parser: argparse.ArgumentParser, help_text: str = "the SQLite file") -> None:
    """Add the ``--db PATH`` flag that ``tutor play``, ``tutor stats`` and ``tutor health``
    share; its value overrides ``database_path`` and is reported as ``--db`` when bad.

    The type is ``str``, not ``Path``: ``Path("")`` is ``"."``, and an empty ``--db`` must be
    refused as empty.
    """
    parser.add_argument(
        "--db",
        type=str,
        default=None,
        metavar="PATH",
        help=f"{help_text} (default: $TUTOR_DATABASE_PATH or data/tutor.db)",
    )


def register(sub: Any) -> None:
    """Add ``tutor stats`` to the CLI."""
    stats = sub.add_parser("stats", help="print a learner's progress (accuracy, streaks, ...)")
    stats.add_argument(
        "--learner",
        type=_snowflake,
        default=None,
        metavar="ID",
        help="the learner's Discord user id (default: the one tutor play records as, "
        "$TUTOR_PLAY_LEARNER_ID, else 1)",
    )
    stats.add_argument(
        "--guild", type=_snowflake, default=None, metavar="ID", help="only this guild"
    )
    stats.add_argument("--json", action="store_true", help="print the LearnerStats JSON")
    add_db_argument(stats)
    stats.set_defaults(handler=cmd_stats)


POINTS_NOTE = " (points are earned only in a Discord server; tutor play earns none)"
"""Why a learner who only played in the terminal has 0 points (docs/PROGRESS.md)."""


def render_text(stats: LearnerStats) -> str:
    """The human summary printed without ``--json``: concepts by their learner-facing words
    (the ids are an author's names), only those the bank still describes."""
    from bot.progress.stats import concepts_to_work_on, describe_reviews

    scope = f"guild {stats.guild_id}" if stats.guild_id is not None else "everywhere"
    lines = [f"learner {stats.learner_id} ({scope}, days in {stats.time_zone})"]
    if not stats.attempts:
        lines.append("no attempts recorded yet")
        return "\n".join(lines)
    lines += [
        f"attempts: {stats.attempts} on {stats.items_attempted} item(s)",
        f"accuracy: {stats.accuracy:.0%}   average score: {stats.average_score:.2f}   "
        f"first try right: {stats.first_try_rate:.0%}",
        f"streak: {stats.streaks.current} day(s), best {stats.streaks.best}   "
        f"points: {stats.points}{POINTS_NOTE if not stats.points else ''}",
        f"reviews: {describe_reviews(stats, 'tutor play, then review')}",
    ]
    if stats.by_kind:
        kinds = ", ".join(f"{a.key} {a.accuracy:.0%} ({a.attempts})" for a in stats.by_kind)
        lines.append(f"by kind: {kinds}")
    weak = concepts_to_work_on(stats)
    if weak:
        lines.append("to work on (credited / asked for):")
        lines += [f"  {c.description} ({c.hits}/{c.hits + c.misses})" for c in weak]
    if stats.weakest_items:
        items = ", ".join(f"{i.item_id} {i.average_score:.2f}" for i in stats.weakest_items)
        lines.append(f"weakest items: {items}")
    return "\n".join(lines)


def _concept_descriptions(content: Path) -> dict[str, str]:
    """The concept words of the bank at ``content``; none (so no concept is shown) when it
    cannot be loaded, after one line on stderr saying why the "to work on" section is
    missing (``tutor content check`` lists every problem of a broken bank)."""
    from bot.cli.content import bank_not_found
    from bot.content.loader import ContentErrors, load_bank

    try:
        return load_bank([content]).concept_descriptions()
    except ContentErrors as exc:
        why = bank_not_found(content) or (
            f"the question bank {content} has errors (first: {exc.errors[0]}; "
            "tutor content check lists them)"
        )
        print(f'tutor stats: no "to work on" concepts: {why}', file=sys.stderr)
        return {}


async def _read(
    settings: ProgressSettings, learner_id: int, guild_id: int | None, content: Path
) -> LearnerStats:
    from bot.progress.stats import describe_concepts
    from bot.progress.store import ProgressStore

    async with ProgressStore.from_settings(settings, read_only=True) as store:
        if store.ignored_wal is not None:
            print(
                f"tutor stats: warning: {store.ignored_wal} was ignored (its directory cannot "
                "be written, so the database was read as it is): recent answers may be missing",
                file=sys.stderr,
            )
        stats = await store.learner_stats(learner_id, guild_id=guild_id)
    return describe_concepts(stats, _concept_descriptions(content))


def cmd_stats(args: argparse.Namespace) -> int:
    """Print the learner's stats; exit 1 when the database is missing or unreadable, 2 on a
    bad ``--db``, ``TUTOR_*`` database setting or ``TUTOR_CONTENT_DIR`` (one line each,
    naming the flag or variable, as ``tutor play`` and ``tutor health`` do: a directory
    given as the database is one of them)."""
    from bot.cli.settings_check import read_settings
    from bot.progress.settings import ProgressSettings
    from bot.settings import blocking_file, not_a_directory, setting_source

    learner = args.learner
    if learner is None:
        from bot.settings import PlayLearnerSettings

        player = read_settings(PlayLearnerSettings, "tutor stats")
        if player is None:
            return 2
        learner = player.play_learner_id
    overrides = {"database_path": args.db} if args.db is not None else {}
    settings = read_settings(
        ProgressSettings, "tutor stats", overrides, flags={"database_path": "--db"}
    )
    if settings is None:
        return 2
    from bot.cli.content import configured_content

    content = configured_content("tutor stats")  # a bad TUTOR_CONTENT_DIR: exit 2, first
    path = settings.database_path
    # fresh22 #9: say which source gave it (an empty variable in the environment is the
    # default, and hides .env's value), so a surprising file is explained.
    source = setting_source(settings, "database_path", "--db" if args.db is not None else None)
    # stderr: stdout stays the JSON contract; a user sees which file was read.
    print(f"tutor stats: database {path} (from {source})", file=sys.stderr)
    if not path.is_file():
        missing = ""
        if (file := blocking_file(path)) is not None:
            missing = f": {not_a_directory(file)}"
        elif not path.parent.is_dir():
            missing = f": the directory {str(path.parent)!r} does not exist"
        print(
            f"tutor stats: no progress database at {path}{missing} (pass --db PATH or set "
            "TUTOR_DATABASE_PATH)",
            file=sys.stderr,
        )
        return 1
    from bot.progress.schema import StoreRefused

    try:
        stats = asyncio.run(_read(settings, learner, args.guild, content))
    except StoreRefused as exc:
        print(f"tutor stats: {exc}", file=sys.stderr)  # it names the file and what to do
        return 1
    except sqlite3.Error as exc:
        from bot.progress.db import describe_open_error

        why = describe_open_error(path, exc)
        print(f"tutor stats: cannot read the progress database {path}: {why}", file=sys.stderr)
        return 1
    print(stats.model_dump_json(indent=2) if args.json else render_text(stats))
    return 0
