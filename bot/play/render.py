"""How ``tutor play`` shows its events: plain text (scripts) and rich panels (a terminal).

Feedback is always :func:`bot.grading.render_feedback`'s plain flavour, the words the
Discord bot shows too without its markdown; a panel only makes its first line (the label)
bold. Stats are :func:`bot.cli.stats.render_text`'s summary.
Everything shown has its control characters made visible (an output could carry terminal
escape sequences: ``\\x1b[31m`` shows as ``␛[31m``, see
:func:`sandbox.protocol.visible_controls`) and, for rich, is escaped so a ``[`` in a prompt
is never read as markup. ``--json`` events keep the text raw: they are data.
"""

from __future__ import annotations

from typing import Final

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from bot.cli.stats import POINTS_NOTE
from bot.cli.stats import render_text as stats_text
from bot.content.models import Kind, Label
from bot.play.protocol import (
    Ended,
    ErrorEvent,
    Event,
    Graded,
    GraphSaved,
    HintShown,
    NothingToReview,
    Question,
    Revealed,
    Skipped,
    Started,
    StatsShown,
    TopicsShown,
    VerdictSet,
)
from bot.progress.models import LearnerStats
from bot.progress.stats import concepts_to_work_on, describe_reviews
from sandbox.protocol import visible_controls

KIND_NAMES: Final = {
    Kind.TRUE_FALSE: "true/false",
    Kind.SPOT_THE_ERROR: "spot the error",
    Kind.WHY: "why",
    Kind.EDGE_CASE: "edge case",
}
LABEL_STYLES: Final = {Label.CORRECT: "green", Label.PARTIAL: "yellow", Label.INCORRECT: "red"}


def clean(text: str) -> str:
    """``text`` with control characters other than newline and tab made visible and inert.

    The learner sees what the snippet printed (``␛[31m``, ``␍``) without it driving the
    terminal; see :func:`sandbox.protocol.visible_controls`.
    """
    return visible_controls(text)


def _indent(text: str) -> str:
    lines = clean(text).rstrip("\n").split("\n") or [""]
    return "\n".join("    " + line for line in lines)


def output_caption(event: Revealed) -> str:
    """Where the shown output comes from, in words (e.g. ``ran now in the sandbox: exit 0,
    torch 2.13.0, 36 ms``)."""
    if event.source == "sandbox":
        took = f", {event.duration_ms:.0f} ms" if event.duration_ms is not None else ""
        return f"ran now in the sandbox: {event.status}, torch {event.torch_version}{took}"
    if event.source == "cache":
        return f"a real run with torch {event.torch_version}, kept from an earlier reveal"
    if event.sandbox_off:
        return f"recorded with torch {event.torch_version}; the sandbox is turned off"
    return f"recorded with torch {event.torch_version}; the sandbox could not run it now"


def question_heading(event: Question) -> str:
    """``TF3 · true/false · difficulty 1 · grad-accumulation, backward`` (plus review info,
    or ``the only item matching these filters`` when another quiz would serve it again)."""
    parts = [event.item_id, KIND_NAMES[event.kind], f"difficulty {event.difficulty}"]
    parts.append(", ".join(event.tags))
    if event.source == "review":
        parts.append(f"review, {event.review_left} more queued")
    if event.source == "quiz" and event.matching == 1:
        parts.append("the only item matching these filters")
    return " · ".join(parts)


def started_text(event: Started) -> str:
    """The opening line: learner, database, bank size, sandbox."""
    sandbox = event.sandbox
    if sandbox.available:
        where = "a local worker" if sandbox.address == "local" else sandbox.address
        box = f"sandbox: {where}, torch {sandbox.torch_version} ({sandbox.backend})"
    else:
        box = f"sandbox unavailable ({sandbox.note}): reveals show the recorded output"
    return (
        f"autograd-tutor: learner {event.learner_id}, database {event.database}, "
        f"{event.items} items; {box}"
    )


def ended_text(event: Ended) -> str:
    """Why the session ended, what was left open, and the final stats."""
    why = {"quit": "Bye", "eof": "End of input", "interrupted": "Interrupted"}[event.reason]
    lines = [f"{why}. Every answer graded above is saved."]
    if event.unanswered:
        lines.append(f"{event.unanswered} was left unanswered; nothing was recorded for it.")
    if event.stats is not None:
        lines.append(stats_text(event.stats))
    return "\n".join(lines)


def nothing_to_review_text(event: NothingToReview) -> str:
    """Why nothing is left to review, naming the questions skipped in this session."""
    if not event.skipped:
        return "Nothing to review: no card is due and no recent answer was missed."
    skipped = ", ".join(event.skipped)
    return (
        f"Nothing more to review in this session; skipped: {skipped} "
        "(queued again in your next session)."
    )


