"""The interactive front end in process: what each prompt takes, and that refusals grade
nothing (keys are fed through the prompts' stream; the fake sandbox answers)."""

from __future__ import annotations

import asyncio
import io
import random
import re
from pathlib import Path

import pytest
from rich.console import Console

from bot.content.loader import Bank
from bot.content.models import Kind
from bot.play.app import open_play
from bot.play.session import INTERACTIVE_WORDS, PlaySession
from bot.play.terminal import TerminalFrontEnd
from bot.progress.store import ProgressStore
from tests.fake_sandbox import FakeSandboxRunner
from tests.play.conftest import LEARNER, settings_for

RIGHT = ".grad accumulates: every backward adds to it until you zero it"


class Keys(io.StringIO):
    """Typed lines; reading past the last one raises EOFError, as ``input()`` does."""

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = super().readline(-1 if size is None else size)
        if not line:
            raise EOFError
        return line


def _play(tmp_path: Path, bank: Bank, *keys: str) -> tuple[int, str]:
    """Run the menus on ``keys`` (a new tf question on grad-accumulation first)."""
    screen = io.StringIO()
    console = Console(file=screen, width=120, color_system=None, highlight=False)
    lines = ["n", "tf", "any", "grad-accumulation", *keys]
    with open_play(settings_for(tmp_path), runner=FakeSandboxRunner(bank), bank=bank) as context:
        session = PlaySession(
            context.services,
            LEARNER,
            measure_time=False,
            rng=random.Random(3),
            words=INTERACTIVE_WORDS,
        )
        front = TerminalFrontEnd(context, session, console, stdin=Keys("\n".join(lines) + "\n"))
        code = front.run()
    return code, screen.getvalue()


def _attempts(tmp_path: Path) -> list[str]:
    async def read() -> list[str]:
        async with ProgressStore(tmp_path / "tutor.db") as store:
            export = await store.export_learner(LEARNER)
        return [a.answer_text or "" for a in export.attempts]

    return asyncio.run(read())


def test_a_round_with_a_spelled_out_verdict_is_graded(tmp_path: Path, bank: Bank) -> None:
    code, screen = _play(tmp_path, bank, "FALSE", RIGHT, "q")
    assert code == 0
    assert "Feedback" in screen
    assert _attempts(tmp_path) == [RIGHT]


def test_an_unknown_slash_command_at_the_why_prompt_is_refused_and_not_graded(
    tmp_path: Path, bank: Bank
) -> None:
    _, screen = _play(tmp_path, bank, "f", "/bogus", "q", "/quit")
    assert "unknown command '/bogus' here; commands: /hint, /skip, /quit, /help" in screen
    assert "'q' was not graded: commands start with / (/quit)" in screen
    assert _attempts(tmp_path) == []


def test_slash_quit_at_the_verdict_prompt_ends_the_session(tmp_path: Path, bank: Bank) -> None:
    code, screen = _play(tmp_path, bank, "/quit")
    assert code == 0
    assert "Bye." in screen
    assert "was left unanswered; nothing was recorded for it" in screen


def test_a_refused_verdict_says_what_the_prompt_accepts(tmp_path: Path, bank: Bank) -> None:
    _, screen = _play(tmp_path, bank, "maybe", "/quit")
    assert "'maybe' is not a verdict: type true or false (also t/f, yes/no, y/n)" in screen
    assert "Please select one of the available options" not in screen


def test_the_menu_takes_quit_as_a_word(tmp_path: Path, bank: Bank) -> None:
    code, screen = _play(tmp_path, bank, "/skip", "quit")
    assert code == 0
    assert "Bye." in screen
    assert "not an option" not in screen


def test_help_lists_the_keys_and_asks_again(tmp_path: Path, bank: Bank) -> None:
    _, screen = _play(tmp_path, bank, "/help", "/quit")
    assert "/hint (or ?) shows the hint, /skip drops the question" in " ".join(screen.split())


def test_an_empty_answer_names_the_interactive_skip(tmp_path: Path, bank: Bank) -> None:
    _, screen = _play(tmp_path, bank, "f", "", "/quit")
    assert "(or /skip to drop TF" in screen
    assert "`skip`" not in screen


