"""Wan's references, edits and extensions on DashScope: which model makes each type, and its
`input` and `parameters` (docs/providers/wan.md, "References, edits and extensions").

| type                 | model (route option)                 | `input`                               |
|----------------------|--------------------------------------|---------------------------------------|
| `reference-to-video` | `r2v_model` wan2.6-r2v(-flash)       | `reference_urls`: images and videos, in order ("character1"...) |
|                      | `r2v_model` wan2.7-r2v               | `media`: `reference_image` / `reference_video` items |
|                      | wan2.1-vace-plus                     | `function: image_reference`, `ref_images_url`, `obj_or_bg` |
| `video-to-video`     | `edit_model` wan2.7-videoedit        | `media`: the `video`, then `reference_image` items |
|                      | wan2.1-vace-plus                     | `function: video_repainting`, `video_url`, `control_condition` |
| `video-extend`       | `extend_model` wan2.7-i2v            | `media`: the source as `first_clip`   |

A wan2.7 continuation returns the whole video (the clip followed by the new seconds), and its
`duration` is that whole length: the source's seconds plus the seconds added.

DashScope fetches media by public URL (images also as `data:` URIs); a video only this
server can serve cannot reach it (the routing refuses such a generation at create).
"""

from __future__ import annotations

from typing import Any

from vidrouter.domain.inputs import REFERENCE_TO_VIDEO, VIDEO_EXTEND, VIDEO_TO_VIDEO
from vidrouter.providers import base

TYPED = (REFERENCE_TO_VIDEO, VIDEO_TO_VIDEO, VIDEO_EXTEND)
MODEL_OPTIONS = {
    REFERENCE_TO_VIDEO: "r2v_model",
    VIDEO_TO_VIDEO: "edit_model",
    VIDEO_EXTEND: "extend_model",
}
VACE = "wan2.1-vace"
VACE_FUNCTIONS = {REFERENCE_TO_VIDEO: "image_reference", VIDEO_TO_VIDEO: "video_repainting"}
DEFAULT_CONTROL = "depth"  # VACE repainting keeps the source's depth (composition and motion)
MAX_R2V_FILES = 5  # wan2.6-r2v and wan2.7-r2v: images and videos together
MAX_CONTINUATION = 15  # wan2.7-i2v: the whole video, clip included


def typed_model(request: base.ProviderRequest) -> str:
    """The DashScope model that makes the request's type on this route."""
    if request.model.startswith(VACE):
        return request.model
    chosen = request.options.get(MODEL_OPTIONS[request.type])
    if not isinstance(chosen, str) or not chosen:
        raise base.InvalidInput(f"this Wan route makes no {request.type}")
    return chosen


def _url(media: base.ProviderMedia) -> str:
    if not media.reachable and not media.url.startswith("data:image/"):
        raise base.InvalidInput(
            f"DashScope fetches a {media.kind} by URL, and this one is only reachable from "
            "this server"
        )
    return media.url


def _source(request: base.ProviderRequest) -> base.ProviderSource:
    if request.source is None:
        raise base.InvalidInput(f"a {request.type} needs a source video")
    return request.source


def typed_input(request: base.ProviderRequest, model: str) -> dict[str, Any]:
    """The `input` fields beyond the prompt and the negative prompt."""
    images = [_url(m) for m in request.references if m.kind == "image"]
    if model.startswith(VACE):
        function = VACE_FUNCTIONS.get(request.type)
        if function is None:
            raise base.InvalidInput(f"wan2.1-vace-plus makes no {request.type} here")
        if request.type == REFERENCE_TO_VIDEO:
            return {
                "function": function,
                "ref_images_url": images,
                "obj_or_bg": ["obj"] * len(images),
            }
        out: dict[str, Any] = {
            "function": function,
            "video_url": _url(_source(request).video),
            "control_condition": str(request.options.get("control_condition") or DEFAULT_CONTROL),
        }
        if images:
            out["ref_images_url"] = images[:1]  # repainting takes one style image
        return out
    if request.type == REFERENCE_TO_VIDEO:
        if len(request.references) > MAX_R2V_FILES:
            raise base.InvalidInput(f"Wan takes at most {MAX_R2V_FILES} references in all")
        if model.startswith("wan2.6"):
            return {"reference_urls": [_url(m) for m in request.references]}
        return {
            "media": [{"type": f"reference_{m.kind}", "url": _url(m)} for m in request.references]
        }
    source = {"url": _url(_source(request).video)}
    if request.type == VIDEO_TO_VIDEO:
        refs = [{"type": "reference_image", "url": url} for url in images]
        return {"media": [{"type": "video", **source}, *refs]}
    return {"media": [{"type": "first_clip", **source}]}


def typed_parameters(
    request: base.ProviderRequest, model: str, params: dict[str, Any]
) -> dict[str, Any]:
    """The text-to-video `parameters` of the request, reshaped for its type's model."""
    out = dict(params)
    if model.startswith(VACE):
        out.pop("duration", None)  # 5 s, fixed
        out.pop("audio", None)  # silent
        if request.type == VIDEO_TO_VIDEO:
            out.pop("size", None)  # the source's
        return out
    if request.type == VIDEO_TO_VIDEO:
        out.pop("ratio", None)  # the source's frame
        out.pop("duration", None)  # the source's length
        return out
    if request.type == VIDEO_EXTEND:
        whole = round(_source(request).seconds + request.duration)
        if whole > MAX_CONTINUATION:
            raise base.InvalidInput(
                f"Wan 2.7 continues a video to at most {MAX_CONTINUATION} s in all: this source "
                f"and {request.duration:g} s more make {whole} s"
            )
        out.pop("ratio", None)
        out["duration"] = whole
    return out
