# Sourced by scripts/play and scripts/test: make a venv with Python >= 3.11 and activate it.
# Knobs: PYTHON (the interpreter to build the venv from; default python3) and VENV (the venv
# directory; default .venv). An existing venv is reused as it is, e.g. VENV=/path/to/venv.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
if [ -x "$VENV/bin/python" ]; then
    CHECK="$VENV/bin/python"
else
    CHECK="$PYTHON"
fi
if ! "$CHECK" -c 'import sys; raise SystemExit(sys.version_info < (3, 11))'; then
    echo "autograd-tutor needs Python >= 3.11; $CHECK is $("$CHECK" --version 2>&1)." >&2
    echo "Set PYTHON=/path/to/python3.11 (and remove $VENV if it was made with another) and run again." >&2
    exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
# shellcheck disable=SC1091
. "$VENV/bin/activate"
