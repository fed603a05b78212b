"""The Markdown tables of the README and docs render as tables (fresh18 #1).

A paragraph pasted between two rows of a table ends it: GitHub then shows the rows after
the paragraph as plain text with pipes, and a row cut off mid-sentence says nothing. Each
table here is a header row, its delimiter row, then rows with the header's column count,
none interrupted and none whose cell stops on a word that cannot end a sentence.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

DELIMITER = re.compile(r"^\|(?:\s*:?-+:?\s*\|)+$")
CELL_SPLIT = re.compile(r"(?<!\\)\|")
# A cell ends on one of these only when its sentence was cut off ("exit 1 when"); words a
# sentence may end on ("... as it was", "records as") are left out, so a cut after one of
# them is not caught.
DANGLING = frozenset(
    ["a", "an", "the", "and", "or", "of", "to", "when", "with", "by", "for", "if", "than", "which"]
)


def markdown_files() -> list[Path]:
    """The user-facing Markdown: the README, docs/ and the sandbox's README."""
    return sorted([*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("sandbox/*.md")])


def cells(row: str) -> list[str]:
    """The cells of a table row (an escaped ``\\|`` stays inside its cell)."""
    return [cell.strip() for cell in CELL_SPLIT.split(row.strip().strip("|"))]


def table_problems(text: str) -> list[str]:
    """``line: problem`` for every table row that does not render as part of its table."""
    problems: list[str] = []
    lines = text.splitlines()
    columns = 0  # the current table's column count, 0 outside a table
    fenced = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced, columns = not fenced, 0
            continue
        if fenced or not stripped.startswith("|"):
            columns = 0
            continue
        if DELIMITER.match(stripped):
            if not columns:
                problems.append(f"{number}: a delimiter row with no header row above it")
            continue
        if not columns:
            following = lines[number].strip() if number < len(lines) else ""
            if DELIMITER.match(following):
                columns = len(cells(stripped))
                if len(cells(following)) != columns:
                    problems.append(f"{number}: the delimiter row's column count differs")
            else:
                problems.append(f"{number}: a table row with no header (text cut the table?)")
            continue
        row = cells(stripped)
        if not stripped.endswith("|"):
            problems.append(f"{number}: the row does not end with '|'")
        if len(row) != columns:
            problems.append(f"{number}: {len(row)} cells, but the header has {columns}")
        last_word = re.findall(r"[A-Za-z]+$", row[-1])
        if last_word and last_word[0].lower() in DANGLING:
            problems.append(f"{number}: the row stops mid-sentence ('... {last_word[0]}')")
    return problems


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_row_renders_in_its_table(path: Path) -> None:
    assert table_problems(path.read_text(encoding="utf-8")) == []


def test_the_check_finds_a_paragraph_inside_a_table_and_a_cut_row() -> None:
    text = (
        "| command | what it does |\n"
        "| --- | --- |\n"
        "| `a` | exit 1 when |\n"
        "\n"
        "A paragraph that ends the table.\n"
        "| `b` | a row with no header |\n"
        "| `c` \\| `d` | three | cells |\n"
    )
    assert table_problems(text) == [
        "3: the row stops mid-sentence ('... when')",
        "6: a table row with no header (text cut the table?)",
        "7: a table row with no header (text cut the table?)",
    ]


def test_the_check_counts_an_escaped_pipe_as_text() -> None:
    text = "| a | b |\n| --- | --- |\n| `x\\|y` | ok |\n| one | two | three |\n"
    assert table_problems(text) == ["4: 3 cells, but the header has 2"]
