"""A small fake of Discord's REST API on loopback (aiohttp), for the bot's tests.

discord.py sends every REST call (``bot.http``) and every interaction response (its webhook
adapter) to ``Route.BASE``; the harness points that at this server, so the bot's real
HTTP code runs: JSON and multipart bodies, rate-limit headers, retries. The fake:

* records every request (method, path, JSON body or ``payload_json``, files, status);
* keeps messages, so a test can click a button on a message the bot really sent;
* behaves like Discord where the bot depends on it: interaction callbacks once only
  (40060) and within 3 s (10062), followups only after a callback, the first followup
  after a "thinking" defer edits the loading message, ``enforce_nonce`` returns the first
  message for a repeated nonce, unknown channels are 404 (10003), a second thread on one
  message is 400 (160004);
* answers injected failures (429 with ``retry_after``, 5xx, 403) for the next matching
  requests, optionally after applying the request (a 500 after the message was created).

Every recorded body is checked by :func:`tests.discord_app.harness.limits.violations`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from tests.discord_app.harness import limits

API = "/api/v10"
INTERACTION_DEADLINE_S = 3.0
"""Discord's limit for the first response to an interaction (receiving-and-responding)."""

EPHEMERAL = 1 << 6
LOADING = 1 << 7

_ids = itertools.count(1_300_000_000_000_000_000)


def snowflake() -> int:
    """A fresh, increasing Discord-style id."""
    return next(_ids)


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Recorded:
    """One request the bot made.

    Attributes:
        route: ``METHOD /path`` with ids as ``{id}``, e.g. ``POST /channels/{id}/messages``.
        body: the JSON body (from ``payload_json`` for multipart), or None.
        files: ``(filename, bytes)`` of each uploaded file.
        status: the status the fake answered.
        at: ``time.monotonic()`` when it arrived.
    """

    method: str
    path: str
    route: str
    query: dict[str, str]
    body: Any
    files: list[tuple[str, bytes]]
    status: int = 0
    at: float = 0.0


@dataclass
class Fault:
    """An injected failure for the next ``times`` requests matching ``method`` and ``path``."""

    method: str
    path: re.Pattern[str]
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    times: int
    apply: bool


@dataclass
class InteractionRecord:
    """What the fake knows about one dispatched interaction."""

    id: int
    token: str
    channel_id: int | None
    guild_id: int | None
    created_at: float
    message_id: int | None = None
    callback_type: int | None = None
    acked_at: float | None = None
    original_id: int | None = None
    original_pending: bool = False
    acked: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Channel:
    id: int
    guild_id: int | None
    name: str
    type: int = 0
    messages: list[int] = field(default_factory=list)


def _route_of(method: str, path: str) -> str:
    generic = re.sub(r"/\d{5,}", "/{id}", path)
    generic = re.sub(
        r"/interactions/\{id\}/[^/]+/callback", "/interactions/{id}/{token}/callback", generic
    )
    generic = re.sub(r"/webhooks/\{id\}/[^/]+", "/webhooks/{id}/{token}", generic)
    return f"{method} {generic}"


