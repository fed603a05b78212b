"""Installing: pyproject.toml metadata without setuptools' deprecation warnings, and the
setup scripts' editable install without setuptools' "Editable installation." notice."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_an_spdx_expression_not_a_table() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"


def test_the_build_needs_a_setuptools_that_reads_spdx_licenses() -> None:
    [setuptools] = [
        Requirement(r)
        for r in PYPROJECT["build-system"]["requires"]
        if Requirement(r).name == "setuptools"
    ]
    # setuptools 77.0.0 is the first with PEP 639 license expressions; before it, any
    # version the specifier allows would reject or warn about `license = "MIT"`.
    assert not setuptools.specifier.contains(Version("76.1.0"))
    assert setuptools.specifier.contains(Version("77.0.0"))


def _install_editable_call(extras: str) -> tuple[str, str]:
    """The environment filter and the command ``install_editable EXTRAS`` of
    scripts/_venv.sh runs, with ``python`` replaced by a stub that prints them."""
    helper = re.search(
        r"^install_editable\(\) \{.*?^\}", (ROOT / "scripts/_venv.sh").read_text(), re.M | re.S
    )
    assert helper, "scripts/_venv.sh defines no install_editable()"
    stub = 'python() { printf "%s\\n" "${PYTHONWARNINGS-}" "$*"; }'
    shown = subprocess.run(
        ["bash", "-c", f"{stub}\n{helper.group(0)}\ninstall_editable {extras}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return shown[0], shown[1]


def test_the_setup_scripts_install_the_checkout_only_through_install_editable() -> None:
    for script in ("play", "test"):
        lines = (ROOT / "scripts" / script).read_text().splitlines()
        assert not [line for line in lines if "pip install" in line and " -e " in line], script
        assert any(line.strip().startswith("install_editable sandbox") for line in lines), script


def test_install_editable_installs_the_checkout_with_its_extras_quietly() -> None:
    _, command = _install_editable_call("sandbox,dev")
    assert command == "-m pip install --quiet -e .[sandbox,dev]"


def test_install_editable_hides_setuptools_editable_notice_but_no_other_warning() -> None:
    filters, _ = _install_editable_call("sandbox")
    # The notice as setuptools (InformationOnly.emit) words it and pip 26 relays it.
    emit = (
        "import warnings\n"
        "warnings.warn('Editable installation.\\n!!\\n\\n  Please be careful...', UserWarning)\n"
        "warnings.warn('Something else a build backend warns about', UserWarning)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", emit],
        capture_output=True,
        text=True,
        env={"PYTHONWARNINGS": filters},
        check=True,
    ).stderr
    assert "Editable installation" not in shown
    assert "Something else a build backend warns about" in shown


def _shell_scripts() -> list[Path]:
    return [p for p in sorted((ROOT / "scripts").iterdir()) if p.is_file() and p.suffix != ".py"]


def test_every_progress_line_of_the_scripts_goes_to_stderr() -> None:
    # stdout is the command's own (`printf ... | ./scripts/play --json` reads JSON lines):
    # fresh7 #8, `==> creating .venv` on stdout was a line that does not parse.
    on_stdout = [
        f"{path.name}:{number}: {line.strip()}"
        for path in _shell_scripts()
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if re.match(r"\s*(echo|printf)\b", line) and not line.rstrip().endswith(">&2")
    ]
    assert on_stdout == []


def test_creating_the_venv_writes_nothing_on_stdout(tmp_path: Path) -> None:
    # A stub interpreter: passes the version check, and "makes" a venv noisily on stdout.
    stub = tmp_path / "python3"
    stub.write_text(
        "#!/usr/bin/env bash\n"
        '[ "$1" = -c ] && { echo 3.11; exit 0; }\n'
        'echo "venv tool chatter"; mkdir -p "$3/bin"; : > "$3/bin/activate"\n'
    )
    stub.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(stub), "VENV": str(tmp_path / "venv")}
    done = _source_venv_script(env)
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr.splitlines()[0]) == ("", f"==> creating {env['VENV']}")


def _source_venv_script(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Source scripts/_venv.sh in bash with only ``env``, capturing both streams."""
    return subprocess.run(
        ["bash", "-c", ". scripts/_venv.sh"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_python_that_is_not_an_executable_is_named_in_one_line(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHON": "/nonexistent/python3", "VENV": str(tmp_path / "v")}
    done = _source_venv_script(env)
    assert done.returncode == 1
    assert done.stderr.startswith("PYTHON=/nonexistent/python3 is not an executable: ")
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "v").exists()


def test_a_python_given_beside_an_existing_venv_is_reported_not_silently_ignored(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "bin" / "activate").write_text("")
    env = {"PATH": "/usr/bin:/bin", "PYTHON": "/nonexistent/python3", "VENV": str(venv)}
    done = _source_venv_script(env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"==> reusing {venv} (Python 3.")
    assert "PYTHON=/nonexistent/python3 is used only to create a venv" in done.stderr


def _stub_python(path: Path, version_text: str) -> Path:
    """An executable that fails the Python check (-c), prints ``version_text`` for
    --version, and would make a venv (``mkdir -p``) if asked to."""
    path.write_text(
        "#!/usr/bin/env bash\n"
        '[ "$1" = -c ] && exit 1\n'
        f"[ \"$1\" = --version ] && {{ printf '%s' '{version_text}'; exit 1; }}\n"
        'mkdir -p "$3/bin"; : > "$3/bin/activate"\n'
    )
    path.chmod(0o755)
    return path


def test_a_venv_in_a_missing_directory_is_refused_in_one_line_and_nothing_is_created(
    tmp_path: Path,
) -> None:
    # fresh10 #5: python -m venv made /nonexistent/dir and installed 1.2 GB there.
    stub = tmp_path / "python3"
    stub.write_text('#!/usr/bin/env bash\n[ "$1" = -c ] && exit 0\nmkdir -p "$3/bin"\n')
    stub.chmod(0o755)
    venv = tmp_path / "nonexistent" / "dir" / "venv"
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(stub), "VENV": str(venv)}
    done = _source_venv_script(env)
    assert done.returncode == 1
    assert done.stderr == (
        f"VENV={venv}: the directory '{venv.parent}' does not exist: create it or fix VENV "
        "(no directory is created).\n"
    )
    assert not (tmp_path / "nonexistent").exists()


def test_a_venv_under_a_file_is_refused_as_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    venv = tmp_path / "afile" / "venv"
    env = {"PATH": "/usr/bin:/bin", "PYTHON": sys.executable, "VENV": str(venv)}
    done = _source_venv_script(env)
    assert done.returncode == 1
    assert done.stderr.startswith(f"VENV={venv}: '{tmp_path / 'afile'}' is not a directory")


@pytest.mark.parametrize(
    ("version", "said"),
    [
        # fresh10 #6: PYTHON=/usr/bin/false pasted all 7 lines of GNU false's --version
        (
            "false (GNU coreutils) 9.1\nCopyright\nLicense\n",
            "is not Python (its --version says: false (GNU coreutils) 9.1).",
        ),
        ("Python 3.9.2\n", "is Python 3.9.2."),
        ("", "printed no version."),
    ],
)
def test_a_program_that_is_not_python_is_named_by_the_first_line_of_its_version(
    tmp_path: Path, version: str, said: str
) -> None:
    stub = _stub_python(tmp_path / "notpython", version)
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(stub), "VENV": str(tmp_path / "v")}
    done = _source_venv_script(env)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == f"autograd-tutor needs Python >= 3.11; {stub} {said}"
    assert "Copyright" not in done.stderr
    assert not (tmp_path / "v").exists()


