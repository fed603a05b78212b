"""``tutor play``: the tutor in a terminal, built on the service layer the bot uses.

=====================  =============================================================
module                 role
=====================  =============================================================
``protocol``           the line protocol: commands (parsed from lines), events (pydantic)
``session``            :class:`PlaySession`: runs commands over :mod:`bot.quiz`
``app``                :func:`open_play`: the services on one loop, sandbox fallback
``script``             the line-protocol front end (text or ``--json`` events)
``terminal``           the interactive front end (rich menus and panels)
``keys``               what the interactive prompts accept (``/commands``, verdicts, menus)
``render``             events as plain text and as rich panels
=====================  =============================================================

No discord, no torch: snippets run in the sandbox worker, a separate process.
"""