def test_an_unknown_topic_names_the_interactive_way_to_list_them(
    tmp_path: Path, bank: Bank
) -> None:
    _, screen = _menus(tmp_path, bank, "n\nany\nany\nno-such-topic\n/quit\n")
    assert "? at the Topic prompt lists them" in screen
    assert "`topics`" not in screen


def test_stats_name_the_concepts_to_work_on_in_words_and_say_why_points_are_zero(
    tmp_path: Path, bank: Bank
) -> None:
    _, screen = _play(tmp_path, bank, "f", "it keeps the old number around", "s", "q")
    assert "TF12 · true/false" in screen  # the harness's seed opens it; its ids have hyphens
    item = bank.items["TF12"]
    table = screen[screen.index("Your progress") :]
    to_work_on = table[table.index("to work on") : table.index("weakest")].split()
    assert any(
        " ".join(c.description.split()[:3]) in " ".join(to_work_on) for c in item.rubric.concepts
    )
    assert not any(c.id in to_work_on for c in item.rubric.concepts if "-" in c.id)
    assert "points are earned only in a Discord server" in " ".join(table.split())


def test_stats_name_reviews_scheduled_and_missed_not_only_those_due(
    tmp_path: Path, bank: Bank
) -> None:
    _, screen = _play(tmp_path, bank, "t", "it is overwritten each time", "s", "q")
    table = " ".join(screen[screen.index("Your progress") :].split())
    assert (
        "reviews 0 due now (1 scheduled, the next in 24 h); 1 missed to retry now (type review)"
    ) in table


def _menus(tmp_path: Path, bank: Bank, keys: str) -> tuple[int, str]:
    """Run the menus on ``keys`` (one per line) from the first prompt."""
    screen = io.StringIO()
    console = Console(file=screen, width=200, color_system=None, highlight=False)
    with open_play(settings_for(tmp_path), runner=FakeSandboxRunner(bank), bank=bank) as context:
        session = PlaySession(context.services, LEARNER, words=INTERACTIVE_WORDS)
        code = TerminalFrontEnd(context, session, console, stdin=Keys(keys)).run()
    return code, screen.getvalue()


@pytest.mark.parametrize(
    "keys", ["n\nq\n", "n\ntf\nquit\n", "n\ntf\nany\nq\n"], ids=["kind", "difficulty", "topic"]
)
def test_q_quits_at_the_filter_prompts(tmp_path: Path, bank: Bank, keys: str) -> None:
    code, screen = _menus(tmp_path, bank, keys)
    assert code == 0
    assert "Bye." in screen
    assert "unknown kind" not in screen
    assert "is not a difficulty" not in screen
    assert "no item is tagged" not in screen


def test_the_after_answer_menu_takes_the_main_menus_topics_key(tmp_path: Path, bank: Bank) -> None:
    _, screen = _play(tmp_path, bank, "f", RIGHT, "t", "q")
    after = screen[screen.index("Feedback") :]
    assert "t topics" in after
    assert "What you can ask for" in after


def test_the_topic_list_counts_only_items_of_the_chosen_kind_and_difficulty(
    tmp_path: Path, bank: Bank
) -> None:
    matching = {tag for item in bank.select(kind=Kind.EDGE_CASE, difficulty=2) for tag in item.tags}
    elsewhere = sorted({tag for item in bank for tag in item.tags} - matching)
    assert elsewhere
    _, screen = _menus(tmp_path, bank, "n\nec\n2\n?\n/quit\n")
    listed = screen[screen.index("What you can ask for") :]
    shown = set(re.findall(r"(?<![\w-])([\w-]+) \(\d+\)", listed))
    assert matching <= shown
    assert not shown & set(elsewhere)


def test_the_topic_prompt_takes_a_topic_in_any_case(tmp_path: Path, bank: Bank) -> None:
    """README: menu prompts, the topic prompt included, take any case (fresh24 #4)."""
    _, screen = _menus(tmp_path, bank, "n\nany\nany\nABS\n/quit\n")
    assert "no item is tagged" not in screen
    assert "· abs," in screen  # the question's heading lists its tags
