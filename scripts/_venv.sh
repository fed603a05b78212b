# Sourced by scripts/play and scripts/test: make a venv with Python >= 3.11 and activate it.
# Knobs: PYTHON (the interpreter to build the venv from; default python3) and VENV (the venv
# directory; default .venv; its parent directory must exist: none is made). An existing venv
# is reused as it is, e.g. VENV=/path/to/venv.
set -euo pipefail
PYTHON_GIVEN="${PYTHON:-}"
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
# version_of PROGRAM: the first line of `PROGRAM --version` (at most 120 characters), or
# nothing. A program that is not Python prints its whole --version text there (GNU false:
# 7 lines of licence, fresh10 #6); only its first line names it.
version_of() {
    { "$1" --version 2>&1 || true; } | head -n 1 | cut -c 1-120
}
if [ -x "$VENV/bin/python" ]; then
    CHECK="$VENV/bin/python"
    # PYTHON only builds a new venv; say so rather than ignore it silently (fresh9).
    if [ -n "$PYTHON_GIVEN" ]; then
        echo "==> reusing $VENV ($(version_of "$CHECK")); PYTHON=$PYTHON_GIVEN is used only to create a venv: remove $VENV to rebuild it with PYTHON" >&2
    fi
else
    CHECK="$PYTHON"
    # A mistyped PYTHON otherwise ends in bash's own "line N: ...: No such file or directory".
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        echo "PYTHON=$PYTHON is not an executable: set PYTHON to a Python >= 3.11 interpreter (e.g. PYTHON=/usr/bin/python3.11), or unset it to use python3." >&2
        exit 1
    fi
    # python -m venv makes missing parents (os.makedirs): VENV=/nonexistent/dir/venv made
    # /nonexistent/dir and put 1.2 GB there (fresh10 #5). Refused like every other path.
    VENV_PARENT="$(dirname -- "$VENV")"
    if [ ! -d "$VENV_PARENT" ]; then
        if [ -e "$VENV_PARENT" ]; then
            echo "VENV=$VENV: '$VENV_PARENT' is not a directory: fix VENV (nothing is created)." >&2
        else
            echo "VENV=$VENV: the directory '$VENV_PARENT' does not exist: create it or fix VENV (no directory is created)." >&2
        fi
        exit 1
    fi
fi
# The probe must print a version, not only exit 0: /bin/true -c ... exits 0 too (fresh12 #5).
PROBED="$("$CHECK" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
if ! [[ "$PROBED" =~ ^([0-9]+)\.([0-9]+)$ ]] \
    || ((BASH_REMATCH[1] < 3 || (BASH_REMATCH[1] == 3 && BASH_REMATCH[2] < 11))); then
    VERSION="$(version_of "$CHECK")"
    # fresh14 #5: "/bin/true is true (GNU coreutils) 9.1" read as if that were a Python version
    case "$VERSION" in
        "") VERSION="printed no version" ;;
        Python*) VERSION="is $VERSION" ;;
        *) VERSION="is not Python (its --version says: $VERSION)" ;;
    esac
    echo "autograd-tutor needs Python >= 3.11; $CHECK $VERSION." >&2
    # fresh16: the advice to remove $VENV is only for a venv that exists
    if [ -e "$VENV" ]; then
        echo "Set PYTHON=/path/to/python3.11 (and remove $VENV if it was made with another) and run again." >&2
    else
        echo "Set PYTHON=/path/to/python3.11 and run again." >&2
    fi
    exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating $VENV" >&2
    # Checked: under set -e a failed venv stopped here with only venv's own words, and one
    # that "succeeded" without bin/activate ended in bash's "No such file or directory".
    if ! "$PYTHON" -m venv "$VENV" >&2 || [ ! -f "$VENV/bin/activate" ]; then
        echo "PYTHON=$PYTHON could not create a venv at $VENV ('$PYTHON -m venv' failed; Debian and Ubuntu need the python3-venv package): fix PYTHON, remove $VENV if it was left half-made, and run again." >&2
        exit 1
    fi
elif [ ! -f "$VENV/bin/activate" ]; then
    echo "$VENV is not a complete venv (it has no bin/activate): remove it and run again." >&2
    exit 1
fi
# shellcheck disable=SC1091
. "$VENV/bin/activate"

# install_cpu_torch: put torch==2.13.0, the CPU build, in the venv before the project.
# PyPI's Linux torch wheels are CUDA builds of several GB; the CPU build lives on PyTorch's
# own index (TORCH_INDEX_URL). A wheel pip can already reach without an index (pip's
# find-links, as on the CI machines) is taken first, so no network is touched there. Only
# torch comes from that index (--no-deps); its dependencies come from PyPI with the project.
install_cpu_torch() {
    if python -c 'import sys, torch; sys.exit(torch.__version__.split("+")[0] != "2.13.0")' \
        2>/dev/null; then
        return 0
    fi
    echo "==> installing torch==2.13.0 (CPU build)" >&2
    python -m pip install --quiet --no-deps --no-index torch==2.13.0 2>/dev/null \
        || python -m pip install --quiet --no-deps torch==2.13.0 \
            --index-url "${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}"
}

# install_editable EXTRAS: install this checkout editable with the given extras, quietly.
# pip >= 26 relays a build backend's warnings for a local directory at WARNING level, which
# --quiet still shows; setuptools then prints its "Editable installation." notice (a boxed
# InformationOnly warning that reads like an error to a new user). Only that message is
# ignored, through PYTHONWARNINGS for this one command (the backend inherits it); pip's own
# warnings and errors, and any other backend warning, still show.
install_editable() {
    PYTHONWARNINGS="ignore:Editable installation" \
        python -m pip install --quiet -e ".[$1]"
}
