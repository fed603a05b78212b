"""Every command checks the settings it reads in one way: one line per bad value, named
with the command and the variable (or flag), exit 2; a setting a command does not read
does not stop it, as ``tutor --help`` says."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import build_parser, main
from tests.conftest import CONTENT


@pytest.fixture(autouse=True)
def _no_env_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    monkeypatch.setenv("TUTOR_DISCORD_TOKEN", "not-a-real-token")
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "tutor.db"))


@pytest.mark.parametrize(
    ("prog", "args"),
    [
        ("tutor play", ["play", "--script", "--sandbox", "off"]),
        ("tutor health", ["health", "--check", "database"]),
        ("tutor bot", ["bot"]),
    ],
)
@pytest.mark.parametrize(
    ("variable", "value"),
    [("TUTOR_LOG_LEVEL", "LOUD"), ("TUTOR_DEV_GUILD_ID", "abc"), ("TUTOR_DROP_TICK_S", "0")],
)
def test_a_bad_front_end_setting_stops_each_command_reading_it_the_same_way(
    prog: str,
    args: list[str],
    variable: str,
    value: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(variable, value)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{prog}: {variable}: ")
    assert err.count("\n") == 1


def test_a_bad_database_setting_stops_stats_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTOR_DB_SYNCHRONOUS", "sometimes")
    assert main(["stats", "--learner", "1"]) == 2
    assert capsys.readouterr().err == (
        "tutor stats: TUTOR_DB_SYNCHRONOUS: Input should be 'NORMAL' or 'FULL'\n"
    )


def test_stats_names_the_missing_directory_of_its_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nonexistent" / "x.db"
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(path))
    assert main(["stats", "--learner", "1"]) == 2  # a bad setting, as in tutor play (fresh18 #4)
    err = capsys.readouterr().err
    assert f"tutor stats: TUTOR_DATABASE_PATH: the directory '{path.parent}' does not exist" in err


def test_stats_calls_a_file_in_the_path_of_its_database_not_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "afile").write_text("")
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "afile" / "x.db"))
    assert main(["stats", "--learner", "1"]) == 2
    err = capsys.readouterr().err
    assert f"'{tmp_path / 'afile'}' is not a directory" in err
    assert "does not exist" not in err


def test_a_setting_the_command_does_not_read_does_not_stop_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTOR_LOG_LEVEL", "LOUD")
    assert main(["content", "check"]) == 0
    assert "TUTOR_LOG_LEVEL" not in capsys.readouterr().err


def test_the_help_says_which_settings_each_command_reads() -> None:
    text = build_parser().format_help()
    assert "A bad value stops every command that\nreads it (exit 2, naming it)" in text
    assert "content, grade: TUTOR_CONTENT_DIR only" in text


def test_a_bad_sandbox_address_is_named_without_pydantics_value_error_prefix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_ADDRESS", "bogus")
    assert main(["play", "--script"]) == 2
    assert capsys.readouterr().err.startswith(
        "tutor play: TUTOR_SANDBOX_ADDRESS: sandbox_address must be local,"
    )


@pytest.mark.parametrize(
    ("prog", "args"),
    [
        ("tutor grade", ["grade", "TF3", "--verdict", "false", "--text", "they add up"]),
        ("tutor grade", ["grade", "--jsonl"]),
        ("tutor content check", ["content", "check"]),
        ("tutor content schema", ["content", "schema"]),
        ("tutor stats", ["stats", "--learner", "1"]),
        ("tutor play", ["play", "--script", "--sandbox", "off"]),
    ],
)
def test_a_content_dir_that_does_not_exist_stops_each_command_naming_it_with_exit_2(
    prog: str,
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # fresh12 #8: tutor grade exited 1, without its name, as for a bank that is broken
    monkeypatch.setenv("TUTOR_CONTENT_DIR", "/nonexistent")
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"{prog}: TUTOR_CONTENT_DIR: the directory '/nonexistent' does not exist: set it to "
        "the question packs' directory (the checkout's content/)\n"
    )


def test_a_content_dir_that_is_a_file_is_refused_as_not_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "packs").write_text("")
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(tmp_path / "packs"))
    assert main(["grade", "TF3", "--text", "x"]) == 2
    assert (
        f"tutor grade: TUTOR_CONTENT_DIR: {str(tmp_path / 'packs')!r} is not a directory"
        in capsys.readouterr().err
    )


def test_content_paths_given_as_arguments_do_not_read_the_content_dir(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTOR_CONTENT_DIR", "/nonexistent")
    assert main(["content", "check", str(CONTENT)]) == 0
    assert capsys.readouterr().out.startswith("ok: ")
