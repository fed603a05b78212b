"""The bot with the real local sandbox: real torch output, and graph pictures drawn there.

Slow: ``open_services`` starts ``tutor sandbox serve`` as a child process (it imports torch
and forks its jails), exactly as ``tutor bot`` does with ``TUTOR_SANDBOX_ADDRESS=local``.
"""

from __future__ import annotations

import shutil
import struct
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.services import open_services
from bot.settings import TutorSettings
from tests.discord_app.conftest import FIXTURE_PACKS
from tests.discord_app.harness import TOKEN, Dispatched, FakeDiscord, Harness
from tests.discord_app.helpers import custom_ids
from tests.fake_sandbox import Clock

pytestmark = pytest.mark.slow


@pytest.fixture
async def live(fake_discord: FakeDiscord, tmp_path: Path, clock: Clock) -> AsyncIterator[Harness]:
    packs = tmp_path / "content"
    packs.mkdir()
    for pack in FIXTURE_PACKS:
        shutil.copy(pack, packs / pack.name)
    settings = TutorSettings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=TOKEN,  # type: ignore[arg-type]
        database_path=tmp_path / "tutor.db",
        content_dir=packs,
        sandbox_address="local",
        run_cooldown_s=0,
    )
    harness = Harness(fake_discord, lambda: open_services(settings, clock=clock))
    await harness.boot()
    yield harness
    await harness.close()
    assert fake_discord.violations == [], "\n".join(fake_discord.violations)


async def test_a_drop_is_answered_graded_and_revealed_with_the_real_output(
    live: Harness, clock: Clock
) -> None:
    await live.slash(
        "tutor-admin drops set",
        live.admin,
        channel=live.place,
        time="09:00",
        timezone="UTC",
        kinds="why",
    )
    clock.advance(timedelta(hours=1))
    [outcome] = await live.bot.scheduler.tick()
    [message] = live.fake.channel_messages(live.place.channel_id)
    click = await live.click(message, "tutor:answer:WHY1:x:1")
    submit = await live.submit(click.modal, "The first backward frees the saved tensors.")
    assert submit.reply["embeds"][0]["title"] == "Correct — 100% · WHY1"

    clock.advance(timedelta(hours=24))
    await live.bot.scheduler.tick()
    reveal = live.fake.channel_messages(int(message["id"]))[0]  # in the thread
    snippet = reveal["embeds"][2]
    assert snippet["fields"][0] == {
        "name": "Output",
        "value": "```\ntensor([2.])\n```",
        "inline": False,
    }
    assert snippet["footer"]["text"].startswith("exit 0 · torch 2.13.0 · ran in ")
    assert outcome.message_id == int(message["id"])


async def test_run_shows_real_torch_output(live: Harness) -> None:
    run = await live.slash("run")
    submit = await live.submit(
        run.modal,
        "import torch\nx = torch.ones(2, requires_grad=True)\n"
        "(x * 3).sum().backward()\nprint(x.grad)",
    )
    assert submit.reply["content"].startswith("**exit 0** · ")
    assert submit.reply["content"].endswith("```\ntensor([3., 3.])\n```")


def _png_size(shown: Dispatched) -> tuple[int, int]:
    [(name, png)] = shown.followups[0].files
    assert (name, png[:8]) == ("autograd-graph.png", b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


async def test_show_graph_on_feedback_is_drawn_by_the_worker(live: Harness) -> None:
    quiz = await live.slash("quiz", kind="why")
    click = await live.click(quiz.reply, "tutor:answer:WHY1:x:0")
    submit = await live.submit(click.modal, "The first backward frees the saved tensors.")
    shown = await live.click(submit.reply, "tutor:graph:WHY1:0")
    assert shown.reply["content"].startswith("**Autograd graph of WHY1.**")
    width, height = _png_size(shown)
    assert 800 <= width <= 1200
    assert height >= 300


async def test_show_graph_under_run_draws_the_learners_graph(live: Harness) -> None:
    run = await live.slash("run")
    submit = await live.submit(
        run.modal, "import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * 3).sum()"
    )
    [key] = custom_ids(submit.reply)
    shown = await live.click(submit.reply, key)
    assert shown.reply["content"].startswith("**Autograd graph of your snippet.**")
    assert 800 <= _png_size(shown)[0] <= 1200
