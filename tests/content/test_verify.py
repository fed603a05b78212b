"""`tutor content verify` compares real output with expected_output and shows a diff."""

from __future__ import annotations

import pytest

from bot.content.loader import load_pack
from bot.content.verify import SandboxRunner, SubprocessRunner, diff_outputs, verify_items
from tests.content.test_check import HERE


def test_matching_output_passes() -> None:
    item = load_pack(HERE / "valid.yaml").items[0]
    [result] = verify_items([item], SubprocessRunner())
    assert result.matched, result.diff


def test_mismatch_reports_a_unified_diff() -> None:
    item = load_pack(HERE / "valid.yaml").items[0]
    wrong = item.model_copy(update={"expected_output": "fixture\nsomething else\n"})
    [result] = verify_items([wrong], SubprocessRunner())
    assert not result.matched
    assert "-something else" in result.diff
    assert result.diff.startswith("--- TF1 expected_output")


def test_trailing_whitespace_does_not_count() -> None:
    assert diff_outputs("X", "a  \nb\n\n", "a\nb") == ""


def test_a_snippet_that_hangs_is_a_mismatch_not_a_hang() -> None:
    item = load_pack(HERE / "valid.yaml").items[0]
    slow = item.model_copy(update={"snippet": "import time\ntime.sleep(30)\n"})
    [result] = verify_items([slow], SubprocessRunner(timeout_s=1))
    assert not result.matched
    assert result.status == "timed out after 1 s"


@pytest.mark.slow
def test_the_sandbox_runner_verifies_snippets_in_isolation() -> None:
    item = load_pack(HERE / "valid.yaml").items[0]
    with SandboxRunner(content=[HERE / "valid.yaml"]) as runner:
        [result] = verify_items([item], runner)
    assert result.matched, result.diff
