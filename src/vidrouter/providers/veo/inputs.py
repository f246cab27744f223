"""The Gemini API's typed Veo instances beyond the first and last frame (google-genai's
Developer API converters: `referenceImages`, `video`).

- `reference-to-video`: `instances[0].referenceImages = [{"image": {bytesBase64Encoded,
  mimeType}, "referenceType": "ASSET"}]`, at most 3 images of one subject; the Gemini API
  takes no `STYLE` reference (Vertex only), no first or last frame beside them, and makes
  8 s clips only with them.
- `video-extend`: `instances[0].video = {"uri": <the video uri of a Veo operation's
  result>}`; Veo extends only videos it generated (the route that made the source, whose
  job data keep that uri), at 720p, by 7 s, and answers the whole video (source + 7 s).
"""

from __future__ import annotations

import base64
from typing import Any

from vidrouter.domain.inputs import REFERENCE_TO_VIDEO, VIDEO_EXTEND
from vidrouter.providers import base
from vidrouter.providers.images import load_image
from vidrouter.providers.own_output import OwnExtension

MAX_REFERENCES = 3
REFERENCE_SECONDS = 8  # the only length Veo makes with reference images
EXTENSION_SECONDS = 7  # what one extension adds
EXTENSION_RESOLUTION = "720p"
EXTENSION = OwnExtension(
    "video_uri",
    not_own="Veo extends only videos it generated itself on this route",
    not_alone="Veo takes no images beside the video it extends",
    seconds=EXTENSION_SECONDS,
    not_seconds=f"a Veo extension adds {EXTENSION_SECONDS} s",
)


async def inline_image(url: str, *, allow_private: bool) -> dict[str, str]:
    data, mime = await load_image(url, allow_private=allow_private)
    return {"bytesBase64Encoded": base64.b64encode(data).decode("ascii"), "mimeType": mime}


async def typed_instance(
    request: base.ProviderRequest, *, allow_private: bool
) -> dict[str, Any] | None:
    """The instance of a reference-to-video or an extension, None for the other types."""
    if request.type == REFERENCE_TO_VIDEO:
        return await _with_references(request, allow_private=allow_private)
    if request.type == VIDEO_EXTEND:
        return {"prompt": request.prompt, "video": {"uri": _source_uri(request)}}
    return None


async def _with_references(request: base.ProviderRequest, *, allow_private: bool) -> dict[str, Any]:
    images = [r for r in request.references if r.kind == "image"]
    if not images or len(images) != len(request.references) or len(images) > MAX_REFERENCES:
        raise base.InvalidInput(f"Veo takes 1 to {MAX_REFERENCES} reference images, nothing else")
    if request.image_url is not None or request.controls.end_image_url is not None:
        raise base.InvalidInput("Veo takes no first or last frame beside reference images")
    if request.controls.negative_prompt is not None:
        raise base.InvalidInput("Veo takes no negative prompt with reference images")
    if round(request.duration) != REFERENCE_SECONDS:
        raise base.InvalidInput(f"Veo makes {REFERENCE_SECONDS} s clips only from references")
    references = [
        {"image": await inline_image(r.url, allow_private=allow_private), "referenceType": "ASSET"}
        for r in images
    ]
    return {"prompt": request.prompt, "referenceImages": references}


def _source_uri(request: base.ProviderRequest) -> str:
    uri = EXTENSION.source(request)
    resolution = request.controls.resolution
    if resolution not in (None, EXTENSION_RESOLUTION):
        raise base.InvalidInput(f"Veo extends {EXTENSION_RESOLUTION} videos only")
    return uri
