"""References, edits and extensions on OpenRouter: `input_references`.

The SDK's `VideoGenerationRequest.input_references` (openrouter 1.3.84 `InputReference`):
`{"type": "image_url" | "video_url" | "audio_url", "<type>": {"url"}}`. "Image references
are supported by all providers; audio and video references are only honored by providers
that support them (including BytePlus Seedance generation 2 and newer)". Edits and
extensions are Seedance 2.0's own: the source as the first video reference and a prompt
about "Video 1" (`providers/by_reference.py`; docs/providers/openrouter.md).
`previous_job_id` (edit or extend a job of the same model) is left out: it is not in
OpenRouter's published API reference (2026-08), only in newer SDK docstrings.
"""

from __future__ import annotations

from typing import Any

from vidrouter.providers import base
from vidrouter.providers.by_reference import prompt_and_media
from vidrouter.providers.images import decode_data_uri, to_data_uri


def part(media: base.ProviderMedia) -> dict[str, Any]:
    """One `input_references` entry; an image's data: URI is checked and sent inline."""
    kind = f"{media.kind}_url"
    url = media.url
    if url.startswith("data:image/"):
        url = to_data_uri(*decode_data_uri(url))
    elif not media.reachable:
        raise base.InvalidInput(
            f"OpenRouter fetches a {media.kind} by URL, and this one is only reachable from "
            "this server"
        )
    return {"type": kind, kind: {"url": url}}


def typed_fields(request: base.ProviderRequest) -> tuple[str, dict[str, Any]]:
    """The prompt and the fields of a reference-to-video, edit or extension."""
    prompt, media = prompt_and_media(request)
    return prompt, {"input_references": [part(m) for m in media]}
