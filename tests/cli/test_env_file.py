"""A ``.env`` that cannot be used stops every command with one sentence naming it (exit 2)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli import main
from bot.settings import EnvFileError, TutorSettings, check_env_file
from tests.conftest import CONTENT

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


BOM = b"\xef\xbb\xbf"  # the UTF-8 byte-order mark Windows Notepad writes first


@pytest.fixture(params=["dotenv's own reader", "python-dotenv <= 1.2.2's reader"])
def dotenv_reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the test with the installed python-dotenv, then with its reader as it was before
    1.2.3 (which kept a leading BOM glued to the first name): pyproject does not pin it."""
    if request.param.startswith("python-dotenv <="):
        from dotenv import parser

        def reader_keeping_the_bom(self: parser.Reader, stream: io.TextIOBase) -> None:
            self.string = stream.read()
            self.position = parser.Position.start()
            self.mark = parser.Position.start()

        monkeypatch.setattr(parser.Reader, "__init__", reader_keeping_the_bom)


@pytest.mark.usefixtures("dotenv_reader")
def test_a_env_file_with_a_byte_order_mark_sets_its_first_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TUTOR_PLAY_LEARNER_ID", raising=False)
    (tmp_path / ".env").write_bytes(BOM + b"TUTOR_PLAY_LEARNER_ID=7\n")
    check_env_file()
    assert TutorSettings().play_learner_id == 7


@pytest.mark.usefixtures("dotenv_reader")
def test_a_bad_value_in_a_env_file_with_a_byte_order_mark_is_named_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TUTOR_DATABASE_PATH", raising=False)
    (tmp_path / ".env").write_bytes(BOM + b"TUTOR_DATABASE_PATH=missing/dir/tutor.db\n")
    assert main(["play", "--script"]) == 2
    err = capsys.readouterr().err
    assert "TUTOR_DATABASE_PATH: the directory 'missing/dir' does not exist" in err


def test_a_byte_that_is_not_utf8_after_a_byte_order_mark_is_placed_in_the_file(
    tmp_path: Path,
) -> None:
    env = tmp_path / ".env"
    env.write_bytes(BOM + b"A=1\n\xff\n")
    with pytest.raises(EnvFileError, match=r"byte 0xff at position 7\)"):
        check_env_file(env)


def test_a_env_that_is_a_directory_is_refused_naming_it(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.mkdir()
    with pytest.raises(EnvFileError, match=rf"^{env}: is a directory, not a settings file"):
        check_env_file(env)


def test_a_env_directory_stops_a_command_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").mkdir()
    assert main(["stats", "--learner", "1"]) == 2
    assert capsys.readouterr().err.startswith("tutor stats: .env: is a directory")


def test_a_env_symlink_to_nothing_stops_a_command_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").symlink_to(tmp_path / "nowhere")
    assert main(["stats", "--learner", "1"]) == 2
    assert capsys.readouterr().err.startswith(
        f"tutor stats: .env: is a symbolic link to '{tmp_path / 'nowhere'}', which does not exist"
    )


def test_a_misspelled_name_in_env_is_named_once_with_the_closest_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("OTHER_TOOL=1\ntutor_log_level=debug\nTUTOR_SANDBOX_WALLS=2\n")
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    assert main(["content", "check"]) == 0
    settings_lines = [  # content check's own rubric warnings name pack files, not .env
        line for line in capsys.readouterr().err.splitlines() if ".env" in line
    ]
    assert settings_lines == [
        "tutor content check: warning: .env: line 3: TUTOR_SANDBOX_WALLS is not a setting and is "
        "ignored (did you mean TUTOR_SANDBOX_WALL_S?)"
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"binary\n", ".env: line 1 is not NAME=value: 'binary' (a line with no '='"),
        (b"A=1\nexport B\n", ".env: line 2 is not NAME=value: 'export B' (a line with no '='"),
        (b"\0\0\0binary\n", ".env: line 1, column 1 holds a NUL byte"),
        (
            b"A=1\nTUTOR_DATABASE_PATH=/tmp/x/dbdir\0x\n",
            ".env: line 2, column 33 holds a NUL byte",
        ),
    ],
    ids=["bare word", "export with no value", "leading NULs", "NUL in a value"],
)
def test_a_bare_word_or_a_nul_in_env_stops_a_command_with_exit_2(
    content: bytes,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """python-dotenv skips a bare word without a word and keeps a NUL (new-user test #2)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_bytes(content)
    assert main(["stats", "--learner", "1"]) == 2
    assert capsys.readouterr().err.startswith(f"tutor stats: {message}")


@pytest.mark.parametrize(
    ("content", "fault"),
    [
        (
            'TUTOR_LOG_LEVEL="DEBUG\n',
            "line 1 is not NAME=value: 'TUTOR_LOG_LEVEL=\"DEBUG' (the quote \" opened at "
            "line 1, column 17 is not closed)",
        ),
        (
            "A=1\nTUTOR_LOG_LEVEL='DEBUG\nB=2\nC='x'\n",
            "line 2 is not NAME=value: \"TUTOR_LOG_LEVEL='DEBUG\" (the quote ' opened at "
            "line 2, column 17 runs on to line 4: is its closing quote missing?)",
        ),
        ('A="x" y\n', "line 1 is not NAME=value: 'A=\"x\" y' (only a comment (# ...) may"),
        ("A B=1\n", "line 1 is not NAME=value: 'A B=1' (a value with spaces or # needs quotes)"),
    ],
    ids=["unclosed", "runs on", "text after the quote", "space in the name"],
)
def test_a_quote_left_open_in_env_is_named_where_it_opened(
    content: str, fault: str, tmp_path: Path
) -> None:
    """It was told "a value with spaces or # needs quotes" (new-user test #3)."""
    env = tmp_path / ".env"
    env.write_text(content, encoding="utf-8")
    with pytest.raises(EnvFileError) as raised:
        check_env_file(env)
    assert str(raised.value).startswith(f"{env}: {fault}")


def test_a_bad_env_names_the_subcommand_in_its_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh21: "tutor content check" printed "tutor content: .env: ..."."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_bytes(b"JUSTAWORD\n")
    assert main(["content", "check"]) == 2
    assert capsys.readouterr().err.startswith("tutor content check: .env: line 1 is not")
