"""``/tutor``: a learner's own data (forget-me, export)."""

from __future__ import annotations

import json

from tests.discord_app.harness import Harness
from tests.discord_app.helpers import attempts_of, custom_ids


async def _answer_why(harness: Harness) -> None:
    quiz = await harness.slash("quiz", kind="why")
    click = await harness.click(quiz.reply, "tutor:answer:WHY1:x:0")
    await harness.submit(click.modal, "the graph is freed")


async def test_forget_me_asks_for_confirmation_first(harness: Harness) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    data = ask.callback.body["data"]
    assert data["flags"] == 64
    assert [c["label"] for c in data["components"][0]["components"]] == [
        "Delete everything",
        "Cancel",
    ]
    assert len(await attempts_of(harness, harness.learner.id)) == 1


async def test_confirming_forget_me_deletes_the_learners_data(harness: Harness) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    confirm = await harness.click(ask.reply, custom_ids(ask.reply)[0])
    assert confirm.callback.body == {"type": 6}
    assert await attempts_of(harness, harness.learner.id) == []
    assert (await harness.services.store.learner_stats(harness.learner.id)).attempts == 0
    edit = confirm.requests[-1]
    assert edit.route == "PATCH /webhooks/{id}/{token}/messages/@original"
    assert edit.body["content"] == (
        "Done: deleted your 1 answers, 1 review cards and all your progress."
    )
    assert edit.body["components"] == []


async def test_cancelling_forget_me_keeps_everything(harness: Harness) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    cancel = await harness.click(ask.reply, custom_ids(ask.reply)[1])
    assert cancel.callback.body["type"] == 7
    assert cancel.callback.body["data"]["content"] == "Nothing was deleted."
    assert len(await attempts_of(harness, harness.learner.id)) == 1


async def test_only_the_learner_who_asked_can_confirm_forget_me(harness: Harness) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    other = await harness.click(ask.reply, custom_ids(ask.reply)[0], harness.other)
    assert (
        other.callback.body["data"]["content"] == "These buttons belong to the learner who asked."
    )
    assert len(await attempts_of(harness, harness.learner.id)) == 1


async def test_export_sends_the_learners_data_as_a_json_file(harness: Harness) -> None:
    await _answer_why(harness)
    export = await harness.slash("tutor export")
    [(name, data)] = export.followups[0].files
    assert name == f"tutor-export-{harness.learner.id}.json"
    exported = json.loads(data)
    assert exported["learner_id"] == harness.learner.id
    assert [a["answer_text"] for a in exported["attempts"]] == ["the graph is freed"]
    assert [c["item_id"] for c in exported["review_cards"]] == ["WHY1"]
