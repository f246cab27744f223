"""Pure ASGI middleware (no per-request task overhead): request ids and the body size limit."""

from __future__ import annotations

import os
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vidrouter.api.errors import send_error

_SAFE_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,200}$")


def request_id(scope: Scope) -> bytes:
    """The request's id: the client's `X-Request-Id` when it sent a sane one, else a new
    one; kept in the scope's state so that everything answering this request uses it."""
    state = scope.setdefault("state", {})
    known = state.get("request_id")
    if isinstance(known, str):
        return known.encode()
    chosen = None
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            text = value.decode("latin-1")
            chosen = text if _SAFE_ID.match(text) else None
            break
    rid = chosen or "req_" + os.urandom(16).hex()
    state["request_id"] = rid
    return rid.encode()


class RequestIdMiddleware:
    """Every response carries `X-Request-Id`: the client's when it sent a sane one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id(scope)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid)]
            await send(message)

        await self.app(scope, receive, send_with_id)


class BodyLimitMiddleware:
    """Refuse bodies over the limit with a 413 before reading them whole. A multipart body
    POSTed to one of `upload_paths` (a video file) has the larger `max_upload_bytes`."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        *,
        max_upload_bytes: int | None = None,
        upload_paths: frozenset[str] = frozenset(),
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_upload_bytes = max_upload_bytes or max_bytes
        self.upload_paths = upload_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        most = self.max_upload_bytes if self._upload(scope) else self.max_bytes
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > most):
                await self._reject(send, most)
                return
        received = 0
        too_large = False

        async def limited_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > most:
                    too_large = True
                    raise _BodyTooLarge
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _BodyTooLarge:
            await self._reject(send, most)

    def _upload(self, scope: Scope) -> bool:
        path: str = scope["path"]
        if scope["method"] != "POST" or path.rstrip("/") not in self.upload_paths:
            return False
        for name, value in scope["headers"]:
            if name == b"content-type":
                media: bytes = value.split(b";", 1)[0].strip().lower()
                return media == b"multipart/form-data"
        return False

    async def _reject(self, send: Send, most: int) -> None:
        message = f"the request body exceeds {most} bytes"
        await send_error(send, 413, "body_too_large", message)


class _BodyTooLarge(Exception):
    pass
