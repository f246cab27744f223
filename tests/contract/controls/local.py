"""The local renderer's controls. It has no fake: `expect` gets the finished generation and
its stored video's size (see __init__.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.contract.controls import ControlsCase


def _rendered_as_asked(done: Mapping[str, Any]) -> None:
    assert done["status"] == "completed", done
    assert (done["resolution"], done["seed"]) == ("480p", 7), done
    assert done["generate_audio"] is False, done  # the renderer makes silent video
    assert (done["video_width"], done["video_height"]) == (854, 480), done


CASES = [
    ControlsCase(
        provider="local",
        model="local-preview",
        body={"resolution": "480p", "seed": 7},
        expect=_rendered_as_asked,
        unsupported=(
            "negative_prompt",
            "end_image_url",
            "enhance_prompt",
            "generate_audio",
            "resolution",
        ),
        duration=0.5,
    ),
]
