"""The interactive front end of ``tutor play``: menus and prompts on a terminal (rich).

It builds the same protocol commands a script would send and shows the session's events
as panels: the question, the feedback (coloured by label), the explanation with the
snippet and its real output, and the stats with the streak at the end. Ctrl-D at a prompt
ends the session like ``quit``; Ctrl-C ends it at once. Either way every answer already
graded is saved, and a question left open records nothing.
"""

from __future__ import annotations

from rich.console import Console
from rich.prompt import Prompt
from rich.text import Text

from bot.content.models import Kind
from bot.play.app import PlayContext
from bot.play.protocol import (
    Answer,
    Command,
    Ended,
    ErrorEvent,
    Event,
    Hint,
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

ANY = "any"
KIND_CHOICES = [ANY, "tf", "se", "why", "ec"]
HELP = (
    "Answer each question with a verdict (true/false questions) and one line saying why. "
    "You get a grade and feedback, then the explanation and the snippet's real output. "
    "Type q (or /quit while answering) to stop; your progress is saved as you go."
)


class QuitRequested(Exception):
    """The learner asked to stop from inside a question."""


class TerminalFrontEnd:
    """Menus over a :class:`PlaySession`.

    Args:
        context: the opened services and their loop.
        session: the learner's session.
        console: where to draw (its input is read with ``console.input``).
    """

    def __init__(self, context: PlayContext, session: PlaySession, console: Console) -> None:
        self.context = context
        self.session = session
        self.console = console
        self.last_quiz = QuizCommand()

    def _do(self, command: Command) -> list[Event]:
        events = self.context.run(self.session.handle(command))
        for event in events:
            self.console.print(render_rich(event))
        return events

    def _ask(
        self,
        prompt: str,
        choices: list[str] | None = None,
        default: str = "",
        *,
        show_default: bool = True,
    ) -> str:
        answer = Prompt.ask(
            prompt,
            console=self.console,
            choices=choices,
            default=default,
            show_choices=False,
            show_default=show_default and bool(default),
        )
        return answer.strip()

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
        choice = ""
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
            choice = self._ask(
                "[bold]Next:[/] [cyan]n[/] new question · [cyan]r[/] review · "
                "[cyan]t[/] topics · [cyan]s[/] stats · [cyan]q[/] quit",
                ["n", "r", "t", "s", "q"],
                "n",
            )

    def _choose_filters(self) -> bool:
        """Ask kind, topic and difficulty until a question opens; False if none matches."""
        last = self.last_quiz
        kind_default = ANY if last.kind is None else _short(last.kind)
        kind_word = self._ask("Kind ([cyan]any tf se why ec[/])", KIND_CHOICES, kind_default)
        kind = None if kind_word == ANY else parse_kind(kind_word)
        difficulty_word = self._ask(
            "Difficulty ([cyan]any 1 2 3[/])",
            [ANY, "1", "2", "3"],
            ANY if last.difficulty is None else str(last.difficulty),
        )
        difficulty = None if difficulty_word == ANY else int(difficulty_word)
        while True:
            topic = self._ask("Topic (Enter: any · [cyan]?[/] list them)", None, "")
            if topic == "?":
                self._do(Topics())
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
            item = current.item
            if item.kind is Kind.TRUE_FALSE and current.verdict is None:
                word = self._ask(
                    "Verdict: [cyan]t[/] true · [cyan]f[/] false  ([cyan]?[/] hint · "
                    "[cyan]s[/] skip · [cyan]q[/] quit)",
                    ["t", "f", "?", "s", "q"],
                )
                if word == "q":
                    raise QuitRequested
                if word == "?":
                    self._do(Hint())
                elif word == "s":
                    self._do(Skip())
                else:
                    self.context.run(self.session.handle(SetVerdict(verdict=word == "t")))
                continue
            text = self._ask("Why? One line ([cyan]?[/] hint · [cyan]/skip[/] · [cyan]/quit[/])")
            if text == "/quit":
                raise QuitRequested
            if text == "?":
                self._do(Hint())
            elif text == "/skip":
                self._do(Skip())
            else:
                self._do(Answer(text=text))
        again = "r" if review else "a"
        label = "next review" if review else "another like this"
        return self._ask(
            f"[cyan]Enter[/] {label} · [cyan]n[/] new filters · [cyan]s[/] stats · [cyan]q[/] quit",
            [again, "n", "s", "q"],
            again,
            show_default=False,
        )


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


__all__ = ["QuitRequested", "TerminalFrontEnd", "run_interactive"]
