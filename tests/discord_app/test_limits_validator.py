"""The limits validator the harness runs on every body catches each limit it claims to."""

from __future__ import annotations

from typing import Any

import pytest

from tests.discord_app.harness.limits import message_problems, violations

OK: dict[str, Any] = {"content": "hi", "allowed_mentions": {"parse": []}}


def _button(**extra: Any) -> dict[str, Any]:
    return {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", **extra}]}


def test_a_body_within_the_limits_passes() -> None:
    assert message_problems({**OK, "components": [_button(custom_id="tutor:explain:TF1:0")]}) == []


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"content": "x" * 2001}, "content has 2001 chars"),
        ({"embeds": [{"title": "x" * 257}]}, "title has 257 chars"),
        ({"embeds": [{"description": "x" * 4097}]}, "description has 4097 chars"),
        ({"embeds": [{"fields": [{"name": "n", "value": "x" * 1025}]}]}, "value has 1025 chars"),
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, "26 fields"),
        ({"embeds": [{"description": "x" * 4000}, {"description": "x" * 2001}]}, "total 6001"),
        ({"components": [_button(custom_id="tutor:explain:TF1:" + "0" * 90)]}, "custom_id has"),
        ({"components": [_button(custom_id="answer:my secret text")]}, "not a known template"),
        (
            {"components": [_button(custom_id="tutor:explain:TF1:0", label="x" * 81)]},
            "label longer than 80",
        ),
        ({"nonce": "n" * 26}, "nonce"),
    ],
)
def test_each_limit_is_caught(body: dict[str, Any], problem: str) -> None:
    problems = message_problems({**OK, **body})
    assert any(problem in p for p in problems), problems


def test_a_message_that_could_ping_is_caught() -> None:
    assert message_problems({"content": "hi"}) == [
        "no allowed_mentions: the message could ping someone"
    ]
    assert message_problems({"content": "hi", "allowed_mentions": {"parse": ["everyone"]}})


def test_a_modal_with_an_oversized_text_input_is_caught() -> None:
    body = {
        "type": 9,
        "data": {
            "custom_id": "tutor:modal:run:1",
            "title": "t" * 46,
            "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "a" * 32, "max_length": 5000}]}
            ],
        },
    }
    problems = violations("POST /interactions/{id}/{token}/callback", body)
    assert "modal title longer than 45" in problems
    assert any("max_length over 4000" in p for p in problems)


def test_a_command_with_a_long_description_is_caught() -> None:
    problems = violations(
        "PUT /applications/{id}/commands", [{"name": "quiz", "description": "d" * 101}]
    )
    assert problems == ["/quiz: description of 101 chars (1-100)"]
