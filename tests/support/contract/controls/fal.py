"""fal's controls as its apps name them (fal.ai/models/<app>/llms.txt; docs/providers/fal.md)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import png

IMAGE = "data:image/png;base64," + base64.b64encode(png(2, 2)).decode()
END = "data:image/png;base64," + base64.b64encode(png(3, 3)).decode()


def has(expected: Mapping[str, Any]) -> Any:
    def check(body: Mapping[str, Any]) -> None:
        assert {k: body.get(k) for k in expected} == dict(expected), body

    return check


CASES = [
    ControlsCase(
        provider="fal",
        model="veo-3.1",
        body={
            "resolution": "1080p",
            "generate_audio": False,
            "negative_prompt": "blurry",
            "seed": 42,
        },
        duration=8,
        expect=has(
            {
                "duration": "8s",
                "resolution": "1080p",
                "generate_audio": False,
                "negative_prompt": "blurry",
                "seed": 42,
            }
        ),
        unsupported=("end_image_url", "enhance_prompt", "resolution"),
    ),
    ControlsCase(
        provider="fal",
        model="kling-v3",
        body={
            "image_url": IMAGE,
            "end_image_url": END,
            "negative_prompt": "no text",
            "generate_audio": True,
        },
        duration=5,
        expect=has(
            {
                "start_image_url": IMAGE,
                "end_image_url": END,
                "negative_prompt": "no text",
                "generate_audio": True,
            }
        ),
        unsupported=("seed", "enhance_prompt"),
    ),
    ControlsCase(
        provider="fal",
        model="hailuo-02",
        body={"enhance_prompt": False},
        duration=6,
        expect=has({"prompt_optimizer": False, "duration": "6"}),
        unsupported=("negative_prompt", "seed", "end_image_url", "generate_audio"),
    ),
    # Wan (resolution, negative_prompt, seed, enable_prompt_expansion) is in
    # tests/test_controls_fal.py: its fal route makes sound, which wan.toml's default must match.
    ControlsCase(
        provider="fal",
        model="seedance-1-pro",
        body={"resolution": "720p", "seed": 7},
        duration=5,
        expect=has({"resolution": "720p", "seed": 7, "duration": "5"}),
        unsupported=("negative_prompt", "end_image_url", "enhance_prompt", "generate_audio"),
    ),
    ControlsCase(
        provider="fal",
        model="ray-2",
        body={"resolution": "1080p", "image_url": IMAGE, "end_image_url": END},
        duration=5,
        expect=has({"resolution": "1080p", "image_url": IMAGE, "end_image_url": END}),
        unsupported=("negative_prompt", "seed", "enhance_prompt", "generate_audio"),
    ),
]
