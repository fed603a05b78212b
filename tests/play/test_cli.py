"""``tutor play`` as a process: piped input, the learner id, Ctrl-C, and a real terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CONTENT, ROOT

ROUND = "item TF3\nverdict false\nanswer .grad accumulates: each backward adds to it\nquit\n"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    (tmp_path / "data").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTOR_")}
    env.update(
        PYTHONPATH=str(ROOT),
        TUTOR_CONTENT_DIR=str(CONTENT),
        TUTOR_DATABASE_PATH=str(tmp_path / "data" / "tutor.db"),
        COLUMNS="100",
    )
    env.update(extra)
    return env


def _tutor(
    tmp_path: Path, *args: str, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(tmp_path, **env),
        timeout=120,
        check=False,
    )


def test_piped_input_is_read_as_the_line_protocol(tmp_path: Path) -> None:
    done = _tutor(tmp_path, "play", "--sandbox", "off", stdin=ROUND)
    assert done.returncode == 0, done.stderr
    assert "[TF3 · true/false" in done.stdout
    assert "Correct (score" in done.stdout
    assert "recorded with torch 2.13.0; the sandbox is turned off" in done.stdout


def test_the_readme_slash_keys_work_in_scripted_play(tmp_path: Path) -> None:
    # fresh26: README says /quit works "anywhere"; piped, it was an unknown_command
    script = "item TF3\n/hint\n/skip\nitem TF3\n/QUIT\nstats\n"
    done = _tutor(tmp_path, "play", "--json", "--sandbox", "off", stdin=script)
    assert done.returncode == 0, done.stdout
    events = [json.loads(line)["event"] for line in done.stdout.splitlines()]
    assert events == ["started", "question", "hint", "skipped", "question", "ended"]


@pytest.mark.parametrize("utf8_mode", ["0", "1"], ids=["strict", "surrogateescape"])
def test_an_undecodable_byte_in_piped_input_is_replaced_not_a_traceback(
    tmp_path: Path, utf8_mode: str
) -> None:
    round_ = ROUND.replace(".grad accumulates", "caf\xe9: .grad accumulates").encode("latin-1")
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--sandbox", "off", "--json"],
        input=round_,
        capture_output=True,
        cwd=tmp_path,
        env=_env(tmp_path, PYTHONUTF8=utf8_mode, LC_ALL="C.UTF-8"),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["event"] for e in events] == ["started", "question", "verdict", "graded",
                                            "revealed", "ended"]  # fmt: skip
    assert events[-1]["stats"]["attempts"] == 1


def test_the_learner_id_comes_from_the_environment_and_stats_persist(tmp_path: Path) -> None:
    _tutor(tmp_path, "play", "--sandbox", "off", stdin=ROUND, TUTOR_PLAY_LEARNER_ID="77")
    stats = _tutor(tmp_path, "stats", "--learner", "77", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["attempts"] == 1


def test_a_bad_learner_id_is_named_with_exit_2(tmp_path: Path) -> None:
    done = _tutor(tmp_path, "play", "--learner", "abc", stdin="quit\n")
    assert done.returncode == 2
    assert "'abc' is not a Discord id" in done.stderr


def test_a_bad_setting_is_named_with_exit_2(tmp_path: Path) -> None:
    done = _tutor(tmp_path, "play", stdin="quit\n", TUTOR_PLAY_LEARNER_ID="-3")
    assert done.returncode == 2
    assert done.stderr.startswith("tutor play: TUTOR_PLAY_LEARNER_ID: Input should be greater")


def test_a_database_path_in_a_missing_directory_is_refused_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "x.db"
    done = _tutor(
        tmp_path, "play", "--sandbox", "off", stdin=ROUND, TUTOR_DATABASE_PATH=str(missing)
    )
    assert done.returncode == 2
    assert done.stderr.startswith("tutor play: TUTOR_DATABASE_PATH: ")
    assert "does not exist" in done.stderr
    assert not (tmp_path / "no").exists()


def test_the_default_database_directory_is_created(tmp_path: Path) -> None:
    env = _env(tmp_path)
    del env["TUTOR_DATABASE_PATH"]
    (tmp_path / "data").rmdir()
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--sandbox", "off"],
        input=ROUND,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "tutor.db").is_file()


def _sigint_default() -> None:
    """In the child: take SIGINT's default action back. A test run started in the
    background by a non-interactive shell (``nohup ./.ci/run &``) inherits SIGINT ignored,
    and Python then never raises KeyboardInterrupt: the child saw its stdin close instead
    and exited 1 (``input_ended``), as two CI runs here did."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_waiting_ends_cleanly_with_the_answers_kept(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "play", "--sandbox", "off", "--json"],
        preexec_fn=_sigint_default,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=_env(tmp_path),
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(ROUND.replace("quit\n", "item WHY1\n"))
    proc.stdin.flush()
    seen = []
    while not seen or seen[-1]["event"] != "question" or seen[-1]["item_id"] != "WHY1":
        seen.append(json.loads(proc.stdout.readline()))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    ended = json.loads(out.splitlines()[-1])
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert (ended["reason"], ended["unanswered"]) == ("interrupted", "WHY1")
    assert ended["stats"]["attempts"] == 1


