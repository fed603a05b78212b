"""Opening ``tutor play``: what the start-up says about the sandbox."""

from __future__ import annotations

from pathlib import Path

from bot.cli.play import opening_text
from bot.content.loader import Bank
from bot.play.app import open_play
from tests.fake_sandbox import FakeSandboxRunner
from tests.play.conftest import settings_for


def test_the_spinner_never_says_it_starts_a_worker_with_the_sandbox_off(tmp_path: Path) -> None:
    text = opening_text(settings_for(tmp_path), sandbox_off=True)
    assert "worker" not in text
    assert "the sandbox is off" in text


def test_the_spinner_says_a_local_worker_is_started(tmp_path: Path) -> None:
    assert "starting the sandbox worker" in opening_text(settings_for(tmp_path), sandbox_off=False)


def test_the_spinner_names_a_remote_worker(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, sandbox_address="unix:/run/s.sock")
    assert opening_text(settings, sandbox_off=False).endswith("the sandbox at unix:/run/s.sock")


def test_a_failed_health_check_is_explained_not_sent_to_the_hidden_log(
    tmp_path: Path, bank: Bank
) -> None:
    runner = FakeSandboxRunner(bank)
    runner.mode = "down"
    with open_play(settings_for(tmp_path), runner=runner, bank=bank) as context:
        note = context.sandbox.note
    assert note == (
        "its health check failed: the sandbox cannot be reached: connection refused (test)"
    )


def test_the_spinner_text_fits_an_80_column_terminal(tmp_path: Path) -> None:
    for off in (True, False):
        # rich draws a 2-cell spinner and a space before the text
        assert len(opening_text(settings_for(tmp_path), sandbox_off=off)) + 3 <= 80
