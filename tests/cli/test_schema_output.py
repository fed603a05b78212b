"""``tutor content schema --output PATH``: one line and an exit status for every path that
cannot be written, never a traceback, and never a file or directory left half-made."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.cli import main


def test_a_directory_as_output_is_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["content", "schema", "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"tutor content schema: --output {tmp_path}: is a directory: name the file to write\n"
    )


def test_an_output_in_a_missing_directory_is_refused_and_nothing_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "nonexistent" / "x.json"
    assert main(["content", "schema", "--output", str(output)]) == 2
    assert f"the directory '{output.parent}' does not exist" in capsys.readouterr().err
    assert not output.parent.exists()


def test_an_output_under_a_file_is_refused_as_not_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh10 #9: ``--output /etc/passwd/x`` said "the directory '/etc/passwd' does not
    exist" about a file."""
    blocker = tmp_path / "afile"
    blocker.write_text("keep me")
    assert main(["content", "schema", "--output", str(blocker / "sub" / "x.json")]) == 2
    err = capsys.readouterr().err
    assert f"'{blocker}' is not a directory" in err
    assert "does not exist" not in err
    assert blocker.read_text() == "keep me"


def test_a_path_that_cannot_be_created_is_one_line_with_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["content", "schema", "--output", "/proc/x.json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tutor content schema: cannot write /proc/x.json: ")
    assert err.count("\n") == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_full_device_is_one_line_with_exit_1_and_stays_a_device(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["content", "schema", "--output", "/dev/full"]) == 1
    assert capsys.readouterr().err == (
        "tutor content schema: cannot write /dev/full: No space left on device\n"
    )
    assert Path("/dev/full").is_char_device()


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "schema.json"
    output.write_text("old", encoding="utf-8")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert main(["content", "schema", "--output", str(output)]) == 1
    assert output.read_text(encoding="utf-8") == "old"
    assert sorted(tmp_path.iterdir()) == [output]


def test_the_schema_replaces_an_old_file_keeping_its_mode(tmp_path: Path) -> None:
    output = tmp_path / "schema.json"
    output.write_text("old", encoding="utf-8")
    output.chmod(0o644)
    assert main(["content", "schema", "--output", str(output)]) == 0
    assert output.read_text(encoding="utf-8").startswith("{")
    assert output.stat().st_mode & 0o777 == 0o644


def test_a_symbolic_link_keeps_pointing_at_the_replaced_file(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert main(["content", "schema", "--output", str(link)]) == 0
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8").startswith("{")


def test_a_pipe_behind_dev_stdout_is_written_in_place(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "bot", "content", "schema", "--output", "/dev/stdout"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["title"]
    assert done.stderr == "wrote /dev/stdout\n"
