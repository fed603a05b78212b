"""In-memory fakes of the bot's ports (grader, sandbox, progress store, drops).

They stand in for the services being built on other branches, so the Discord adapter can
be tested now. They keep the contracts the ports document (idempotency keys, one attempt
per drop, one drop per channel and local date, the grace window, ``posting`` drops
returned again after a "crash") and nothing more; the real services have their own tests.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from bot.content.loader import Bank
from bot.content.models import Item, Kind, Label
from bot.discord_app.ports import (
    AlreadyAnswered,
    AttemptIn,
    AttemptRecorded,
    DropConflict,
    DropFailure,
    DropInfo,
    DropNotOpen,
    DropScheduleIn,
    DropState,
    DropSummary,
    DropToPost,
    DropToReveal,
    ForgetResult,
    GuildSettings,
    KindStats,
    LeaderboardRow,
    LearnerCodeRefused,
    LearnerStats,
    Period,
    ReviewQueue,
    SandboxUnavailable,
    ScorerRow,
    SnippetRun,
)
from bot.grading.models import Feedback, GradeResult, Response
from sandbox.protocol import AutogradGraph, GraphEdge, GraphNode, TensorFacts


class Clock:
    """A settable UTC clock."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


def _plain(pattern: object) -> str | None:
    """The leading word of a simple string pattern, without ``*``: enough for a fake."""
    if not isinstance(pattern, str) or pattern.startswith("`"):
        return None
    return pattern.split()[0].split("|")[0].rstrip("*").lower()


class FakeGrader:
    """Grades by substring: wrong verdict -> incorrect; required concept -> correct."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self.calls: list[Response] = []

    def grade(self, response: Response) -> GradeResult:
        self.calls.append(response)
        item = self.bank.items[response.item_id]
        text = response.text.lower()
        hit = [
            c
            for c in item.rubric.concepts
            if any((w := _plain(p)) and w in text for p in c.patterns)
        ]
        wrong = [
            m
            for m in item.rubric.misconceptions
            if any((w := _plain(p)) and w in text for p in m.patterns)
        ]
        verdict_correct = (
            None if item.kind is not Kind.TRUE_FALSE else response.verdict == item.answer.verdict
        )
        required = set(item.rubric.required) <= {c.id for c in hit}
        if verdict_correct is False or wrong:
            label, score = Label.INCORRECT, 0.0
        elif required and hit:
            label, score = Label.CORRECT, 1.0
        else:
            label, score = Label.PARTIAL, 0.5
        missing = [c for c in item.rubric.concepts if c not in hit]
        return GradeResult(
            item_id=item.id,
            score=score,
            label=label,
            verdict=response.verdict,
            verdict_source="button" if response.verdict is not None else "none",
            verdict_correct=verdict_correct,
            concepts_hit=[c.id for c in hit],
            concepts_missing=[c.id for c in missing],
            misconceptions=[m.id for m in wrong],
            confidence=0.9,
            feedback=Feedback(
                right=[c.description for c in hit],
                missing=[c.nudge for c in missing],
                corrections=[m.feedback for m in wrong],
                verdict="The verdict is wrong." if verdict_correct is False else None,
            ),
        )


def small_graph() -> AutogradGraph:
    """``y = x * 2`` as the sandbox would extract it: y -> MulBackward0 -> AccumulateGrad -> x."""
    leaf = TensorFacts(names=["x"], shape=[2], dtype="float32", requires_grad=True, is_leaf=True)
    out = TensorFacts(names=["y"], shape=[2], dtype="float32", requires_grad=True, is_leaf=False)
    return AutogradGraph(
        nodes=[
            GraphNode(id=0, kind="tensor", label="y", tensor=out),
            GraphNode(id=1, kind="backward", label="MulBackward0"),
            GraphNode(id=2, kind="backward", label="AccumulateGrad"),
            GraphNode(id=3, kind="tensor", label="x", tensor=leaf),
        ],
        edges=[
            GraphEdge(source=0, target=1, kind="grad_fn"),
            GraphEdge(source=1, target=2, kind="next"),
            GraphEdge(source=2, target=3, kind="variable"),
        ],
    )


class FakeSandbox:
    """A sandbox whose health the test chooses.

    Attributes:
        mode: ``ok``; ``down`` (raises SandboxUnavailable); ``slow`` (waits for ``gate``);
            ``no_isolation`` (refuses learner code, serves curated snippets).
        learner_result: what ``run_learner`` returns in ``ok`` mode.
        graph: the graph returned when a caller asks for one (None: the sandbox could not
            read one, with ``graph_error``).
        graph_calls: ``(item id or "learner", graph asked)`` per call.
    """

    def __init__(self) -> None:
        self.mode = "ok"
        self.gate = asyncio.Event()
        self.learner_result = SnippetRun(
            stdout="tensor([2.])\n", status="ok", ok=True, duration_ms=21
        )
        self.curated_calls: list[str] = []
        self.learner_calls: list[str] = []
        self.graph: AutogradGraph | None = small_graph()
        self.graph_error = "the snippet ended before its graph was written"
        self.graph_calls: list[tuple[str, bool]] = []

    def _with_graph(self, run: SnippetRun, graph: bool) -> SnippetRun:
        if not graph:
            return run
        error = None if self.graph is not None else self.graph_error
        return run.model_copy(update={"graph": self.graph, "graph_error": error})

    async def _health(self) -> None:
        if self.mode == "down":
            raise SandboxUnavailable("connection refused (test)")
        if self.mode == "slow":
            await self.gate.wait()

    async def run_curated(self, item: Item, *, graph: bool = False) -> SnippetRun:
        self.curated_calls.append(item.id)
        self.graph_calls.append((item.id, graph))
        await self._health()
        run = SnippetRun(
            stdout=item.expected_output,
            status="ok",
            ok=True,
            duration_ms=0,
            cached=True,
            torch_version=item.torch_version,
        )
        return self._with_graph(run, graph)

    async def run_learner(self, code: str, *, graph: bool = False) -> SnippetRun:
        self.learner_calls.append(code)
        self.graph_calls.append(("learner", graph))
        await self._health()
        if self.mode == "no_isolation":
            raise LearnerCodeRefused("no user namespaces (test)")
        return self._with_graph(self.learner_result, graph)


class ExportModel(BaseModel):
    """The fake store's export."""

    learner_id: int
    attempts: list[AttemptIn]


