"""Kling's typed task bodies: the omni models (`/v1/videos/omni-video`), kling-v1-6's
multi-image reference (`/v1/videos/multi-image2video`) and extensions of Kling's own output
(`/v1/videos/video-extend`). Each is polled at `/v1/videos/<kind>/<task_id>`.

    omni-video        {model_name, prompt, mode, duration, aspect_ratio, sound,
                       image_list: [{image_url, type?: first_frame | end_frame}],
                       video_list: [{video_url, refer_type: base | feature,
                                     keep_original_sound: yes | no}]}
    multi-image2video {model_name, prompt, negative_prompt, mode, duration, aspect_ratio,
                       image_list: [{image}]}  (1-4 images)
    video-extend      {video_id, prompt, negative_prompt, callback_url}  (the `id` of the
                       video inside the finished task that made the source, not its task id)

An image in `image_list` without a `type` is a reference (subject, scene, style); a
`base` video is the one edited (its length is the output's, billed on its whole seconds),
a `feature` video a reference of motion or style. Videos go by URL only: Kling has no
upload API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vidrouter.domain.inputs import (
    IMAGE_TO_VIDEO,
    REFERENCE_TO_VIDEO,
    VIDEO_EXTEND,
    VIDEO_TO_VIDEO,
)
from vidrouter.providers import base
from vidrouter.providers.own_output import OwnExtension

OMNI = "omni-video"
MULTI_IMAGE = "multi-image2video"
EXTEND = "video-extend"
OMNI_MODELS = ("kling-video-o1", "kling-v3-omni")
MULTI_IMAGE_MODELS = ("kling-v1-6",)
KINDS = ("text2video", "image2video", OMNI, MULTI_IMAGE, EXTEND)
MAX_OMNI_IMAGES = 7  # without a video; 4 beside one
MAX_OMNI_IMAGES_WITH_VIDEO = 4
MAX_MULTI_IMAGES = 4
EXTENSION_SECONDS = 5  # billed as a 5 s clip; the video grows by 4-5 s
EXTENSION = OwnExtension(
    "video_id",
    not_own="Kling extends only videos it made on this route",
    not_alone="Kling takes no images beside the video it extends",
    seconds=EXTENSION_SECONDS,
    not_seconds=f"a Kling extension adds about {EXTENSION_SECONDS} s",
)


def kind_of(request: base.ProviderRequest) -> str:
    """The endpoint a request goes to."""
    if request.model in OMNI_MODELS:
        return OMNI
    if request.type == VIDEO_EXTEND:
        return EXTEND
    if request.type == REFERENCE_TO_VIDEO:
        if request.model not in MULTI_IMAGE_MODELS:
            raise base.InvalidInput(f"Kling's {request.model} takes no reference images")
        return MULTI_IMAGE
    if request.type == VIDEO_TO_VIDEO:
        raise base.InvalidInput(f"Kling's {request.model} edits no video")
    return "image2video" if request.image_url else "text2video"


def omni_fields(request: base.ProviderRequest, image: Callable[[str], str]) -> dict[str, Any]:
    """`image_list`, `video_list` and the shape of an omni task (`image`: an image as Kling
    takes it, a URL or raw base64)."""
    images: list[dict[str, str]] = []
    if request.type == IMAGE_TO_VIDEO and request.image_url is not None:
        images.append({"image_url": image(request.image_url), "type": "first_frame"})
    videos: list[dict[str, str]] = []
    for media in request.references:
        if media.kind == "image":
            images.append({"image_url": image(media.url)})
        elif media.kind == "video":
            videos.append(_video(media, "feature"))
        else:
            raise base.InvalidInput("Kling's omni models take no reference audio")
    if request.type == VIDEO_TO_VIDEO:
        if request.source is None:
            raise base.InvalidInput("a video-to-video needs its source video")
        videos.insert(0, _video(request.source.video, "base", keep_sound=True))
    if len(videos) > 1:
        raise base.InvalidInput("Kling's omni models take one video")
    most = MAX_OMNI_IMAGES_WITH_VIDEO if videos else MAX_OMNI_IMAGES
    if len(images) > most:
        raise base.InvalidInput(f"Kling's omni models take at most {most} images here")
    if videos and request.controls.generate_audio:
        raise base.InvalidInput("Kling makes no sound from a video input")
    out: dict[str, Any] = {}
    if images:
        out["image_list"] = images
    if videos:
        out["video_list"] = videos
    return out


def _video(media: base.ProviderMedia, refer: str, *, keep_sound: bool = False) -> dict[str, str]:
    if not media.reachable or not media.url.startswith(("http://", "https://")):
        raise base.InvalidInput("Kling fetches videos by URL: this one is not reachable")
    return {
        "video_url": media.url,
        "refer_type": refer,
        "keep_original_sound": "yes" if keep_sound else "no",
    }


def multi_image_fields(
    request: base.ProviderRequest, image: Callable[[str], str]
) -> dict[str, Any]:
    images = [m for m in request.references if m.kind == "image"]
    if not images or len(images) != len(request.references) or len(images) > MAX_MULTI_IMAGES:
        raise base.InvalidInput(f"Kling takes 1 to {MAX_MULTI_IMAGES} reference images")
    return {"image_list": [{"image": image(m.url)} for m in images]}


def extend_body(request: base.ProviderRequest) -> dict[str, Any]:
    """The extension of a video this route made, by the id of that video at Kling."""
    body: dict[str, Any] = {"video_id": EXTENSION.source(request), "prompt": request.prompt}
    if request.controls.negative_prompt is not None:
        body["negative_prompt"] = request.controls.negative_prompt
    if request.callback_url:
        body["callback_url"] = request.callback_url
    return body


def billed_seconds(request: base.ProviderRequest) -> float:
    """What Kling bills a task for: an edit its source's whole seconds, the rest the
    seconds asked for."""
    if request.type == VIDEO_TO_VIDEO and request.source is not None:
        return float(max(1, round(request.source.seconds)))
    return request.duration
