"""How play shows things: never a terminal escape from an output, never markup from content."""

from __future__ import annotations

from rich.console import Console

from bot.content.models import Kind
from bot.play.protocol import NothingToReview, Question, Revealed
from bot.play.render import clean, render_plain, render_rich


def _revealed(output: str, source: str = "sandbox") -> Revealed:
    return Revealed.model_validate(
        {
            "item_id": "TF3",
            "answer": "False.",
            "explanation": "It accumulates.",
            "snippet": "print(1)\n",
            "output": output,
            "source": source,
            "status": "exit 0" if source != "recorded" else None,
            "torch_version": "2.13.0",
            "duration_ms": 31.0 if source == "sandbox" else None,
        }
    )


def test_escape_sequences_and_control_characters_are_shown_not_obeyed() -> None:
    assert clean("a\x1b[2J\x07b\x00c\td\n") == "a\u241b[2J\u2407b\u2400c\td\n"


def test_a_terminal_escape_in_an_output_is_shown_as_a_visible_character() -> None:
    shown = render_plain(_revealed("tensor([1.])\x1b[31m\n"))
    assert "\x1b" not in shown
    assert "    tensor([1.])\u241b[31m" in shown


def test_a_right_to_left_override_in_an_output_is_shown_as_its_code_point() -> None:
    shown = render_plain(_revealed("tensor([1.])\u202e)]2[(\n"))
    assert "\u202e" not in shown
    assert "tensor([1.])\u27e8U+202E\u27e9)]2[(" in shown


def test_the_output_says_where_it_came_from() -> None:
    assert "ran now in the sandbox: exit 0, torch 2.13.0, 31 ms" in render_plain(_revealed("x"))
    recorded = render_plain(_revealed("x", "recorded"))
    assert "recorded with torch 2.13.0; the sandbox could not run it now" in recorded


def test_brackets_in_a_prompt_are_shown_not_read_as_markup() -> None:
    question = Question.model_validate(
        {
            "item_id": "SE1",
            "kind": Kind.SPOT_THE_ERROR,
            "prompt": "What does x[0] = 1 do to [bold]the graph[/bold]?",
            "difficulty": 2,
            "tags": ["in-place"],
            "needs_verdict": False,
            "source": "quiz",
        }
    )
    console = Console(width=100, record=True, color_system=None)
    console.print(render_rich(question))
    assert "x[0] = 1 do to [bold]the graph[/bold]?" in console.export_text()


def test_nothing_left_to_review_names_what_was_skipped() -> None:
    shown = render_plain(NothingToReview(skipped=["WHY4"]))
    assert "skipped: WHY4" in shown
