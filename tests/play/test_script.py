"""The scripted front end: a piped session end to end, in process, with the fake sandbox."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

from bot.content.loader import Bank
from bot.play.app import open_play
from bot.play.protocol import EVENTS, Ended
from bot.play.script import run_script
from bot.play.session import PlaySession
from tests.fake_sandbox import FakeSandboxRunner
from tests.play.conftest import LEARNER, settings_for

ROUND = """\
# one round of TF3, answered right
item TF3
verdict false
answer .grad accumulates: every backward adds to it until you zero it
quit
"""


def _play(
    tmp_path: Path, bank: Bank, script: str, *, json_lines: bool = True
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    settings = settings_for(tmp_path)
    with open_play(settings, runner=FakeSandboxRunner(bank), bank=bank) as context:
        session = PlaySession(context.services, LEARNER, measure_time=False, rng=random.Random(3))
        code = run_script(context, session, io.StringIO(script), out, err, json=json_lines)
    return code, out.getvalue(), err.getvalue()


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_a_scripted_round_emits_one_event_per_step_and_exits_0(tmp_path: Path, bank: Bank) -> None:
    code, out, _ = _play(tmp_path, bank, ROUND)
    events = _events(out)
    assert code == 0
    assert [e["event"] for e in events] == [
        "started",
        "question",
        "verdict",
        "graded",
        "revealed",
        "ended",
    ]
    assert events[3]["label"] == "correct"
    assert events[4]["output"] == bank.items["TF3"].expected_output
    assert events[5]["stats"]["attempts"] == 1


def test_every_json_line_is_a_valid_event(tmp_path: Path, bank: Bank) -> None:
    _, out, _ = _play(tmp_path, bank, ROUND + "stats\ntopics\n")
    for line in out.splitlines():
        EVENTS.validate_json(line)


def test_a_refused_line_is_named_and_the_session_goes_on_with_exit_1(
    tmp_path: Path, bank: Bank
) -> None:
    code, out, _ = _play(tmp_path, bank, "item TF3\nverdict maybe\nverdict false\nskip\n")
    events = _events(out)
    [error] = [e for e in events if e["event"] == "error"]
    assert (error["line"], error["code"]) == (2, "bad_argument")
    assert "skipped" in [e["event"] for e in events]
    assert code == 1


def test_input_ending_mid_question_records_nothing_and_exits_1(tmp_path: Path, bank: Bank) -> None:
    code, out, _ = _play(tmp_path, bank, "item TF3\nverdict false\n")
    events = _events(out)
    assert events[-2]["code"] == "input_ended"
    ended = EVENTS.validate_json(json.dumps(events[-1]))
    assert isinstance(ended, Ended)
    assert (ended.reason, ended.unanswered) == ("eof", "TF3")
    assert ended.stats is not None
    assert ended.stats.attempts == 0
    assert code == 1


def test_stats_persist_across_sessions(tmp_path: Path, bank: Bank) -> None:
    _play(tmp_path, bank, ROUND)
    _, out, _ = _play(tmp_path, bank, "stats\n")
    [stats] = [e for e in _events(out) if e["event"] == "stats"]
    assert stats["stats"]["attempts"] == 1


def test_text_mode_prints_the_feedback_and_the_real_output(tmp_path: Path, bank: Bank) -> None:
    code, out, err = _play(tmp_path, bank, ROUND, json_lines=False)
    assert code == 0
    assert "Correct (score " in out
    assert "**" not in out
    for line in bank.items["TF3"].expected_output.splitlines():
        assert f"    {line}" in out
    assert err == ""


def test_text_mode_writes_errors_to_stderr_with_the_line(tmp_path: Path, bank: Bank) -> None:
    _, out, err = _play(tmp_path, bank, "stats\ndance\n", json_lines=False)
    assert err == (
        "error: line 2: unknown command 'dance'; commands: quiz, item, review, hint, "
        "verdict, answer, skip, stats, topics, graph, quit (/hint, /skip and /quit too)\n"
    )
    assert "dance" not in out
