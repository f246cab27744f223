"""Wan's controls (issue 13) on DashScope: the tier as `parameters.resolution` or, for
legacy text-to-video, the tier's `parameters.size`; `input.negative_prompt`,
`parameters.seed`, `parameters.prompt_extend`, `parameters.audio` (wan2.6) and the last
frame as a `last_frame` media item (wan2.7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = data_uri(png(640, 360)), data_uri(png(600, 400))
TEXT_CONTROLS = {
    "negative_prompt": "blurry, watermark",
    "seed": 2_147_483_647,
    "enhance_prompt": False,
}


def _texts(sent: Mapping[str, Any]) -> None:
    assert sent["input"]["negative_prompt"] == "blurry, watermark"
    params = sent["parameters"]
    assert params["seed"] == 2_147_483_647 and params["prompt_extend"] is False


def _wan25_1080p(sent: Mapping[str, Any]) -> None:
    assert sent["model"] == "wan2.5-t2v-preview" and sent["parameters"]["size"] == "1920*1080"
    assert "audio" not in sent["parameters"]  # 2.5 always makes sound: no switch sent
    _texts(sent)


def _wan25_480p_image(sent: Mapping[str, Any]) -> None:
    assert sent["model"] == "wan2.5-i2v-preview" and sent["input"]["img_url"] == FIRST
    assert sent["parameters"]["resolution"] == "480P" and "size" not in sent["parameters"]


def _wan26_silent(sent: Mapping[str, Any]) -> None:
    assert sent["model"] == "wan2.6-t2v"
    assert sent["parameters"]["size"] == "1080*1920" and sent["parameters"]["audio"] is False
    _texts(sent)


def _wan27_frames(sent: Mapping[str, Any]) -> None:
    assert sent["model"] == "wan2.7-i2v"
    assert sent["input"]["media"] == [
        {"type": "first_frame", "url": FIRST},
        {"type": "last_frame", "url": LAST},
    ]
    assert sent["parameters"]["resolution"] == "1080P" and "ratio" not in sent["parameters"]
    _texts(sent)


CASES = [
    ControlsCase(
        "wan",
        "wan-2.5",
        {"resolution": "1080p", **TEXT_CONTROLS},
        _wan25_1080p,
        unsupported=("generate_audio", "end_image_url", "resolution"),
        duration=5,
    ),
    ControlsCase("wan", "wan-2.5", {"resolution": "480p", "image_url": FIRST}, _wan25_480p_image),
    ControlsCase(
        "wan",
        "wan-2.6",
        {"resolution": "1080p", "generate_audio": False, "aspect_ratio": "9:16", **TEXT_CONTROLS},
        _wan26_silent,
        unsupported=("end_image_url", "resolution"),
    ),
    ControlsCase(
        "wan",
        "wan-2.7",
        {"resolution": "1080p", "image_url": FIRST, "end_image_url": LAST, **TEXT_CONTROLS},
        _wan27_frames,
        unsupported=("generate_audio", "resolution"),
        duration=3,
    ),
]
