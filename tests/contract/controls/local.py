"""The local renderer's controls. It has no fake: `expect` gets the finished generation and
its stored video's size (see __init__.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.contract.controls import ControlsCase


def _rendered_as_shown(done: Mapping[str, Any]) -> None:
    assert done["status"] == "completed", done
    assert done["generate_audio"] is False, done  # the renderer makes silent video
    assert done["negative_prompt"] is None and done["enhance_prompt"] is None, done
    assert done["video_width"] and done["video_height"], done


CASES = [
    ControlsCase(
        provider="local",
        model="local-preview",
        body={},
        expect=_rendered_as_shown,
        unsupported=("negative_prompt", "end_image_url", "enhance_prompt", "generate_audio"),
        duration=0.5,
    ),
]
