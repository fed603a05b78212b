"""The protocol's rules: limits only go down, sizes are capped, one status line per outcome."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sandbox.protocol import (
    MAX_CODE_BYTES,
    JobOutcome,
    LimitOverrides,
    Limits,
    RunRequest,
    RunResult,
    describe_outcome,
    visible_controls,
)

LIMITS = Limits(wall_s=5, cpu_s=5, memory_mib=512, pids=32, output_bytes=65536)


def test_a_request_can_lower_a_limit() -> None:
    assert LimitOverrides(wall_s=1, memory_mib=64).apply(LIMITS).wall_s == 1


def test_a_request_can_never_raise_a_limit() -> None:
    effective = LimitOverrides(wall_s=60, memory_mib=4096, pids=999).apply(LIMITS)
    assert (effective.wall_s, effective.memory_mib, effective.pids) == (5, 512, 32)


def test_code_over_the_size_limit_is_refused_with_its_size() -> None:
    with pytest.raises(ValidationError, match="1,048,576 bytes; the limit is 65,536"):
        RunRequest(code="a" * (1024 * 1024))


def test_code_at_the_size_limit_is_accepted() -> None:
    assert len(RunRequest(code="a" * MAX_CODE_BYTES).code) == MAX_CODE_BYTES


def test_unknown_request_fields_are_refused() -> None:
    with pytest.raises(ValidationError):
        RunRequest.model_validate({"code": "1", "unsafe": True})


def test_a_request_may_ask_for_the_graph() -> None:
    assert RunRequest(code="1", graph=True).graph is True


@pytest.mark.parametrize(
    ("outcome", "words"),
    [
        (JobOutcome(exit_code=0), "exit 0"),
        (JobOutcome(exit_code=3), "exit 3"),
        (JobOutcome(timed_out=True), "timed out after 5 s"),
        (JobOutcome(memory_exceeded=True, signal=9), "ran out of memory (limit 512 MiB)"),
        (JobOutcome(cpu_exceeded=True, signal=24), "used up its CPU time (limit 5 s)"),
        (JobOutcome(output_truncated=True), "stopped: printed more than 64 KiB"),
        (JobOutcome(signal=11), "killed by SIGSEGV"),
        (
            JobOutcome(file_limit_mib=16, signal=25),
            "stopped: wrote a file past the file-size limit (16 MiB)",
        ),
        (
            JobOutcome(exit_code=1, pids_exceeded=True),
            "stopped: hit the limit of 32 processes (the snippet's own exit status was 1)",
        ),
        (
            JobOutcome(timed_out=True, pids_exceeded=True),
            "timed out after 5 s (it also hit the limit of 32 processes)",
        ),
        (JobOutcome(error="no jail"), "could not run: no jail"),
    ],
)
def test_each_outcome_has_one_status_line(outcome: JobOutcome, words: str) -> None:
    assert describe_outcome(outcome, LIMITS) == words


def test_a_process_limit_hit_by_a_snippet_exiting_0_never_reads_as_exit_0() -> None:
    words = describe_outcome(JobOutcome(exit_code=0, pids_exceeded=True), LIMITS)
    assert not words.startswith("exit 0")
    assert words.startswith("stopped: hit the limit of 32 processes")


def test_control_characters_other_than_newline_and_tab_are_made_visible() -> None:
    shown = visible_controls("a\x1b[31mb\rc\x07\x7f\x9b\td\n")
    assert shown == "a\u241b[31mb\u240dc\u2407\u2421\\x9b\td\n"


@pytest.mark.parametrize("code", [0x202E, 0x202A, 0x2066, 0x2069, 0x200E, 0x200F, 0x061C])
def test_a_bidirectional_control_is_shown_as_its_code_point(code: int) -> None:
    """A learner's U+202E passed through raw would reorder the shown output (fresh15)."""
    shown = visible_controls(f"tensor([1.]){chr(code)}x")
    assert shown == f"tensor([1.])\u27e8U+{code:04X}\u27e9x"


@pytest.mark.parametrize("code", [0x200B, 0x2060, 0xFEFF])
def test_an_invisible_format_character_is_shown_as_its_code_point(code: int) -> None:
    """fresh16: a raw zero-width space hid in output that looked like tensor([1.])."""
    shown = visible_controls(f"tensor([1.{chr(code)}])")
    assert shown == f"tensor([1.\u27e8U+{code:04X}\u27e9])"


def test_joiners_that_emoji_and_scripts_need_are_left_as_they_are() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert visible_controls(family) == family


def test_letters_of_right_to_left_scripts_are_left_as_they_are() -> None:
    assert visible_controls("\u05e9\u05dc\u05d5\u05dd \u0645") == "\u05e9\u05dc\u05d5\u05dd \u0645"


def test_timing_out_wins_over_the_kill_signal() -> None:
    assert describe_outcome(JobOutcome(timed_out=True, signal=9), LIMITS).startswith("timed out")


def test_a_result_carries_its_status_and_is_ok_only_when_it_ran_to_its_end() -> None:
    done = RunResult.from_outcome(JobOutcome(exit_code=1), LIMITS, "namespaces", "2.13.0")
    killed = RunResult.from_outcome(JobOutcome(signal=11), LIMITS, "namespaces", "2.13.0")
    assert (done.status, done.ok) == ("exit 1", True)
    assert (killed.status, killed.ok) == ("killed by SIGSEGV", False)


@pytest.mark.parametrize(
    "outcome", [JobOutcome(exit_code=0, pids_exceeded=True), JobOutcome(file_limit_mib=16)]
)
def test_a_process_or_file_limit_hit_is_not_ok(outcome: JobOutcome) -> None:
    """A fork bomb stopped at the process limit read "ok": true in --json (a new user)."""
    assert not RunResult.from_outcome(outcome, LIMITS, "namespaces", "2.13.0").ok
