"""Discord's size limits, in characters unless stated.

Sources: discord.com/developers/docs/resources/message (content, embed limits),
.../interactions/message-components (custom_id, button label, text input), and
.../interactions/receiving-and-responding (modal title). Every body the bot sends stays
within these; the test harness checks each recorded body against them.
"""

from __future__ import annotations

CONTENT = 2000
"""Message content."""

EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_AUTHOR = 256
EMBED_TOTAL = 6000
"""Sum of title, description, field names and values, footer text and author name, across
every embed of one message."""

EMBEDS_PER_MESSAGE = 10

CUSTOM_ID = 100
BUTTON_LABEL = 80
ACTION_ROWS = 5
BUTTONS_PER_ROW = 5

MODAL_TITLE = 45
TEXT_INPUT_LABEL = 45
TEXT_INPUT_VALUE = 4000
TEXT_INPUT_PLACEHOLDER = 100

THREAD_NAME = 100
APP_COMMAND_DESCRIPTION = 100
AUTOCOMPLETE_CHOICES = 25

ATTACHMENT_BYTES = 10 * 1024 * 1024
"""Default upload limit of a guild without boosts: 10 MiB."""
