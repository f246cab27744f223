"""The hot path: `GET /v1/generations/{id}`, served without the framework's routing and
dependency resolution.

Clients poll this endpoint more than all others together. The fast path answers only the
plain success (a valid key, a generation of its account); anything else falls through to
the routed endpoint, which owns authentication errors, 404s and every other answer, so the
two cannot disagree on anything but speed.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

from vidrouter.api.presenter import present
from vidrouter.service import Service

_PREFIX = "/v1/generations/gen_"


class GenerationReadFastPath:
    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and scope["path"].startswith(_PREFIX)
            and "/" not in scope["path"][len(_PREFIX) :]
            and len(scope["path"]) <= 80
            and await self._serve(scope, send)
        ):
            return
        await self.app(scope, receive, send)

    async def _serve(self, scope: Scope, send: Send) -> bool:
        token = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, rest = value.decode("latin-1").partition(" ")
                if scheme.lower() == "bearer" and 0 < len(rest.strip()) <= 200:
                    token = rest.strip()
                break
        if token is None:
            return False
        key = await self.service.keys.authenticate(token)
        if key is None:
            return False
        if not (await self.service.limiter.hit(scope, key)).allowed:
            return False  # the routed endpoint answers the 429; the request is counted once
        generation_id = scope["path"][len("/v1/generations/") :]
        g = await self.service.generations.get(generation_id, account_id=key.account_id)
        if g is None:
            return False
        body = json.dumps(present(self.service, g), separators=(",", ":")).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
        return True
