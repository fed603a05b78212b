"""autograd-tutor: the Discord bot and its torch-free domain (content, grading, progress).

Nothing under ``bot`` imports torch: snippets run in the sandbox worker (``sandbox``).
Only ``bot.discord_app`` imports discord; every other module is plain domain code.
"""

__version__ = "0.1.0"
