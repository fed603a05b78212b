"""Domain errors of the progress store: each carries the data a handler needs to explain it.

The Discord adapter maps these to short sentences (one renderer); nothing here is meant to
be shown to a user verbatim.
"""

from __future__ import annotations

from datetime import datetime

from bot.content.models import Label
from bot.progress.models import DropState


class ProgressError(Exception):
    """Base class for every error the progress store raises on purpose."""


class AlreadyAnswered(ProgressError):
    """The learner already answered this drop; the first answer stands (refuse policy).

    Attributes:
        drop_id: the drop.
        learner_id: the learner.
        attempt_id: their recorded attempt.
        label: that attempt's label (what the learner is told stands).
    """

    def __init__(self, drop_id: int, learner_id: int, attempt_id: int, label: Label) -> None:
        self.drop_id = drop_id
        self.learner_id = learner_id
        self.attempt_id = attempt_id
        self.label = label
        super().__init__(
            f"learner {learner_id} already answered drop {drop_id} "
            f"(attempt {attempt_id}, {label.value})"
        )


class DropClosed(ProgressError):
    """The drop does not accept answers (not open yet, or past ``closes_at``).

    Attributes:
        drop_id: the drop.
        state: its state when the answer arrived.
        closes_at: when it closed (UTC), if it was ever open.
    """

    def __init__(self, drop_id: int, state: DropState, closes_at: datetime | None) -> None:
        self.drop_id = drop_id
        self.state = state
        self.closes_at = closes_at
        super().__init__(f"drop {drop_id} is {state.value}; it does not accept answers")


class UnknownDrop(ProgressError):
    """No drop has this id."""

    def __init__(self, drop_id: int) -> None:
        self.drop_id = drop_id
        super().__init__(f"no drop with id {drop_id}")


class DropMismatch(ProgressError):
    """An attempt names a drop but a different guild or item than the drop's."""

    def __init__(self, drop_id: int, field: str, expected: object, got: object) -> None:
        self.drop_id = drop_id
        self.field = field
        super().__init__(f"drop {drop_id} has {field} {expected!r}, the attempt says {got!r}")


class DropStateError(ProgressError):
    """A drop transition was asked from a state that does not allow it.

    Another process (or an earlier tick) moved the drop first; the caller should drop
    whatever it was about to do with it.

    Attributes:
        drop_id: the drop.
        expected: states the transition starts from.
        actual: the state found.
    """

    def __init__(self, drop_id: int, expected: tuple[DropState, ...], actual: DropState) -> None:
        self.drop_id = drop_id
        self.expected = expected
        self.actual = actual
        wanted = "/".join(s.value for s in expected)
        super().__init__(f"drop {drop_id} is {actual.value}, not {wanted}")


class DropAlreadyExists(ProgressError):
    """A channel already has a drop for this local date (one per channel per date)."""

    def __init__(self, drop_id: int, channel_id: int, local_date: str) -> None:
        self.drop_id = drop_id
        self.channel_id = channel_id
        self.local_date = local_date
        super().__init__(f"channel {channel_id} already has drop {drop_id} for {local_date}")


class DropsNotConfigured(ProgressError):
    """The guild has no drop channel and time (``/tutor-admin drops set`` first)."""

    def __init__(self, guild_id: int) -> None:
        self.guild_id = guild_id
        super().__init__(f"guild {guild_id} has no drop channel and time configured")


class IdempotencyConflict(ProgressError):
    """The idempotency key was already used by another learner: never merge the two."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"idempotency key {key!r} was already used by another learner")


class InvalidCacheEntry(ProgressError, ValueError):
    """A sandbox cache key or value is malformed or too large."""
