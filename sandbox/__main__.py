"""``python -m sandbox ARGS`` is ``tutor sandbox ARGS`` (used to start a local worker)."""

import sys

from bot.cli import main

raise SystemExit(main(["sandbox", *sys.argv[1:]]))
