"""Layering rules: the domain never imports discord; the bot process never imports torch."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import bot

DISCORD_ADAPTER = "bot.discord_app"


def domain_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(bot.__path__, prefix="bot."):
        if info.name.endswith("__main__"):
            continue
        if info.name == DISCORD_ADAPTER or info.name.startswith(DISCORD_ADAPTER + "."):
            continue
        names.append(info.name)
    return names


def imported_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_no_domain_module_imports_discord() -> None:
    modules = domain_modules()
    assert modules
    loaded = imported_after("\n".join(f"import {name}" for name in modules))
    assert "discord" not in loaded


def test_the_cli_and_every_bot_module_never_import_torch() -> None:
    statement = "import bot.cli\nbot.cli.build_parser()\n" + "\n".join(
        f"import {info.name}"
        for info in pkgutil.walk_packages(bot.__path__, prefix="bot.")
        if not info.name.endswith("__main__")
    )
    loaded = imported_after(statement)
    assert "torch" not in loaded


def test_importing_the_bot_does_not_load_the_graph_renderer() -> None:
    statement = "\n".join(
        f"import {info.name}"
        for info in pkgutil.walk_packages(bot.__path__, prefix="bot.")
        if not info.name.endswith("__main__")
    )
    loaded = imported_after(statement)
    assert "matplotlib" not in loaded
    assert "networkx" not in loaded


RENDERING = ("matplotlib", "networkx", "sandbox.graph_render", "sandbox.graph_pictures")
SANDBOX_CLI = Path(bot.__file__).parent / "cli" / "sandbox.py"
"""``tutor sandbox`` runs the worker (and ``--graph-png`` draws) in its own process."""


def test_no_bot_code_imports_the_renderer_even_lazily() -> None:
    offenders = []
    for path in Path(bot.__file__).parent.rglob("*.py"):
        if path == SANDBOX_CLI:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            offenders += [
                f"{path.name}:{node.lineno} {name}"
                for name in names
                if any(name == r or name.startswith(r + ".") for r in RENDERING)
            ]
    assert offenders == []


def test_importing_the_bot_creates_no_client_and_reads_no_settings() -> None:
    statement = (
        "import gc, os\n"
        "os.environ['TUTOR_DROP_TICK_S'] = 'invalid'  # settings read at import would fail\n"
        + "\n".join(
            f"import {info.name}"
            for info in pkgutil.walk_packages(bot.__path__, prefix="bot.")
            if not info.name.endswith("__main__")
        )
        + "\nimport discord\nfrom pydantic_settings import BaseSettings\n"
        "made = [o for o in gc.get_objects() if isinstance(o, discord.Client | BaseSettings)]\n"
        "assert not made, made"
    )
    subprocess.run([sys.executable, "-c", statement], check=True, capture_output=True)


def test_the_sandbox_client_side_never_imports_torch() -> None:
    loaded = imported_after(
        "import sandbox.client, sandbox.service, sandbox.worker, sandbox.protocol, "
        "sandbox.cache, sandbox.curated, sandbox.settings"
    )
    assert "torch" not in loaded
