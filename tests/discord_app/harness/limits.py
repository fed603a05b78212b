"""Checks one recorded request body against Discord's documented limits.

The numbers are written out here on purpose (not imported from the bot) so a wrong
constant in the bot cannot make the check agree with it. Sources: discord.com/developers/
docs/resources/message (content, embeds), .../interactions/message-components (custom_id,
labels, text inputs), .../interactions/receiving-and-responding (modals),
.../interactions/application-commands (names, descriptions, options).

Also checked, because the bot promises them: every message body carries
``allowed_mentions`` that ping no one, and every custom_id is one of the bot's templates
or discord.py's random 32-hex id (so no user text can be inside one).
"""

from __future__ import annotations

import re
from typing import Any

CUSTOM_ID = re.compile(
    r"^(?:tutor:answer:(?:TF|SE|WHY|EC)\d+:[tfx]:\d+"
    r"|tutor:(?:explain|snippet|graph):(?:TF|SE|WHY|EC)\d+:\d+"
    r"|tutor:rungraph:\d+"
    r"|tutor:modal:(?:answer|run):\d+"
    r"|[0-9a-f]{32})$"
)

MESSAGE_ROUTES = (
    "POST /channels/{id}/messages",
    "POST /webhooks/{id}/{token}",
    "PATCH /webhooks/{id}/{token}/messages/@original",
    "PATCH /webhooks/{id}/{token}/messages/{id}",
)


