"""``tutor sandbox serve --unix PATH`` refuses a socket path it cannot use, before starting."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main


def test_a_missing_socket_directory_is_refused_and_not_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    socket = tmp_path / "nonexistent" / "dir" / "w.sock"
    assert main(["sandbox", "serve", "--unix", str(socket)]) == 2
    assert f"the directory '{socket.parent}' does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nonexistent").exists()


def test_a_directory_given_as_the_socket_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["sandbox", "serve", "--unix", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
