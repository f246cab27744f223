"""What Kling's typed endpoints take and refuse (shared/providers/kling.md and inputs.md):
`omni-video` (kling-video-o1, kling-v3-omni), `multi-image2video` (kling-v1-6) and
`video-extend` (a `video_id` of a video this account generated). Each refusal is the
envelope code 1201 with a plain message (Kling's exact wording unpublished)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

OMNI = "omni-video"
MULTI_IMAGE = "multi-image2video"
EXTEND = "video-extend"
MODELS = {OMNI: {"kling-video-o1", "kling-v3-omni"}, MULTI_IMAGE: {"kling-v1-6"}}
FIELDS = {
    OMNI: {
        "model_name", "prompt", "mode", "duration", "aspect_ratio", "sound", "image_list",
        "element_list", "video_list", "multi_shot", "shot_type", "multi_prompt",
        "watermark_info", "callback_url", "external_task_id",
    },
    MULTI_IMAGE: {
        "model_name", "prompt", "negative_prompt", "mode", "duration", "aspect_ratio",
        "image_list", "watermark_info", "callback_url", "external_task_id",
    },
    EXTEND: {"video_id", "prompt", "negative_prompt", "cfg_scale", "callback_url"},
}  # fmt: skip
EXTENDS_MODELS = {"kling-v1", "kling-v1-5", "kling-v1-6"}  # sources that can be extended
MAX_EXTENDED_SECONDS = 180.0

CheckImage = Callable[[str, object], Awaitable[str | None]]


async def check_typed(
    kind: str, body: dict[str, Any], videos: Mapping[str, tuple[str, float]], image: CheckImage
) -> str | None:
    """The refusal of a typed create (None: accepted); `videos`: (model, seconds) of each
    video id this fake generated; `image`: the fake's check of one image field."""
    unknown = sorted(set(body) - FIELDS[kind])
    if unknown:
        return f"{kind} does not take {', '.join(unknown)}"
    if kind == EXTEND:
        return _extension(body, videos)
    model = body.get("model_name")
    if model not in MODELS[kind]:
        return f"model_name {model!r} is not supported by {kind}"
    if body.get("mode", "std") not in ("std", "pro"):
        return "mode must be std or pro"
    if body.get("aspect_ratio", "16:9") not in ("16:9", "9:16", "1:1"):
        return "aspect_ratio must be one of 16:9, 9:16, 1:1"
    if kind == MULTI_IMAGE:
        return await _multi_image(body, image)
    return await _omni(body, image)


async def _multi_image(body: dict[str, Any], image: CheckImage) -> str | None:
    if body.get("duration", "5") not in ("5", "10"):
        return f"duration {body.get('duration')!r} is not supported by kling-v1-6"
    images = body.get("image_list")
    if not isinstance(images, list) or not 1 <= len(images) <= 4:
        return "image_list must hold 1 to 4 images"
    for item in images:
        if not isinstance(item, dict) or set(item) != {"image"}:
            return "each image_list item is {image}"
        if (problem := await image("image_list.image", item["image"])) is not None:
            return problem
    return None


async def _omni(body: dict[str, Any], image: CheckImage) -> str | None:
    model, sound = body["model_name"], body.get("sound", "off")
    if sound not in ("on", "off") or (sound == "on" and model != "kling-v3-omni"):
        return f"sound {sound!r} is not supported by {model}"
    images, videos = body.get("image_list", []), body.get("video_list", [])
    if not isinstance(images, list) or not isinstance(videos, list) or len(videos) > 1:
        return "image_list must be a list and video_list hold at most one video"
    if len(images) > (4 if videos else 7):
        return "too many images: at most 4 with a video, 7 without"
    types = []
    for item in images:
        if not isinstance(item, dict) or not set(item) <= {"image_url", "type"}:
            return "each image_list item is {image_url, type?}"
        if item.get("type", "reference") not in ("reference", "first_frame", "end_frame"):
            return "image_list type must be first_frame or end_frame"
        types.append(item.get("type"))
        if (problem := await image("image_list.image_url", item.get("image_url"))) is not None:
            return problem
    if "end_frame" in types and "first_frame" not in types:
        return "when there is an end frame there must be a first frame"
    for video in videos:
        if not isinstance(video, dict) or not set(video) <= {
            "video_url",
            "refer_type",
            "keep_original_sound",
        }:
            return "each video_list item is {video_url, refer_type, keep_original_sound}"
        url = video.get("video_url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return "video_url must be a URL"
        if video.get("refer_type", "base") not in ("base", "feature"):
            return "refer_type must be base or feature"
        if video.get("keep_original_sound", "yes") not in ("yes", "no"):
            return "keep_original_sound must be yes or no"
        if sound == "on":
            return "sound must be off with a reference video"
        if video.get("refer_type", "base") == "base":
            if {"first_frame", "end_frame"} & set(types):
                return "first or end frames cannot be set with a base video"
            if "duration" in body:
                return "duration is not taken with a base video: the output is as long"
    allowed = range(3, 16) if model == "kling-v3-omni" else range(3, 11)
    if "duration" in body and body["duration"] not in {str(d) for d in allowed}:
        return f"duration {body['duration']!r} is not supported by {model}"
    if not videos and "duration" not in body:
        return "duration is required without a base video"  # wording unconfirmed
    return None


def _extension(body: dict[str, Any], videos: Mapping[str, tuple[str, float]]) -> str | None:
    video_id = body.get("video_id")
    if not isinstance(video_id, str) or video_id not in videos:
        return "video_id does not exist: only videos generated by this account are extended"
    model, seconds = videos[video_id]
    if model not in EXTENDS_MODELS:
        return f"videos of {model} cannot be extended"
    if seconds >= MAX_EXTENDED_SECONDS:
        return "the video to extend must be under 3 minutes"
    if len(str(body.get("prompt", ""))) > 2500:
        return "prompt must be at most 2500 characters"
    return None
