"""``python -m bot`` is the same as the ``tutor`` console script."""

from bot.cli import main

raise SystemExit(main())
