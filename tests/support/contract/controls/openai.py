"""An OpenAI-style `/v1/videos` upstream (the operator's `gateway-clip`): the resolution and
the aspect ratio travel together as `size`; the format has no other control
(docs/providers/openai_videos.md, "Controls")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase

NONE = ("negative_prompt", "seed", "generate_audio", "end_image_url", "enhance_prompt")


def form(size: str, seconds: str) -> Callable[[Mapping[str, Any]], None]:
    """Asserts the multipart form: exactly these fields, `size` and `seconds` as strings."""

    def expect(body: Mapping[str, Any]) -> None:
        assert set(body) == {"model", "prompt", "seconds", "size"}, body
        assert (body["model"], body["size"], body["seconds"]) == ("upstream-clip-1", size, seconds)

    return expect


CASES = [
    ControlsCase(
        provider="openai_videos",
        model="gateway-clip",
        body={"resolution": "1080p", "aspect_ratio": "9:16"},
        expect=form("1080x1920", "8"),
        unsupported=(*NONE, "resolution"),  # 480p: no size for it on this upstream
        duration=8,
    ),
    ControlsCase(
        provider="openai_videos",
        model="gateway-clip",
        body={"resolution": "720p", "aspect_ratio": "16:9"},
        expect=form("1280x720", "4"),
        duration=4,
    ),
]
