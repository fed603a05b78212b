"""The interactive front end of ``tutor play``: menus and prompts on a terminal (rich).

It builds the same protocol commands a script would send and shows the session's events
as panels: the question, the feedback (coloured by label), the explanation with the
snippet and its real output, and the stats with the streak at the end. What each prompt
accepts is :mod:`bot.play.keys`: commands start with ``/`` (``/hint``, ``/skip``,
``/quit``, ``/help``), a verdict is ``true``/``false`` (``t``/``f``, ``yes``/``no``,
``y``/``n``, any case), and anything refused is said in red with what is accepted, never
graded. Ctrl-D at a prompt ends the session like ``/quit``; Ctrl-C ends it at once. Either
way every answer already graded is saved, and a question left open records nothing.

A paste is taken whole: after each line read from the terminal, the lines already waiting
on it (those that arrive within :data:`PASTE_GAP_S` of each other) are read too. At the
"Why?" prompt they join the justification; at any other prompt the whole paste is refused,
so no pasted line can ever run as a menu choice or a verdict.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable, Sequence
from typing import Final, TextIO, TypeVar

from rich.console import Console
from rich.prompt import Prompt
from rich.text import Text

from bot.content.models import Kind
from bot.play.app import PlayContext
from bot.play.keys import (
    AT_A_MENU,
    KEYS_HELP,
    MAIN_MENU,
    Action,
    KeyRefused,
    MenuOption,
    read_answer,
    read_choice,
    read_command,
    read_verdict,
)
from bot.play.protocol import (
    Answer,
    Command,
    Ended,
    ErrorEvent,
    Event,
    Hint,
    ProtocolError,
    Question,
    Review,
    SetVerdict,
    Skip,
    Stats,
    Topics,
    parse_kind,
)
from bot.play.protocol import Quiz as QuizCommand
from bot.play.render import ended_text, render_rich, started_text, stats_table
from bot.play.session import PlaySession

T = TypeVar("T")

ANY = "any"
KIND_CHOICES = [ANY, "tf", "se", "why", "ec"]
HELP = (
    "Answer each question with a verdict (true/false questions) and a sentence saying why. "
    "You get a grade and feedback, then the explanation and the snippet's real output. "
    "While answering: /hint (or ?), /skip, /quit, /help; at a menu, q quits. Your "
    "progress is saved as you go."
)

VERDICT_PROMPT = (
    "Verdict: [cyan]true[/] or [cyan]false[/] (t/f, y/n)  ([cyan]/hint[/] · "
    "[cyan]/skip[/] · [cyan]/quit[/] · [cyan]/help[/])"
)
WHY_PROMPT = (
    "Why? A sentence (a pasted block is taken whole)  ([cyan]/hint[/] · [cyan]/skip[/] · "
    "[cyan]/quit[/] · [cyan]/help[/])"
)

PASTE_GAP_S: Final = 0.05
"""Seconds to wait for a further line after one is read: a terminal delivers a paste's
lines within a few milliseconds of each other, while a person typing takes far longer."""

MAX_PASTE_BYTES: Final = 64 * 1024
"""Bytes of a paste kept (the rest is still read, and dropped): well over the 4,000
characters an answer may have, which the session then refuses with its own words."""


def pending_lines(fd: int, gap_s: float = PASTE_GAP_S) -> list[str]:
    """The lines already waiting on ``fd`` (a terminal), read until none arrives for ``gap_s``.

    On a terminal in canonical mode each line is read on its own, so the line just read by
    ``input()`` left the rest of a paste waiting here, where this takes it.

    Args:
        fd: the file descriptor to drain (standard input).
        gap_s: seconds to wait for each further chunk.

    Returns:
        The lines, without their line ends (empty when nothing was waiting); decoding
        errors are replaced. At most :data:`MAX_PASTE_BYTES` are kept; the rest is dropped.
    """
    kept = bytearray()
    while select.select([fd], [], [], gap_s)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal went away
            break
        if not chunk:
            break
        kept += chunk[: max(0, MAX_PASTE_BYTES - len(kept))]
    return kept.decode(errors="replace").splitlines()


def menu_prompt(options: Sequence[MenuOption], default: str, title: str = "") -> str:
    """A menu's prompt, e.g. ``Next: n new question · ... · q quit`` (the default as Enter
    when ``title`` is empty)."""
    parts = []
    for option in options:
        key = "Enter" if option.key == default and not title else option.key
        parts.append(f"[cyan]{key}[/] {option.label}")
    return (f"[bold]{title}[/] " if title else "") + " · ".join(parts)


class QuitRequested(Exception):
    """The learner asked to stop from inside a question."""


class TerminalFrontEnd:
    """Menus over a :class:`PlaySession`.

    Args:
        context: the opened services and their loop.
        session: the learner's session.
        console: where to draw (its input is read with ``console.input``).
        stdin: where to read the keys from instead of the terminal (tests); its
            ``readline`` must raise :class:`EOFError` at the end, as ``input()`` does.
    """

    def __init__(
        self,
        context: PlayContext,
        session: PlaySession,
        console: Console,
        *,
        stdin: TextIO | None = None,
    ) -> None:
        self.context = context
        self.session = session
        self.console = console
        self.stdin = stdin
        self.last_quiz = QuizCommand()
        self.last_question: Question | None = None

    def _do(self, command: Command) -> list[Event]:
        events = self.context.run(self.session.handle(command))
        for event in events:
            if isinstance(event, Question):
                self.last_question = event
            self.console.print(render_rich(event))
        return events

    def _ask(
        self, prompt: str, default: str = "", *, show_default: bool = True
    ) -> tuple[str, list[str]]:
        """One line typed at ``prompt`` and the lines pasted with it (see
        :func:`pending_lines`; none when reading from ``stdin`` or not a terminal)."""
        answer = Prompt.ask(
            prompt,
            console=self.console,
            default=default,
            show_default=show_default and bool(default),
            stream=self.stdin,
        )
        pasted: list[str] = []
        if self.stdin is None and sys.stdin.isatty():
            pasted = pending_lines(sys.stdin.fileno())
        return answer.strip(), pasted

    def _read(
        self,
        prompt: str,
        read: Callable[[str], T | Action],
        default: str = "",
        *,
        show_default: bool = True,
        multiline: bool = False,
    ) -> T | Action:
        """Ask until ``read`` accepts the input; answer ``/help`` here, raise on ``/quit``.

        Args:
            multiline: a paste of several lines is read as one text (their lines joined
                with newlines); otherwise it is refused whole, none of its lines obeyed.

        Returns:
            What ``read`` made of the input, or :attr:`Action.HINT`/:attr:`Action.SKIP`.

        Raises:
            QuitRequested: the learner typed ``/quit`` (or a menu's quit).
        """
        while True:
            typed, pasted = self._ask(prompt, default, show_default=show_default)
            if pasted and not multiline:
                self.console.print(
                    Text(
                        f"a paste of {len(pasted) + 1} lines was ignored here: type one "
                        "choice, or /help",
                        style="bold red",
                    )
                )
                continue
            if pasted:
                typed = "\n".join([typed, *pasted]).strip()
            try:
                value = read(typed)
            except (KeyRefused, ProtocolError) as exc:
                self.console.print(Text(str(exc), style="bold red"))
                continue
            if value is Action.HELP:
                self.console.print(Text(KEYS_HELP, style="dim"))
                continue
            if value is Action.QUIT:
                raise QuitRequested
            return value

    def _choose(
        self,
        prompt: str,
        read: Callable[[str], T | Action],
        default: str = "",
        *,
        show_default: bool = True,
    ) -> T:
        """:meth:`_read` for a menu, whose readers take only ``/quit`` and ``/help``."""
        value = self._read(prompt, read, default, show_default=show_default)
        if isinstance(value, Action):  # pragma: no cover - menus refuse /hint and /skip
            raise AssertionError(f"/{value} at a menu")
        return value

    def run(self) -> int:
        """Run until the learner quits, input ends, or Ctrl-C.

        Returns:
            0, or 130 after Ctrl-C.
        """
        self.console.print(Text(started_text(self.context.started(self.session.learner_id))))
        self.console.print(Text(HELP, style="dim"))
        reason = "quit"
        try:
            self._menu()
        except QuitRequested:
            pass
        except EOFError:
            self.console.print()
            reason = "eof"
        except KeyboardInterrupt:
            self.console.print()
            reason = "interrupted"
        ended: Ended = self.context.run(self.session.end(reason))
        self.console.print(Text(ended_text(ended.model_copy(update={"stats": None}))))
        if ended.stats is not None:
            self.console.print(stats_table(ended.stats))
        return 130 if reason == "interrupted" else 0

    def _menu(self) -> None:
        choice: str = ""
        while True:
            if choice == "n":
                if self._choose_filters():
                    choice = self._answer_loop()
                    continue
            elif choice == "a":
                self._do(self.last_quiz)
                choice = self._answer_loop()
                continue
            elif choice == "r":
                events = self._do(Review())
                if any(isinstance(e, Question) for e in events):
                    choice = self._answer_loop(review=True)
                    continue
            elif choice == "t":
                self._do(Topics())
            elif choice == "s":
                self._do(Stats())
            elif choice == "q":
                return
            choice = self._choose(
                menu_prompt(MAIN_MENU, "n", "Next:"),
                lambda typed: read_choice(typed, MAIN_MENU, "n"),
                "n",
            )

    def _choose_filters(self) -> bool:
        """Ask kind, topic and difficulty until a question opens; False if none matches."""
        last = self.last_quiz
        kind_default = ANY if last.kind is None else _short(last.kind)
        kind = self._choose("Kind ([cyan]any tf se why ec[/])", _read_kind, kind_default)
        difficulty = self._choose(
            "Difficulty ([cyan]any 1 2 3[/])",
            _read_difficulty,
            ANY if last.difficulty is None else str(last.difficulty),
        )
        while True:
            topic = self._choose("Topic (Enter: any · [cyan]?[/] list them)", _read_topic)
            if topic == "?":
                self._do(Topics(kind=kind, difficulty=difficulty))
                continue
            command = QuizCommand(kind=kind, topic=topic or None, difficulty=difficulty)
            events = self._do(command)
            errors = [e for e in events if isinstance(e, ErrorEvent)]
            if not errors:
                self.last_quiz = command
                return True
            if errors[0].code != "unknown_topic":
                return False

    def _answer_loop(self, *, review: bool = False) -> str:
        """Take the verdict and the justification until the open question is answered.

        Returns:
            The next menu choice: ``a`` (another like it), ``r`` (next review), or what
            the learner picked.
        """
        while (current := self.session.open) is not None:
            if current.item.kind is Kind.TRUE_FALSE and current.verdict is None:
                verdict = self._read(VERDICT_PROMPT, read_verdict)
                if verdict is Action.HINT:
                    self._do(Hint())
                elif verdict is Action.SKIP:
                    self._do(Skip())
                else:
                    self.context.run(self.session.handle(SetVerdict(verdict=bool(verdict))))
                continue
            answer = self._read(WHY_PROMPT, read_answer, multiline=True)
            if answer is Action.HINT:
                self._do(Hint())
            elif answer is Action.SKIP:
                self._do(Skip())
            else:
                self._do(Answer(text=answer))
        last = self.last_question
        only = not review and last is not None and last.source == "quiz" and last.matching == 1
        again = (
            MenuOption(key="r", word="next", label="next review")
            if review
            else MenuOption(
                key="a",
                word="another",
                # The filters match one item: "another" would silently serve it again.
                label=f"{last.item_id} again (the only match)"
                if only and last is not None
                else "another like this",
            )
        )
        # The main menu's keys work here too (README), after the one offered for Enter.
        options = (again, *[o for o in MAIN_MENU if o.key != again.key])
        options = tuple(
            o.model_copy(update={"label": "new filters"}) if o.key == "n" else o for o in options
        )
        return self._choose(
            menu_prompt(options, again.key),
            lambda typed: read_choice(typed, options, again.key),
            again.key,
            show_default=False,
        )


MENU_QUIT_WORDS: Final = frozenset({"q", "quit"})
"""What quits at every menu, the filter prompts too (never a kind, difficulty or tag)."""


def _menu_command(typed: str) -> Action | None:
    """``/quit``, ``/help``, or a bare ``q``/``quit`` (quit) typed at a menu; else None.

    Raises:
        KeyRefused: an unknown ``/command``.
    """
    if typed.strip().lower() in MENU_QUIT_WORDS:
        return Action.QUIT
    return read_command(typed, AT_A_MENU)


def _read_kind(typed: str) -> Kind | Action | None:
    """A kind typed at the Kind prompt (``any``: None), or ``q``/``/quit``/``/help``.

    Raises:
        KeyRefused: an unknown command.
        ProtocolError: not a kind; the message lists them.
    """
    command = _menu_command(typed)
    if command is not None:
        return command
    return None if typed.lower() == ANY else parse_kind(typed)


def _read_difficulty(typed: str) -> int | Action | None:
    """A difficulty typed at its prompt (``any``: None), or ``q``/``/quit``/``/help``.

    Raises:
        KeyRefused: not ``any``, 1, 2 or 3, or an unknown command.
    """
    command = _menu_command(typed)
    if command is not None:
        return command
    word = typed.lower()
    if word == ANY:
        return None
    if word in {"1", "2", "3"}:
        return int(word)
    raise KeyRefused(f"{typed[:20]!r} is not a difficulty: type any, 1, 2 or 3, or /help")


def _read_topic(typed: str) -> str | Action:
    """A topic tag (``""``: any; ``?``: list the tags of the kind and difficulty chosen), or
    ``q``/``/quit``/``/help``.

    Raises:
        KeyRefused: an unknown command.
    """
    command = _menu_command(typed)
    return typed if command is None else command


def _short(kind: Kind) -> str:
    return {
        Kind.TRUE_FALSE: "tf",
        Kind.SPOT_THE_ERROR: "se",
        Kind.WHY: "why",
        Kind.EDGE_CASE: "ec",
    }[kind]


def run_interactive(context: PlayContext, session: PlaySession, console: Console) -> int:
    """Run the interactive front end (see :class:`TerminalFrontEnd`)."""
    return TerminalFrontEnd(context, session, console).run()


__all__ = [
    "MAX_PASTE_BYTES",
    "PASTE_GAP_S",
    "QuitRequested",
    "TerminalFrontEnd",
    "menu_prompt",
    "pending_lines",
    "run_interactive",
]
