"""The answer flow through the real discord.py: button -> modal -> submit -> feedback."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.content.loader import Bank
from tests.discord_app.harness import Harness
from tests.discord_app.helpers import attempts_of, custom_ids, field_values, is_ephemeral, labels
from tests.fake_sandbox import FakeSandboxRunner


async def _question(harness: Harness, kind: str) -> dict:
    quiz = await harness.slash("quiz", kind=kind)
    return quiz.reply


async def test_true_false_items_show_true_and_false_buttons(harness: Harness) -> None:
    question = await _question(harness, "true_false")
    assert labels(question) == ["True", "False"]
    assert custom_ids(question) == ["tutor:answer:TF1:t:0", "tutor:answer:TF1:f:0"]


async def test_other_kinds_show_one_answer_button(harness: Harness) -> None:
    question = await _question(harness, "why")
    assert labels(question) == ["Answer"]
    assert custom_ids(question) == ["tutor:answer:WHY1:x:0"]


async def test_the_first_response_to_an_answer_click_is_the_modal(harness: Harness) -> None:
    question = await _question(harness, "true_false")
    click = await harness.click(question, "tutor:answer:TF1:f:0")
    assert [r.route for r in click.requests] == ["POST /interactions/{id}/{token}/callback"]
    assert click.callback.body == {
        "type": 9,
        "data": {
            "custom_id": f"tutor:modal:answer:{click.record.id}",
            "title": "TF1: you said False",
            "components": [
                {
                    "type": 1,
                    "components": [
                        {
                            "type": 4,
                            "style": 2,
                            "label": "Why? Justify your verdict",
                            "custom_id": click.modal["components"][0]["components"][0]["custom_id"],
                            "required": True,
                            "placeholder": "One or two sentences: what happens, and why.",
                            "max_length": 4000,
                        }
                    ],
                }
            ],
        },
    }


async def test_a_submit_is_deferred_then_answered_with_private_feedback(harness: Harness) -> None:
    question = await _question(harness, "true_false")
    click = await harness.click(question, "tutor:answer:TF1:f:0")
    submit = await harness.submit(click.modal, "False: gradients accumulate in .grad.")
    assert submit.callback.body == {"type": 5, "data": {"flags": 64}}
    feedback = submit.reply
    assert is_ephemeral(feedback)
    embed = feedback["embeds"][0]
    assert embed["title"] == "Correct — 100% · TF1"
    assert embed["description"] == "Your verdict: **False**"
    assert field_values(feedback) == {
        "Your answer": "False: gradients accumulate in .grad.",
        "What you got right": "• gradients add up",
    }
    assert labels(feedback) == ["Explanation", "Run the snippet", "Show graph"]
    assert custom_ids(feedback) == [
        "tutor:explain:TF1:0",
        "tutor:snippet:TF1:0",
        "tutor:graph:TF1:0",
    ]


async def test_feedback_names_what_was_missing_and_the_misconception(harness: Harness) -> None:
    question = await _question(harness, "true_false")
    click = await harness.click(question, "tutor:answer:TF1:t:0")
    submit = await harness.submit(click.modal, "True, backward overwrites it.")
    embed = submit.reply["embeds"][0]
    assert embed["title"] == "Not yet — 0% · TF1"
    assert embed["description"] == "Your verdict: **True**\nThe statement is false, not true."
    fields = field_values(submit.reply)
    assert fields["What was missing"] == "• What happens to the old gradient?"
    assert fields["Misconception"] == "• backward adds to .grad; it never replaces it."


async def test_the_attempt_is_recorded_with_the_button_verdict(harness: Harness) -> None:
    question = await _question(harness, "true_false")
    click = await harness.click(question, "tutor:answer:TF1:f:0")
    await harness.submit(click.modal, "they add up")
    [attempt] = await attempts_of(harness, harness.learner.id)
    assert (attempt.item_id, attempt.guild_id, attempt.drop_id) == ("TF1", harness.guild_id, None)
    assert attempt.verdict is False
    assert attempt.answer_text == "they add up"
    assert attempt.label == "correct"


@pytest.mark.parametrize("text", ["```python", "****", "||  ||", "<b></b>", "** **"])
async def test_an_answer_empty_after_normalisation_is_refused_and_not_recorded(
    harness: Harness, text: str
) -> None:
    question = await _question(harness, "true_false")
    click = await harness.click(question, "tutor:answer:TF1:f:0")
    submit = await harness.submit(click.modal, text)
    assert "An empty answer cannot be graded: say why, in a sentence." in json.dumps(
        submit.followups[0].body
    )
    assert await attempts_of(harness, harness.learner.id) == []


async def test_learner_text_is_escaped_where_echoed(harness: Harness) -> None:
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    typed = "@everyone **freed** <@123456789012345678> <#123456789012345678> `x`"
    submit = await harness.submit(click.modal, typed)
    echoed = field_values(submit.reply)["Your answer"]
    assert echoed == (
        "@\u200beveryone \\*\\*freed\\*\\* <@\u200b123456789012345678> "
        "<\u200b#123456789012345678> \\`x\\`"
    )
    assert submit.followups[0].body["allowed_mentions"] == {"parse": []}


async def test_the_explanation_button_answers_privately(harness: Harness) -> None:
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    submit = await harness.submit(click.modal, "the graph is freed")
    explain = await harness.click(submit.reply, "tutor:explain:WHY1:0")
    assert explain.callback.body["type"] == 4
    body = explain.callback.body["data"]
    assert body["flags"] == 64
    assert body["embeds"][0]["title"] == "Explanation · WHY1"
    assert body["embeds"][0]["fields"][0] == {
        "name": "Answer",
        "value": "The first backward frees the graph's saved tensors.",
        "inline": False,
    }


async def test_run_the_snippet_shows_the_real_output_from_the_sandbox(
    harness: Harness, sandbox: FakeSandboxRunner, test_bank: Bank
) -> None:
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    submit = await harness.submit(click.modal, "freed")
    run = await harness.click(submit.reply, "tutor:snippet:WHY1:0")
    assert run.callback.body == {"type": 5, "data": {"flags": 64}}
    assert sandbox.runs == [test_bank.items["WHY1"].snippet]
    embed = run.reply["embeds"][0]
    assert embed["fields"][0] == {
        "name": "Output",
        "value": "```\ntensor([2.])\n```",
        "inline": False,
    }
    assert embed["footer"]["text"] == "exit 0 · torch 2.13.0 · ran in 21 ms"


async def test_a_second_run_of_the_snippet_is_served_from_the_store(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    submit = await harness.submit(click.modal, "freed")
    await harness.click(submit.reply, "tutor:snippet:WHY1:0")
    await harness.restart()
    again = await harness.click(submit.reply, "tutor:snippet:WHY1:0", harness.other)
    assert len(sandbox.runs) == 1
    assert again.reply["embeds"][0]["footer"]["text"] == "exit 0 · torch 2.13.0 · cached run"


async def test_run_the_snippet_falls_back_to_the_recorded_output_when_the_sandbox_is_down(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    sandbox.mode = "down"
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    submit = await harness.submit(click.modal, "freed")
    run = await harness.click(submit.reply, "tutor:snippet:WHY1:0")
    field = run.reply["embeds"][0]["fields"][0]
    assert field["name"] == "Output recorded with torch 2.13.0"
    assert field["value"] == "```\ntensor([2.])\n```"


async def test_a_slow_sandbox_still_gets_the_click_acknowledged_in_time(
    harness: Harness, sandbox: FakeSandboxRunner
) -> None:
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    submit = await harness.submit(click.modal, "freed")
    sandbox.mode = "slow"
    run = await harness.click(submit.reply, "tutor:snippet:WHY1:0", wait=False)
    assert run.record.callback_type == 5  # deferred while the sandbox has not answered
    assert run.followups == []
    sandbox.gate.set()
    await run.finish()
    assert run.reply["embeds"][0]["fields"][0]["name"] == "Output"


async def test_a_modal_submitted_twice_at_once_records_one_attempt(harness: Harness) -> None:
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    first, second = await asyncio.gather(
        harness.submit(click.modal, "the graph is freed"),
        harness.submit(click.modal, "the graph is freed"),
    )
    assert len(await attempts_of(harness, harness.learner.id)) == 1
    notes = sorted(d.reply["embeds"][0].get("description") or "" for d in (first, second))
    assert "counted once" in notes[1]
    assert "counted once" not in notes[0]


async def test_a_late_duplicate_submit_records_nothing_more(harness: Harness) -> None:
    question = await _question(harness, "why")
    click = await harness.click(question, "tutor:answer:WHY1:x:0")
    await harness.submit(click.modal, "the graph is freed")
    late = await harness.submit(click.modal, "the graph is freed", expect_ack=False)
    assert len(await attempts_of(harness, harness.learner.id)) == 1
    assert late.requests == []  # discord.py no longer tracks the finished modal


async def test_buttons_on_an_old_message_still_answer_after_a_restart(harness: Harness) -> None:
    question = await _question(harness, "true_false")
    await harness.restart()
    click = await harness.click(question, "tutor:answer:TF1:f:0")
    assert click.modal["title"] == "TF1: you said False"
    submit = await harness.submit(click.modal, "they accumulate")
    assert submit.reply["embeds"][0]["title"] == "Correct — 100% · TF1"
    await harness.restart()
    explain = await harness.click(submit.reply, "tutor:explain:TF1:0")
    assert explain.callback.body["data"]["embeds"][0]["title"] == "Explanation · TF1"
