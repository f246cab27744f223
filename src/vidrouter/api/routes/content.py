"""The content host: finished videos and their previews (poster, sprite sheet) at signed,
expiring URLs, no API key needed. A missing preview of a stored video is made on request.

Served with Range / 206, HEAD, ETag and `video/mp4`, so the URL can go straight into a
`<video>` tag. A tampered or expired signature is a 403. Range handling is ours (see
`storage/ranges.py`): an invalid range is ignored (200, the whole video), an unsatisfiable
one is a 416 in our error shape.

`VIDROUTER_CONTENT_DELIVERY=proxy` (default) streams the bytes from the store, so any API
replica serves any video (a local store is sent as a file response); `redirect` answers
with a 302 to a short-lived presigned URL of the store (for CDN-fronted deployments). The
settings refuse `redirect` on local disk, which has no presigned URLs.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import BinaryIO

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from vidrouter.api.deps import ContentDep
from vidrouter.api.errors import PermissionDenied, error_body, send_error
from vidrouter.domain.errors import NotFound, Unavailable
from vidrouter.domain.media import PreviewVariant, media_type_of, video_of_preview
from vidrouter.storage.base import BlobInfo, BlobStorage, StorageUnavailable
from vidrouter.storage.previews import Previews
from vidrouter.storage.ranges import (
    ByteRange,
    Unsatisfiable,
    if_range_allows,
    none_match,
    parse_range,
)

router = APIRouter(tags=["content"])

# A presigned URL only needs to outlive the redirect it is handed in.
PRESIGNED_SECONDS = 300
STORAGE_RETRY_AFTER = 5
# The ASGI extension `vidrouter serve` offers for sendfile (server/zerocopy.py).
ZEROCOPY = "http.response.zerocopysend"


@router.api_route(
    "/content/{key:path}", methods=["GET", "HEAD"], response_model=None, include_in_schema=False
)
async def get_content(key: str, request: Request, host: ContentDep) -> Response:
    assert host.signer is not None
    params = request.query_params
    if not host.signer.verify(key, params.get("expires"), params.get("signature"), host.clock()):
        raise PermissionDenied(
            "invalid_signature",
            "the content URL is invalid or has expired; fetch the generation again for a fresh one",
        )
    preview = video_of_preview(key)
    if preview is not None:
        # A video stored before previews existed, or whose previews a crash cut short,
        # gets them now; serve_blob answers 404 when the video itself is gone.
        await ensure_preview(host.previews, *preview)
    return await serve_blob(
        request,
        host.storage,
        key,
        redirect=host.redirect,
        cache_control="private, max-age=3600",
    )


async def ensure_preview(previews: Previews, video_key: str, variant: PreviewVariant) -> str:
    """The preview's key, made now when missing; a 404 when it cannot be (no video)."""
    try:
        key = await previews.ensure(video_key, variant)
    except StorageUnavailable as exc:
        raise _storage_unavailable() from exc
    if key is None:
        raise NotFound(f"the video's {variant} no longer exists", code="content_not_found")
    return key


def _storage_unavailable() -> Unavailable:
    return Unavailable(
        "the video store is unreachable; try again shortly",
        code="storage_unavailable",
        retry_after=STORAGE_RETRY_AFTER,
    )


async def serve_blob(
    request: Request,
    storage: BlobStorage,
    key: str,
    *,
    redirect: bool = False,
    cache_control: str = "private, max-age=3600",
    media_type: str | None = None,
) -> Response:
    """One blob over HTTP with ranges, conditionals and HEAD (also used by /v1/videos)."""
    try:
        info = await storage.stat(key)
        if info is None:
            raise NotFound("the video no longer exists", code="content_not_found")
        media = media_type or media_type_of(key)
        headers = {
            "Cache-Control": cache_control,
            "ETag": f'"{info.etag}"',
            "Accept-Ranges": "bytes",
        }
        if none_match(request.headers.get("if-none-match"), headers["ETag"]):
            return Response(status_code=304, headers=headers)
        if redirect:
            url = await storage.presigned_url(key, timedelta(seconds=PRESIGNED_SECONDS))
            if url is not None:
                return Response(
                    status_code=302, headers={"Location": url, "Cache-Control": "no-store"}
                )
        try:
            byte_range = _range_of(request, info, headers["ETag"])
        except Unsatisfiable:
            return _unsatisfiable(info.size)
    except StorageUnavailable as exc:
        raise _storage_unavailable() from exc
    path = storage.local_path(key)
    if path is not None:
        return _LocalFile(path, byte_range, media_type=media, headers=headers)
    return _streamed(request, storage, info, byte_range, media, headers)


