"""``tutor play`` goes on without a sandbox that cannot start, and says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content.loader import Bank
from bot.play.app import open_play
from tests.play.conftest import settings_for


def test_a_local_worker_that_fails_shows_its_reason(
    tmp_path: Path, bank: Bank, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "-1")  # the worker refuses it and exits
    with open_play(settings_for(tmp_path), bank=bank) as context:
        state = context.sandbox
    assert not state.available
    assert state.note is not None
    assert state.note.startswith("the local sandbox exited during start-up (status 2): ")
    assert state.note.endswith("TUTOR_SANDBOX_WALL_S: Input should be greater than 0 (got '-1')")
