"""OpenRouter's controls: its normalised fields, and `provider.options` passthrough names
(docs/providers/openrouter.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.contract.controls.fal import END, IMAGE


def _image_ok(frame: Mapping[str, Any]) -> bool:
    # With a public content host the engine hands over its signed copy of the user's image.
    url = str(frame["image_url"]["url"])
    return bool(frame["type"] == "image_url") and url.startswith(("https://", "data:image/png"))


def _veo(body: Mapping[str, Any]) -> None:
    assert (body["resolution"], body["generate_audio"], body["seed"]) == ("4K", False, 42)
    assert [f["frame_type"] for f in body["frame_images"]] == ["first_frame", "last_frame"]
    assert _image_ok(body["frame_images"][1])
    parameters = body["provider"]["options"]["google-vertex"]["parameters"]
    assert parameters == {"negativePrompt": "blurry", "enhancePrompt": True}


def _wan(body: Mapping[str, Any]) -> None:
    assert (body["resolution"], body["generate_audio"], body["seed"]) == ("1080p", True, 7)
    options = body["provider"]["options"]
    assert options == {"alibaba": {"negative_prompt": "rain", "prompt_extend": False}}


def _kling(body: Mapping[str, Any]) -> None:
    # Pro makes 1080p although OpenRouter lists 720p: no resolution is sent.
    assert body["generate_audio"] is True and "resolution" not in body
    assert body["frame_images"][1]["frame_type"] == "last_frame"
    assert _image_ok(body["frame_images"][1])


def _hailuo(body: Mapping[str, Any]) -> None:
    assert body["provider"] == {"options": {"minimax": {"prompt_optimizer": False}}}
    assert "generate_audio" not in body  # a silent model


CASES = [
    ControlsCase(
        provider="openrouter",
        model="veo-3.1",
        body={
            "resolution": "4k",
            "generate_audio": False,
            "negative_prompt": "blurry",
            "seed": 42,
            "enhance_prompt": True,
            "image_url": IMAGE,
            "end_image_url": END,
        },
        duration=8,
        expect=_veo,
    ),
    ControlsCase(
        provider="openrouter",
        model="wan-2.7",
        body={
            "resolution": "1080p",
            "generate_audio": True,
            "negative_prompt": "rain",
            "seed": 7,
            "enhance_prompt": False,
        },
        duration=5,
        expect=_wan,
    ),
    ControlsCase(
        provider="openrouter",
        model="kling-v3",
        body={"generate_audio": True, "image_url": IMAGE, "end_image_url": END},
        duration=5,
        expect=_kling,
        unsupported=("seed", "negative_prompt", "enhance_prompt", "resolution"),
    ),
    ControlsCase(
        provider="openrouter",
        model="hailuo-2.3",
        body={"enhance_prompt": False},
        duration=6,
        expect=_hailuo,
        unsupported=("negative_prompt", "seed", "generate_audio", "end_image_url"),
    ),
]
