"""The hot path: `GET /v1/generations/{id}` and `GET /v1/videos/{id}`, served before the
framework's middleware, routing and dependency resolution.

Clients poll this endpoint more than all others together. The fast path answers only the
plain success (a valid key, a generation of its account); anything else falls through to
the routed endpoint, which owns authentication errors, 404s and every other answer, so the
two cannot disagree on anything but speed.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable

from starlette.types import Scope, Send

from vidrouter.api.middleware import request_id
from vidrouter.api.openai_videos_map import video_object
from vidrouter.api.presenter import Presenter
from vidrouter.domain.generation import Generation
from vidrouter.store.generations import GenerationStore
from vidrouter.store.keys import KeyStore
from vidrouter.usecases.rate_limits import Limiter

_GENERATIONS = "/v1/generations/"
_VIDEOS = "/v1/videos/"
_CACHED_BODIES = 10_000
# The route each answers for, as the routed app names it (metrics label).
ROUTES = {_GENERATIONS: "/v1/generations/{generation_id}", _VIDEOS: "/v1/videos/{video_id}"}

log = logging.getLogger(__name__)


class GenerationReadFastPath:
    """Called by the app first (see app.VidrouterApp); True when it answered."""

    def __init__(
        self, keys: KeyStore, limiter: Limiter, store: GenerationStore, presenter: Presenter
    ) -> None:
        self._keys = keys
        self._limiter = limiter
        self._store = store
        self._present = presenter
        # A finished generation's JSON changes only when its URL's expiry moves (hourly):
        # its bytes are kept per (id, expiry) instead of being encoded on every poll.
        self._bodies: OrderedDict[tuple[str, int], bytes] = OrderedDict()

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
        if prefix == _VIDEOS:
            # As the routed endpoint reads it: never a moment old (see GenerationStore.peek).
            g = await self._store.get(generation_id, account_id=key.account_id)
        else:
            g = await self._store.peek(generation_id, account_id=key.account_id)
        if g is None:
            return False
        body = self._video_body(g) if prefix == _VIDEOS else self._body(g)
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

    def _body(self, g: Generation) -> bytes:
        signer = self._present.signer()
        if not g.status.terminal or signer is None:
            return _encode(self._present(g))
        return self._cached((g.id, signer.expires_for(self._present.clock())), g, self._present)

    def _video_body(self, g: Generation) -> bytes:
        if not g.status.terminal:
            return _encode(video_object(g))
        return self._cached((g.id, -1), g, video_object)  # no URL in it: it never changes

    def _cached(
        self, cache_key: tuple[str, int], g: Generation, shape: Callable[[Generation], object]
    ) -> bytes:
        body = self._bodies.get(cache_key)
        if body is None:
            body = self._bodies[cache_key] = _encode(shape(g))
            if len(self._bodies) > _CACHED_BODIES:
                self._bodies.popitem(last=False)
        return body


def _encode(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()
