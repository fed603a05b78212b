"""A bad or unusable flag is named as the flag, never as the variable it stands for."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import run_tutor


def test_health_names_the_sandbox_flag_not_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TUTOR_SANDBOX_ADDRESS", raising=False)
    assert main(["health", "--sandbox", "bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tutor health: --sandbox: ")
    assert "TUTOR_SANDBOX_ADDRESS" not in err


def test_health_says_why_it_takes_no_sandbox_off(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["health", "--sandbox", "off"]) == 2
    err = capsys.readouterr().err
    assert "with off there is none to check" in err
    assert "--check database" in err


def test_play_lists_off_among_the_sandbox_flags_values(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TUTOR_SANDBOX_ADDRESS", raising=False)
    assert main(["play", "--script", "--sandbox", "bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tutor play: --sandbox: must be local, off (no sandbox")
    assert "got 'bogus'" in err


@pytest.mark.slow
def test_sandbox_run_says_the_backend_flag_turned_isolation_off(tmp_path: Path) -> None:
    """Learner code is refused without isolation; the reason names --backend none."""
    snippet = tmp_path / "ok.py"
    snippet.write_text("print(1)\n")
    done = run_tutor("sandbox", "run", str(snippet), "--backend", "none")
    assert done.returncode == 2
    assert "isolation was turned off by --backend none" in done.stderr
    assert "by configuration" not in done.stderr


@pytest.mark.parametrize("age", ["-1", "0", "nan"])
def test_health_refuses_a_max_age_that_is_not_positive(
    age: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["health", "--check", "heartbeat", "--max-age", age])
    assert exited.value.code == 2
    assert "is not a positive number of seconds" in capsys.readouterr().err
