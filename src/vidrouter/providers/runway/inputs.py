"""Runway's video edit (runwayml SDK 5.24.0 `video_to_video_create_params.Variant0`):

    POST /v1/video_to_video  {"model": "aleph2", "videoUri", "promptText"?, "seed"?,
                              "contentModeration"?}   -> {"id"}, polled at /v1/tasks/{id}

`videoUri` is "a HTTPS URL, Runway upload URI, or base64 data URI (up to 5MB)": an https
URL of ours goes as it is; a source this server cannot hand out by URL is read from our
storage and sent inline when it fits (Runway's upload API is not wired). The output is as
long as the source, which is what Runway bills.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from vidrouter.providers import base

PATH = "/v1/video_to_video"
MAX_DATA_URI_CHARS = 5 * 1024 * 1024


async def edit_body(request: base.ProviderRequest) -> dict[str, Any]:
    source = request.source
    if source is None:
        raise base.InvalidInput("a video-to-video needs its source video")
    if request.references:
        raise base.InvalidInput(f"Runway's {request.model} takes no reference media")
    body: dict[str, Any] = {"model": request.model, "videoUri": await video_uri(source.video)}
    if request.prompt:
        body["promptText"] = request.prompt
    if request.controls.seed is not None:
        body["seed"] = request.controls.seed
    return body


async def video_uri(media: base.ProviderMedia) -> str:
    if media.reachable and media.url.startswith("https://"):
        return media.url
    if media.path is None:
        raise base.InvalidInput("Runway takes an https video URL, and this one is not")
    data = await asyncio.to_thread(media.path.read_bytes)
    uri = f"data:{media.mime};base64,{base64.b64encode(data).decode('ascii')}"
    if len(uri) > MAX_DATA_URI_CHARS:
        raise base.InvalidInput(
            "the video is larger than Runway's 5 MB limit for inline videos, and this "
            "server's URL is not public: give an https URL"
        )
    return uri


def billed_seconds(request: base.ProviderRequest) -> int:
    return max(1, round(request.source.seconds)) if request.source else 1
