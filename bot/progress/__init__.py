"""Learner progress in SQLite: attempts, stats, streaks, leaderboards, drops, review, privacy.

Plain domain and storage code (no discord, no torch). The bot and ``tutor play`` use
:class:`~bot.progress.store.ProgressStore` (async, one owner thread); every value it takes
or returns is a pydantic model from :mod:`bot.progress.models`. The pure rules live in
:mod:`bot.progress.rules` (points, ratings, streaks) and :mod:`bot.progress.schedule` (what
drop is due now, DST-safe; item rotation). ``docs/PROGRESS.md`` documents the tables and
rules.
"""
