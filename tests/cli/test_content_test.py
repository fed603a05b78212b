"""``tutor content test`` points an author at the line of each misgraded sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.grading.conftest import PACK

TF1_SAMPLES = '    samples:\n      - {label: correct, verdict: false, text: "False: once you'


def _relabelled(tmp_path: Path) -> tuple[Path, int]:
    """The test pack with a sample that is right, marked incorrect, first in TF1's samples
    (a relabelled sample, as a new user tried), and its line."""
    source = PACK.read_text(encoding="utf-8")
    assert source.count(TF1_SAMPLES) == 1
    added = (
        '    samples:\n      - {label: incorrect, verdict: false, text: "False: once it meets '
        'a tensor that requires grad, the result is tracked and has a grad_fn."}\n'
    )
    pack = tmp_path / "pack.yaml"
    rest = TF1_SAMPLES.removeprefix("    samples:\n")
    pack.write_text(source.replace(TF1_SAMPLES, added + rest), encoding="utf-8")
    line = source[: source.index(TF1_SAMPLES)].count("\n") + 2
    return pack, line


def test_a_misgraded_sample_is_named_with_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack, line = _relabelled(tmp_path)
    assert main(["content", "test", str(pack), "--quiet"]) == 1
    assert f"    {pack}:{line}: TF1[0] marked incorrect, graded correct" in capsys.readouterr().out


def test_a_wrong_answer_key_is_named_with_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = "text: False. backward() adds into .grad, so it holds the sum over both calls."
    source = PACK.read_text(encoding="utf-8")
    line = source[: source.index(good)].count("\n") + 1
    pack = tmp_path / "pack.yaml"
    wrong = "text: False. The second backward overwrites .grad with the latest gradient."
    pack.write_text(source.replace(good, wrong), encoding="utf-8")
    main(["content", "test", str(pack), "--quiet"])
    assert f"    {pack}:{line}: TF3[answer]" in capsys.readouterr().out


def _with_patterns(tmp_path: Path, *patterns: str) -> tuple[Path, int]:
    """The test pack with ``patterns`` first in TF1's first concept, and the line of the
    first of them (the new user's trial: ``"2"``, ``"xqzvbnm"``, ``"stop*|no longer"``)."""
    source = PACK.read_text(encoding="utf-8")
    head = source.index("  - id: TF1\n")
    start = source.index("          patterns:\n", head) + len("          patterns:\n")
    added = "".join(f"            - {p}\n" for p in patterns)
    pack = tmp_path / "pack.yaml"
    pack.write_text(source[:start] + added + source[start:], encoding="utf-8")
    return pack, source[:start].count("\n") + 1


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_pattern_that_matched_no_sample_is_listed_with_its_file_line_and_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index: int
) -> None:
    pack, line = _with_patterns(tmp_path, '"2"', '"xqzvbnm"', '"stop*|no longer"')
    main(["content", "test", str(pack), "--item", "TF1", "--quiet", "--verbose"])
    out = capsys.readouterr().out
    where = f"TF1.rubric.concepts[0].patterns[{index}]"
    assert f"{pack}:{line + index}: {where}: warning: pattern " in out


def test_patterns_that_matched_a_sample_are_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack, _ = _with_patterns(tmp_path, '"graph"')
    main(["content", "test", str(pack), "--item", "TF1", "--quiet", "--verbose"])
    assert "TF1.rubric.concepts[0].patterns[0]:" not in capsys.readouterr().out


def test_patterns_that_matched_no_sample_leave_the_exit_status_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack, _ = _with_patterns(tmp_path, '"xqzvbnm"')
    assert main(["content", "test", str(pack), "--item", "TF1"]) == 0
    assert "rubric pattern(s) matched no sample" in capsys.readouterr().out


def test_many_patterns_that_matched_no_sample_are_counted_unless_verbose(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["content", "test", "--quiet"])
    out = capsys.readouterr().out
    assert "rubric pattern(s) matched no sample (--verbose lists them with file:line)" in out
    assert ": warning: pattern " not in out
