"""The ``tutor`` entry point: usage errors and how standard input is decoded."""

from __future__ import annotations

import io

import pytest

from bot.cli import main, tolerant_stdin


def test_a_bad_flag_shows_the_subcommands_usage_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["play", "--bogus"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert err.startswith("usage: tutor play ")
    assert "tutor play: error: unrecognized arguments: --bogus" in err


def test_a_bad_option_before_any_command_is_named_not_reported_as_a_missing_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--bogus"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert "unrecognized option --bogus" in err
    assert "required" not in err


def test_stdin_with_an_undecodable_byte_reads_with_the_replacement_character() -> None:
    stream = io.TextIOWrapper(io.BytesIO(b"answer caf\xe9\n"), encoding="ascii")
    tolerant_stdin(stream)
    assert stream.readline() == "answer caf\ufffd\n"
