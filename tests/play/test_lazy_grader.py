"""``tutor play`` compiles a rubric when its item is first graded; the bot compiles all."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.content.loader import Bank
from bot.play.app import open_play
from bot.services import open_services
from tests.fake_sandbox import FakeSandboxRunner
from tests.play.conftest import settings_for


def test_play_opens_without_compiling_any_rubric(tmp_path: Path, bank: Bank) -> None:
    with open_play(settings_for(tmp_path), runner=FakeSandboxRunner(bank), bank=bank) as context:
        grader = context.services.grader
        assert len(grader) == len(bank)
        assert grader._items == {}
        item = next(iter(bank))
        grader.grade(grader.response(item.id, None, "some answer"))
        assert list(grader._items) == [item.id]


def test_the_bot_services_compile_every_rubric_before_they_open(tmp_path: Path, bank: Bank) -> None:
    async def compiled() -> int:
        runner = FakeSandboxRunner(bank)
        async with open_services(settings_for(tmp_path), bank=bank, runner=runner) as services:
            return len(services.grader._items)

    assert asyncio.run(compiled()) == len(bank)
