"""``/run``: modal first, per-learner lock and cooldown, output inline or as a file."""

from __future__ import annotations

from bot.progress.models import GuildSettings
from tests.discord_app.conftest import Opener
from tests.discord_app.harness import FakeDiscord, Harness
from tests.fake_sandbox import FakeSandboxRunner, run_result

CODE = "import torch\nprint(torch.ones(1) * 2)"


async def test_run_opens_the_code_modal_as_its_first_response(harness: Harness) -> None:
    run = await harness.slash("run")
    modal = run.modal
    assert modal["custom_id"] == f"tutor:modal:run:{run.record.id}"
    [text_input] = modal["components"][0]["components"]
    assert text_input["max_length"] == 4000
    assert text_input["required"] is True


async def test_run_shows_the_status_and_the_output_privately(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    assert sandbox.runs == [CODE]
    assert sandbox.use_cache == [False]
    assert submit.callback.body == {"type": 5, "data": {"flags": 64}}
    assert submit.reply["content"] == "**exit 0** · 21 ms\n```\ntensor([2.])\n```"
    assert submit.reply["flags"] & 64


async def test_run_public_posts_the_output_in_the_channel(harness: Harness) -> None:
    run = await harness.slash("run", public=True)
    submit = await harness.submit(run.modal, CODE)
    assert submit.callback.body == {"type": 5}
    assert not submit.reply["flags"] & 64


async def test_long_output_is_cut_inline_and_attached_in_full(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    lines = [f"line {n}" for n in range(40)]
    sandbox.learner_result = run_result("\n".join(lines) + "\n")
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    content = submit.reply["content"]
    assert "line 9\n```" in content
    assert "line 10" not in content
    assert "40 lines in total: the full output is attached." in content
    [(name, data)] = submit.followups[0].files
    assert name == "output.txt"
    assert data.decode() == "\n".join(lines) + "\n"


async def test_the_status_is_said_in_words(harness: Harness, sandbox: FakeSandboxRunner) -> None:
    sandbox.learner_result = run_result(
        "",
        status="ran out of memory (limit 512 MiB)",
        ok=False,
        memory_exceeded=True,
        duration_ms=900.0,
    )
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    assert (
        submit.reply["content"] == "**ran out of memory (limit 512 MiB)** · 900 ms\n*(no output)*"
    )


async def test_a_second_run_within_the_cooldown_is_refused(harness: Harness) -> None:
    first = await harness.slash("run")
    await harness.submit(first.modal, CODE)
    second = await harness.slash("run")
    body = second.callback.body
    assert body["type"] == 4
    assert body["data"]["content"].startswith("You can use `/run` again in ")
    assert body["data"]["flags"] == 64


async def test_run_is_refused_where_admins_turned_it_off(harness: Harness) -> None:
    await harness.services.store.save_guild_settings(
        GuildSettings(guild_id=harness.guild_id, run_enabled=False)
    )
    run = await harness.slash("run")
    assert run.callback.body["data"]["content"] == "Admins have turned `/run` off in this server."


async def test_learner_code_is_refused_when_the_sandbox_has_no_isolation(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.mode = "refusing"
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    assert submit.reply["content"].startswith("Running your own code is off here")


async def test_run_is_refused_before_the_modal_when_the_sandbox_reported_no_isolation(
    fake_discord: FakeDiscord, opener: Opener, sandbox: FakeSandboxRunner
) -> None:
    sandbox.mode = "refusing"  # the worker's health at start-up says: no isolation
    harness = Harness(fake_discord, opener)
    await harness.boot()
    try:
        run = await harness.slash("run")
        assert run.callback.body["type"] == 4  # a message, not a modal
        assert run.callback.body["data"]["content"].startswith("Running your own code is off")
        assert sandbox.runs == []
    finally:
        await harness.close()
    assert fake_discord.violations == []


async def test_a_down_sandbox_gives_a_short_friendly_message(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.mode = "down"
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    assert (
        submit.reply["content"] == "The sandbox is not answering right now. Try again in a minute."
    )


async def test_a_slow_sandbox_still_gets_the_submit_acknowledged_in_time(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.mode = "slow"
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE, wait=False)
    assert submit.record.callback_type == 5
    sandbox.gate.set()
    await submit.finish()
    assert submit.reply["content"].startswith("**exit 0**")
