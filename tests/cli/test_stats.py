"""``tutor stats``: the JSON contract for tools, the text summary, and bad input."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.cli import main
from bot.progress.models import LearnerStats
from bot.progress.store import ProgressStore
from tests.conftest import CONTENT
from tests.progress.conftest import ALICE, GUILD, attempt, wrong


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A database where Alice answered once in GUILD (right) and once in a DM (wrong)."""
    path = tmp_path / "tutor.db"

    async def fill() -> None:
        async with ProgressStore(path) as store:
            await store.record_attempt(attempt(guild_id=GUILD))
            await store.record_attempt(wrong(guild_id=None, item_id="TF2"))

    asyncio.run(fill())
    return path


def test_json_output_is_the_learner_stats_model(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["stats", "--learner", str(ALICE), "--json", "--db", str(db_path)])
    stats = LearnerStats.model_validate_json(capsys.readouterr().out)
    assert (status, stats.learner_id, stats.attempts, stats.accuracy) == (0, ALICE, 2, 0.5)


def test_guild_option_limits_the_stats_to_that_guild(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["stats", "--learner", str(ALICE), "--guild", str(GUILD), "--json", "--db", str(db_path)])
    stats = LearnerStats.model_validate_json(capsys.readouterr().out)
    assert (stats.guild_id, stats.attempts, stats.points) == (GUILD, 1, 10)


def test_text_output_summarises_accuracy_streak_and_every_review_waiting(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Right after wrong answers "reviews due 0" hid what review offered (fresh15), and the
    line did not say how to start them (fresh16)."""
    main(["stats", "--learner", str(ALICE), "--db", str(db_path)])
    out = capsys.readouterr().out
    assert "accuracy: 50%" in out
    assert "streak:" in out
    assert (
        "reviews: 0 due now (2 scheduled, the next in 24 h); 1 missed to retry now"
        " (tutor play, then review)"
    ) in out


def test_unknown_learner_gets_empty_stats(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", "--learner", "42", "--json", "--db", str(db_path)]) == 0
    assert LearnerStats.model_validate_json(capsys.readouterr().out).attempts == 0


def test_without_learner_it_is_the_terminal_players_progress(
    db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """fresh17: bare `tutor stats` was a usage error; a player who just ran `tutor play`
    expects their own stats (TUTOR_PLAY_LEARNER_ID, as play records them)."""
    monkeypatch.setenv("TUTOR_PLAY_LEARNER_ID", str(ALICE))
    assert main(["stats", "--json", "--db", str(db_path)]) == 0
    stats = LearnerStats.model_validate_json(capsys.readouterr().out)
    assert (stats.learner_id, stats.attempts) == (ALICE, 2)


def test_without_learner_or_variable_it_is_learner_1(
    db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TUTOR_PLAY_LEARNER_ID", raising=False)
    assert main(["stats", "--json", "--db", str(db_path)]) == 0
    assert LearnerStats.model_validate_json(capsys.readouterr().out).learner_id == 1


def test_a_bad_play_learner_variable_is_named(
    db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_PLAY_LEARNER_ID", "alice")
    assert main(["stats", "--db", str(db_path)]) == 2
    assert "tutor stats: TUTOR_PLAY_LEARNER_ID" in capsys.readouterr().err


def test_database_path_comes_from_the_environment(
    db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(db_path))
    main(["stats", "--learner", str(ALICE), "--json"])
    assert LearnerStats.model_validate_json(capsys.readouterr().out).attempts == 2


def test_missing_database_is_an_error_and_is_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.db"
    status = main(["stats", "--learner", str(ALICE), "--db", str(missing)])
    assert (status, missing.exists()) == (1, False)
    assert f"no progress database at {missing}" in capsys.readouterr().err


def test_a_file_that_is_not_a_database_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "tutor.db"
    bogus.write_text("hello")
    assert main(["stats", "--learner", str(ALICE), "--db", str(bogus)]) == 1
    assert "cannot read the progress database" in capsys.readouterr().err


@pytest.mark.parametrize("learner", ["abc", "0", "-5", str(2**63)])
def test_learner_must_be_a_discord_id(learner: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["stats", "--learner", learner])
    assert exited.value.code == 2
    assert "not a Discord id" in capsys.readouterr().err


@pytest.fixture
def missed_concepts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Alice missed the shipped concept ``legacy-gist`` and one no pack has any more."""
    path = tmp_path / "missed.db"
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))

    async def fill() -> None:
        async with ProgressStore(path) as store:
            missed = ["legacy-gist", "gone-from-the-bank"]
            await store.record_attempt(wrong(guild_id=None, concepts_missing=missed))

    asyncio.run(fill())
    return path


