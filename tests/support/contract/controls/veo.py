"""Veo on the Gemini API: every control it takes, with non-default values, and the Gemini
field each lands in (docs/providers/veo.md, "Controls")."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = png(64, 36), png(32, 18)


def _expect(resolution: str) -> Callable[[Mapping[str, Any]], None]:
    def expect(body: Mapping[str, Any]) -> None:
        [instance] = body["instances"]
        assert instance["image"]["bytesBase64Encoded"] == base64.b64encode(FIRST).decode()
        assert instance["lastFrame"] == {
            "bytesBase64Encoded": base64.b64encode(LAST).decode(),
            "mimeType": "image/png",
        }
        parameters = body["parameters"]
        assert parameters["resolution"] == resolution
        assert parameters["negativePrompt"] == "rain, blur"
        assert parameters["durationSeconds"] == 8  # 1080p and 4k make 8 s clips only
        # The Gemini API always makes sound and has no seed: neither field is sent.
        assert not {"generateAudio", "seed", "enhancePrompt"} & set(parameters)

    return expect


def _case(model: str, resolution: str) -> ControlsCase:
    return ControlsCase(
        provider="veo",
        model=model,
        body={
            "resolution": resolution,
            "generate_audio": True,
            "negative_prompt": "rain, blur",
            "image_url": data_uri(FIRST),
            "end_image_url": data_uri(LAST),
        },
        expect=_expect(resolution),
        unsupported=("resolution", "generate_audio", "seed", "enhance_prompt"),
        duration=8,
    )


CASES: list[ControlsCase] = [_case("veo-3.1", "1080p"), _case("veo-3.1-fast", "4k")]
