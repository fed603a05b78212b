# Sourced by scripts/play and scripts/test: make .venv with Python >= 3.11 and activate it.
# Honours $PYTHON (the interpreter to build the venv from) and $VENV (default .venv).
set -euo pipefail
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
if ! "$PYTHON" -c 'import sys; raise SystemExit(sys.version_info < (3, 11))'; then
    echo "autograd-tutor needs Python >= 3.11; $PYTHON is $("$PYTHON" --version 2>&1)." >&2
    echo "Set PYTHON=/path/to/python3.11 and run again." >&2
    exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
# shellcheck disable=SC1091
. "$VENV/bin/activate"
