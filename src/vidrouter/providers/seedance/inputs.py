"""Seedance 2.0's multimodal inputs on Ark: references, edits and extensions as `content` items.

Ark's 2.0 series has one wire for all three (byteplus-python-sdk-v2
`create_task_content_param.py`; docs.byteplus.com ModelArk 2291680, "Seedance 2.0 series
tutorial"): after the text item, each medium is `{"type": "image_url" | "video_url" |
"audio_url", "<type>": {"url"}, "role": "reference_image" | "reference_video" |
"reference_audio"}`, at most 9 images, 3 videos and 3 audio clips. An edit or an extension
is the source as the first `reference_video` (`providers/by_reference.py`). Reference roles
cannot be mixed with first/last frames.

Ark fetches every medium by URL; images may also be `data:` URIs. A video or sound that only
this server can serve cannot reach Ark (the routing refuses such a generation at create).
"""

from __future__ import annotations

from typing import Any

from vidrouter.domain.inputs import VIDEO_TO_VIDEO
from vidrouter.providers import base
from vidrouter.providers.by_reference import prompt_and_media

# Ark's content item type of each reference kind.
ITEM_TYPES = {"image": "image_url", "video": "video_url", "audio": "audio_url"}
MAX_VIDEOS = 3  # reference videos, the source of an edit or extension included


def media_item(media: base.ProviderMedia) -> dict[str, Any]:
    """One reference as Ark's content item."""
    item_type = ITEM_TYPES.get(media.kind)
    if item_type is None:
        raise base.InvalidInput(f"Seedance takes no {media.kind} reference")
    if not media.reachable and not media.url.startswith("data:image/"):
        raise base.InvalidInput(
            f"Seedance fetches a reference {media.kind} by URL, and this one is only "
            "reachable from this server"
        )
    return {"type": item_type, item_type: {"url": media.url}, "role": f"reference_{media.kind}"}


def typed_content(request: base.ProviderRequest) -> list[dict[str, Any]]:
    """The `content` of a reference-to-video, video-to-video or video-extend request."""
    prompt, media = prompt_and_media(request)
    if sum(1 for m in media if m.kind == "video") > MAX_VIDEOS:
        raise base.InvalidInput(
            f"Seedance takes at most {MAX_VIDEOS} videos, the source video included"
        )
    return [{"type": "text", "text": prompt}, *(media_item(m) for m in media)]


def duration(request: base.ProviderRequest, least: int = 4, most: int = 15) -> int:
    """Whole seconds in Ark's 2.0 range: an edit is as long as its source, within the range."""
    seconds = request.duration
    if request.type == VIDEO_TO_VIDEO and request.source is not None:
        seconds = request.source.seconds
    return min(most, max(least, round(seconds)))
