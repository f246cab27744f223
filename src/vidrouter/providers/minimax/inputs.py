"""MiniMax's subject reference (platform.minimax.io video generation API, `S2V-01`):

    POST /v1/video_generation {"model": "S2V-01", "prompt", "prompt_optimizer"?,
        "subject_reference": [{"type": "character", "image": ["<url or data URI>"]}]}

One character image (JPG/PNG/WebP under 20 MB, short side over 300 px, 2:5 to 5:2), the
subject the video shows; no `duration` nor `resolution` field: S2V-01 makes 6 s at 720P
(unconfirmed). Polled and fetched like every MiniMax task.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from vidrouter.providers import base

SUBJECT_MODELS = frozenset({"S2V-01"})
SUBJECT_SECONDS = 6
SUBJECT_RESOLUTION = "720P"


async def subject_body(
    request: base.ProviderRequest, frame: Callable[[str], Awaitable[str]]
) -> dict[str, Any]:
    """The create body of a reference-to-video (`frame`: an image as MiniMax takes it)."""
    if request.model not in SUBJECT_MODELS:
        raise base.InvalidInput(f"MiniMax's {request.model} takes no subject reference")
    images = [m for m in request.references if m.kind == "image"]
    if len(images) != 1 or len(request.references) != 1 or request.image_url is not None:
        raise base.InvalidInput("MiniMax's S2V-01 takes exactly one subject image")
    if round(request.duration) != SUBJECT_SECONDS:
        raise base.InvalidInput(f"MiniMax's S2V-01 makes {SUBJECT_SECONDS} s videos only")
    reference = {"type": "character", "image": [await frame(images[0].url)]}
    body: dict[str, Any] = {
        "model": request.model,
        "prompt": request.prompt,
        "subject_reference": [reference],
    }
    if request.controls.enhance_prompt is not None:
        body["prompt_optimizer"] = request.controls.enhance_prompt
    return body