@dataclass
class FakeDrop:
    drop_id: int
    guild_id: int
    channel_id: int
    local_date: date
    item_id: str
    state: DropState
    nonce: str
    scheduled_at: datetime
    claimed_at: datetime
    closes_at: datetime
    message_id: int | None = None
    reveal_message_id: int | None = None
    reason: str | None = None
    failed_at: datetime | None = None


@dataclass
class FakeStore:
    """Progress and drops in memory; survives a bot restart like the SQLite file would."""

    bank: Bank
    clock: Clock
    attempts: list[AttemptIn] = field(default_factory=list)
    keys: dict[str, int] = field(default_factory=dict)
    guilds: dict[int, GuildSettings] = field(default_factory=dict)
    drops: dict[int, FakeDrop] = field(default_factory=dict)
    skipped: list[tuple[int, date]] = field(default_factory=list)
    delay_s: float = 0.0

    async def _io(self) -> None:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)

    # --- Progress ------------------------------------------------------------------------

    async def record_attempt(self, attempt: AttemptIn) -> AttemptRecorded:
        await self._io()
        if attempt.idempotency_key in self.keys:
            return AttemptRecorded(attempt_id=self.keys[attempt.idempotency_key], duplicate=True)
        if attempt.drop_id is not None:
            drop = self.drops.get(attempt.drop_id)
            if drop is None or drop.state != "open":
                raise DropNotOpen(attempt.drop_id, drop.state if drop else "unknown")
            for old in self.attempts:
                if old.drop_id == attempt.drop_id and old.learner_id == attempt.learner_id:
                    raise AlreadyAnswered(attempt.drop_id, old.grade.label)
        self.attempts.append(attempt)
        self.keys[attempt.idempotency_key] = len(self.attempts)
        return AttemptRecorded(attempt_id=len(self.attempts))

    async def learner_stats(self, learner_id: int, guild_id: int | None) -> LearnerStats:
        await self._io()
        mine = [
            a
            for a in self.attempts
            if a.learner_id == learner_id and (guild_id is None or a.guild_id == guild_id)
        ]
        n = len(mine)
        correct = sum(a.grade.label is Label.CORRECT for a in mine)
        kinds = Counter(self.bank.items[a.response.item_id].kind for a in mine)
        return LearnerStats(
            learner_id=learner_id,
            guild_id=guild_id,
            attempts=n,
            accuracy=correct / n if n else 0.0,
            average_score=sum(a.grade.score for a in mine) / n if n else 0.0,
            first_try_rate=correct / n if n else 0.0,
            current_streak_days=1 if n else 0,
            best_streak_days=1 if n else 0,
            per_kind=[
                KindStats(
                    kind=k,
                    attempts=c,
                    accuracy=sum(
                        a.grade.label is Label.CORRECT
                        for a in mine
                        if self.bank.items[a.response.item_id].kind is k
                    )
                    / c,
                )
                for k, c in kinds.items()
            ],
        )

    async def leaderboard(self, guild_id: int, period: Period, limit: int) -> list[LeaderboardRow]:
        await self._io()
        best: dict[tuple[int, str], float] = {}
        counts: Counter[int] = Counter()
        for a in self.attempts:
            if a.guild_id != guild_id:
                continue
            key = (a.learner_id, a.response.item_id)
            best[key] = max(best.get(key, 0.0), a.grade.score)
            counts[a.learner_id] += 1
        points: Counter[int] = Counter()
        for (learner, _), score in best.items():
            points[learner] += round(score * 10)
        ranked = sorted(points.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [
            LeaderboardRow(rank=i + 1, learner_id=learner, points=p, attempts=counts[learner])
            for i, (learner, p) in enumerate(ranked)
        ]

    async def review_queue(self, learner_id: int, limit: int) -> ReviewQueue:
        await self._io()
        missed = []
        for a in self.attempts:
            wrong = a.learner_id == learner_id and a.grade.label is not Label.CORRECT
            if wrong and a.response.item_id not in missed:
                missed.append(a.response.item_id)
        return ReviewQueue(due=[], missed=missed[:limit])

    async def forget_learner(self, learner_id: int) -> ForgetResult:
        await self._io()
        before = len(self.attempts)
        self.attempts = [a for a in self.attempts if a.learner_id != learner_id]
        return ForgetResult(attempts_deleted=before - len(self.attempts))

    async def export_learner(self, learner_id: int) -> BaseModel:
        await self._io()
        return ExportModel(
            learner_id=learner_id, attempts=[a for a in self.attempts if a.learner_id == learner_id]
        )

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        await self._io()
        return self.guilds.get(guild_id, GuildSettings(guild_id=guild_id))

    async def set_drop_schedule(self, guild_id: int, schedule: DropScheduleIn) -> GuildSettings:
        current = await self.guild_settings(guild_id)
        self.guilds[guild_id] = current.model_copy(update={"drops": schedule})
        return self.guilds[guild_id]

    async def disable_drops(self, guild_id: int) -> GuildSettings:
        current = await self.guild_settings(guild_id)
        self.guilds[guild_id] = current.model_copy(update={"drops": None})
        return self.guilds[guild_id]

    async def set_run_enabled(self, guild_id: int, enabled: bool) -> GuildSettings:
        current = await self.guild_settings(guild_id)
        self.guilds[guild_id] = current.model_copy(update={"run_enabled": enabled})
        return self.guilds[guild_id]

    async def recent_drop_failures(self, guild_id: int, limit: int) -> list[DropFailure]:
        await self._io()
        failed = [d for d in self.drops.values() if d.guild_id == guild_id and d.state == "failed"]
        failed.sort(key=lambda d: d.failed_at or d.claimed_at, reverse=True)
        return [
            DropFailure(
                drop_id=d.drop_id,
                channel_id=d.channel_id,
                local_date=d.local_date.isoformat(),
                reason=d.reason or "",
                failed_at=d.failed_at or d.claimed_at,
            )
            for d in failed[:limit]
        ]

    # --- Drops ----------------------------------------------------------------------------

    def _pick_item(self, schedule: DropScheduleIn) -> Item:
        items = [i for i in self.bank if not schedule.kinds or i.kind in schedule.kinds]
        return items[len(self.drops) % len(items)]

    def _new_drop(
        self,
        guild_id: int,
        schedule: DropScheduleIn,
        local_date: date,
        due: datetime,
        now: datetime,
    ) -> FakeDrop:
        drop_id = len(self.drops) + 1
        drop = FakeDrop(
            drop_id=drop_id,
            guild_id=guild_id,
            channel_id=schedule.channel_id,
            local_date=local_date,
            item_id=self._pick_item(schedule).id,
            state="posting",
            nonce=f"drop-{drop_id}",
            scheduled_at=due,
            claimed_at=now,
            closes_at=now + timedelta(hours=schedule.reveal_after_hours),
        )
        self.drops[drop_id] = drop
        return drop

    def _exists(self, channel_id: int, local_date: date) -> bool:
        return any(
            d.channel_id == channel_id and d.local_date == local_date for d in self.drops.values()
        )

    @staticmethod
    def _to_post(d: FakeDrop) -> DropToPost:
        return DropToPost(
            drop_id=d.drop_id,
            guild_id=d.guild_id,
            channel_id=d.channel_id,
            item_id=d.item_id,
            nonce=d.nonce,
            scheduled_at=d.scheduled_at,
            claimed_at=d.claimed_at,
            closes_at=d.closes_at,
        )

    async def claim_due(self, now: datetime, grace: timedelta) -> list[DropToPost]:
        await self._io()
        out = [self._to_post(d) for d in self.drops.values() if d.state == "posting"]
        for guild_id, settings in self.guilds.items():
            schedule = settings.drops
            if schedule is None:
                continue
            zone = ZoneInfo(schedule.timezone)
            local_now = now.astimezone(zone)
            hour, minute = map(int, schedule.local_time.split(":"))
            due = local_now.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if local_now < due or self._exists(schedule.channel_id, local_now.date()):
                continue
            if (local_now.date(), schedule.channel_id) in {(d, c) for c, d in self.skipped}:
                continue
            if now - due.astimezone(UTC) > grace:
                self.skipped.append((schedule.channel_id, local_now.date()))
                continue
            drop = self._new_drop(guild_id, schedule, local_now.date(), due.astimezone(UTC), now)
            out.append(self._to_post(drop))
        return out

    async def claim_now(self, guild_id: int, now: datetime) -> DropToPost:
        await self._io()
        settings = self.guilds.get(guild_id)
        if settings is None or settings.drops is None:
            raise DropConflict("Daily drops are off here; set them up with /tutor drops set.")
        schedule = settings.drops
        local_date = now.astimezone(ZoneInfo(schedule.timezone)).date()
        if self._exists(schedule.channel_id, local_date):
            raise DropConflict("Today's drop in that channel already exists.")
        return self._to_post(self._new_drop(guild_id, schedule, local_date, now, now))

    async def mark_open(self, drop_id: int, message_id: int) -> None:
        drop = self.drops[drop_id]
        assert drop.state == "posting", drop.state
        drop.state, drop.message_id = "open", message_id

    async def mark_failed(self, drop_id: int, reason: str) -> None:
        drop = self.drops[drop_id]
        drop.state, drop.reason, drop.failed_at = "failed", reason, self.clock()

    async def drop(self, drop_id: int) -> DropInfo | None:
        d = self.drops.get(drop_id)
        if d is None:
            return None
        return DropInfo(
            drop_id=d.drop_id,
            guild_id=d.guild_id,
            channel_id=d.channel_id,
            item_id=d.item_id,
            state=d.state,
            message_id=d.message_id,
            closes_at=d.closes_at,
        )

    async def due_reveals(self, now: datetime) -> list[DropToReveal]:
        await self._io()
        return [
            DropToReveal(
                drop_id=d.drop_id,
                guild_id=d.guild_id,
                channel_id=d.channel_id,
                message_id=d.message_id,
                item_id=d.item_id,
            )
            for d in self.drops.values()
            if d.message_id is not None
            and (d.state == "closed" or (d.state == "open" and d.closes_at <= now))
        ]

    async def close(self, drop_id: int) -> DropSummary:
        drop = self.drops[drop_id]
        if drop.state == "open":
            drop.state = "closed"
        answers = [a for a in self.attempts if a.drop_id == drop_id]
        labels = Counter(a.grade.label for a in answers)
        wrong = Counter(m for a in answers for m in a.grade.misconceptions)
        top = sorted(answers, key=lambda a: -a.grade.score)[:5]
        return DropSummary(
            drop_id=drop_id,
            answers=len(answers),
            label_shares={k: v / len(answers) for k, v in labels.items()} if answers else {},
            most_common_misconception=wrong.most_common(1)[0][0] if wrong else None,
            top_scorers=[ScorerRow(learner_id=a.learner_id, score=a.grade.score) for a in top],
        )

    async def mark_revealed(self, drop_id: int, message_id: int) -> None:
        drop = self.drops[drop_id]
        assert drop.state == "closed", drop.state
        drop.state, drop.reveal_message_id = "revealed", message_id