def _read_until(fd: int, needle: str, timeout_s: float = 60.0) -> str:
    """Read the pty until ``needle`` shows (or fail with what was seen)."""
    seen = ""
    deadline = time.monotonic() + timeout_s
    while needle not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{needle!r} never showed; the screen had:\n{seen[-2000:]}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536).decode(errors="replace")
            except OSError:  # the child closed the terminal
                break
            seen += chunk
    return seen


class Terminal:
    """``tutor play --sandbox off`` on a pseudo-terminal: read the screen, type keys."""

    def __init__(self, tmp_path: Path) -> None:
        self.leader, follower = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "play", "--sandbox", "off"],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            cwd=tmp_path,
            env=_env(tmp_path, TERM="dumb"),
            close_fds=True,
        )
        os.close(follower)
        self.screen = ""

    def wait_for(self, needle: str) -> str:
        """The screen since the last call, up to ``needle``."""
        seen = _read_until(self.leader, needle)
        self.screen += seen
        return seen

    def type(self, *lines: str) -> None:
        """Type ``lines`` at once, each ended by Enter (one write: a paste)."""
        os.write(self.leader, "".join(f"{line}\r" for line in lines).encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.leader)


def _stored_answers(tmp_path: Path) -> list[str]:
    with sqlite3.connect(tmp_path / "data" / "tutor.db") as db:
        return [row[0] for row in db.execute("SELECT answer_text FROM attempts")]


@pytest.mark.skipif(sys.platform != "linux", reason="uses a Linux pseudo-terminal")
def test_on_a_terminal_the_menus_take_a_learner_through_a_round(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path)
    try:
        steps = [
            ("new question", ""),
            ("Kind", "tf"),
            ("Difficulty", "any"),
            ("Topic", "grad-accumulation"),
            ("Verdict", "f"),
            ("Why?", "grads accumulate: every backward adds to .grad"),
            ("another like this", "q"),
        ]
        for prompt, keys in steps:
            terminal.wait_for(prompt)
            terminal.type(keys)
        terminal.wait_for("Your progress")
        assert terminal.proc.wait(timeout=60) == 0
    finally:
        terminal.close()
    assert "Feedback" in terminal.screen
    assert "score" in terminal.screen
    assert "Output (recorded with torch 2.13.0" in terminal.screen
    assert "streak" in terminal.screen


@pytest.mark.skipif(sys.platform != "linux", reason="uses a Linux pseudo-terminal")
def test_another_like_this_says_when_the_filters_match_only_one_item(tmp_path: Path) -> None:
    from bot.content.loader import load_bank
    from bot.content.models import Kind

    bank = load_bank([CONTENT])
    topic = next(
        t for t in sorted(bank.tags()) if len(bank.select(kind=Kind.TRUE_FALSE, tag=t)) == 1
    )
    [only] = bank.select(kind=Kind.TRUE_FALSE, tag=topic)
    terminal = Terminal(tmp_path)
    try:
        for prompt, keys in [("new question", ""), ("Kind", "tf"), ("Difficulty", "any"),
                             ("Topic", topic), ("Verdict", "f"), ("Why?", "no idea")]:  # fmt: skip
            terminal.wait_for(prompt)
            terminal.type(keys)
        terminal.wait_for(f"{only.id} again (the only match)")
        terminal.type("q")
        terminal.wait_for("Your progress")
        assert terminal.proc.wait(timeout=60) == 0
    finally:
        terminal.close()


PASTE = ("grads accumulate: every backward adds to .grad", "x.grad.zero_()", "q")


@pytest.mark.skipif(sys.platform != "linux", reason="uses a Linux pseudo-terminal")
def test_a_pasted_justification_is_graded_whole_and_no_line_runs_as_a_command(
    tmp_path: Path,
) -> None:
    terminal = Terminal(tmp_path)
    try:
        for prompt, keys in [("new question", ""), ("Kind", "tf"), ("Difficulty", "any"),
                             ("Topic", "grad-accumulation"), ("Verdict", "f")]:  # fmt: skip
            terminal.wait_for(prompt)
            terminal.type(keys)
        terminal.wait_for("Why?")
        terminal.type(*PASTE)
        after = terminal.wait_for("another like this")
        time.sleep(0.5)  # a pasted "q" left over would end the session by now
        assert terminal.proc.poll() is None, "a pasted line ran as a menu command"
        terminal.type("q")
        terminal.wait_for("Your progress")
        assert terminal.proc.wait(timeout=60) == 0
    finally:
        terminal.close()
    assert "not an option" not in after
    assert _stored_answers(tmp_path) == ["\n".join(PASTE)]


@pytest.mark.skipif(sys.platform != "linux", reason="uses a Linux pseudo-terminal")
def test_a_paste_at_a_menu_is_ignored_whole(tmp_path: Path) -> None:
    terminal = Terminal(tmp_path)
    try:
        terminal.wait_for("new question")
        terminal.type("")
        terminal.wait_for("Kind")
        terminal.type("tf", "q")
        refused = terminal.wait_for("Kind")
        terminal.type("/quit")
        terminal.wait_for("Your progress")
        assert terminal.proc.wait(timeout=60) == 0
    finally:
        terminal.close()
    assert "a paste of 2 lines was ignored here" in refused
    assert "Difficulty" not in refused