def _json(data: Any, status: int, headers: dict[str, str]) -> web.Response:
    """A JSON response with Discord's exact content type (discord.py compares it verbatim)."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**headers, "Content-Type": "application/json"},
    )


class FakeDiscord:
    """The fake REST API. Start with :meth:`start`, stop with :meth:`stop`.

    Args:
        application_id: the bot's application id (also its user id here).
    """

    def __init__(self, application_id: int = 1_200_000_000_000_000_001) -> None:
        self.application_id = application_id
        self.bot_user = {
            "id": str(application_id),
            "username": "autograd-tutor",
            "discriminator": "0",
            "global_name": "Autograd Tutor",
            "avatar": None,
            "bot": True,
            "flags": 0,
            "verified": True,
            "mfa_enabled": False,
        }
        self.requests: list[Recorded] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, dict[str, Any]] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.by_token: dict[str, InteractionRecord] = {}
        self.nonces: dict[tuple[int, str], int] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self._runner: web.AppRunner | None = None
        self.url = ""

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> str:
        """Serve on 127.0.0.1 on a free port; returns the base URL (``http://127.0.0.1:N``)."""
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    # --- test API --------------------------------------------------------------------------

    def add_channel(self, guild_id: int | None, name: str = "study-group") -> Channel:
        channel = Channel(snowflake(), guild_id, name)
        self.channels[channel.id] = channel
        return channel

    def register_interaction(self, payload: dict[str, Any]) -> InteractionRecord:
        channel = payload.get("channel") or {}
        message = payload.get("message") or {}
        record = InteractionRecord(
            id=int(payload["id"]),
            token=payload["token"],
            channel_id=int(channel["id"]) if channel.get("id") else None,
            guild_id=int(payload["guild_id"]) if payload.get("guild_id") else None,
            created_at=time.monotonic(),
            message_id=int(message["id"]) if message.get("id") else None,
        )
        self.interactions[record.id] = record
        self.by_token[record.token] = record
        return record

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        apply: bool = False,
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` and the regex ``path``.

        Args:
            status: 429 (rate limited, with ``retry_after`` seconds and Discord's headers),
                403 (Missing Permissions, code 50013), 404, or a 5xx.
            apply: carry the request out first, then answer ``status`` (Discord created the
                message, but the bot saw a 500).
        """
        headers: dict[str, str] = {}
        if status == 429:
            body: dict[str, Any] = {
                "message": "You are being rate limited.",
                "retry_after": retry_after,
                "global": False,
            }
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(max(1, round(retry_after))),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": str(retry_after),
                "X-RateLimit-Bucket": "fake-bucket",
                "X-RateLimit-Scope": "user",
            }
        elif status == 403:
            body = {"message": "Missing Permissions", "code": 50013}
        elif status == 404:
            body = {"message": "Unknown Channel", "code": 10003}
        else:
            body = {"message": "Internal Server Error", "code": 0}
        self.faults.append(Fault(method, re.compile(path), status, body, headers, times, apply))

    def routes(self, route: str | None = None) -> list[Recorded]:
        """Recorded requests, optionally only those of one generic route."""
        return [r for r in self.requests if route is None or r.route == route]

    def channel_messages(self, channel_id: int) -> list[dict[str, Any]]:
        return [self.messages[m] for m in self.channels[channel_id].messages]

    # --- helpers ---------------------------------------------------------------------------

    def _fault_for(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.times > 0 and fault.method == method and fault.path.search(path):
                fault.times -= 1
                return fault
        return None

    def _message(
        self,
        channel_id: int | None,
        body: dict[str, Any],
        files: list[tuple[str, bytes]],
        *,
        flags: int = 0,
        interaction: InteractionRecord | None = None,
    ) -> dict[str, Any]:
        channel = self.channels.get(channel_id) if channel_id else None
        message_id = snowflake()
        message: dict[str, Any] = {
            "id": str(message_id),
            "channel_id": str(channel_id) if channel_id else str(snowflake()),
            "author": self.bot_user,
            "content": body.get("content") or "",
            "timestamp": now_iso(),
            "edited_timestamp": None,
            "tts": bool(body.get("tts", False)),
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [
                {
                    "id": str(snowflake()),
                    "filename": name,
                    "size": len(data),
                    "url": f"{self.url}/attachments/{name}",
                    "proxy_url": f"{self.url}/attachments/{name}",
                }
                for name, data in files
            ],
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "pinned": False,
            "type": 0,
            "flags": flags | int(body.get("flags") or 0),
        }
        if channel is not None and channel.guild_id is not None:
            message["guild_id"] = str(channel.guild_id)
        if "nonce" in body:
            message["nonce"] = body["nonce"]
        if interaction is not None:
            message["type"] = 20
            message["webhook_id"] = str(self.application_id)
            message["application_id"] = str(self.application_id)
        self.messages[message_id] = message
        if channel is not None and not message["flags"] & EPHEMERAL:
            channel.messages.append(message_id)
        return message

    @staticmethod
    def _edit(message: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        for key in ("content", "embeds", "components"):
            if key in body:
                message[key] = (
                    body[key] if body[key] is not None else ([] if key != "content" else "")
                )
        message["flags"] = message["flags"] & ~LOADING
        message["edited_timestamp"] = now_iso()
        return message

    async def _read(self, request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        if request.content_type == "multipart/form-data":
            reader = await request.multipart()
            body: Any = None
            files: list[tuple[str, bytes]] = []
            async for part in reader:
                data = await part.read()  # type: ignore[union-attr]
                if part.name == "payload_json":  # type: ignore[union-attr]
                    body = json.loads(data)
                else:
                    files.append((part.filename or "", bytes(data)))  # type: ignore[union-attr]
            return body, files
        text = await request.text()
        return (json.loads(text) if text else None), []

    # --- the API ---------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path.removeprefix(API)
        body, files = await self._read(request)
        record = Recorded(
            method=request.method,
            path=path,
            route=_route_of(request.method, path),
            query=dict(request.query),
            body=body,
            files=files,
            at=time.monotonic(),
        )
        self.requests.append(record)
        for problem in limits.violations(record.route, body):
            self.violations.append(f"{record.route}: {problem}")
        fault = self._fault_for(request.method, path)
        if fault is not None and not fault.apply:
            record.status = fault.status
            return _json(fault.body, fault.status, fault.headers)
        status, data = self._dispatch(record)
        if fault is not None:
            status, data = fault.status, fault.body
        record.status = status
        if status == 204:
            return web.Response(status=204)
        return _json(data, status, fault.headers if fault else {})

    def _dispatch(self, r: Recorded) -> tuple[int, Any]:
        m, path = r.method, r.path
        if m == "GET" and path == "/users/@me":
            return 200, self.bot_user
        if m == "GET" and path == "/oauth2/applications/@me":
            return 200, self._application()
        routes: list[tuple[str, str, Any]] = [
            ("PUT", r"/applications/\d+(?:/guilds/(\d+))?/commands", self._sync),
            ("POST", r"/interactions/(\d+)/([^/]+)/callback", self._callback),
            ("POST", r"/webhooks/\d+/([^/]+)", self._followup),
            ("*", r"/webhooks/\d+/([^/]+)/messages/(@original|\d+)", self._webhook_message),
            ("POST", r"/channels/(\d+)/messages", self._create_message),
            ("POST", r"/channels/(\d+)/messages/(\d+)/threads", self._create_thread),
        ]
        for method, pattern, handler in routes:
            match = re.fullmatch(pattern, path)
            if match and method in (m, "*"):
                result: tuple[int, Any] = handler(r, *match.groups())
                return result
        self.violations.append(f"unexpected request {r.route}")
        return 404, {"message": "404: Not Found", "code": 0}

    def _application(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": "autograd-tutor",
            "icon": None,
            "description": "",
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "owner": {
                **self.bot_user,
                "id": "1100000000000000001",
                "bot": False,
                "username": "owner",
            },
            "flags": 0,
            "summary": "",
            "team": None,
        }

    def _sync(self, r: Recorded, guild: str | None) -> tuple[int, Any]:
        guild_id = int(guild) if guild else None
        registered = []
        for command in r.body:
            registered.append(
                {
                    **command,
                    "id": str(snowflake()),
                    "application_id": str(self.application_id),
                    "version": str(snowflake()),
                    **({"guild_id": str(guild_id)} if guild_id else {}),
                }
            )
        self.commands[guild_id] = registered
        return 200, registered

    def _callback(self, r: Recorded, interaction: str, token: str) -> tuple[int, Any]:
        interaction_id, body, files = int(interaction), r.body, r.files
        record = self.interactions.get(interaction_id)
        if record is None or record.token != token:
            return 404, {"message": "Unknown interaction", "code": 10062}
        if record.callback_type is not None:
            return 400, {"message": "Interaction has already been acknowledged.", "code": 40060}
        if time.monotonic() - record.created_at > INTERACTION_DEADLINE_S:
            return 404, {"message": "Unknown interaction", "code": 10062}
        kind = int(body["type"])
        data = body.get("data") or {}
        record.callback_type = kind
        record.acked_at = time.monotonic()
        record.acked.set()
        info: dict[str, Any] = {"id": str(interaction_id), "type": 2}
        resource: dict[str, Any] = {"type": kind}
        if kind in (4, 5):
            flags = int(data.get("flags") or 0) | (LOADING if kind == 5 else 0)
            message = self._message(record.channel_id, data, files, flags=flags, interaction=record)
            record.original_id = int(message["id"])
            record.original_pending = kind == 5
            info.update(
                response_message_id=message["id"],
                response_message_loading=kind == 5,
                response_message_ephemeral=bool(flags & EPHEMERAL),
            )
            resource["message"] = message
        elif kind == 7 and record.message_id is not None:
            resource["message"] = self._edit(self.messages[record.message_id], data)
        return 200, {"interaction": info, "resource": resource}

    def _followup(self, r: Recorded, token: str) -> tuple[int, Any]:
        body, files = r.body, r.files
        record = self.by_token.get(token)
        if record is None or record.callback_type is None:
            return 404, {"message": "Unknown Webhook", "code": 10015}
        if record.original_pending and record.original_id is not None:
            # Discord: the first followup after a deferred response edits the loading
            # message, whose ephemeral flag was fixed by the defer.
            record.original_pending = False
            original = self.messages[record.original_id]
            wanted = bool(int(body.get("flags") or 0) & EPHEMERAL)
            if wanted != bool(original["flags"] & EPHEMERAL):
                self.violations.append(
                    "followup asks for ephemeral="
                    f"{wanted} but the deferred response fixed ephemeral={not wanted}"
                )
            message = self._edit(original, body)
            message["attachments"] = self._message(None, {}, files)["attachments"]
            return 200, message
        return 200, self._message(
            record.channel_id, body, files, flags=int(body.get("flags") or 0), interaction=record
        )

    def _webhook_message(self, r: Recorded, token: str, which: str) -> tuple[int, Any]:
        method, body = r.method, r.body
        record = self.by_token.get(token)
        if record is None:
            return 404, {"message": "Unknown Webhook", "code": 10015}
        if which == "@original":
            target = record.original_id
            if target is None and record.callback_type == 6:
                target = record.message_id
        else:
            target = int(which)
        if target is None or target not in self.messages:
            return 404, {"message": "Unknown Message", "code": 10008}
        if method == "PATCH":
            record.original_pending = False
            return 200, self._edit(self.messages[target], body or {})
        if method == "GET":
            return 200, self.messages[target]
        return 405, {"message": "405: Method Not Allowed", "code": 0}

    def _create_message(self, r: Recorded, channel: str) -> tuple[int, Any]:
        channel_id, body, files = int(channel), r.body, r.files
        if channel_id not in self.channels:
            return 404, {"message": "Unknown Channel", "code": 10003}
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            existing = self.nonces.get((channel_id, str(nonce)))
            if existing is not None:
                return 200, self.messages[existing]
        message = self._message(channel_id, body, files)
        if nonce is not None:
            self.nonces[(channel_id, str(nonce))] = int(message["id"])
        return 200, message

    def _create_thread(self, r: Recorded, channel: str, message: str) -> tuple[int, Any]:
        channel_id, message_id, body = int(channel), int(message), r.body
        parent = self.channels.get(channel_id)
        if parent is None or message_id not in self.messages:
            return 404, {"message": "Unknown Message", "code": 10008}
        if message_id in self.channels:
            return 400, {
                "message": "A thread has already been created for this message",
                "code": 160004,
            }
        thread = Channel(message_id, parent.guild_id, body["name"], type=11)
        self.channels[thread.id] = thread
        return 201, {
            "id": str(thread.id),
            "type": 11,
            "guild_id": str(parent.guild_id),
            "parent_id": str(parent.id),
            "name": thread.name,
            "owner_id": str(self.application_id),
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": body.get("auto_archive_duration", 1440),
                "archive_timestamp": now_iso(),
                "locked": False,
            },
        }
