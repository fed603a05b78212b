"""An empty path on the command line is refused as empty, never read as ``.``.

``Path("")`` is ``Path(".")``: ``--db ""`` was refused as ``. is a directory`` and
``tutor content check ""`` checked the working directory's YAML files (fix19 #1).
"""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from bot.cli import main
from tests.progress.conftest import ALICE

EMPTY_VARIABLE_DEFAULT = (
    "tutor stats: database data/tutor.db "
    "(from TUTOR_DATABASE_PATH, empty in the environment: the default)"
)
"""How `tutor stats` names a database chosen by an empty TUTOR_DATABASE_PATH."""


def stats_error(capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``tutor stats --learner ALICE``, which finds no database (exit 1); its stderr."""
    assert main(["stats", "--learner", str(ALICE)]) == 1
    return capsys.readouterr().err


@pytest.fixture
def no_database_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TUTOR_DATABASE_PATH", raising=False)


@pytest.mark.usefixtures("no_database_variable")
def test_stats_refuses_an_empty_db_flag_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["stats", "--learner", str(ALICE), "--db", ""]) == 2
    err = capsys.readouterr().err
    assert err == "tutor stats: --db: the path is empty: give a file path such as data/tutor.db\n"
    assert list(tmp_path.iterdir()) == []  # no data/ made, no database started


@pytest.mark.usefixtures("no_database_variable")
def test_play_refuses_an_empty_db_flag_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    monkeypatch.setattr(logging.root, "handlers", [])
    assert main(["play", "--script", "--sandbox", "off", "--db", ""]) == 2
    err = capsys.readouterr().err
    assert "tutor play: --db: the path is empty" in err
    assert "is a directory" not in err


def test_a_dot_is_still_called_a_directory(
    capsys: pytest.CaptureFixture[str], no_database_variable: None
) -> None:
    """Only the empty string changed: ``--db .`` names the directory it is."""
    assert main(["stats", "--learner", str(ALICE), "--db", "."]) == 2
    assert "--db: . is a directory, not a progress database" in capsys.readouterr().err


def test_an_empty_variable_means_the_default_as_every_tutor_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``TUTOR_DATABASE_PATH=`` is the default, as ``NAME=`` is for every setting (README):
    the default is read, and named as chosen by the empty variable, not the working
    directory (tests/test_settings_empty_env.py: also over a value in ``.env``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_DATABASE_PATH", "")
    err = stats_error(capsys)
    assert EMPTY_VARIABLE_DEFAULT in err
    assert "no progress database at data/tutor.db" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["content", "check", ""],
        ["content", "check", "content", ""],
        ["content", "test", ""],
        ["content", "verify", ""],
        ["content", "eval", "answers.jsonl", "--content", ""],
        ["grade", "TF3", "--text", "because", "--content", ""],
    ],
)
def test_an_empty_pack_path_is_refused_as_a_missing_one_is(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Exit 1, as for a path that does not exist, and nothing of ``.`` is read: the working
    directory holds a YAML file that is no pack."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docker-compose.yml").write_text("services: {}\n", encoding="utf-8")
    assert main(argv) == 1
    err = capsys.readouterr().err
    prog = "tutor " + " ".join(argv[: 1 if argv[0] == "grade" else 2])
    assert err.startswith(f"{prog}: a path given is empty: name a pack file or directory")
    assert "docker-compose.yml" not in err
