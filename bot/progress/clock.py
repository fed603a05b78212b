"""The clock the store reads ``now`` from; tests pass their own.

Domain functions never read the time themselves: they take ``now``. The async store calls
its clock once per operation, on the event loop, and passes the instant down.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""A function returning the current instant as an aware datetime."""


def system_clock() -> datetime:
    """The machine's current time, in UTC."""
    return datetime.now(UTC)
