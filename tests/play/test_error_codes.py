"""The ``error`` codes of ``tutor play``'s line protocol: one set, documented as it is.

fresh22 #11: ``graph DIR`` before any answer gave ``no_question``, while README documented
only ``graph_unavailable`` and ``bad_path`` for ``graph``, and no list of codes at all.
The codes are now :data:`bot.play.protocol.ErrorCode`, and README's table of them is
checked against it here, in both directions.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from bot.play.protocol import ERROR_CODES, ErrorEvent
from tests.conftest import CONTENT, ROOT
from tests.test_docs_tables import cells

TABLE_HEADER = "| `error` code | given when |"


def readme_codes() -> list[str]:
    """The codes in README's table of ``error`` codes, in order."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(TABLE_HEADER) + 2  # past the delimiter row
    codes = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        codes.append(cells(line)[0].strip("`"))
    return codes


def codes_in_the_code() -> set[str]:
    """Every code the play package passes to ``_error``, ``ProtocolError`` or ``ErrorEvent``."""
    found: set[str] = set()
    for path in (ROOT / "bot" / "play").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in {"_error", "ProtocolError"} and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.add(first.value)
            if name == "ErrorEvent":
                for keyword in node.keywords:
                    value = keyword.value
                    if keyword.arg == "code" and isinstance(value, ast.Constant):
                        found.add(str(value.value))
    return found


def test_the_readme_lists_exactly_the_codes_of_the_code() -> None:
    documented = readme_codes()
    assert len(documented) == len(set(documented)), "a code listed twice"
    assert set(documented) == ERROR_CODES


def test_every_code_is_given_somewhere_and_none_other() -> None:
    assert codes_in_the_code() == ERROR_CODES


def test_the_error_event_docstring_names_every_code() -> None:
    doc = ErrorEvent.__doc__ or ""
    assert {code for code in ERROR_CODES if f"``{code}``" not in doc} == set()


def test_graph_before_any_answer_is_a_documented_no_question(tmp_path: Path) -> None:
    """The finding, through the CLI: ``graph DIR`` first in a session."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTOR_")}
    env.update(PYTHONPATH=str(ROOT), TUTOR_CONTENT_DIR=str(CONTENT))
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--json", "--sandbox", "off"],
        input=f"graph {tmp_path / 'out'}\nquit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "TUTOR_DATABASE_PATH": str(tmp_path / "tutor.db")},
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    [error] = [e for e in map(json.loads, done.stdout.splitlines()) if e["event"] == "error"]
    assert (error["code"], error["line"]) == ("no_question", 1)
    assert not (tmp_path / "out").exists()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [graph_row] = [line for line in readme.splitlines() if line.startswith("| `graph DIR` |")]
    assert set(re.findall(r"`error` \(`(\w+)`\)", graph_row)) == {
        "no_question",
        "graph_unavailable",
        "bad_path",
    }
