"""One cog per feature: quiz, run, progress (stats/leaderboard/review), and ``/tutor``
(privacy and the admin commands for drops and settings)."""
