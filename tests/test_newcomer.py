"""A newcomer's first run: a clean clone, the README's play command, one scripted round.

The play command is read from the README's "Two commands" section and run exactly as
written (``bash -c``) in a fresh ``git clone`` of this repository's HEAD, with one round
piped in. To keep CI time sane it reuses the venv this test runs in through the README's
``VENV``/``PYTHON`` knobs (``scripts/play`` then installs nothing); everything else is the
clone's: its code, its ``content/``, its new ``data/tutor.db`` and a real local sandbox
worker running the snippet under torch 2.13.0. The README's other command is the one CI
runs (``.ci/run``), checked below.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.content.loader import Bank
from tests.conftest import ROOT

SECTION = "## Two commands on a fresh machine"
ROUND = """\
item TF3
verdict false
answer False: .grad accumulates, every backward adds to it until you clear it with x.grad.zero_()
quit
"""


def readme_commands() -> list[str]:
    """The shell commands of the README's "Two commands" section, in order."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)]


def test_the_readme_opens_with_the_play_and_the_test_command() -> None:
    assert readme_commands() == ["./scripts/play", "./scripts/test"]


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    lines = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert lines[-1] == readme_commands()[1]  # the README line, verbatim


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TUTOR_", "PYTHON"))}
    env.update(VENV=sys.prefix, PYTHON=sys.executable)
    env.pop("VIRTUAL_ENV", None)
    return env


@pytest.mark.slow
def test_a_newcomer_plays_one_round_from_a_clean_clone(tmp_path: Path, bank: Bank) -> None:
    deps = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "_deps_ok.py"), "sandbox"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert deps.returncode == 0, f"this venv cannot be reused as it is: {deps.stderr}"
    clone = tmp_path / "autograd-tutor"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    play = subprocess.run(
        ["bash", "-c", readme_commands()[0]],
        cwd=clone,
        input=ROUND,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
        check=False,
    )
    assert play.returncode == 0, play.stdout + play.stderr
    out = play.stdout
    assert "sandbox: a local worker, torch 2.13.0" in out
    assert "Correct (score 1.00)" in out
    assert "Output (ran now in the sandbox: exit 0, torch 2.13.0" in out
    for line in bank.items["TF3"].expected_output.rstrip("\n").splitlines():
        assert f"\n    {line}\n" in out
    stats = subprocess.run(
        [sys.executable, "-m", "bot", "stats", "--learner", "1", "--json"],
        cwd=clone,
        capture_output=True,
        text=True,
        env=_env(),
        check=True,
    )
    recorded = json.loads(stats.stdout)
    assert (clone / "data" / "tutor.db").is_file()
    assert (recorded["attempts"], recorded["accuracy"]) == (1, 1.0)
    assert recorded["streaks"]["current"] == 1
    assert [k["key"] for k in recorded["by_kind"]] == ["true_false"]
