"""A ``.env`` that cannot be used stops every command with one sentence naming it (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.settings import EnvFileError, check_env_file

COMMANDS = [
    ["stats", "--learner", "1"],
    ["health", "--check", "database"],
    ["grade", "TF1", "--verdict", "true", "--text", "x"],
    ["content", "check"],
    ["play", "--script"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: argv[0])
def test_a_env_file_that_is_not_utf8_is_named_with_exit_2(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_bytes(b"\xff\xfe\n")
    assert main(argv) == 2
    assert ".env: not UTF-8 (byte 0xff at position 0)" in capsys.readouterr().err


def test_a_line_that_is_not_name_value_is_named_with_its_line(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("TUTOR_LOG_LEVEL=INFO\nthis is not a setting\n")
    with pytest.raises(EnvFileError, match=r"\.env: line 2 is not NAME=value"):
        check_env_file(env)


def test_a_usable_env_file_with_comments_and_export_passes(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("# settings\nexport TUTOR_LOG_LEVEL=INFO\nTUTOR_DEV_GUILD_ID=\n")
    check_env_file(env)  # no error


def test_a_missing_env_file_is_fine(tmp_path: Path) -> None:
    check_env_file(tmp_path / ".env")  # no error
