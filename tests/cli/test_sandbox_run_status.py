"""``tutor sandbox run``'s exit status tells a script how the snippet ended."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli.sandbox import RUN_EXIT_STATUS, STARTING_NOTICE, announce_start, run_exit_status
from bot.content.loader import Bank
from sandbox.protocol import JobOutcome, Limits, RunResult
from tests.conftest import run_tutor


def _result(**outcome: object) -> RunResult:
    return RunResult.from_outcome(JobOutcome(**outcome), Limits(), "namespaces", "2.13.0")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("outcome", "status"),
    [
        ({"exit_code": 0}, 0),
        ({"exit_code": 1}, 3),
        ({"exit_code": None, "signal": 9, "timed_out": True}, 4),
        ({"exit_code": None, "signal": 9, "memory_exceeded": True}, 5),
        ({"exit_code": None, "signal": 24, "cpu_exceeded": True}, 6),
        ({"exit_code": 0, "output_truncated": True}, 7),
        ({"exit_code": None, "signal": 11}, 8),
        ({"exit_code": 1, "pids_exceeded": True}, 9),
        ({"exit_code": None, "signal": 25, "file_limit_mib": 16}, 10),
        ({"error": "the zygote died"}, 1),
    ],
    ids=[
        "ok",
        "raised",
        "timeout",
        "oom",
        "cpu",
        "output",
        "signal",
        "pids",
        "file-size",
        "worker-error",
    ],
)
def test_each_outcome_has_its_exit_status(outcome: dict[str, object], status: int) -> None:
    assert run_exit_status(_result(**outcome)) == status


def test_every_cause_has_a_distinct_status_clear_of_the_commands_own() -> None:
    failures = [code for cause, code in RUN_EXIT_STATUS.items() if cause != "exit 0"]
    assert len(set(failures)) == len(failures)
    assert not {1, 2} & set(failures)


@pytest.mark.slow
def test_a_snippet_that_raises_makes_the_command_exit_3(tmp_path: Path) -> None:
    snippet = tmp_path / "boom.py"
    snippet.write_text("raise ValueError('boom')\n")
    done = run_tutor("sandbox", "run", str(snippet))
    assert done.returncode == 3, done.stderr
    assert "ValueError: boom" in done.stderr


@pytest.mark.slow
def test_a_clean_run_prints_only_the_snippets_output_and_the_status_line(tmp_path: Path) -> None:
    """The zygote's start-up diagnostics (huge pages) belong in the service's banner, not in
    a one-shot run a learner reads."""
    snippet = tmp_path / "ok.py"
    snippet.write_text("print(6 * 7)\n")
    done = run_tutor("sandbox", "run", str(snippet))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n"
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("[exit 0, ")


@pytest.mark.slow
def test_without_isolation_a_bank_snippet_still_runs(tmp_path: Path, bank: Bank) -> None:
    """The curated snippets are loaded only for the backend ``none``: they must be, there."""
    item = bank.items["TF3"]
    snippet = tmp_path / "tf3.py"
    snippet.write_text(item.snippet)
    done = run_tutor("sandbox", "run", str(snippet), "--backend", "none")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip("\n") == item.expected_output.rstrip("\n")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_is_told_the_wait_is_the_workers_start() -> None:
    err = _Terminal()
    announce_start(err)
    assert err.getvalue() == STARTING_NOTICE + "\n"


def test_a_captured_stderr_gets_no_start_notice() -> None:
    err = io.StringIO()
    announce_start(err)
    assert err.getvalue() == ""


def test_the_exit_statuses_are_listed_in_run_help(capsys: pytest.CaptureFixture[str]) -> None:
    """A new user found exit codes 3-9 in neither --help nor the README (sandbox/README.md
    has them)."""
    from bot.cli import main

    with pytest.raises(SystemExit):
        main(["sandbox", "run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for how, code in RUN_EXIT_STATUS.items():
        if code:
            assert f"{code} {how}" in shown
