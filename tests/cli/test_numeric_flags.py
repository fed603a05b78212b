"""A numeric flag outside its range is refused by argparse, naming the flag, exit 2."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.cli.numbers import field_int_range
from sandbox.settings import SandboxSettings


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["content", "test", "--min-accuracy", "5"], "--min-accuracy"),
        (["content", "test", "--min-accuracy", "-3"], "--min-accuracy"),
        (["content", "test", "--min-accuracy", "nan"], "--min-accuracy"),
        (["sandbox", "serve", "--concurrency", "0"], "--concurrency"),
        (["sandbox", "serve", "--queue", "1001"], "--queue"),
        (["sandbox", "serve", "--queue", "many"], "--queue"),
    ],
)
def test_a_number_outside_its_range_is_refused_naming_the_flag(
    args: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    assert f"error: argument {flag}: " in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "1", "0.95"])
def test_an_accuracy_from_0_to_1_is_accepted(value: str) -> None:
    from bot.cli import build_parser

    args = build_parser().parse_args(["content", "test", "--min-accuracy", value])
    assert args.min_accuracy == float(value)


def test_the_sandbox_flags_take_the_settings_own_range() -> None:
    assert field_int_range(SandboxSettings, "concurrency") == (1, 64)
    assert field_int_range(SandboxSettings, "queue") == (0, 1000)