def render_plain(event: Event) -> str:
    """One event as plain text (the line protocol without ``--json``)."""
    match event:
        case Started():
            return started_text(event)
        case Question():
            how = "verdict true|false, then answer TEXT" if event.needs_verdict else "answer TEXT"
            return f"\n[{question_heading(event)}]\n{clean(event.prompt)}\n({how}; hint; skip)"
        case HintShown():
            return f"Hint: {clean(event.hint)}"
        case VerdictSet():
            return f"Verdict for {event.item_id}: {'true' if event.verdict else 'false'}."
        case Graded():
            return clean(event.feedback)
        case Revealed():
            return (
                f"Explanation: {clean(event.explanation)}\n"
                f"Snippet:\n{_indent(event.snippet)}\n"
                f"Output ({output_caption(event)}):\n{_indent(event.output)}"
            )
        case Skipped():
            return f"Skipped {event.item_id}; nothing recorded."
        case NothingToReview():
            return nothing_to_review_text(event)
        case StatsShown():
            return stats_text(event.stats)
        case TopicsShown():
            kinds = ", ".join(f"{k.name} ({k.items})" for k in event.kinds)
            topics = ", ".join(f"{t.name} ({t.items})" for t in event.topics)
            return f"Kinds: {kinds}\nTopics: {topics}"
        case GraphSaved():
            return f"Saved the graph of {event.item_id} to {event.path}"
        case ErrorEvent():
            where = f"line {event.line}: " if event.line is not None else ""
            return f"error: {where}{event.message}"
        case Ended():
            return ended_text(event)
    raise AssertionError(f"unrendered event {event!r}")  # pragma: no cover


def _feedback_rich(event: Graded) -> Text:
    label, _, rest = clean(event.feedback).partition("\n")
    text = Text(label, style="bold")
    if rest:
        text.append("\n" + rest)
    return text


def stats_table(stats: LearnerStats) -> RenderableType:
    """The learner's stats as a small table, the streak first."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("streak", f"{stats.streaks.current} day(s) (best {stats.streaks.best})")
    table.add_row("attempts", f"{stats.attempts} on {stats.items_attempted} item(s)")
    if stats.attempts:
        table.add_row(
            "accuracy",
            f"{stats.accuracy:.0%} · average score {stats.average_score:.2f} · "
            f"first try right {stats.first_try_rate:.0%}",
        )
    table.add_row("reviews", describe_reviews(stats, "type review"))
    table.add_row("points", f"{stats.points}{POINTS_NOTE if not stats.points else ''}")
    if stats.by_kind:
        table.add_row(
            "by kind", ", ".join(f"{a.key} {a.accuracy:.0%} ({a.attempts})" for a in stats.by_kind)
        )
    weak = concepts_to_work_on(stats, limit=3)
    if weak:
        table.add_row("to work on", "\n".join(clean(c.description or "") for c in weak))
    if stats.weakest_items:
        table.add_row(
            "weakest", ", ".join(f"{i.item_id} {i.average_score:.2f}" for i in stats.weakest_items)
        )
    return Panel(table, title="Your progress", border_style="cyan", expand=False)


def render_rich(event: Event) -> RenderableType:
    """One event as a rich renderable for the interactive terminal."""
    match event:
        case Question():
            body = Text(clean(event.prompt))
            return Panel(body, title=escape(question_heading(event)), border_style="cyan")
        case Graded():
            style = LABEL_STYLES[event.label]
            return Panel(_feedback_rich(event), title="Feedback", border_style=style)
        case Revealed():
            parts: list[RenderableType] = [
                Text(clean(event.explanation)),
                Text("\nSnippet", style="bold"),
                Syntax(clean(event.snippet).rstrip("\n"), "python", theme="ansi_dark"),
                Text(f"\nOutput ({output_caption(event)})", style="bold"),
                Text(clean(event.output).rstrip("\n") or "(no output)", style="green"),
            ]
            return Panel(Group(*parts), title=f"Why: {event.item_id}", border_style="blue")
        case HintShown():
            return Text(f"Hint: {clean(event.hint)}", style="italic")
        case StatsShown():
            return stats_table(event.stats)
        case TopicsShown():
            kinds = Columns([f"{k.name} ({k.items})" for k in event.kinds], padding=(0, 3))
            topics = Columns([f"{t.name} ({t.items})" for t in event.topics], padding=(0, 3))
            return Panel(
                Group(Text("Kinds", style="bold"), kinds, Text("\nTopics", style="bold"), topics),
                title="What you can ask for",
                border_style="cyan",
            )
        case ErrorEvent():
            return Text(clean(event.message), style="bold red")
        case Ended():
            return Text(ended_text(event).split("\n")[0], style="bold")
    return Text(clean(render_plain(event)))


__all__ = [
    "KIND_NAMES",
    "clean",
    "ended_text",
    "nothing_to_review_text",
    "output_caption",
    "question_heading",
    "render_plain",
    "render_rich",
    "started_text",
    "stats_table",
]