def test_a_program_that_exits_0_without_printing_a_version_is_not_taken_for_python(
    tmp_path: Path,
) -> None:
    # fresh12 #5: /bin/true -c ... exits 0, so the check passed and venv creation failed.
    stub = tmp_path / "true"
    stub.write_text("#!/usr/bin/env bash\nexit 0\n")
    stub.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(stub), "VENV": str(tmp_path / "x" / ".venv")}
    (tmp_path / "x").mkdir()
    done = _source_venv_script(env)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == (
        f"autograd-tutor needs Python >= 3.11; {stub} printed no version."
    )
    assert "No such file or directory" not in done.stderr
    assert not (tmp_path / "x" / ".venv").exists()
    # fresh16: no advice to remove a venv that does not exist
    assert done.stderr.splitlines()[1] == "Set PYTHON=/path/to/python3.11 and run again."


@pytest.mark.parametrize(
    "make_venv",
    [
        'echo "Error: ensurepip is not available" >&2; exit 1',
        'mkdir -p "$3/bin"; exit 0',  # "succeeds" without bin/activate
    ],
    ids=["venv-fails", "no-activate"],
)
def test_a_failed_venv_creation_is_one_line_naming_python(tmp_path: Path, make_venv: str) -> None:
    stub = tmp_path / "python3"
    stub.write_text(
        f'#!/usr/bin/env bash\n[ "$1" = -c ] && {{ echo 3.11; exit 0; }}\n{make_venv}\n'
    )
    stub.chmod(0o755)
    venv = tmp_path / "venv"
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(stub), "VENV": str(venv)}
    done = _source_venv_script(env)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1].startswith(
        f"PYTHON={stub} could not create a venv at {venv} ('{stub} -m venv' failed; "
    )
    assert "No such file or directory" not in done.stderr
