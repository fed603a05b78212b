"""docs/DISCORD.md's table of persistent buttons is the bot's set, each row once.

fresh22 #13: the table listed ``tutor:graph:{item}:{drop}`` and
``tutor:rungraph:{interaction}`` twice each, with different words. Each documented
template, filled in, must match exactly one registered :class:`discord.ui.DynamicItem`,
and each registered one must be documented exactly once.
"""

from __future__ import annotations

from bot.discord_app.answer import DYNAMIC_ITEMS
from bot.discord_app.graphs import GRAPH_ITEMS
from tests.conftest import ROOT
from tests.test_docs_tables import cells

SECTION = "## Buttons that survive restarts"
SAMPLE = {"{item}": "TF3", "{drop}": "12", "{t|f|x}": "t", "{interaction}": "1234567890"}
"""A value for each placeholder of the documented templates."""


def documented_templates() -> list[str]:
    """The first column of the section's table, in order (``\\|`` read as ``|``)."""
    lines = (ROOT / "docs" / "DISCORD.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(SECTION)
    header = next(n for n in range(start, len(lines)) if lines[n].startswith("| template |"))
    templates = []
    for line in lines[header + 2 :]:
        if not line.startswith("|"):
            break
        templates.append(cells(line)[0].strip("`").replace("\\|", "|"))
    return templates


def _filled(template: str) -> str:
    for placeholder, value in SAMPLE.items():
        template = template.replace(placeholder, value)
    assert "{" not in template, f"an unknown placeholder in {template}"
    return template


def test_each_button_template_is_documented_once() -> None:
    templates = documented_templates()
    assert len(templates) == len(set(templates)), templates
    registered = [*DYNAMIC_ITEMS, *GRAPH_ITEMS]
    matched: list[type] = []
    for template in templates:
        custom_id = _filled(template)
        hits = [
            cls
            for cls in registered
            if cls.__discord_ui_compiled_template__.fullmatch(custom_id)  # type: ignore[attr-defined]
        ]
        assert len(hits) == 1, (template, hits)
        matched.extend(hits)
    assert sorted(cls.__name__ for cls in matched) == sorted(cls.__name__ for cls in registered)
