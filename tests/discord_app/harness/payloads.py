"""Interaction payloads shaped as Discord sends them in INTERACTION_CREATE.

Shapes follow discord.com/developers/docs/interactions/receiving-and-responding
(Interaction object) and the application-command / component / modal-submit data objects.
Command options are typed from the bot's own command tree, so a payload is what Discord
would send for the command the bot registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands

from tests.discord_app.harness.fake_discord import snowflake

MANAGE_GUILD = 1 << 5
MEMBER_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31)
"""View Channel, Send Messages, Embed Links, Attach Files, Read History, Use App Commands."""

BOT_PERMISSIONS = MEMBER_PERMISSIONS | (1 << 35) | (1 << 38)
"""Plus Create Public Threads and Send Messages in Threads."""

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


@dataclass
class Person:
    """A Discord user (and, in a guild, member)."""

    id: int = field(default_factory=snowflake)
    name: str = "learner"
    permissions: int = MEMBER_PERMISSIONS

    def user(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.name.title(),
            "avatar": None,
            "public_flags": 0,
        }

    def member(self) -> dict[str, Any]:
        return {
            "user": self.user(),
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "avatar": None,
            "premium_since": None,
            "communication_disabled_until": None,
            "permissions": str(self.permissions),
        }


@dataclass
class Place:
    """Where an interaction happens: a guild text channel, or a DM (guild_id None)."""

    channel_id: int
    guild_id: int | None
    channel_name: str = "study-group"

    def channel(self) -> dict[str, Any]:
        if self.guild_id is None:
            return {"id": str(self.channel_id), "type": 1, "flags": 0, "recipients": []}
        return {
            "id": str(self.channel_id),
            "type": 0,
            "guild_id": str(self.guild_id),
            "name": self.channel_name,
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }


def base(
    kind: int, data: dict[str, Any], who: Person, where: Place, application_id: int
) -> dict[str, Any]:
    """The fields every interaction has (id, token, channel, member or user...)."""
    interaction_id = snowflake()
    payload: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(application_id),
        "type": kind,
        "data": data,
        "token": f"itoken-{interaction_id}",
        "version": 1,
        "channel": where.channel(),
        "channel_id": str(where.channel_id),
        "locale": "en-US",
        "app_permissions": str(BOT_PERMISSIONS),
        "entitlements": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if where.guild_id is not None:
        payload.update(
            guild_id=str(where.guild_id),
            guild={"id": str(where.guild_id), "locale": "en-US", "features": []},
            guild_locale="en-US",
            member=who.member(),
            authorizing_integration_owners={"0": str(where.guild_id)},
            context=0,
        )
    else:
        payload.update(
            user=who.user(),
            authorizing_integration_owners={"1": str(who.id)},
            context=1,
        )
    return payload


_OPTION_TYPES: dict[discord.AppCommandOptionType, int] = {
    t: t.value for t in discord.AppCommandOptionType
}


def _find(
    tree: app_commands.CommandTree[Any], path: str
) -> tuple[list[str], app_commands.Command[Any, ..., Any]]:
    names = path.split()
    node: Any = tree.get_command(names[0])
    if node is None:
        raise KeyError(f"no command /{names[0]}")
    for name in names[1:]:
        node = node.get_command(name)
        if node is None:
            raise KeyError(f"no command /{path}")
    return names, node


def command_options(
    command: app_commands.Command[Any, ..., Any],
    values: dict[str, Any],
    resolved: dict[str, Any],
    *,
    focused: str | None = None,
) -> list[dict[str, Any]]:
    """Typed option objects for ``values`` (name -> value).

    User and channel options also fill ``resolved``, as Discord does.
    """
    params = {p.display_name: p for p in command.parameters}
    options = []
    for name, value in values.items():
        param = params[name]
        kind = param.type
        option: dict[str, Any] = {"name": name, "type": kind.value}
        if kind is discord.AppCommandOptionType.user:
            person: Person = value
            resolved.setdefault("users", {})[str(person.id)] = person.user()
            member = person.member()
            member.pop("user")
            resolved.setdefault("members", {})[str(person.id)] = member
            option["value"] = str(person.id)
        elif kind is discord.AppCommandOptionType.channel:
            place: Place = value
            channel = place.channel()
            channel["permissions"] = str(MEMBER_PERMISSIONS)
            resolved.setdefault("channels", {})[str(place.channel_id)] = channel
            option["value"] = str(place.channel_id)
        else:
            option["value"] = value
        if focused == name:
            option["focused"] = True
        options.append(option)
    return options


def slash(
    tree: app_commands.CommandTree[Any],
    path: str,
    values: dict[str, Any],
    who: Person,
    where: Place,
    application_id: int,
    *,
    autocomplete: str | None = None,
) -> dict[str, Any]:
    """An APPLICATION_COMMAND (type 2) payload, or AUTOCOMPLETE (type 4) with a focused option.

    Args:
        path: the command as typed, e.g. ``"tutor drops set"``.
        values: option values by name; a :class:`Person` for user options and a
            :class:`Place` for channel options.
    """
    names, command = _find(tree, path)
    resolved: dict[str, Any] = {}
    options = command_options(command, values, resolved, focused=autocomplete)
    for depth in range(len(names) - 1, 0, -1):
        options = [
            {"name": names[depth], "type": 1 if depth == len(names) - 1 else 2, "options": options}
        ]
    data: dict[str, Any] = {
        "id": str(snowflake()),
        "name": names[0],
        "type": 1,
        "options": options,
    }
    if resolved:
        data["resolved"] = resolved
    if where.guild_id is not None:
        data["guild_id"] = str(where.guild_id)
    return base(4 if autocomplete else 2, data, who, where, application_id)


def click(
    message: dict[str, Any], custom_id: str, who: Person, where: Place, application_id: int
) -> dict[str, Any]:
    """A MESSAGE_COMPONENT (type 3) payload: ``who`` pressed button ``custom_id`` on ``message``."""
    found = [
        c
        for row in message.get("components") or []
        for c in row.get("components") or []
        if c.get("custom_id") == custom_id
    ]
    if not found:
        raise KeyError(f"no component {custom_id!r} on message {message['id']}")
    data = {"custom_id": custom_id, "component_type": found[0]["type"]}
    payload = base(3, data, who, where, application_id)
    payload["message"] = message
    return payload


def modal_submit(
    modal: dict[str, Any], values: list[str], who: Person, where: Place, application_id: int
) -> dict[str, Any]:
    """A MODAL_SUBMIT (type 5) payload for a modal the bot opened (its callback ``data``).

    Args:
        modal: the ``data`` of the bot's type-9 callback (custom_id, title, components).
        values: the text typed in each text input, in order.
    """
    inputs: list[dict[str, Any]] = []
    typed = iter(values)

    def answer(component: dict[str, Any]) -> dict[str, Any]:
        if component["type"] == 1:
            return {"type": 1, "components": [answer(c) for c in component["components"]]}
        if component["type"] == 18:
            return {
                "type": 18,
                "id": component.get("id", 1),
                "component": answer(component["component"]),
            }
        filled = {
            "type": component["type"],
            "custom_id": component["custom_id"],
            "value": next(typed),
        }
        inputs.append(filled)
        return filled

    components = [answer(c) for c in modal["components"]]
    data = {"custom_id": modal["custom_id"], "components": components}
    return base(5, data, who, where, application_id)


def guild_create(
    guild_id: int, places: list[Place], bot_user: dict[str, Any], owner: Person
) -> dict[str, Any]:
    """A GUILD_CREATE dispatch for a guild with text channels, as the gateway sends after READY."""
    everyone = {
        "id": str(guild_id),
        "name": "@everyone",
        "permissions": str(MEMBER_PERMISSIONS),
        "position": 0,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }
    bot_role = {**everyone, "id": str(snowflake()), "name": "autograd-tutor", "managed": True}
    bot_role["permissions"] = str(BOT_PERMISSIONS)
    bot_member = {
        "user": bot_user,
        "roles": [bot_role["id"]],
        "joined_at": "2024-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "flags": 0,
    }
    return {
        "id": str(guild_id),
        "name": "Study group",
        "icon": None,
        "owner_id": str(owner.id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [everyone, bot_role],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "joined_at": "2024-01-01T00:00:00+00:00",
        "large": False,
        "unavailable": False,
        "member_count": 1,
        "voice_states": [],
        "members": [bot_member],
        "channels": [{k: v for k, v in p.channel().items() if k != "guild_id"} for p in places],
        "threads": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "preferred_locale": "en-US",
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "nsfw_level": 0,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "splash": None,
        "discovery_splash": None,
        "max_members": 500000,
        "application_id": None,
    }
