"""Runway's Gen-4.x: the seed is the one control they take (docs/providers/runway.md,
"Controls")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.contract.controls import ControlsCase
from tests.support.images import data_uri, png


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

CASES: list[ControlsCase] = [
    ControlsCase(
        provider="runway",
        model="gen4.5",
        body={"seed": 4294967295, "resolution": "720p"},
        expect=_seeded(4294967295),
        unsupported=UNSUPPORTED,
        duration=5,
    ),
    ControlsCase(
        provider="runway",
        model="gen4-turbo",
        body={"seed": 12345, "image_url": data_uri(png())},
        expect=_seeded(12345),
        unsupported=UNSUPPORTED,
        duration=5,
    ),
]
