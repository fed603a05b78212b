"""Rubric patterns that can never match are warned about by ``tutor content check``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.content.lint import unmatchable_patterns
from bot.content.loader import load_bank
from bot.grading.matching import Compiler, Matcher
from bot.grading.negation import scope
from bot.grading.normalize import normalize
from bot.grading.sentences import segment

VALID = Path(__file__).parent / "valid.yaml"
PATTERNS = '          patterns: ["accumulat*", "add* up"]'


def _pack(tmp_path: Path, *patterns: str) -> Path:
    """valid.yaml with ``patterns`` appended to TF1's first concept (patterns[2] on)."""
    text = VALID.read_text(encoding="utf-8")
    assert PATTERNS in text
    extra = "".join(f", {p}" for p in patterns)
    path = tmp_path / "pack.yaml"
    path.write_text(text.replace(PATTERNS, PATTERNS[:-1] + extra + "]"), encoding="utf-8")
    return path


def _matches(pattern: str, text: str) -> bool:
    """Whether the grader's matcher finds ``pattern`` anywhere in ``text``."""
    compiler = Compiler({})
    compiled = compiler.pattern(pattern)  # before the matcher, which reads the atoms
    stream = segment(normalize(text))
    return bool(Matcher(compiler, stream, scope(stream)).spans(compiled))


@pytest.mark.parametrize(
    "text", ["2", "it is 2", "x.grad is 2", "tensor([2.])", "`2`", "2 times", "y = 2*x", "x**2"]
)
def test_the_grader_never_matches_a_digit_word_pattern(text: str) -> None:
    """The rule the warning rests on, checked against the grader itself."""
    assert not _matches("2", text)
    assert not _matches("=2", text)
    assert _matches("`2`", text)


def test_a_digit_word_pattern_is_warned_as_never_matching_with_its_line(tmp_path: Path) -> None:
    pack = _pack(tmp_path, '"2"')
    [warning] = unmatchable_patterns(load_bank([pack]))
    assert (warning.severity, warning.where) == (
        "never matches",
        "TF1.rubric.concepts[0].patterns[2]",
    )
    assert str(warning).startswith(f"{pack}:23: TF1.rubric.concepts[0].patterns[2]: warning: ")


def test_a_phrase_with_a_digit_only_position_never_matches(tmp_path: Path) -> None:
    warnings = unmatchable_patterns(load_bank([_pack(tmp_path, '"shape 1|one"', '"shape 1"')]))
    never = [w.where for w in warnings if w.severity == "never matches"]
    assert never == ["TF1.rubric.concepts[0].patterns[3]"]


def test_a_digit_alternative_beside_words_is_a_dead_alternative(tmp_path: Path) -> None:
    [warning] = unmatchable_patterns(load_bank([_pack(tmp_path, '"zero|zeros|0"')]))
    assert warning.severity == "dead alternative"


@pytest.mark.parametrize(
    "pattern",
    ['"nothing break*|breaks"', '"stop*|no longer"', '"xqzvbnm"', '"no"', '"not|never"', "'`2`'"],
)
def test_patterns_that_can_match_are_not_warned_about(tmp_path: Path, pattern: str) -> None:
    assert unmatchable_patterns(load_bank([_pack(tmp_path, pattern)])) == []


def test_check_warns_but_passes_on_a_pattern_that_never_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["content", "check", str(_pack(tmp_path, '"2"'))]) == 0
    err = capsys.readouterr().err
    assert "TF1.rubric.concepts[0].patterns[2]: warning: pattern '2' never matches" in err


def test_check_counts_dead_alternatives_and_lists_them_when_verbose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = str(_pack(tmp_path, '"zero|0"'))
    main(["content", "check", pack])
    assert "1 pattern(s) hold an alternative that can never match (--verbose" in (
        capsys.readouterr().err
    )
    main(["content", "check", pack, "--verbose"])
    assert "TF1.rubric.concepts[0].patterns[2]: warning: in pattern" in capsys.readouterr().err
