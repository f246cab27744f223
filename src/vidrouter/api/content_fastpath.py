"""The content host's hot path: a small video on local disk at its signed URL, served
before the framework's middleware, routing and dependency resolution.

Only the plain case: a GET with a valid signature, no Range or conditional headers, not a
browser's cross-origin request, a file of at most `SMALL_BYTES`. It is read whole in one
trip to a thread (stat and read together) and sent with the headers the routed endpoint
gives it. Anything else, a bad signature included, falls through to `routes/content.py`,
which owns every other answer.
"""

from __future__ import annotations

import asyncio
from email.utils import formatdate
from urllib.parse import parse_qsl

from starlette.types import Scope, Send

from vidrouter.api.deps import ContentHost
from vidrouter.api.middleware import request_id
from vidrouter.domain.media import media_type_of
from vidrouter.storage.local import LocalStorage

ROUTE = "/content/{key:path}"
SMALL_BYTES = 1 << 20
_PREFIX = "/content/"
# Headers that ask for more than the plain answer: the routed endpoint handles them.
_ROUTED_HEADERS = frozenset({b"range", b"if-range", b"if-none-match", b"origin"})


class ContentFastPath:
    def __init__(self, host: ContentHost) -> None:
        self._host = host

    async def serve(self, scope: Scope, send: Send) -> str | None:
        """The route template it answered for, or None (the routed app answers)."""
        storage, signer = self._host.storage, self._host.signer
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not scope["path"].startswith(_PREFIX)
            or not isinstance(storage, LocalStorage)
            or signer is None
            or any(name in _ROUTED_HEADERS for name, _ in scope["headers"])
        ):
            return None
        key: str = scope["path"][len(_PREFIX) :]
        query = dict(parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True))
        if not signer.verify(key, query.get("expires"), query.get("signature"), self._host.clock()):
            return None
        found = await asyncio.to_thread(storage.small, key, SMALL_BYTES)
        if found is None:
            return None
        info, data, mtime = found
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", media_type_of(key).encode()),
                    (b"content-length", str(len(data)).encode()),
                    (b"cache-control", b"private, max-age=3600"),
                    (b"etag", f'"{info.etag}"'.encode()),
                    (b"accept-ranges", b"bytes"),
                    (b"last-modified", formatdate(mtime, usegmt=True).encode()),
                    (b"x-request-id", request_id(scope)),
                ],
            }
        )
        await send({"type": "http.response.body", "body": data})
        return ROUTE
