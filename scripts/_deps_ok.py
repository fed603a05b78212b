"""Exit 0 when this Python has every distribution pyproject.toml asks for, else 1.

Usage: python scripts/_deps_ok.py [EXTRA...]   (e.g. ``sandbox``)

Checks names, and exact ``==`` pins (torch); other version ranges are pip's business at
install time. Used by scripts/play to install only when something is missing, so a venv
given with VENV=... is used as it is.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path


def missing(extras: list[str]) -> list[str]:
    """The requirements of the project (and ``extras``) this Python does not satisfy."""
    project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    problems = []
    for requirement in requirements:
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            problems.append(requirement)
            continue
        pin = re.search(r"==\s*([^,;\s]+)", requirement)
        if pin and installed.split("+")[0] != pin.group(1):
            problems.append(f"{requirement} (found {installed})")
    return problems


if __name__ == "__main__":
    not_there = missing(sys.argv[1:])
    if not_there:
        print("missing: " + ", ".join(not_there), file=sys.stderr)
    raise SystemExit(1 if not_there else 0)
