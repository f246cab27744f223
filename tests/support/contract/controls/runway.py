"""Runway's Gen-4.x: the seed is the one control they take (docs/providers/runway.md,
"Controls")."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

from tests.fakes.base import sample_mp4
from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

SOURCE = {"url": "data:video/mp4;base64," + base64.b64encode(sample_mp4()).decode()}


def _seeded(seed: int) -> Callable[[Mapping[str, Any]], None]:
    def expect(body: Mapping[str, Any]) -> None:
        assert body["seed"] == seed
        assert not {"audio", "negativePrompt", "resolution"} & set(body)

    return expect


UNSUPPORTED = (
    "resolution",
    "generate_audio",
    "negative_prompt",
    "enhance_prompt",
    "end_image_url",  # Gen-4.x take a first frame only
)


def _case(model: str, seed: int, duration: float | None, **body: Any) -> ControlsCase:
    """A run of `model` asking for `seed`, with `body`'s other fields."""
    return ControlsCase(
        "runway", model, {"seed": seed, **body}, _seeded(seed), UNSUPPORTED, duration
    )


CASES: list[ControlsCase] = [
    _case("gen4.5", 4294967295, 5, resolution="720p"),
    _case("gen4-turbo", 12345, 5, image_url=data_uri(png())),
    _case("aleph-2", 7, None, type="video-to-video", video=SOURCE),
]