def _range_of(request: Request, info: BlobInfo, etag: str) -> ByteRange | None:
    """The range to send (None: the whole blob); raises Unsatisfiable."""
    if not if_range_allows(request.headers.get("if-range"), etag):
        return None
    return parse_range(request.headers.get("range"), info.size)


def _unsatisfiable(size: int) -> JSONResponse:
    body = error_body(
        416,
        "range_not_satisfiable",
        f"the requested range is outside the video ({size} bytes)",
        "Range",
        error_type="invalid_request_error",
    )
    return JSONResponse(body, status_code=416, headers={"Content-Range": f"bytes */{size}"})


def _streamed(
    request: Request,
    storage: BlobStorage,
    info: BlobInfo,
    byte_range: ByteRange | None,
    media_type: str,
    headers: dict[str, str],
) -> Response:
    start, end = (byte_range.start, byte_range.end) if byte_range else (0, info.size)
    headers = {**headers, "Content-Length": str(end - start)}
    status = 200
    if byte_range is not None:
        status = 206
        headers["Content-Range"] = f"bytes {start}-{end - 1}/{info.size}"
    if request.method == "HEAD":
        return Response(status_code=status, headers=headers, media_type=media_type)
    return StreamingResponse(
        _chunks(storage, info.key, start, end),
        status_code=status,
        headers=headers,
        media_type=media_type,
    )


async def _chunks(storage: BlobStorage, key: str, start: int, end: int) -> AsyncIterator[bytes]:
    async for chunk in storage.read(key, start, end):
        yield chunk


class _LocalFile(FileResponse):
    """The framework's file response, told exactly which range to send: our parsing
    decides, never its own. Where the server offers `http.response.zerocopysend` (ours,
    `server/zerocopy.py`) a GET's bytes go with `sendfile`, under the same head."""

    def __init__(self, path: object, byte_range: ByteRange | None, **kwargs: object) -> None:
        super().__init__(path, **kwargs)  # type: ignore[arg-type]
        self._byte_range = byte_range

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self._send_file(scope, receive, tracked)
        except (FileNotFoundError, RuntimeError):
            # Deleted between the route's stat and the open (a delete racing a download):
            # a 404 like the route's own, not a 500. Once the head is out, nothing to answer.
            if started or await asyncio.to_thread(os.path.exists, self.path):
                raise
            await send_error(send, 404, "content_not_found", "the video no longer exists")

    async def _send_file(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] == "GET" and ZEROCOPY in scope.get("extensions", {}):
            await self._zero_copy(send)
            return
        kept = [
            (name, value)
            for name, value in scope.get("headers", [])
            if name.lower() not in (b"range", b"if-range")
        ]
        if self._byte_range is not None:
            r = self._byte_range
            kept.append((b"range", f"bytes={r.start}-{r.end - 1}".encode()))
        await super().__call__({**scope, "headers": kept}, receive, send)

    async def _zero_copy(self, send: Send) -> None:
        file, st = await asyncio.to_thread(_open_regular, self.path)
        try:
            # The head FileResponse sends for the whole file or one range, to the byte.
            self.set_stat_headers(st)
            headers, status = MutableHeaders(raw=list(self.raw_headers)), self.status_code
            start, end = 0, st.st_size
            if self._byte_range is not None:
                start, end, status = self._byte_range.start, self._byte_range.end, 206
                headers["content-range"] = f"bytes {start}-{end - 1}/{st.st_size}"
                headers["content-length"] = str(end - start)
            await send({"type": "http.response.start", "status": status, "headers": headers.raw})
            await send({"type": ZEROCOPY, "file": file, "offset": start, "count": end - start})
        finally:
            await asyncio.to_thread(file.close)


def _open_regular(path: str | os.PathLike[str]) -> tuple[BinaryIO, os.stat_result]:
    file = open(path, "rb")  # noqa: SIM115  # closed by the caller, after the send
    st = os.fstat(file.fileno())
    if not stat.S_ISREG(st.st_mode):
        file.close()
        raise RuntimeError(f"File at path {path} is not a file.")
    return file, st
