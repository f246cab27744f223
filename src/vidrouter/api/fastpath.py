"""The hot path: `GET /v1/generations/{id}` and `GET /v1/videos/{id}`, served before the
framework's middleware, routing and dependency resolution.

Clients poll this endpoint more than all others together. The fast path answers only the
plain success (a valid key, a generation of its account); anything else falls through to
the routed endpoint, which owns authentication errors, 404s and every other answer. Both
read through the same use-case (`Generations.read`) and present through the same
`Presenter`, so the two cannot disagree on anything but speed.
"""

from __future__ import annotations

import logging

from starlette.types import Scope, Send

from vidrouter.api.middleware import request_id
from vidrouter.api.presenter import Presenter
from vidrouter.store.keys import KeyStore
from vidrouter.usecases.generations import Generations
from vidrouter.usecases.rate_limits import Limiter

_GENERATIONS = "/v1/generations/"
_VIDEOS = "/v1/videos/"
# The route each answers for, as the routed app names it (metrics label).
ROUTES = {_GENERATIONS: "/v1/generations/{generation_id}", _VIDEOS: "/v1/videos/{video_id}"}

log = logging.getLogger(__name__)


class GenerationReadFastPath:
    """Called by the app first (see app.VidrouterApp); True when it answered."""

    def __init__(
        self, keys: KeyStore, limiter: Limiter, generations: Generations, presenter: Presenter
    ) -> None:
        self._keys = keys
        self._limiter = limiter
        self._generations = generations
        self._present = presenter

    def applies(self, scope: Scope) -> str | None:
        """The prefix of the route it would answer, or None."""
        if scope["type"] != "http" or scope["method"] != "GET":
            return None
        path: str = scope["path"]
        prefix = _GENERATIONS if path.startswith(_GENERATIONS) else _VIDEOS
        rest = path[len(prefix) :]
        if (
            path.startswith(prefix)
            and rest.startswith("gen_")
            and "/" not in rest
            and len(path) <= 80
            # Browsers' requests go the routed way, through the CORS middleware.
            and not any(name == b"origin" for name, _ in scope["headers"])
        ):
            return prefix
        return None

    async def serve(self, scope: Scope, send: Send) -> str | None:
        """The route template it answered for, or None (the routed app answers)."""
        prefix = self.applies(scope)
        if prefix is None:
            return None
        try:
            return ROUTES[prefix] if await self._serve(scope, send, prefix) else None
        except Exception:  # the routed endpoint answers it, with the proper error
            log.exception("fast_path_failed", extra={"path": scope["path"]})
            return None

    async def _serve(self, scope: Scope, send: Send, prefix: str) -> bool:
        token = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, rest = value.decode("latin-1").partition(" ")
                if scheme.lower() == "bearer" and 0 < len(rest.strip()) <= 200:
                    token = rest.strip()
                break
        if token is None:
            return False
        key = await self._keys.authenticate(token)
        if key is None or key.budgeted:
            return False  # a budgeted key's answer carries its budget header: routed way
        decision = await self._limiter.hit(scope, key)
        if not decision.allowed:
            return False  # the routed endpoint answers the 429; the request is counted once
        generation_id = scope["path"][len(prefix) :]
        # As the routed endpoints read it: /v1/videos never a moment old (see
        # GenerationStore.peek), /v1/generations for display.
        g = await self._generations.read(
            key.account_id, generation_id, for_display=prefix == _GENERATIONS
        )
        if g is None:
            return False
        if prefix == _VIDEOS:
            body = self._present.video_json(g)
        else:
            body = self._present.generation_json(g)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"x-request-id", request_id(scope)),
                    *decision.raw_headers(),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
        return True
