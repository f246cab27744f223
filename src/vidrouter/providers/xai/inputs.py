"""The body of each generation type on xAI's video API, and the path it is created at.

    text-to-video       POST /v1/videos/generations {model, prompt, duration, aspect_ratio,
                        resolution, generate_audio?}
    image-to-video      the same + image: {url}
    reference-to-video  the same + reference_images: [{url}, ...] (1-7; duration <= 10 s,
                        <= 720p), referred to in the prompt as <IMAGE_1>...
    video-to-video      POST /v1/videos/edits {model, prompt, video: {url}}: no duration,
                        aspect ratio or resolution (the output follows the input)
    video-extend        POST /v1/videos/extensions {model, prompt, video: {url}, duration}:
                        `duration` is the seconds added (1-10); xAI returns the whole video

Media go as `{"url": ...}`: a URL xAI fetches (our signed copy, or the user's own checked
URL), else inline as a `data:` URI, which xAI documents for images and for videos.
"""

from __future__ import annotations

from typing import Any

from vidrouter.domain import inputs as kinds
from vidrouter.providers import base
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.providers.inline import url_or_inline

GENERATION = "generation"
EDIT = "edit"
EXTENSION = "extension"
# The create path of each operation; every one is polled at GET /v1/videos/{request_id}.
OPERATIONS = {
    GENERATION: "/v1/videos/generations",
    EDIT: "/v1/videos/edits",
    EXTENSION: "/v1/videos/extensions",
}
MAX_REFERENCES = 7
MAX_REFERENCE_SECONDS = 10  # a generation from reference images (docs.x.ai)
MAX_EXTENSION_SECONDS = 10  # seconds added by one extension (xai-sdk)
MAX_REFERENCE_RESOLUTION = ("480p", "720p")
# A data: URI goes in the JSON body: the largest source we send that way.
MAX_INLINE_BYTES = 64 * 1024 * 1024


async def operation_body(
    request: base.ProviderRequest, *, allow_private: bool
) -> tuple[str, dict[str, Any]]:
    """(operation, JSON body) of `request`."""
    match request.type:
        case kinds.TEXT_TO_VIDEO | kinds.IMAGE_TO_VIDEO:
            frame = await _first_frame(request.image_url, allow_private)
            return GENERATION, {**_generation(request), **frame}
        case kinds.REFERENCE_TO_VIDEO:
            return GENERATION, await _references(request)
        case kinds.VIDEO_TO_VIDEO:
            video = await _source(request, kinds.VIDEO_TO_VIDEO)
            return EDIT, {"model": request.model, "prompt": request.prompt, "video": video}
        case kinds.VIDEO_EXTEND:
            seconds = round(request.duration)
            if not 1 <= seconds <= MAX_EXTENSION_SECONDS:
                raise base.InvalidInput(
                    f"xAI extends a video by 1 to {MAX_EXTENSION_SECONDS} s, not {seconds} s"
                )
            video = await _source(request, kinds.VIDEO_EXTEND)
            body = {"model": request.model, "prompt": request.prompt, "video": video}
            return EXTENSION, {**body, "duration": seconds}
    raise base.InvalidInput(f"xAI makes no {request.type}")


def _generation(request: base.ProviderRequest) -> dict[str, Any]:
    """The fields every generation sends. The resolution is always sent: xAI's default
    (480p) is not ours. Sound is on by default at xAI; only turning it off is sent."""
    body: dict[str, Any] = {
        "model": request.model,
        "prompt": request.prompt,
        "duration": max(1, round(request.duration)),
        "aspect_ratio": request.aspect_ratio,
    }
    if request.controls.resolution is not None:
        body["resolution"] = request.controls.resolution
    if request.controls.generate_audio is False:
        body["generate_audio"] = False
    return body


async def _first_frame(url: str | None, allow_private: bool) -> dict[str, Any]:
    if url is None:
        return {}
    # Checked to be an image we may fetch; xAI fetches public URLs itself.
    data, mime = await load_image(url, allow_private=allow_private)
    sent = url if url.startswith(("https://", "http://")) else to_data_uri(data, mime)
    return {"image": {"url": sent}}


async def _references(request: base.ProviderRequest) -> dict[str, Any]:
    """Reference images cap the video at 10 s and 720p: the catalog cannot say so per
    type, so a request beyond is refused here, before xAI is called."""
    body = _generation(request)
    if body["duration"] > MAX_REFERENCE_SECONDS:
        raise base.InvalidInput(
            f"xAI makes at most {MAX_REFERENCE_SECONDS} s from reference images"
        )
    if body.get("resolution", "480p") not in MAX_REFERENCE_RESOLUTION:
        raise base.InvalidInput("xAI makes reference-to-video at 480p or 720p only")
    images = [m for m in request.references if m.kind == "image"]
    if not 1 <= len(images) <= MAX_REFERENCES or len(images) != len(request.references):
        raise base.InvalidInput(f"xAI takes 1 to {MAX_REFERENCES} reference images, nothing else")
    sent = [{"url": await url_or_inline(m, max_bytes=MAX_INLINE_BYTES)} for m in images]
    return {**body, "reference_images": sent}


async def _source(request: base.ProviderRequest, kind: str) -> dict[str, str]:
    if request.source is None:
        raise base.InvalidInput(f"a {kind} needs a source video")
    return {"url": await url_or_inline(request.source.video, max_bytes=MAX_INLINE_BYTES)}


__all__ = ["OPERATIONS", "operation_body"]
