"""The central error handler and Discord failing the bot's own responses (429, 500, 403)."""

from __future__ import annotations

import logging
import re

import pytest

from tests.discord_app.harness import Harness
from tests.discord_app.helpers import custom_ids

INCIDENT = re.compile(
    r"^Something went wrong on our side \(incident `([0-9a-f]{8})`\)\. Please try again; "
    r"if it keeps happening, tell a server admin\.$"
)


def _boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("secret internals: /srv/tutor.db locked")


async def test_a_failing_command_shows_an_incident_id_and_logs_the_details(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(harness.services.store, "learner_stats", _boom)
    with caplog.at_level(logging.ERROR, logger="bot.discord_app.errors"):
        stats = await harness.slash("stats")
    shown = stats.reply["content"]
    match = INCIDENT.match(shown)
    assert match, shown
    assert "secret" not in shown
    [record] = [r for r in caplog.records if match.group(1) in r.getMessage()]
    assert "where=/stats" in record.getMessage()
    assert record.exc_info is not None
    assert "secret internals" in str(record.exc_info[1])


async def test_a_failing_modal_submit_goes_through_modal_on_error(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(harness.services.grader, "grade", _boom)
    quiz = await harness.slash("quiz", kind="why")
    click = await harness.click(quiz.reply, "tutor:answer:WHY1:x:0")
    with caplog.at_level(logging.ERROR, logger="bot.discord_app.errors"):
        submit = await harness.submit(click.modal, "freed")
    assert INCIDENT.match(submit.reply["content"])
    assert "where=AnswerModal" in caplog.text


async def test_a_failing_view_button_goes_through_view_on_error(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(harness.services.store, "forget_learner", _boom)
    ask = await harness.slash("tutor forget-me")
    with caplog.at_level(logging.ERROR, logger="bot.discord_app.errors"):
        confirm = await harness.click(ask.reply, custom_ids(ask.reply)[0])
    [followup] = confirm.followups
    assert INCIDENT.match(followup.body["content"])
    assert followup.body["flags"] == 64
    assert "where=ForgetConfirmView:Button" in caplog.text


async def test_a_persistent_button_for_a_removed_item_says_so(harness: Harness) -> None:
    quiz = await harness.slash("quiz", kind="why")
    message = {**quiz.reply}
    message["components"] = [
        {
            "type": 1,
            "components": [
                {"type": 2, "style": 1, "label": "Answer", "custom_id": "tutor:answer:WHY99:x:0"}
            ],
        }
    ]
    click = await harness.click(message, "tutor:answer:WHY99:x:0")
    assert click.callback.body["data"]["content"] == (
        "Question WHY99 is no longer in the question bank."
    )


async def test_a_rate_limited_interaction_response_is_retried(harness: Harness) -> None:
    harness.fake.fail("POST", r"/callback$", 429, retry_after=0.05)
    quiz = await harness.slash("quiz", kind="why")
    callbacks = [r for r in quiz.requests if r.path.endswith("/callback")]
    assert [r.status for r in callbacks] == [429, 200]
    assert quiz.reply["embeds"][0]["title"] == "Why? · WHY1"


async def test_a_followup_answered_500_is_retried_once_discord_recovers(harness: Harness) -> None:
    harness.fake.fail("POST", r"^/webhooks/\d+/[^/]+$", 500)
    stats = await harness.slash("stats")
    assert [r.status for r in stats.followups] == [500, 200]
    assert stats.reply["embeds"][0]["title"] == "Progress of Ada"


async def test_a_forbidden_followup_is_logged_without_crashing_the_bot(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    harness.fake.fail("POST", r"^/webhooks/\d+/[^/]+$", 403, times=2)
    with caplog.at_level(logging.WARNING):
        stats = await harness.slash("stats")
    assert [r.status for r in stats.followups] == [403, 403]  # the answer, then the apology
    assert "could not tell the user about incident" in caplog.text
    quiz = await harness.slash("quiz", kind="why")  # the bot still answers the next one
    assert quiz.reply["embeds"][0]["title"] == "Why? · WHY1"