def _embeds(embeds: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(embeds) > 10:
        problems.append(f"{len(embeds)} embeds (max 10)")
    total = 0
    for n, embed in enumerate(embeds):
        where = f"embed[{n}]"
        title = embed.get("title") or ""
        description = embed.get("description") or ""
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        fields = embed.get("fields") or []
        if len(title) > 256:
            problems.append(f"{where}.title has {len(title)} chars (max 256)")
        if len(description) > 4096:
            problems.append(f"{where}.description has {len(description)} chars (max 4096)")
        if len(footer) > 2048:
            problems.append(f"{where}.footer has {len(footer)} chars (max 2048)")
        if len(author) > 256:
            problems.append(f"{where}.author has {len(author)} chars (max 256)")
        if len(fields) > 25:
            problems.append(f"{where} has {len(fields)} fields (max 25)")
        total += len(title) + len(description) + len(footer) + len(author)
        for i, f in enumerate(fields):
            name, value = f.get("name") or "", f.get("value") or ""
            if not name or not value:
                problems.append(f"{where}.fields[{i}] has an empty name or value")
            if len(name) > 256:
                problems.append(f"{where}.fields[{i}].name has {len(name)} chars (max 256)")
            if len(value) > 1024:
                problems.append(f"{where}.fields[{i}].value has {len(value)} chars (max 1024)")
            total += len(name) + len(value)
    if total > 6000:
        problems.append(f"embeds total {total} chars (max 6000)")
    return problems


def _components(components: list[dict[str, Any]], *, modal: bool = False) -> list[str]:
    problems: list[str] = []
    if len(components) > 5:
        problems.append(f"{len(components)} top-level components (max 5)")

    def walk(component: dict[str, Any], where: str) -> None:
        kind = component.get("type")
        children = component.get("components") or []
        if "component" in component:
            children = [component["component"]]
        if kind == 1 and len(children) > 5:
            problems.append(f"{where}: action row with {len(children)} components (max 5)")
        if "custom_id" in component:
            custom_id = str(component["custom_id"])
            if len(custom_id) > 100:
                problems.append(f"{where}.custom_id has {len(custom_id)} chars (max 100)")
            if not CUSTOM_ID.match(custom_id):
                problems.append(f"{where}.custom_id {custom_id!r} is not a known template")
        if kind == 2 and len(component.get("label") or "") > 80:
            problems.append(f"{where}.label longer than 80")
        if kind == 4:
            if not modal:
                problems.append(f"{where}: text input outside a modal")
            if int(component.get("max_length", 4000)) > 4000:
                problems.append(f"{where}.max_length over 4000")
            if len(component.get("label") or "") > 45:
                problems.append(f"{where}.label longer than 45")
            if len(component.get("placeholder") or "") > 100:
                problems.append(f"{where}.placeholder longer than 100")
            if len(component.get("value") or "") > 4000:
                problems.append(f"{where}.value longer than 4000")
        if kind == 18 and len(component.get("label") or "") > 45:
            problems.append(f"{where}.label longer than 45")
        for i, child in enumerate(children):
            walk(child, f"{where}[{i}]")

    for i, component in enumerate(components):
        walk(component, f"components[{i}]")
    return problems


def message_problems(body: dict[str, Any]) -> list[str]:
    """Problems of one message body (create, followup, edit or callback data)."""
    problems: list[str] = []
    content = body.get("content") or ""
    if len(content) > 2000:
        problems.append(f"content has {len(content)} chars (max 2000)")
    problems += _embeds(body.get("embeds") or [])
    problems += _components(body.get("components") or [])
    nonce = body.get("nonce")
    if nonce is not None and len(str(nonce)) > 25:
        problems.append(f"nonce {nonce!r} longer than 25")
    mentions = body.get("allowed_mentions")
    if mentions is None:
        problems.append("no allowed_mentions: the message could ping someone")
    elif mentions.get("parse") or mentions.get("users") or mentions.get("roles"):
        problems.append(f"allowed_mentions {mentions} can ping")
    elif mentions.get("replied_user"):
        problems.append("allowed_mentions.replied_user is true")
    return problems


def _commands(commands: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []

    def check(command: dict[str, Any], where: str) -> None:
        name = command.get("name", "")
        if not re.fullmatch(r"[-_\w]{1,32}", name) or name != name.lower():
            problems.append(f"{where}: bad name {name!r}")
        description = command.get("description", "")
        if not 1 <= len(description) <= 100:
            problems.append(f"{where}: description of {len(description)} chars (1-100)")
        options = command.get("options") or []
        if len(options) > 25:
            problems.append(f"{where}: {len(options)} options (max 25)")
        for option in options:
            if len(option.get("choices") or []) > 25:
                problems.append(f"{where} {option.get('name')}: more than 25 choices")
            check(option, f"{where} {option.get('name')}")

    for command in commands:
        check(command, "/" + str(command.get("name")))
    return problems


def violations(route: str, body: Any) -> list[str]:
    """Every limit the body of a request on ``route`` breaks (empty when it is fine)."""
    if body is None:
        return []
    if route.endswith("/callback"):
        kind, data = body.get("type"), body.get("data") or {}
        if kind in (4, 7):
            problems = message_problems(data) if kind == 4 else []
            if kind == 7:
                problems += _embeds(data.get("embeds") or []) + _components(
                    data.get("components") or []
                )
            return problems
        if kind == 9:
            problems = _components(data.get("components") or [], modal=True)
            if len(data.get("title") or "") > 45:
                problems.append("modal title longer than 45")
            if not CUSTOM_ID.match(str(data.get("custom_id"))):
                problems.append(
                    f"modal custom_id {data.get('custom_id')!r} is not a known template"
                )
            return problems
        if kind == 8:
            choices = data.get("choices") or []
            return [f"{len(choices)} autocomplete choices (max 25)"] if len(choices) > 25 else []
        return []
    if route in MESSAGE_ROUTES:
        if route.startswith("PATCH"):
            return _embeds(body.get("embeds") or []) + _components(body.get("components") or [])
        return message_problems(body)
    if route.endswith("/threads"):
        name = body.get("name") or ""
        return [f"thread name of {len(name)} chars (1-100)"] if not 1 <= len(name) <= 100 else []
    if route.endswith("/commands"):
        return _commands(body)
    return []
