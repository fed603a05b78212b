"""``tutor sandbox serve --unix PATH`` refuses a socket path it cannot use, before starting."""

from __future__ import annotations

import socket
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


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_a_port_outside_0_to_65535_is_refused_by_argparse_naming_the_flag(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sandbox", "serve", "--port", port])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port: " in err
    assert "is not a port number (0-65535)" in err


def test_a_port_in_use_is_one_line_with_exit_1_before_the_worker_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sandbox.worker

    def no_worker(*args: object, **kwargs: object) -> None:
        raise AssertionError("the worker was started although the port is taken")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sandbox.worker, "Worker", no_worker)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["sandbox", "serve", "--port", str(port)]) == 1
    assert capsys.readouterr().err == (
        f"tutor sandbox serve: cannot listen on 127.0.0.1 port {port}: Address already in use\n"
    )
