"""``TUTOR_SANDBOX_*`` settings: a bad value is one line naming the variable or flag."""

from __future__ import annotations

import pytest

from sandbox.settings import SandboxSettingsError, load_sandbox_settings


def test_a_bad_variable_is_named_with_what_it_got(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "-1")
    with pytest.raises(SandboxSettingsError) as bad:
        load_sandbox_settings()
    assert bad.value.problems == ["TUTOR_SANDBOX_WALL_S: Input should be greater than 0 (got '-1')"]


def test_a_bad_flag_is_named_as_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TUTOR_SANDBOX_CONCURRENCY", raising=False)
    with pytest.raises(SandboxSettingsError) as bad:
        load_sandbox_settings({"concurrency": 0}, {"concurrency": "--concurrency"})
    assert bad.value.problems == [
        "--concurrency: Input should be greater than or equal to 1 (got 0)"
    ]


def test_a_list_variable_that_is_not_json_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_CONTENT", "content/")
    with pytest.raises(SandboxSettingsError) as bad:
        load_sandbox_settings()
    [problem] = bad.value.problems
    assert problem.startswith("TUTOR_SANDBOX_CONTENT: cannot be parsed")


def test_every_bad_variable_is_reported_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "soon")
    monkeypatch.setenv("TUTOR_SANDBOX_PIDS", "1")
    with pytest.raises(SandboxSettingsError) as bad:
        load_sandbox_settings()
    names = [problem.split(":")[0] for problem in bad.value.problems]
    assert names == ["TUTOR_SANDBOX_WALL_S", "TUTOR_SANDBOX_PIDS"]
