"""PixVerse's controls: the tier as `quality`, `seed`, `generate_audio_switch` (V5.5 and
later), `negative_prompt` (V5), and the end frame through the transition endpoint
(`first_frame_img` / `last_frame_img`, ids of uploaded images)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = data_uri(png(640, 360)), data_uri(png(600, 400))
NEW_MODELS = ("negative_prompt", "enhance_prompt", "resolution")


def _sent(model: str, quality: str, **more: Any) -> Callable[[Mapping[str, Any]], None]:
    def expect(sent: Mapping[str, Any]) -> None:
        assert (sent["model"], sent["quality"]) == (model, quality), sent
        for name, value in more.items():
            assert sent[name] == value, name

    return expect


def _frames(model: str, quality: str, **more: Any) -> Callable[[Mapping[str, Any]], None]:
    def expect(sent: Mapping[str, Any]) -> None:
        _sent(model, quality, **more)(sent)
        assert isinstance(sent["first_frame_img"], int), sent
        assert isinstance(sent["last_frame_img"], int), sent
        assert "aspect_ratio" not in sent and "img_id" not in sent

    return expect


def _voiced_transition(version: str, quality: str, seed: int, duration: int) -> ControlsCase:
    """Both frames with audio and a seed on a model that takes both (V5.5 and later)."""
    return ControlsCase(
        "pixverse",
        f"pixverse-{version}",
        {
            "resolution": quality,
            "generate_audio": True,
            "seed": seed,
            "image_url": FIRST,
            "end_image_url": LAST,
        },
        _frames(version, quality, generate_audio_switch=True, seed=seed),
        unsupported=NEW_MODELS,
        duration=duration,
    )


CASES = [
    ControlsCase(
        "pixverse",
        "pixverse-v6",
        {
            "resolution": "1080p",
            "generate_audio": True,
            "seed": 2_147_483_647,
            "aspect_ratio": "21:9",
        },
        _sent("v6", "1080p", generate_audio_switch=True, seed=2_147_483_647, aspect_ratio="21:9"),
        unsupported=NEW_MODELS,
        duration=15,
    ),
    ControlsCase(
        "pixverse",
        "pixverse-v6",
        {"resolution": "540p", "image_url": FIRST, "end_image_url": LAST},
        _frames("v6", "540p", generate_audio_switch=False),
    ),
    _voiced_transition("v5.6", "540p", seed=7, duration=10),
    _voiced_transition("v5.5", "1080p", seed=1, duration=8),
    ControlsCase(
        "pixverse",
        "pixverse-v5",
        {
            "resolution": "1080p",
            "negative_prompt": "blur",
            "seed": 3,
            "image_url": FIRST,
            "end_image_url": LAST,
        },
        _frames("v5", "1080p", negative_prompt="blur", seed=3),
        unsupported=("generate_audio", "enhance_prompt", "resolution"),
        duration=8,
    ),
]