def test_concepts_to_work_on_are_named_in_the_learners_words(
    missed_concepts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["stats", "--learner", str(ALICE), "--db", str(missed_concepts)])
    out = capsys.readouterr().out
    assert ".data is the legacy escape hatch, detach() the supported way (0/1)" in out
    assert "legacy-gist" not in out


def test_a_concept_the_bank_no_longer_describes_is_not_listed(
    missed_concepts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["stats", "--learner", str(ALICE), "--db", str(missed_concepts)])
    assert "gone-from-the-bank" not in capsys.readouterr().out


def test_zero_points_say_where_points_are_earned(
    missed_concepts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["stats", "--learner", str(ALICE), "--db", str(missed_concepts)])
    assert "points: 0 (points are earned only in a Discord server" in capsys.readouterr().out


def test_a_database_that_cannot_be_written_is_called_read_only(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Root may write any file, so the test takes write access away where it is asked."""
    import os
    import sqlite3

    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if mode == os.W_OK else real_access(p, mode)
    )

    def refuse(*_: object, **__: object) -> None:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr("bot.cli.stats._read", refuse)
    assert main(["stats", "--learner", str(ALICE), "--db", str(db_path)]) == 1
    assert "unable to open database file (read-only: the file cannot be written)" in (
        capsys.readouterr().err
    )


def test_stats_are_read_from_a_database_nobody_may_write(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy or a read-only mount of a server's database: reading stats writes nothing
    (root may write any file, so write access is taken away where it is asked)."""
    import os

    before = db_path.read_bytes()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if mode == os.W_OK else real_access(p, mode)
    )
    assert main(["stats", "--learner", str(ALICE), "--db", str(db_path), "--json"]) == 0
    stats = LearnerStats.model_validate_json(capsys.readouterr().out)
    assert stats.attempts == 2
    assert db_path.read_bytes() == before  # no migration, purge or pragma wrote to it


async def test_a_read_only_store_refuses_writes(db_path: Path) -> None:
    import sqlite3

    async with ProgressStore(db_path, read_only=True) as store:
        assert (await store.learner_stats(ALICE)).attempts == 2
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await store.record_attempt(attempt(guild_id=GUILD, item_id="TF3"))


def test_a_directory_given_as_the_database_is_called_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh17: tutor stats said it with exit 1 and no prefix, tutor play with exit 2 and
    the flag named; one settings check now says it for both."""
    assert main(["stats", "--learner", str(ALICE), "--db", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"tutor stats: --db: {tmp_path} is a directory, not a progress database" in err
    assert str(tmp_path / "tutor.db") in err


def test_a_directory_in_the_environment_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path))
    assert main(["stats", "--learner", str(ALICE)]) == 2
    assert "TUTOR_DATABASE_PATH" in capsys.readouterr().err


def test_another_apps_database_is_not_called_an_older_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE foo (x INTEGER)")
    conn.close()
    assert main(["stats", "--learner", str(ALICE), "--db", str(other)]) == 1
    err = capsys.readouterr().err
    assert f"{other} is not an autograd-tutor database (it has tables foo)" in err
    assert "older version" not in err


def test_a_database_from_a_newer_version_is_refused(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
            "VALUES ('autograd_tutor.progress', '0002_future', '2030-01-01')"
        )
    conn.close()
    assert main(["stats", "--learner", str(ALICE), "--db", str(db_path)]) == 1
    assert "newer version of autograd-tutor (unknown migrations: 0002_future)" in (
        capsys.readouterr().err
    )


@pytest.fixture
def unwritable_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a user without write access to the database's directory gets: ``mode=ro``
    cannot make the ``-shm`` file, so the file is read ``immutable=1`` (root may write any
    directory, so the test refuses where it is asked)."""
    import os
    import sqlite3

    import bot.progress.db as db_module

    real_access, real_connect = os.access, db_module._connect_read_only
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if mode == os.W_OK else real_access(p, mode)
    )

    def connect(uri: str, busy_timeout_s: float) -> sqlite3.Connection:
        if "immutable=1" not in uri:
            raise sqlite3.OperationalError("unable to open database file")
        return real_connect(uri, busy_timeout_s)

    monkeypatch.setattr(db_module, "_connect_read_only", connect)


