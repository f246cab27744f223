"""Luma: an edit by modify (`media.url`, a mode) and an extension of its own generation by
its id (`keyframes.frame0 = {type: generation}`), whose new clip the engine joins after the
source."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media

MODELS = ("ray-2", "ray-flash-2")


def _sent_modify(body: Mapping[str, Any], media: Media) -> None:
    assert body["generation_type"] == "modify_video" and body["mode"] == "flex_1"
    assert body["media"] == {"url": media.video} and body["model"] in MODELS


def _sent_extension(body: Mapping[str, Any], media: Media) -> None:
    frame = body["keyframes"]["frame0"]
    assert frame["type"] == "generation" and set(frame) == {"type", "id"}
    assert "aspect_ratio" not in body and body["duration"] == "5s"


CASES = [
    *(
        InputsCase(
            "luma",
            model,
            "video-to-video",
            lambda media: {},
            _sent_modify,
            source="url",
            path="/generations/video/modify",
        )
        for model in MODELS
    ),
    *(
        InputsCase(
            "luma",
            model,
            "video-extend",
            lambda media: {},
            _sent_extension,
            source="own",
            duration=5,
        )
        for model in MODELS
    ),
]
