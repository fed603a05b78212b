"""``tutor play``'s start-up refusals name what is wrong and write nothing."""

from __future__ import annotations

import io
import json
import logging
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import CONTENT


@pytest.fixture
def quiet_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scripted session that quits at once, without a sandbox or a stray .env."""
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    monkeypatch.setattr(logging.root, "handlers", [])  # play's basicConfig: not past this test
    monkeypatch.delenv("TUTOR_DATABASE_PATH", raising=False)


@pytest.mark.usefixtures("quiet_play")
def test_play_outside_the_checkout_names_the_question_bank_and_its_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TUTOR_CONTENT_DIR", raising=False)
    args = ["play", "--script", "--sandbox", "off", "--db", str(tmp_path / "t.db")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert f"the question bank content ({tmp_path / 'content'}) does not exist" in err
    assert "TUTOR_CONTENT_DIR" in err


@pytest.mark.usefixtures("quiet_play")
def test_play_with_a_broken_pack_names_itself_before_each_problem_as_grade_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "bad.yaml").write_text("pack: x\ntitle: y\nitems: [\n")
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(tmp_path / "packs"))
    args = ["play", "--script", "--sandbox", "off", "--db", str(tmp_path / "t.db")]
    assert main(args) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines
    assert all(line.startswith(f"tutor play: {tmp_path / 'packs' / 'bad.yaml'}:") for line in lines)


@pytest.mark.usefixtures("quiet_play")
def test_play_refuses_another_apps_database_and_adds_no_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE foo (x INTEGER)")
    conn.close()
    assert main(["play", "--script", "--sandbox", "off", "--db", str(other)]) == 1
    assert f"{other} is not an autograd-tutor database (it has tables foo)" in (
        capsys.readouterr().err
    )
    conn = sqlite3.connect(other)
    tables = conn.execute("SELECT name FROM sqlite_master").fetchall()
    conn.close()
    assert tables == [("foo",)]


@pytest.mark.usefixtures("quiet_play")
def test_play_calls_a_directory_given_as_db_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    assert main(["play", "--script", "--sandbox", "off", "--db", str(tmp_path)]) == 2
    assert f"tutor play: --db: {tmp_path} is a directory" in capsys.readouterr().err


@pytest.mark.usefixtures("quiet_play")
@pytest.mark.parametrize("db", [[], ["--db", "data/tutor.db"]], ids=["default", "--db"])
def test_play_names_a_file_standing_where_the_default_data_directory_goes(
    db: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    (tmp_path / "data").write_text("x")
    assert main(["play", "--script", "--sandbox", "off", *db]) == 2
    err = capsys.readouterr().err
    assert "'data' is not a directory (it is a file)" in err
    assert len(err.splitlines()) == 1
    assert (tmp_path / "data").read_text() == "x"


@pytest.mark.usefixtures("quiet_play")
def test_play_names_a_dangling_symlink_standing_where_the_data_directory_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    (tmp_path / "data").symlink_to(tmp_path / "gone")
    assert main(["play", "--script", "--sandbox", "off"]) == 2
    assert (
        f"'data' is a symbolic link to {str(tmp_path / 'gone')!r}, which does not exist"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "gone").exists()


def test_a_scripted_quiz_takes_a_topic_in_any_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``quiz topic=ABS`` was ``unknown_topic``; tags are lower-case slugs (fresh24 #4)."""
    monkeypatch.setattr(logging.root, "handlers", [])
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    monkeypatch.setattr("sys.stdin", io.StringIO("quiz topic=ABS\nquit\n"))
    args = ["play", "--script", "--json", "--sandbox", "off", "--db", str(tmp_path / "t.db")]
    assert main(args) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [question] = [event for event in events if event["event"] == "question"]
    assert "abs" in question["tags"]
