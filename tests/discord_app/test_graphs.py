""" "Show graph": item snippets and /run results, a private PNG drawn by the sandbox.

The sandbox client is the fake (it "draws" a tiny PNG and records what it was asked to
draw); the real renderer and ``POST /graph.png`` have their own tests in tests/sandbox, and
the slow test_real_sandbox.py draws one through the real local worker.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.discord_app.graphs import GraphShelf
from sandbox.errors import SandboxRejected
from sandbox.protocol import AutogradGraph
from tests.discord_app.harness import Dispatched, Harness
from tests.discord_app.helpers import custom_ids, is_ephemeral, labels
from tests.fake_sandbox import Clock, FakeSandboxRunner, small_graph

CODE = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2"


def _picture(dispatched: Dispatched) -> tuple[str, bytes]:
    [followup] = dispatched.followups
    [(name, data)] = followup.files
    return name, data


async def _feedback(harness: Harness) -> dict[str, Any]:
    quiz = await harness.slash("quiz", kind="why")
    click = await harness.click(quiz.reply, "tutor:answer:WHY1:x:0")
    submit = await harness.submit(click.modal, "the graph is freed")
    return submit.reply


async def test_the_feedback_offers_show_graph_for_the_items_snippet(harness: Harness) -> None:
    feedback = await _feedback(harness)
    assert labels(feedback)[-1] == "Show graph"
    assert custom_ids(feedback)[-1] == "tutor:graph:WHY1:0"


async def test_show_graph_sends_a_private_png_of_the_snippets_graph(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    feedback = await _feedback(harness)
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert shown.callback.body == {"type": 5, "data": {"flags": 64}}
    assert sandbox.graph_asks == [True]
    assert sandbox.drawn == [(sandbox.graph, "WHY1")]
    assert is_ephemeral(shown.reply)
    assert shown.reply["content"].startswith("**Autograd graph of WHY1.**")
    assert _picture(shown) == ("autograd-graph.png", sandbox.picture)


async def test_the_snippet_output_offers_show_graph_too(harness: Harness) -> None:
    feedback = await _feedback(harness)
    run = await harness.click(feedback, "tutor:snippet:WHY1:0")
    assert custom_ids(run.reply) == ["tutor:graph:WHY1:0"]


async def test_the_output_and_the_graph_come_from_one_cached_run(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    feedback = await _feedback(harness)
    await harness.click(feedback, "tutor:snippet:WHY1:0")
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert _picture(shown)[1] == sandbox.picture
    assert len(sandbox.runs) == 1


async def test_show_graph_still_answers_after_a_restart(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    feedback = await _feedback(harness)
    await harness.restart()
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert _picture(shown)[1] == sandbox.picture


async def test_a_snippet_without_autograd_history_gets_words_not_a_picture(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.graph = AutogradGraph(untracked=["plain", "*bold*"])
    feedback = await _feedback(harness)
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert shown.reply["content"] == (
        "The snippet of WHY1 leaves no tensor with autograd history in scope, so there is no "
        "graph to draw. Tensors without history: plain, \\*bold\\*."
    )
    assert shown.followups[0].files == []
    assert sandbox.drawn == []


async def test_a_run_whose_graph_could_not_be_read_says_why(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.graph = None
    feedback = await _feedback(harness)
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert shown.reply["content"] == (
        "No graph could be read from this run: the snippet ended before its graph was written."
    )


async def test_show_graph_with_the_sandbox_down_gives_the_usual_short_message(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    feedback = await _feedback(harness)
    sandbox.mode = "down"
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert (
        shown.reply["content"] == "The sandbox is not answering right now. Try again in a minute."
    )


async def test_a_sandbox_that_cannot_draw_says_pictures_are_not_available(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.render_refusal = SandboxRejected("no matplotlib (test)", "unsupported")
    feedback = await _feedback(harness)
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert shown.reply["content"] == (
        "Graph pictures are not available here: the sandbox cannot draw them."
    )


async def test_a_renderer_failure_is_an_incident_not_its_text(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.render_refusal = SandboxRejected("Traceback: matplotlib exploded", "failed")
    feedback = await _feedback(harness)
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert shown.reply["content"].startswith("Something went wrong on our side (incident `")
    assert "matplotlib" not in shown.reply["content"]


async def test_a_picture_over_discords_upload_limit_gets_words_instead(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.picture += b"\0" * (10 * 1024 * 1024)
    feedback = await _feedback(harness)
    shown = await harness.click(feedback, "tutor:graph:WHY1:0")
    assert shown.reply["content"] == "This graph is too large to send as a picture."
    assert shown.followups[0].files == []


async def test_a_run_asks_for_its_graph_and_offers_show_graph(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    assert (sandbox.graph_asks, sandbox.use_cache) == ([True], [False])
    assert custom_ids(submit.reply) == [f"tutor:rungraph:{submit.record.id}"]
    shown = await harness.click(submit.reply, f"tutor:rungraph:{submit.record.id}")
    assert shown.reply["content"].startswith("**Autograd graph of your snippet.**")
    assert is_ephemeral(shown.reply)
    assert _picture(shown)[1] == sandbox.picture
    assert sandbox.drawn == [(sandbox.graph, "your snippet")]


async def test_a_run_without_autograd_history_has_no_graph_button(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.graph = AutogradGraph(untracked=["x"])
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    assert custom_ids(submit.reply) == []


async def test_a_run_graph_clicked_after_a_restart_asks_to_run_again(harness: Harness) -> None:
    run = await harness.slash("run")
    submit = await harness.submit(run.modal, CODE)
    await harness.restart()
    shown = await harness.click(submit.reply, f"tutor:rungraph:{submit.record.id}")
    assert shown.reply["content"].startswith("That graph is no longer kept")
    assert "Run the snippet again with `/run`." in shown.reply["content"]


async def test_a_drop_reveal_offers_show_graph(harness: Harness, clock: Clock) -> None:
    await harness.slash(
        "tutor-admin drops set",
        harness.admin,
        channel=harness.place,
        time="09:00",
        timezone="UTC",
        kinds="why",
    )
    clock.advance(timedelta(hours=1, seconds=30))
    await harness.bot.scheduler.tick()
    clock.advance(timedelta(hours=24))
    await harness.bot.scheduler.tick()
    reveal = harness.fake.routes("POST /channels/{id}/messages")[-1]
    assert custom_ids(reveal.body) == ["tutor:graph:WHY1:1"]


def test_the_shelf_forgets_the_oldest_graph_beyond_its_size() -> None:
    shelf = GraphShelf(size=2)
    for key in (1, 2, 3):
        shelf.put(key, small_graph())
    assert (shelf.get(1), len(shelf)) == (None, 2)
    assert shelf.get(3) is not None


def test_the_shelf_forgets_a_graph_after_its_time_to_live() -> None:
    now = [0.0]
    shelf = GraphShelf(ttl_s=60, clock=lambda: now[0])
    shelf.put(7, small_graph())
    now[0] = 59.0
    assert shelf.get(7) is not None
    now[0] = 61.0
    assert shelf.get(7) is None
