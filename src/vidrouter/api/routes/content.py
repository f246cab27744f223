"""The content host: finished videos at signed, expiring URLs, no API key needed.

Served with Range / 206, HEAD, ETag and `video/mp4`, so the URL can go straight into a
`<video>` tag. A tampered or expired signature is a 403.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from vidrouter.api.deps import ContentDep
from vidrouter.api.errors import PermissionDenied
from vidrouter.domain.errors import NotFound
from vidrouter.domain.media import media_type_of

router = APIRouter(tags=["content"])


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
    info = await host.storage.stat(key)
    path = host.storage.local_path(key)
    if info is None or path is None:
        raise NotFound("the video no longer exists", code="content_not_found")
    headers = {"Cache-Control": "private, max-age=3600", "ETag": f'"{info.etag}"'}
    match = request.headers.get("if-none-match")
    if match is not None and headers["ETag"] in [t.strip() for t in match.split(",")]:
        return Response(status_code=304, headers=headers)
    return FileResponse(path, media_type=media_type_of(key), headers=headers)
