"""Replicate's controls as each model's input schema names them (docs/providers/replicate.md)."""

from __future__ import annotations

from tests.support.contract.controls import ControlsCase
from tests.support.contract.controls.fal import END, IMAGE, has

CASES = [
    ControlsCase(
        provider="replicate",
        model="veo-3.1",
        body={
            "resolution": "1080p",
            "generate_audio": False,
            "negative_prompt": "blurry",
            "seed": 42,
            "image_url": IMAGE,
            "end_image_url": END,
        },
        duration=8,
        expect=has(
            {
                "duration": 8,
                "resolution": "1080p",
                "generate_audio": False,
                "negative_prompt": "blurry",
                "seed": 42,
                "image": IMAGE,
                "last_frame": END,
            }
        ),
        unsupported=("enhance_prompt",),
    ),
    ControlsCase(
        provider="replicate",
        model="hailuo-02",
        body={
            "resolution": "1080p",
            "enhance_prompt": False,
            "image_url": IMAGE,
            "end_image_url": END,
        },
        duration=6,
        expect=has(
            {
                "resolution": "1080p",
                "prompt_optimizer": False,
                "first_frame_image": IMAGE,
                "last_frame_image": END,
            }
        ),
        unsupported=("negative_prompt", "seed", "generate_audio"),
    ),
    ControlsCase(
        provider="replicate",
        model="kling-v2.5-turbo",
        body={"negative_prompt": "no text", "image_url": IMAGE, "end_image_url": END},
        duration=5,
        expect=has({"negative_prompt": "no text", "start_image": IMAGE, "end_image": END}),
        unsupported=("seed", "enhance_prompt", "generate_audio", "resolution"),
    ),
    ControlsCase(
        provider="replicate",
        model="kling-v2.6",
        body={"generate_audio": True, "negative_prompt": "no text"},
        duration=5,
        expect=has({"generate_audio": True, "negative_prompt": "no text"}),
        # Replicate's kling-v2.6 takes a start image only (docs/providers/replicate.md).
        unsupported=("end_image_url", "seed", "enhance_prompt", "resolution"),
    ),
]
