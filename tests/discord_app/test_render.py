"""The renderer keeps every message within Discord's limits and learner text inert."""

from __future__ import annotations

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.content.loader import Bank
from bot.content.models import Label
from bot.discord_app.render import escape_learner, feedback_embed, fence, fit, run_message
from bot.grading.models import Feedback, GradeResult, Response
from tests.discord_app.harness.limits import message_problems
from tests.fake_sandbox import run_result

MESSAGE = {"allowed_mentions": {"parse": []}}


def _grade(texts: list[str]) -> GradeResult:
    return GradeResult(
        item_id="TF1",
        score=0.5,
        label=Label.PARTIAL,
        verdict=False,
        verdict_source="button",
        verdict_correct=True,
        concepts_hit=[],
        concepts_missing=[],
        misconceptions=[],
        confidence=0.5,
        feedback=Feedback(
            right=texts, missing=texts, corrections=texts, verdict=texts[0] if texts else None
        ),
    )


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=4000), parts=st.lists(st.text(min_size=1, max_size=1500), max_size=30))
def test_feedback_of_any_size_fits_discords_limits(
    test_bank: Bank, text: str, parts: list[str]
) -> None:
    item = test_bank.items["TF1"]
    embed = feedback_embed(item, Response(item_id="TF1", verdict=False, text=text), _grade(parts))
    assert message_problems({**MESSAGE, "embeds": [embed.to_dict()]}) == []


def test_fit_shrinks_an_embed_over_the_6000_total() -> None:
    embed = discord.Embed(title="t" * 300, description="d" * 5000)
    for n in range(30):
        embed.add_field(name=f"f{n}", value="v" * 2000)
    fitted = fit(embed)
    assert message_problems({**MESSAGE, "embeds": [fitted.to_dict()]}) == []


def test_escaped_learner_text_cannot_ping_or_format() -> None:
    assert escape_learner("@here *hi* <@&123456789012345678>", 100) == (
        "@\u200bhere \\*hi\\* <@\u200b&123456789012345678>"
    )


def test_escaped_learner_text_is_clipped_with_an_ellipsis() -> None:
    assert escape_learner("a" * 50, 10) == "a" * 9 + "…"


def test_code_cannot_close_its_fence_early() -> None:
    fenced = fence("print(1)\n```\n@everyone", 100)
    assert fenced.startswith("```\n")
    assert fenced.endswith("\n```")
    assert fenced[3:-3].count("```") == 0


def test_a_terminal_escape_in_an_output_is_shown_not_sent_raw() -> None:
    message = run_message(run_result("\x1b[31mred\n"))
    assert "\x1b" not in message.content
    assert "\u241b[31mred" in message.content


def test_a_right_to_left_override_in_an_output_is_shown_as_its_code_point() -> None:
    message = run_message(run_result("ok\u202e)]1[(\n"))
    assert "\u202e" not in message.content
    assert "ok\u27e8U+202E\u27e9)]1[(" in message.content


def test_the_attached_full_output_shows_bidirectional_controls_too() -> None:
    message = run_message(run_result("\u202ex\n" * 20))
    assert message.full_output is not None
    assert "\u202e" not in message.full_output.decode()


def test_run_output_up_to_ten_lines_is_inline_without_a_file() -> None:
    message = run_message(run_result("a\n" * 10, duration_ms=5.2))
    assert message.full_output is None
    assert message.content == "**exit 0** · 5 ms\n```\n" + "a\n" * 9 + "a\n```"


def test_run_output_over_a_thousand_characters_goes_to_a_file() -> None:
    message = run_message(run_result("x" * 3000))
    assert message.full_output == b"x" * 3000
    assert len(message.content) <= 2000
