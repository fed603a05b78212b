"""Small readers of recorded Discord bodies, shared by the Discord tests."""

from __future__ import annotations

from typing import Any

from bot.progress.models import AttemptRecord


def custom_ids(message: dict[str, Any]) -> list[str]:
    """Every custom_id on a message, row by row."""
    return [
        c["custom_id"]
        for row in message.get("components") or []
        for c in row.get("components") or []
        if "custom_id" in c
    ]


def labels(message: dict[str, Any]) -> list[str]:
    """Every button label on a message, row by row."""
    return [
        c.get("label", "")
        for row in message.get("components") or []
        for c in row.get("components") or []
    ]


def field_values(message: dict[str, Any]) -> dict[str, str]:
    """The first embed's fields as name -> value."""
    embed = message["embeds"][0]
    return {f["name"]: f["value"] for f in embed.get("fields") or []}


def is_ephemeral(message: dict[str, Any]) -> bool:
    return bool(int(message.get("flags") or 0) & 64)


async def attempts_of(harness: Any, learner_id: int) -> list[AttemptRecord]:
    """The learner's stored attempts, oldest first (read back through the store's export)."""
    return (await harness.services.store.export_learner(learner_id)).attempts
