"""The slash commands the docs and docstrings name under /tutor and /tutor-admin exist."""

from __future__ import annotations

import re
from typing import Any

import pytest
from discord import app_commands

from tests.conftest import ROOT
from tests.discord_app.harness import Harness

# `/tutor-admin drops set channel ...` in Markdown, ``/tutor export`` in reStructuredText.
NAMED = re.compile(r"`(/tutor(?:-admin)?(?: [a-z|-]+)*)")
SOURCES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted(ROOT.glob("bot/**/*.py")),
]


def _named() -> list[tuple[str, str]]:
    """Each (file, command as written) once, in file order."""
    found: dict[tuple[str, str], None] = {}
    for path in SOURCES:
        for match in NAMED.finditer(path.read_text(encoding="utf-8")):
            found[(str(path.relative_to(ROOT)), match.group(1))] = None
    return list(found)


def _resolves(tree: app_commands.CommandTree[Any], words: list[str]) -> bool:
    """The leading words name a command (or group); the rest are its options."""
    node: Any = tree.get_command(words[0].removeprefix("/"))
    for word in words[1:]:
        if not isinstance(node, app_commands.Group):
            return node is not None  # options follow a command
        alternatives = word.split("|")
        children = [node.get_command(name) for name in alternatives]
        if any(child is None for child in children):
            return False
        node = children[0]
    return node is not None


def test_the_docs_name_tutor_commands() -> None:
    assert len(_named()) >= 10


@pytest.mark.parametrize(("where", "named"), _named())
async def test_every_named_tutor_command_exists(harness: Harness, where: str, named: str) -> None:
    assert _resolves(harness.bot.tree, named.split()), f"{where} names {named}, which is no command"
