"""The README's "The tutor command" section: how to get the command, and a table of its
subcommands that matches the real parser (fresh24 #2: a newcomer typing ``tutor grade``
got "command not found", and no section listed the commands)."""

from __future__ import annotations

import argparse
import re

from bot.cli import build_parser
from tests.conftest import ROOT

ROW = re.compile(r"^\| `tutor ([a-z]+)(?: ([a-z]+))?(?: [^`]*)?` \|", re.MULTILINE)


def _section(title: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(f"\n## {title}\n")
    end = readme.index("\n## ", start + 1)
    return readme[start:end]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _cli_commands() -> set[str]:
    commands: set[str] = set()
    for name, parser in _subcommands(build_parser()).items():
        nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:
            commands.update(f"{name} {action}" for action in _subcommands(parser))
        else:
            commands.add(name)
    return commands


def test_the_tutor_command_section_comes_right_after_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", readme, re.MULTILINE)
    at = headings.index("Two commands on a fresh machine")
    assert headings[at + 1] == "The tutor command"


def test_the_section_says_how_to_run_tutor_from_the_venv_the_scripts_build() -> None:
    section = _section("The tutor command")
    assert ". .venv/bin/activate" in section
    assert ".venv/bin/tutor" in section


def test_the_table_lists_every_subcommand_of_tutor_and_no_other() -> None:
    rows = {" ".join(filter(None, m.groups())) for m in ROW.finditer(_section("The tutor command"))}
    listed = {row if row in _cli_commands() else row.split()[0] for row in rows}
    assert listed == _cli_commands()


def test_every_flag_the_table_names_is_an_option_of_its_command() -> None:
    subcommands = _subcommands(build_parser())
    for line in _section("The tutor command").splitlines():
        match = ROW.match(line)
        if match is None:
            continue
        parser = subcommands[match.group(1)]
        if match.group(2) and match.group(2) in (
            nested := {
                name: sub
                for action in parser._actions
                if isinstance(action, argparse._SubParsersAction)
                for name, sub in action.choices.items()
            }
        ):
            parser = nested[match.group(2)]
        options = {o for a in parser._actions for o in a.option_strings}
        for flag in re.findall(r"`(--[a-z-]+)", line):
            assert flag in options, f"{line[:40]}...: {flag} is not an option"
