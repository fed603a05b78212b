"""content/schema.json is generated from the models and must never go stale."""

from __future__ import annotations

import json

from bot.content.loader import schema_json
from tests.conftest import CONTENT


def test_schema_json_matches_the_models() -> None:
    on_disk = (CONTENT / "schema.json").read_text(encoding="utf-8")
    assert on_disk == schema_json(), "content/schema.json is stale: run `tutor content schema`"


def test_schema_forbids_unknown_keys_on_items() -> None:
    schema = json.loads(schema_json())
    assert schema["$defs"]["Item"]["additionalProperties"] is False
    assert "rubric" in schema["$defs"]["Item"]["required"]
