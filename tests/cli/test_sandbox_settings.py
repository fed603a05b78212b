"""Every command that reads ``TUTOR_SANDBOX_*`` stops on a bad value: one line, exit 2."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import CONTENT

PROBLEM = "TUTOR_SANDBOX_WALL_S: Input should be greater than 0 (got '-1')"


@pytest.fixture
def bad_wall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bad TUTOR_SANDBOX_WALL_S, a token, and no .env or database in the way."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "-1")
    monkeypatch.setenv("TUTOR_DISCORD_TOKEN", "not-a-real-token")
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "tutor.db"))
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    monkeypatch.delenv("TUTOR_SANDBOX_ADDRESS", raising=False)
    snippet = tmp_path / "ok.py"
    snippet.write_text("print(1)\n")
    return snippet


@pytest.mark.parametrize(
    ("prog", "args"),
    [
        ("tutor sandbox", ["sandbox", "run", "{snippet}"]),
        ("tutor sandbox", ["sandbox", "serve"]),
        ("tutor play", ["play", "--script"]),
        ("tutor content verify", ["content", "verify", str(CONTENT)]),
        ("tutor bot", ["bot"]),
        ("tutor health", ["health", "--check", "sandbox"]),
    ],
)
def test_a_bad_sandbox_variable_stops_the_command_naming_it(
    bad_wall: Path, capsys: pytest.CaptureFixture[str], prog: str, args: list[str]
) -> None:
    argv = [a.replace("{snippet}", str(bad_wall)) for a in args]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"{prog}: {PROBLEM}\n"
    assert captured.out == ""


def test_play_without_a_sandbox_does_not_read_the_sandbox_variables(
    bad_wall: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    monkeypatch.setattr(logging.root, "handlers", [])  # play's basicConfig: not past this test
    assert main(["play", "--script", "--sandbox", "off"]) == 0
    assert "TUTOR_SANDBOX_WALL_S" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("prog", "args"),
    [
        ("tutor sandbox", ["sandbox", "run", "{snippet}"]),
        ("tutor play", ["play", "--script"]),
    ],
)
def test_a_bad_sandbox_value_in_dot_env_stops_the_command_naming_it(
    bad_wall: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    prog: str,
    args: list[str],
) -> None:
    monkeypatch.delenv("TUTOR_SANDBOX_WALL_S")
    (bad_wall.parent / ".env").write_text("TUTOR_SANDBOX_WALL_S=-1\n")
    argv = [a.replace("{snippet}", str(bad_wall)) for a in args]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"{prog}: {PROBLEM}\n"


def test_a_cache_path_in_a_missing_directory_is_refused_and_not_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli.sandbox import bad_sandbox_settings

    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "nonexistent" / "dir" / "c.json"
    monkeypatch.setenv("TUTOR_SANDBOX_CACHE_PATH", str(cache))
    assert bad_sandbox_settings("tutor play")
    err = capsys.readouterr().err
    assert err.startswith("tutor play: TUTOR_SANDBOX_CACHE_PATH: ")
    assert f"the directory '{cache.parent}' does not exist" in err
    assert "Value error" not in err
    assert not (tmp_path / "nonexistent").exists()


def test_sandbox_run_does_not_read_the_cache_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh10 #9: a one-shot run keeps no cache, yet a bad TUTOR_SANDBOX_CACHE_PATH
    stopped it with exit 2. A missing snippet shows which check spoke, with no worker."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_SANDBOX_CACHE_PATH", str(tmp_path / "nonexistent" / "c.json"))
    assert main(["sandbox", "run", str(tmp_path / "missing.py")]) == 2
    err = capsys.readouterr().err
    assert "TUTOR_SANDBOX_CACHE_PATH" not in err
    assert err.startswith(f"tutor sandbox run: {tmp_path / 'missing.py'}: cannot read: ")


@pytest.mark.slow
def test_sandbox_run_runs_with_a_cache_path_it_cannot_use(tmp_path: Path) -> None:
    import os

    from tests.conftest import run_tutor

    snippet = tmp_path / "ok.py"
    snippet.write_text("print(6 * 7)\n")
    env = {**os.environ, "TUTOR_SANDBOX_CACHE_PATH": str(tmp_path / "nonexistent" / "c.json")}
    done = run_tutor("sandbox", "run", str(snippet), env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n"
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize("content", [None, "garbage{"])
def test_an_unusable_cache_warns_in_one_line_and_does_not_stop_the_command(
    content: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bot.cli.sandbox import bad_sandbox_settings

    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "c.json"
    if content is None:
        cache.mkdir()
    else:
        cache.write_text(content)
    monkeypatch.setenv("TUTOR_SANDBOX_CACHE_PATH", str(cache))
    assert not bad_sandbox_settings("tutor play")
    err = capsys.readouterr().err
    assert err.startswith(f"tutor play: warning: the sandbox cache {cache} ")
    assert "rebuilt" in err
    assert err.count("\n") == 1
