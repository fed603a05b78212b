"""What the interactive prompts accept: slash commands, verdict words, menu keys and words."""

from __future__ import annotations

import pytest

from bot.play.keys import (
    AT_A_MENU,
    Action,
    KeyRefused,
    MenuOption,
    read_answer,
    read_choice,
    read_command,
    read_verdict,
)

MENU = (
    MenuOption(key="n", word="new", label="new question"),
    MenuOption(key="q", word="quit", label="quit"),
)


@pytest.mark.parametrize("typed", ["true", "t", "yes", "y", "TRUE", "True", "Y", " yes "])
def test_the_verdict_prompt_reads_every_spelling_of_true(typed: str) -> None:
    assert read_verdict(typed) is True


@pytest.mark.parametrize("typed", ["false", "f", "no", "n", "FALSE", "F", "No"])
def test_the_verdict_prompt_reads_every_spelling_of_false(typed: str) -> None:
    assert read_verdict(typed) is False


@pytest.mark.parametrize(
    ("typed", "action"),
    [("/quit", Action.QUIT), ("/QUIT", Action.QUIT), ("/skip", Action.SKIP),
     ("/hint", Action.HINT), ("?", Action.HINT), ("/help", Action.HELP)],
)  # fmt: skip
def test_the_verdict_prompt_takes_the_commands(typed: str, action: Action) -> None:
    assert read_verdict(typed) is action


@pytest.mark.parametrize("typed", ["maybe", "", "q"])
def test_anything_else_at_the_verdict_prompt_is_refused_with_what_it_accepts(typed: str) -> None:
    with pytest.raises(KeyRefused) as refused:
        read_verdict(typed)
    assert "true or false (also t/f, yes/no, y/n)" in str(refused.value)
    assert "/hint, /skip, /quit, /help" in str(refused.value)


def test_an_unknown_slash_command_at_the_why_prompt_is_refused_with_the_list() -> None:
    with pytest.raises(KeyRefused) as refused:
        read_answer("/bogus")
    assert (
        str(refused.value) == "unknown command '/bogus' here; commands: /hint, /skip, /quit, /help"
    )


@pytest.mark.parametrize("typed", ["q", "Q", "quit", "skip", "hint", "help", "exit"])
def test_a_bare_command_word_at_the_why_prompt_is_refused_not_graded(typed: str) -> None:
    with pytest.raises(KeyRefused) as refused:
        read_answer(typed)
    assert "was not graded: commands start with /" in str(refused.value)


@pytest.mark.parametrize("typed", ["r", "n", "S", "a", "review", "new", "Stats"])
def test_a_menu_key_at_the_why_prompt_is_refused_not_graded(typed: str) -> None:
    """fresh11: "r" typed one prompt early was graded, saved as a 0.00 attempt."""
    with pytest.raises(KeyRefused) as refused:
        read_answer(typed)
    assert "looks like a menu key" in str(refused.value)


@pytest.mark.parametrize("typed", ["0", "8", "None", "nan"])
def test_a_short_value_at_the_why_prompt_is_graded(typed: str) -> None:
    assert read_answer(typed) == typed


def test_an_answer_at_the_why_prompt_is_kept_as_typed() -> None:
    assert read_answer("  q is the leaf; grads accumulate ") == "q is the leaf; grads accumulate"


@pytest.mark.parametrize(("typed", "key"), [("n", "n"), ("NEW", "n"), ("quit", "q"), ("", "n")])
def test_a_menu_takes_an_options_key_or_word_in_any_case(typed: str, key: str) -> None:
    assert read_choice(typed, MENU, default="n") == key


def test_a_menu_takes_slash_quit() -> None:
    assert read_choice("/quit", MENU, default="n") is Action.QUIT


def test_a_menu_refuses_what_is_not_an_option_and_lists_them() -> None:
    with pytest.raises(KeyRefused) as refused:
        read_choice("x", MENU, default="n")
    assert str(refused.value) == "'x' is not an option here: type n (new), q (quit), or /help"


def test_hint_and_skip_are_unknown_at_a_menu() -> None:
    with pytest.raises(KeyRefused) as refused:
        read_command("/skip", AT_A_MENU)
    assert "commands: /quit, /help" in str(refused.value)
