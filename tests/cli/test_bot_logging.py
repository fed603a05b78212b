"""`tutor bot` logging: discord.py's colour codes only on a terminal (fresh26: escape codes
in `docker compose logs`, where discord.py assumes colour)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import discord
import pytest

from bot.cli.bot import configure_logging


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def root_logger(monkeypatch: pytest.MonkeyPatch) -> Iterator[logging.Logger]:
    monkeypatch.setattr(discord.utils, "is_docker", lambda: True)  # as in the container
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield root
    root.handlers[:] = handlers
    root.setLevel(level)


def _logged(stream: io.StringIO) -> str:
    configure_logging(logging.INFO, stream)
    logging.getLogger("discord.client").warning("logged in as tutor")
    return stream.getvalue()


def test_a_stream_that_is_not_a_terminal_gets_no_colour_codes(root_logger: logging.Logger) -> None:
    out = _logged(io.StringIO())
    assert "logged in as tutor" in out
    assert "\x1b[" not in out
    assert "] [WARNING ] discord.client: logged in as tutor" in out


def test_a_terminal_keeps_discord_colours(root_logger: logging.Logger) -> None:
    out = _logged(_Terminal())
    assert "logged in as tutor" in out
    assert "\x1b[" in out
