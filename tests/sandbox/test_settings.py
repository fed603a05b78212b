"""``TUTOR_SANDBOX_*`` settings: a bad value is one line naming the variable or flag."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox.protocol import DEFAULT_WALL_S
from sandbox.settings import SandboxSettingsError, load_sandbox_settings, sandbox_environment


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


@pytest.fixture
def in_empty_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no .env, and no TUTOR_SANDBOX_* variable set."""
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("TUTOR_SANDBOX_")]:
        monkeypatch.delenv(name)
    return tmp_path


def test_a_value_in_dot_env_takes_effect(in_empty_dir: Path) -> None:
    (in_empty_dir / ".env").write_text("TUTOR_SANDBOX_WALL_S=1\nTUTOR_SANDBOX_MEMORY_MIB=64\n")
    settings = load_sandbox_settings()
    assert (settings.wall_s, settings.memory_mib) == (1.0, 64)


def test_a_bad_value_in_dot_env_is_named_like_one_in_the_environment(in_empty_dir: Path) -> None:
    (in_empty_dir / ".env").write_bytes(b"\xef\xbb\xbfTUTOR_SANDBOX_WALL_S=-1\r\n")
    with pytest.raises(SandboxSettingsError) as bad:
        load_sandbox_settings()
    assert bad.value.problems == ["TUTOR_SANDBOX_WALL_S: Input should be greater than 0 (got '-1')"]


def test_the_environment_wins_over_dot_env(
    in_empty_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (in_empty_dir / ".env").write_text("TUTOR_SANDBOX_WALL_S=-1\n")
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "2")
    assert load_sandbox_settings().wall_s == 2.0


def test_an_empty_value_means_unset_as_for_every_tutor_setting(
    in_empty_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "")
    assert load_sandbox_settings().wall_s == DEFAULT_WALL_S


def test_the_worker_needs_no_dot_env(in_empty_dir: Path) -> None:
    assert load_sandbox_settings().limits.wall_s == DEFAULT_WALL_S


def test_a_local_worker_is_given_the_dot_env_values_and_the_environment_wins(
    in_empty_dir: Path,
) -> None:
    (in_empty_dir / ".env").write_text(
        "TUTOR_DISCORD_TOKEN=secret\nTUTOR_SANDBOX_WALL_S=1\nTUTOR_SANDBOX_PIDS=40\n"
        "TUTOR_SANDBOX_QUEUE=\n"
    )
    environ = {"TUTOR_SANDBOX_PIDS": "50", "TUTOR_SANDBOX_CPU_S": "", "HOME": "/root"}
    assert sandbox_environment(environ) == {
        "TUTOR_SANDBOX_WALL_S": "1",
        "TUTOR_SANDBOX_PIDS": "50",
        "TUTOR_SANDBOX_CPU_S": "",  # empty: the default, handed on as such (fresh22 #9)
    }
