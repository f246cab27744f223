"""Luma's typed bodies (lumaai SDK 1.21.0 `VideoModifyParams`, `VideoCreateParams`):

- `video-to-video`: `POST /dream-machine/v1/generations/video/modify`
  `{"generation_type": "modify_video", "model", "media": {"url"}, "mode", "prompt",
  "callback_url"?}`; Luma fetches the video itself (a public URL, ≤ 100 MB); the result is
  as long as the source, which is what it bills for (per pixel).
- `video-extend`: `POST /dream-machine/v1/generations/video` with `keyframes.frame0 =
  {"type": "generation", "id": <the Luma generation that made the source>}`: Luma
  extends only its own generations, so an extension goes to the route that made its source.
  The answer is the new clip (5 s or 9 s), which the engine joins after the source.
"""

from __future__ import annotations

from typing import Any

from vidrouter.domain.inputs import VIDEO_EXTEND, VIDEO_TO_VIDEO
from vidrouter.providers import base
from vidrouter.providers.own_output import OwnExtension

MODIFY_PATH = "/dream-machine/v1/generations/video/modify"
MODES = tuple(f"{kind}_{n}" for kind in ("adhere", "flex", "reimagine") for n in (1, 2, 3))
DEFAULT_MODE = "flex_1"
EXTENSION = OwnExtension(
    None,  # Luma names the generation by its id
    not_own="Luma extends only generations it made on this route",
    not_alone="Luma takes no images beside the generation it extends",
)


def modify_body(request: base.ProviderRequest) -> dict[str, Any]:
    source = request.source
    if source is None:
        raise base.InvalidInput("a video-to-video needs its source video")
    video = source.video
    if not video.reachable or not video.url.startswith(("https://", "http://")):
        raise base.InvalidInput("Luma fetches the video to modify by URL: this one is not public")
    if request.references:
        raise base.InvalidInput("Luma's modify takes no reference media")
    mode = request.options.get("modify_mode", DEFAULT_MODE)
    if mode not in MODES:
        raise base.InvalidInput(f"Luma's modify mode is one of {', '.join(MODES)}")
    body: dict[str, Any] = {
        "generation_type": "modify_video",
        "model": request.model,
        "media": {"url": video.url},
        "mode": mode,
        "prompt": request.prompt,
    }
    if request.callback_url is not None:
        body["callback_url"] = request.callback_url
    return body


def extension_frames(request: base.ProviderRequest) -> dict[str, Any] | None:
    """The keyframes of an extension (None for the other types)."""
    if request.type != VIDEO_EXTEND:
        return None
    return {"frame0": {"type": "generation", "id": EXTENSION.source(request)}}


def is_modify(request: base.ProviderRequest) -> bool:
    return request.type == VIDEO_TO_VIDEO
