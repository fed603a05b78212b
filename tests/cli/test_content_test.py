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
