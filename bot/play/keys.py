"""What the interactive prompts of ``tutor play`` accept, read from what the learner typed.

Pure functions, no I/O: :mod:`bot.play.terminal` asks, these read the answer or raise
:class:`KeyRefused` with a sentence that lists what the prompt accepts. Commands start with
``/`` (``/hint``, ``/skip``, ``/quit``, ``/help``; ``?`` is short for ``/hint``) so they can
never be mistaken for an answer; a ``/word`` that is not a command is refused, never graded.

=================  ==================================================================
prompt             accepts (any case)
=================  ==================================================================
verdict            ``true``/``false``, ``t``/``f``, ``yes``/``no``, ``y``/``n``; commands
why (the answer)   text (a pasted block is joined into one); commands. A bare ``q``,
                   ``quit``, ``skip``, ``hint`` or ``help`` is refused as a probable
                   command, not graded
menus              an option's key or word (``n``/``new``, ``q``/``quit``...), ``/quit``,
                   ``/help``; Enter takes the default
=================  ==================================================================
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict

from bot.play.protocol import ProtocolError, parse_verdict


class Action(StrEnum):
    """A command typed at a prompt."""

    HINT = "hint"
    SKIP = "skip"
    QUIT = "quit"
    HELP = "help"


ANSWERING: Final = frozenset(Action)
"""The commands a question's prompts take: every one."""

AT_A_MENU: Final = frozenset({Action.QUIT, Action.HELP})
"""The commands a menu takes (no question is open to hint or skip)."""

_BARE_COMMANDS: Final = {
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
    "skip": "skip",
    "hint": "hint",
    "help": "help",
}
"""A justification that is only one of these words was meant as the command shown."""

VERDICT_WORDS: Final = "true or false (also t/f, yes/no, y/n)"

KEYS_HELP: Final = (
    "While answering: give the verdict as true or false (t/f, yes/no, y/n), then a sentence "
    "saying why (a pasted block is taken whole). /hint (or ?) shows the hint, /skip "
    "drops the question (nothing is recorded), /quit ends the session, /help shows this. "
    "At a menu, type an option's letter or word (n or new, q or quit...); Enter takes the "
    "one offered. Ctrl-D ends too. Every graded answer is saved as you go."
)
"""What ``/help`` shows, at any prompt."""


class KeyRefused(ValueError):
    """What was typed is not accepted at this prompt; the message says what is."""


class MenuOption(BaseModel):
    """One choice of a menu.

    Attributes:
        key: what to type (``n``).
        word: the same choice as a word (``new``); also accepted.
        label: how the prompt describes it (``new question``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    word: str
    label: str


MAIN_MENU: Final = (
    MenuOption(key="n", word="new", label="new question"),
    MenuOption(key="r", word="review", label="review"),
    MenuOption(key="t", word="topics", label="topics"),
    MenuOption(key="s", word="stats", label="stats"),
    MenuOption(key="q", word="quit", label="quit"),
)
"""The terminal's ``Next:`` menu; after an answer it also offers ``next`` (a review) or
``another`` (bot/play/terminal.py)."""

_MENU_WORDS: Final = frozenset(o.word for o in MAIN_MENU) | {"next", "another"}
"""Menu words that are never a justification on their own (the letters are refused too;
``quit`` is a bare command, refused first)."""


def _command_names(allowed: Collection[Action]) -> str:
    return ", ".join(f"/{action.value}" for action in Action if action in allowed)


def read_command(text: str, allowed: Collection[Action] = ANSWERING) -> Action | None:
    """The command ``text`` is, or None when it is not a command.

    Args:
        text: what was typed.
        allowed: the commands this prompt takes.

    Returns:
        The command (``?`` is :attr:`Action.HINT` where a hint is allowed), or None when
        ``text`` does not start with ``/``.

    Raises:
        KeyRefused: ``text`` starts with ``/`` but names no command this prompt takes.
    """
    typed = text.strip()
    lowered = typed.lower()
    if lowered == "?" and Action.HINT in allowed:
        return Action.HINT
    if not lowered.startswith("/"):
        return None
    try:
        action = Action(lowered[1:])
    except ValueError:
        action = None
    if action is None or action not in allowed:
        raise KeyRefused(
            f"unknown command {typed[:20]!r} here; commands: {_command_names(allowed)}"
        )
    return action


def read_verdict(text: str) -> bool | Action:
    """The verdict (or command) typed at the verdict prompt.

    Returns:
        True or False, or the command.

    Raises:
        KeyRefused: anything else; the message lists what the prompt accepts.
    """
    command = read_command(text)
    if command is not None:
        return command
    try:
        return parse_verdict(text)
    except ProtocolError:
        shown = f"{text.strip()[:20]!r} is not a verdict" if text.strip() else "No verdict"
        raise KeyRefused(f"{shown}: type {VERDICT_WORDS}, or {_command_names(ANSWERING)}") from None


def read_answer(text: str) -> str | Action:
    """The justification (or command) typed at the "Why?" prompt.

    An empty text is returned as it is: the session refuses it with the same words in
    both front ends.

    Returns:
        The text to grade, stripped, or the command.

    Raises:
        KeyRefused: an unknown ``/command``, a bare command word (``q``, ``skip``...), a
            single letter or a menu word (``r``, ``new``...): almost surely not an answer;
            nothing is graded.
    """
    command = read_command(text)
    if command is not None:
        return command
    typed = text.strip()
    meant = _BARE_COMMANDS.get(typed.lower())
    if meant is not None:
        raise KeyRefused(
            f"{typed!r} was not graded: commands start with / (/{meant}); "
            "to answer, say why in a sentence"
        )
    if (len(typed) == 1 and typed.isalpha()) or typed.lower() in _MENU_WORDS:
        # a menu key typed one prompt too early ("r" for review): graded, it was saved as a
        # 0.00 attempt and listed the item as a weakest one (fresh11)
        raise KeyRefused(
            f"{typed!r} was not graded: it looks like a menu key; to answer, say why in a "
            "sentence (/skip drops the question)"
        )
    return typed


def read_choice(text: str, options: Sequence[MenuOption], default: str) -> str | Action:
    """The option (or command) typed at a menu.

    Args:
        text: what was typed.
        options: the menu's options.
        default: the key Enter (an empty line) takes.

    Returns:
        The option's key, or :attr:`Action.QUIT`/:attr:`Action.HELP`.

    Raises:
        KeyRefused: anything else; the message lists the options.
    """
    command = read_command(text, AT_A_MENU)
    if command is not None:
        return command
    typed = text.strip().lower()
    if not typed:
        return default
    for option in options:
        if typed in {option.key, option.word}:
            return option.key
    keys = ", ".join(f"{o.key} ({o.word})" for o in options)
    raise KeyRefused(f"{text.strip()[:20]!r} is not an option here: type {keys}, or /help")


__all__ = [
    "ANSWERING",
    "AT_A_MENU",
    "KEYS_HELP",
    "VERDICT_WORDS",
    "Action",
    "KeyRefused",
    "MenuOption",
    "read_answer",
    "read_choice",
    "read_command",
    "read_verdict",
]