@pytest.mark.usefixtures("unwritable_directory")
def test_a_wal_file_that_cannot_be_read_is_named_in_a_warning(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hot copy of a live database: a third answer is still only in the -wal file."""
    import sqlite3

    holder = sqlite3.connect(db_path)  # keeps the -wal file from being checkpointed away
    holder.execute("PRAGMA wal_autocheckpoint = 0")
    holder.execute("SELECT count(*) FROM attempts").fetchone()

    async def third() -> None:
        async with ProgressStore(db_path) as store:
            await store.record_attempt(attempt(guild_id=None, item_id="TF3"))

    asyncio.run(third())
    try:
        assert main(["stats", "--learner", str(ALICE), "--db", str(db_path)]) == 0
    finally:
        holder.close()
    err = capsys.readouterr().err
    assert f"warning: {db_path}-wal was ignored" in err
    assert "recent answers may be missing" in err


@pytest.mark.usefixtures("unwritable_directory")
def test_no_warning_without_a_wal_file(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--learner", str(ALICE), "--db", str(db_path)]) == 0
    assert "warning:" not in capsys.readouterr().err


def test_stats_outside_the_checkout_say_why_concepts_are_missing(
    missed_concepts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("TUTOR_CONTENT_DIR")
    monkeypatch.chdir(tmp_path)
    assert main(["stats", "--learner", str(ALICE), "--db", str(missed_concepts)]) == 0
    err = capsys.readouterr().err
    assert 'no "to work on" concepts: the question bank content' in err
    assert "TUTOR_CONTENT_DIR" in err


def test_database_path_comes_from_the_env_file(
    db_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TUTOR_DATABASE_PATH", raising=False)
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / ".env").write_text(f"TUTOR_DATABASE_PATH={db_path}\n")
    monkeypatch.chdir(workdir)
    assert main(["stats", "--learner", str(ALICE), "--json"]) == 0
    assert LearnerStats.model_validate_json(capsys.readouterr().out).attempts == 2


def test_stats_names_the_database_file_it_read(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["stats", "--learner", str(ALICE), "--json", "--db", str(db_path)])
    assert f"tutor stats: database {db_path} (from --db)" in capsys.readouterr().err


def test_the_learner_option_has_a_help_text(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    assert "Discord user id" in capsys.readouterr().out


def test_an_empty_file_is_called_a_new_database_not_damage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "tutor.db"
    empty.touch()
    assert main(["stats", "--learner", str(ALICE), "--db", str(empty)]) == 1
    err = capsys.readouterr().err
    assert f"tutor stats: {empty} is an empty, new database" in err
    assert "cannot read" not in err


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("TUTOR_DB_SYNCHRONOUS", "maybe", "Input should be 'NORMAL' or 'FULL'"),
        ("TUTOR_ANSWER_RETENTION_DAYS", "-3", "Input should be greater than or equal to 0"),
        ("TUTOR_DB_BUSY_TIMEOUT_S", "1e999", "Input should be less than or equal to 600"),
    ],
)
def test_a_bad_database_setting_is_one_line_naming_it_and_exit_2(
    db_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    value: str,
    message: str,
) -> None:
    monkeypatch.setenv(name, value)
    assert main(["stats", "--learner", str(ALICE), "--db", str(db_path)]) == 2
    assert capsys.readouterr().err == f"tutor stats: {name}: {message}\n"


def test_a_bad_database_setting_in_dot_env_is_named_too(
    db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(db_path.parent)
    monkeypatch.delenv("TUTOR_DB_SYNCHRONOUS", raising=False)
    (db_path.parent / ".env").write_text("TUTOR_DB_SYNCHRONOUS=maybe\n")
    assert main(["stats", "--learner", str(ALICE), "--db", str(db_path)]) == 2
    assert "TUTOR_DB_SYNCHRONOUS" in capsys.readouterr().err
