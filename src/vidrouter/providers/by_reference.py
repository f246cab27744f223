"""References, edits and extensions as one list of media: Seedance 2.0's way, whichever host
serves it (Ark's `content` items, OpenRouter's `input_references`).

An edit or an extension has no field of its own: the source goes first among the reference
media, as "Video 1", and the prompt says what to do with it (BytePlus's "Seedance 2.0 series
tutorial", docs.byteplus.com ModelArk 2291680). Where the user's prompt does not name the
video, we say it for them, in the tutorial's words.
"""

from __future__ import annotations

from vidrouter.domain.inputs import REFERENCE_TO_VIDEO, VIDEO_EXTEND, VIDEO_TO_VIDEO
from vidrouter.providers import base

TYPED = (REFERENCE_TO_VIDEO, VIDEO_TO_VIDEO, VIDEO_EXTEND)
SOURCE_NAME = "video 1"
LEADS = {VIDEO_TO_VIDEO: "Edit Video 1: ", VIDEO_EXTEND: "Extend Video 1: "}


def prompt_and_media(request: base.ProviderRequest) -> tuple[str, list[base.ProviderMedia]]:
    """The prompt and the media of a reference-to-video, edit or extension, in order."""
    media = list(request.references)
    prompt = request.prompt
    if request.type in LEADS:
        if request.source is None:
            raise base.InvalidInput(f"a {request.type} needs a source video")
        media.insert(0, request.source.video)
        if SOURCE_NAME not in prompt.lower():
            prompt = LEADS[request.type] + prompt
    return prompt, media


__all__ = ["TYPED", "prompt_and_media"]
