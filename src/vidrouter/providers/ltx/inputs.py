"""LTX's video inputs (LTX's OpenAPI; docs/providers/ltx.md, "Types"): a source video edited
or extended, on the v2 twins of `/v1/retake` and `/v1/extend`, each polled at the segment
that created it.

    video-to-video  POST /v2/retake {video_uri, start_time: 0, duration: the source's
                    length (at least 2; LTX clamps the section to the video), prompt,
                    model}: the whole source re-generated, sound and picture
    video-extend    POST /v2/extend {video_uri, duration: the seconds added (2-20), prompt,
                    mode: "end", model}: the output is the input followed by the new part

`video_uri` is an https URL with a domain name, as LTX fetches (no IP addresses, no
redirects), else the video inline as a data URI (at most 15 MB encoded).
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlsplit

from vidrouter.domain.addresses import forbidden_host_reason, parse_ip_literal
from vidrouter.domain.inputs import VIDEO_EXTEND, VIDEO_TO_VIDEO
from vidrouter.providers import base
from vidrouter.providers.inline import data_uri

RETAKE = "retake"
EXTEND = "extend"
ENDPOINTS = {VIDEO_TO_VIDEO: RETAKE, VIDEO_EXTEND: EXTEND}
MIN_SECONDS = 2  # retake's section and extend's addition
MAX_EXTEND_SECONDS = 20
MAX_INLINE_CHARS = 15 * 1024 * 1024  # LTX's limit for an inline video (encoded)


async def source_body(request: base.ProviderRequest, *, allow_private: bool) -> dict[str, Any]:
    """The retake or extend body of `request` (its endpoint: `ENDPOINTS[request.type]`)."""
    if request.source is None:
        raise base.InvalidInput(f"a {request.type} needs a source video")
    body: dict[str, Any] = {
        "video_uri": await video_uri(request.source.video, allow_private=allow_private),
        "prompt": request.prompt,
        "model": request.model,
    }
    if request.type == VIDEO_TO_VIDEO:
        seconds = max(MIN_SECONDS, math.ceil(request.source.seconds or request.duration))
        return {**body, "start_time": 0, "duration": seconds}
    added = round(request.duration)
    if not MIN_SECONDS <= added <= MAX_EXTEND_SECONDS:
        raise base.InvalidInput(f"LTX extends a video by {MIN_SECONDS} to 20 s, not {added} s")
    return {**body, "duration": added, "mode": "end"}


async def video_uri(media: base.ProviderMedia, *, allow_private: bool) -> str:
    host = urlsplit(media.url).hostname or ""
    named = parse_ip_literal(host) is None and forbidden_host_reason(host) is None
    if media.reachable and media.url.startswith("https://") and named:
        return media.url
    inline = await data_uri(media, max_bytes=MAX_INLINE_CHARS * 3 // 4)
    if len(inline) > MAX_INLINE_CHARS:
        raise base.InvalidInput("LTX takes an inline video of at most 15 MB")
    return inline
