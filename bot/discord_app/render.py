"""The one place that lays out domain results as Discord embeds and message text.

Every function returns objects within Discord's limits (``bot.discord_app.limits``): text
is clipped with an ellipsis, code is fenced so it cannot break out of its block, and
learner text is escaped (markdown and mentions) before it is echoed. The words of a grade
come from the grader's :class:`~bot.grading.models.Feedback`; this module only arranges them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import discord

from bot.content.models import Item, Kind, Label
from bot.discord_app import limits
from bot.grading.models import GradeResult, Response
from bot.progress.models import (
    DropFailure,
    DropState,
    DropSummary,
    GuildSettings,
    Leaderboard,
    LearnerStats,
)
from bot.progress.stats import concepts_to_work_on, describe_reviews
from bot.quiz import Reveal, ReviewPlan
from sandbox.protocol import AutogradGraph, RunResult, visible_controls

ELLIPSIS = "…"

KIND_TITLE: dict[Kind, str] = {
    Kind.TRUE_FALSE: "True or false",
    Kind.SPOT_THE_ERROR: "Spot the error",
    Kind.WHY: "Why?",
    Kind.EDGE_CASE: "Edge case",
}

LABEL_TITLE: dict[Label, str] = {
    Label.CORRECT: "Correct",
    Label.PARTIAL: "Partly right",
    Label.INCORRECT: "Not yet",
}

LABEL_COLOUR: dict[Label, discord.Colour] = {
    Label.CORRECT: discord.Colour.green(),
    Label.PARTIAL: discord.Colour.gold(),
    Label.INCORRECT: discord.Colour.red(),
}

QUESTION_COLOUR = discord.Colour.blurple()
INFO_COLOUR = discord.Colour.dark_teal()

RUN_INLINE_LINES = 10
"""``/run`` shows at most this many output lines inline; the full output goes in a file."""

RUN_INLINE_CHARS = 1000
"""``/run`` shows at most this many output characters inline."""


# --- text helpers ----------------------------------------------------------------------


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + ELLIPSIS


def escape_learner(text: str, limit: int) -> str:
    """Learner text made inert for echoing: markdown and mentions escaped, then clipped.

    Args:
        text: untrusted text typed by a learner.
        limit: the maximum length of the result, in characters.

    Returns:
        Text that renders literally in Discord (no formatting, links masked, no pings).
    """
    safe = discord.utils.escape_markdown(text, as_needed=False)
    # A zero-width space after "@" and "<#" defuses @everyone, <@user>, <@&role>, <#channel>.
    safe = safe.replace("@", "@\u200b").replace("<#", "<\u200b#")
    return clip(safe, limit)


def fence(code: str, limit: int, lang: str = "") -> str:
    """``code`` in a fenced block of at most ``limit`` characters that cannot be broken out of.

    Backtick runs inside the code get a zero-width space so no fence closes early, and
    control characters other than newline and tab are made visible (a snippet's
    ``\\x1b[31m`` shows as ``␛[31m``: :func:`sandbox.protocol.visible_controls`) instead of
    reaching the message raw.
    """
    body = visible_controls(code).replace("```", "`\u200b`\u200b`").rstrip("\n") or " "
    overhead = len(f"```{lang}\n\n```")
    return f"```{lang}\n{clip(body, limit - overhead)}\n```"


def spoiler(text: str) -> str:
    """``text`` hidden behind a Discord spoiler, with inner ``||`` neutralised."""
    return "||" + text.replace("||", "|\u200b|") + "||"


def timestamp(moment: datetime, style: str = "R") -> str:
    """A Discord timestamp tag (rendered in each reader's own time zone)."""
    return f"<t:{int(moment.timestamp())}:{style}>"


def _bullets(lines: list[str], limit: int) -> str:
    text = "\n".join(f"• {line}" for line in lines)
    return clip(text, limit) if text else ""


def embed_length(embed: discord.Embed) -> int:
    """The characters of an embed that count toward Discord's 6,000 total."""
    total = len(embed.title or "") + len(embed.description or "")
    total += sum(len(f.name or "") + len(f.value or "") for f in embed.fields)
    total += len(embed.footer.text or "") + len(embed.author.name or "")
    return total


def fit(embed: discord.Embed) -> discord.Embed:
    """Shrink an embed's longest parts until it is within every embed limit."""
    if embed.title:
        embed.title = clip(embed.title, limits.EMBED_TITLE)
    if embed.description:
        embed.description = clip(embed.description, limits.EMBED_DESCRIPTION)
    while len(embed.fields) > limits.EMBED_FIELDS:
        embed.remove_field(len(embed.fields) - 1)
    for index, f in enumerate(embed.fields):
        embed.set_field_at(
            index,
            name=clip(f.name or "\u200b", limits.EMBED_FIELD_NAME),
            value=clip(f.value or "\u200b", limits.EMBED_FIELD_VALUE),
            inline=bool(f.inline),
        )
    while embed_length(embed) > limits.EMBED_TOTAL:
        excess = embed_length(embed) - limits.EMBED_TOTAL
        sizes = [len(f.value or "") for f in embed.fields]
        description = len(embed.description or "")
        if sizes and max(sizes) > 1 and max(sizes) >= description:
            index = sizes.index(max(sizes))
            name = embed.fields[index].name
            value = embed.fields[index].value or ""
            embed.set_field_at(index, name=name, value=clip(value, max(sizes[index] - excess, 1)))
        elif description > 1:
            embed.description = clip(embed.description or "", max(description - excess, 1))
        elif embed.fields:
            embed.remove_field(len(embed.fields) - 1)
        else:
            embed.set_footer(text=clip(embed.footer.text or "", 1))
    return embed


# --- questions and answers -------------------------------------------------------------


def question_embed(
    item: Item, *, closes_at: datetime | None = None, drop_id: int | None = None
) -> discord.Embed:
    """The question: prompt, kind, difficulty; for a drop, when answers close.

    Args:
        item: the item asked.
        closes_at: when a drop's answers close (UTC); None for ``/quiz``.
        drop_id: the drop's id, shown in the footer so admins can find it.
    """
    description = item.prompt
    if closes_at is not None:
        description += f"\n\nAnswers close {timestamp(closes_at)}; the reveal follows in a thread."
    how = (
        "Press True or False, then justify it."
        if item.kind is Kind.TRUE_FALSE
        else "Press Answer and explain in a sentence or two."
    )
    embed = discord.Embed(
        title=f"{KIND_TITLE[item.kind]} · {item.id}",
        description=f"{description}\n\n*{how}*",
        colour=QUESTION_COLOUR,
    )
    footer = f"difficulty {item.difficulty}/3 · " + ", ".join(item.tags)
    if drop_id is not None:
        footer = f"daily drop #{drop_id} · " + footer
    embed.set_footer(text=footer)
    return fit(embed)


def _verdict_word(verdict: bool | None) -> str:
    return {True: "True", False: "False", None: "—"}[verdict]


def feedback_embed(
    item: Item, response: Response, grade: GradeResult, *, duplicate: bool = False
) -> discord.Embed:
    """The private feedback after a submit: score, label, right, missing, misconceptions.

    Args:
        item: the item answered.
        response: what the learner sent (the text is escaped before it is echoed).
        grade: the grader's result; its ``feedback`` supplies every sentence.
        duplicate: the same submit arrived twice; say it was counted once.
    """
    title = f"{LABEL_TITLE[grade.label]} — {round(grade.score * 100)}% · {item.id}"
    embed = discord.Embed(title=title, colour=LABEL_COLOUR[grade.label])
    lines: list[str] = []
    if item.kind is Kind.TRUE_FALSE:
        lines.append(f"Your verdict: **{_verdict_word(response.verdict)}**")
    if grade.feedback.verdict:
        lines.append(grade.feedback.verdict)
    if duplicate:
        lines.append("*This answer arrived twice; it was counted once.*")
    embed.description = "\n".join(lines) or None
    if response.text.strip():
        embed.add_field(
            name="Your answer",
            value=escape_learner(response.text, limits.EMBED_FIELD_VALUE),
            inline=False,
        )
    if grade.feedback.right:
        embed.add_field(
            name="What you got right",
            value=_bullets(grade.feedback.right, limits.EMBED_FIELD_VALUE),
            inline=False,
        )
    if grade.feedback.missing:
        embed.add_field(
            name="What was missing",
            value=_bullets(grade.feedback.missing, limits.EMBED_FIELD_VALUE),
            inline=False,
        )
    if grade.feedback.corrections:
        embed.add_field(
            name="Misconception",
            value=_bullets(grade.feedback.corrections, limits.EMBED_FIELD_VALUE),
            inline=False,
        )
    embed.set_footer(text="See the explanation, or run the snippet to see the real output.")
    return fit(embed)


def explanation_embed(item: Item, *, hide: bool = False) -> discord.Embed:
    """The answer key and explanation; ``hide`` puts both behind spoilers (public channels)."""
    answer = item.answer.text
    explanation = item.explanation
    if hide:
        answer, explanation = spoiler(answer), spoiler(explanation)
    embed = discord.Embed(title=f"Explanation · {item.id}", colour=INFO_COLOUR)
    embed.add_field(name="Answer", value=clip(answer, limits.EMBED_FIELD_VALUE), inline=False)
    embed.add_field(name="Why", value=clip(explanation, limits.EMBED_FIELD_VALUE), inline=False)
    return fit(embed)


def snippet_embed(reveal: Reveal) -> discord.Embed:
    """The item's snippet and its real output.

    Args:
        reveal: the item and its sandbox run; without a run (the sandbox was unavailable)
            the output recorded with ``item.torch_version`` by ``tutor content verify`` is
            shown instead, labelled as such.
    """
    item, run = reveal.item, reveal.run
    embed = discord.Embed(title=f"The snippet · {item.id}", colour=INFO_COLOUR)
    embed.description = fence(item.snippet, 1200, "py")
    if run is None:
        embed.add_field(
            name=f"Output recorded with torch {item.torch_version}",
            value=fence(reveal.output, limits.EMBED_FIELD_VALUE),
            inline=False,
        )
        embed.set_footer(text="The sandbox is not answering right now; this is the stored run.")
        return fit(embed)
    embed.add_field(
        name="Output", value=fence(reveal.output, limits.EMBED_FIELD_VALUE), inline=False
    )
    source = "cached run" if run.cached else f"ran in {round(run.duration_ms)} ms"
    embed.set_footer(text=f"{run.status} · torch {run.torch_version} · {source}")
    return fit(embed)


# --- /run ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunMessage:
    """A ``/run`` reply: text within the content limit and, when cut, the full output.

    Attributes:
        content: the status line and up to 10 lines / 1,000 characters of output.
        full_output: the whole output as UTF-8 bytes, or None when it all fit inline;
            control and bidirectional characters made visible as inline
            (:func:`sandbox.protocol.visible_controls`: Discord previews a text file).
    """

    content: str
    full_output: bytes | None


def run_message(run: RunResult) -> RunMessage:
    """Lay out a learner's ``/run`` result: the status in words, output inline or as a file."""
    output = run.stdout + (("\n" + run.stderr) if run.stderr and run.stdout else run.stderr)
    lines = output.splitlines()
    inline = "\n".join(lines[:RUN_INLINE_LINES])
    cut = len(lines) > RUN_INLINE_LINES or len(inline) > RUN_INLINE_CHARS
    inline = clip(inline, RUN_INLINE_CHARS)
    status = f"**{escape_learner(run.status, 200)}** · {round(run.duration_ms)} ms"
    if run.output_truncated:
        status += " · output capped by the sandbox"
    parts = [status]
    if output.strip():
        parts.append(fence(inline, RUN_INLINE_CHARS + 20))
    else:
        parts.append("*(no output)*")
    if cut:
        parts.append(f"*{len(lines)} lines in total: the full output is attached.*")
    content = clip("\n".join(parts), limits.CONTENT)
    attached = visible_controls(output).encode("utf-8", "replace") if cut else None
    return RunMessage(content, attached)


# --- graphs ----------------------------------------------------------------------------


def graph_caption(graph: AutogradGraph, title: str) -> str:
    """The text sent with a graph picture, or instead of it when there is nothing to draw.

    Args:
        graph: the graph (its names are untrusted and escaped here).
        title: what the graph is of, e.g. ``TF5`` or ``your snippet`` (bot text).
    """
    if graph.empty:
        text = (
            f"The snippet of {title} leaves no tensor with autograd history in scope, "
            "so there is no graph to draw."
        )
        if graph.untracked:
            names = escape_learner(", ".join(graph.untracked), 600)
            text += f" Tensors without history: {names}."
        return clip(text, limits.CONTENT)
    text = (
        f"**Autograd graph of {title}.** Green boxes are leaf tensors, blue ones have a "
        "`grad_fn`, grey ones are backward nodes; arrows go the way `backward()` goes. "
        "Red dashed boxes and edges are cuts: no gradient flows through them."
    )
    if graph.truncated:
        text += " The graph is larger than what is drawn."
    return clip(text, limits.CONTENT)


# --- progress --------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{round(value * 100)}%"


def stats_embed(stats: LearnerStats, who: str) -> discord.Embed:
    """A learner's stats. ``who`` is a display name; it is escaped here."""
    embed = discord.Embed(
        title=clip(f"Progress of {escape_learner(who, 100)}", 256), colour=INFO_COLOUR
    )
    if stats.attempts == 0:
        embed.description = "No answers yet. Try `/quiz`!"
        return fit(embed)
    embed.add_field(name="Answers", value=str(stats.attempts))
    embed.add_field(name="Accuracy", value=_pct(stats.accuracy))
    embed.add_field(name="Average score", value=_pct(stats.average_score))
    embed.add_field(name="First try", value=_pct(stats.first_try_rate))
    embed.add_field(
        name="Streak", value=f"{stats.streaks.current} days (best {stats.streaks.best})"
    )
    embed.add_field(name="Points", value=str(stats.points))
    if stats.reviews_due or stats.reviews_scheduled or stats.missed_to_retry:
        embed.add_field(name="Reviews", value=describe_reviews(stats, "try `/review`"))
    if stats.by_kind:
        per_kind = [
            f"{KIND_TITLE[Kind(k.key)]}: {_pct(k.accuracy)} of {k.attempts}" for k in stats.by_kind
        ]
        embed.add_field(name="By kind", value=_bullets(per_kind, 1024), inline=False)
    weak = concepts_to_work_on(stats, limit=8)
    if weak:
        embed.add_field(
            name="Concepts to work on",
            value=_bullets([f"{c.description} ({c.hits}/{c.hits + c.misses})" for c in weak], 1024),
            inline=False,
        )
    if stats.weakest_items:
        weakest = [f"{i.item_id} ({_pct(i.average_score)})" for i in stats.weakest_items]
        embed.add_field(name="Weakest items", value=", ".join(weakest), inline=False)
    return fit(embed)


def leaderboard_embed(board: Leaderboard) -> discord.Embed:
    """A guild leaderboard; members appear as mentions (which never ping inside embeds).

    The asker's own rank is added under the rows when they are not among them.
    """
    when = f"week {board.week}" if board.period == "week" else "all time"
    embed = discord.Embed(title=f"Leaderboard — {when}", colour=INFO_COLOUR)
    if not board.rows and board.me is None:
        embed.description = "Nobody has scored yet."
        return fit(embed)
    lines = [f"**{r.rank}.** <@{r.learner_id}> — {r.points} pts" for r in board.rows]
    if board.me is not None and all(r.learner_id != board.me.learner_id for r in board.rows):
        lines.append(f"You: **{board.me.rank}.** with {board.me.points} pts")
    embed.description = clip("\n".join(lines), limits.EMBED_DESCRIPTION)
    return fit(embed)


def review_embed(plan: ReviewPlan) -> discord.Embed:
    """A summary of the review queue shown above the first review question."""
    embed = discord.Embed(title="Review", colour=INFO_COLOUR)
    queue = plan.queue
    if not plan.items:
        embed.description = "Nothing to review right now. Come back tomorrow!"
        return fit(embed)
    parts = []
    if queue.due:
        parts.append(f"{len(queue.due)} due: " + ", ".join(e.item_id for e in queue.due[:20]))
    if queue.missed:
        missed = ", ".join(e.item_id for e in queue.missed[:20])
        parts.append(f"{len(queue.missed)} missed recently: {missed}")
    embed.description = "\n".join(parts) + "\n\nHere is the first one."
    return fit(embed)


# --- drops and admin -------------------------------------------------------------------


def reveal_embeds(summary: DropSummary, reveal: Reveal) -> list[discord.Embed]:
    """The reveal of a closed drop: channel summary, spoilered explanation, real output."""
    item = reveal.item
    embed = discord.Embed(title=f"Reveal · {item.id}", colour=INFO_COLOUR)
    if summary.answers == 0:
        embed.description = "Nobody answered this one."
    else:
        shares = ", ".join(
            f"{LABEL_TITLE[s.label].lower()} {_pct(s.share)}" for s in summary.label_shares
        )
        embed.description = f"{summary.answers} answers: {shares}."
        common = summary.most_common_misconception
        if common is not None:
            named = {m.id: m.description for m in item.rubric.misconceptions}
            said = "answer" if common.count == 1 else "answers"
            embed.add_field(
                name="Most common misconception",
                value=clip(
                    f"{named.get(common.misconception_id, common.misconception_id)} "
                    f"({common.count} {said})",
                    limits.EMBED_FIELD_VALUE,
                ),
                inline=False,
            )
        if summary.top_scorers:
            top = [f"<@{s.learner_id}> {_pct(s.score)}" for s in summary.top_scorers]
            embed.add_field(name="Top answers", value=_bullets(top, 1024), inline=False)
    return [fit(embed), explanation_embed(item, hide=True), snippet_embed(reveal)]


def _hours(value: float) -> str:
    return f"{value:g} h"


def settings_embed(settings: GuildSettings, failures: list[DropFailure]) -> discord.Embed:
    """The guild's tutor configuration and its last drop failures (``/tutor-admin settings``)."""
    embed = discord.Embed(title="Tutor settings", colour=INFO_COLOUR)
    if settings.drops_enabled and settings.drop_time is not None:
        kinds = ", ".join(k.value for k in settings.kinds) or "all kinds"
        embed.add_field(
            name="Daily drops",
            value=(
                f"<#{settings.drop_channel_id}> at {settings.drop_time:%H:%M} "
                f"({settings.time_zone}); {kinds}; "
                f"reveal after {_hours(settings.reveal_after_hours)}"
            ),
            inline=False,
        )
    else:
        embed.add_field(name="Daily drops", value="off", inline=False)
    embed.add_field(
        name="Learner /run", value="enabled" if settings.run_enabled else "disabled", inline=False
    )
    if failures:
        lines = [
            f"#{f.drop_id} {f.local_date} in <#{f.channel_id}>"
            + (" (skipped)" if f.state is DropState.SKIPPED else "")
            + f": {escape_learner(f.reason, 200)}"
            for f in failures
        ]
        embed.add_field(name="Last drop failures", value=_bullets(lines, 1024), inline=False)
    else:
        embed.add_field(name="Last drop failures", value="none", inline=False)
    return fit(embed)
