"""A checkout under /tmp (its .venv held in the jail at its own path) does not show the
host's directory name to jobs listing /tmp (fresh26 saw an empty-looking "fresh26")."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SNIPPET = """\
import os, tempfile
with open("/tmp/note", "w") as f:
    f.write("kept")
print(open("/tmp/note").read())
with tempfile.NamedTemporaryFile() as f:
    print(f.name.startswith("/tmp/"))
try:
    print(sorted(os.listdir("/tmp")))
except PermissionError:
    print("not listable")
import torch
print(torch.ones(2).sum())
"""


def test_a_venv_under_tmp_leaves_no_host_name_in_the_jobs_tmp(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the namespaces backend needs root (CI runs as root)")
    if not tmp_path.is_relative_to("/tmp"):
        pytest.skip("pytest's temporary directory is not under /tmp here")
    venv = tmp_path / "clone" / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    inner = subprocess.run(
        [str(python), "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(inner) / "host.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTOR_")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [str(python), "-m", "bot", "sandbox", "run", "--backend", "namespaces", str(snippet)],
        capture_output=True,
        text=True,
        cwd=tmp_path / "clone",
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[:4] == ["kept", "True", "not listable", "tensor(2.)"]
    top = tmp_path.relative_to("/tmp").parts[0]
    assert top not in done.stdout
