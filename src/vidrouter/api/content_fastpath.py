"""The content host's hot path: a small video on local disk at its signed URL, served
before the framework's middleware, routing and dependency resolution.

Only the plain case: a GET with a valid signature, no Range or conditional headers, not a
browser's cross-origin request, a file of at most `SMALL_BYTES`. A hot one comes from the
store's memory (`LocalStorage.cached_small`: no trip to a thread); else it is read whole in
one trip to a thread (stat and read together). It is sent with the headers the routed
endpoint gives it, built once per file version (its ETag). Anything else, a bad signature
included, falls through to `routes/content.py`, which owns every other answer.
"""

from __future__ import annotations

from email.utils import formatdate
from urllib.parse import parse_qsl

from starlette.types import Scope, Send

from vidrouter.api.deps import ContentHost
from vidrouter.api.middleware import request_id
from vidrouter.domain.media import media_type_of
from vidrouter.storage.local import LocalStorage
from vidrouter.storage.small_cache import SmallBlob

ROUTE = "/content/{key:path}"
SMALL_BYTES = 1 << 20
_PREFIX = "/content/"
# Headers that ask for more than the plain answer: the routed endpoint handles them.
_ROUTED_HEADERS = frozenset({b"range", b"if-range", b"if-none-match", b"origin"})
# Heads kept per file version; a bound, not a cache policy (dropped whole when reached).
_MAX_HEADS = 4096

Head = list[tuple[bytes, bytes]]


class ContentFastPath:
    def __init__(self, host: ContentHost) -> None:
        self._host = host
        self._heads: dict[str, Head] = {}

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
        expires, signature = _expires_and_signature(scope["query_string"])
        if not signer.verify(key, expires, signature, self._host.clock()):
            return None
        blob = storage.cached_small(key) or await storage.small_blob(key, SMALL_BYTES)
        if blob is None:
            return None
        head = self._heads.get(blob.info.etag)
        if head is None:
            head = self._head(blob)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*head, (b"x-request-id", request_id(scope))],
            }
        )
        await send({"type": "http.response.body", "body": blob.data})
        return ROUTE

    def _head(self, blob: SmallBlob) -> Head:
        if len(self._heads) >= _MAX_HEADS:
            self._heads.clear()
        head = [
            (b"content-type", media_type_of(blob.info.key).encode()),
            (b"content-length", str(len(blob.data)).encode()),
            (b"cache-control", b"private, max-age=3600"),
            (b"etag", f'"{blob.info.etag}"'.encode()),
            (b"accept-ranges", b"bytes"),
            (b"last-modified", formatdate(blob.mtime, usegmt=True).encode()),
        ]
        self._heads[blob.info.etag] = head
        return head


def _expires_and_signature(query_string: bytes) -> tuple[str | None, str | None]:
    """The two parameters as the routed endpoint reads them (the last of each wins)."""
    text = query_string.decode("latin-1")
    if "%" in text or "+" in text:
        pairs = parse_qsl(text, keep_blank_values=True)
    else:  # what we sign: no escapes, so a plain split reads it the same, sooner
        pairs = [(name, value) for name, _, value in (p.partition("=") for p in text.split("&"))]
    query = dict(pairs)
    return query.get("expires"), query.get("signature")
