"""The local renderer's controls. It has no fake: `expect` gets the finished generation and
its stored video's size (see __init__.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = data_uri(png(64, 36)), data_uri(png(32, 18))


def _rendered_as_asked(done: Mapping[str, Any]) -> None:
    assert done["status"] == "completed", done
    assert (done["resolution"], done["seed"]) == ("480p", 7), done
    assert done["generate_audio"] is False, done  # the renderer makes silent video
    assert (done["video_width"], done["video_height"]) == (854, 480), done
    # It starts on the image and ends on the end frame (tests/test_generation_types.py
    # checks the pixels).
    assert done["type"] == "image-to-video" and done["end_image_url"], done


CASES = [
    ControlsCase(
        provider="local",
        model="local-preview",
        body={"resolution": "480p", "seed": 7, "image_url": FIRST, "end_image_url": LAST},
        expect=_rendered_as_asked,
        unsupported=(
            "negative_prompt",
            "enhance_prompt",
            "generate_audio",
            "resolution",
        ),
        duration=0.5,
    ),
]
