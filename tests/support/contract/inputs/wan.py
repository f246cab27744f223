"""Wan on DashScope: wan2.6-r2v `reference_urls` and wan2.7's `media` models (r2v, videoedit,
the i2v continuation, returned whole); wan2.1-vace-plus, an operator's model, is in
tests/test_inputs_wan.py (docs/providers/wan.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _refs(*kinds: str) -> Any:
    def body(m: Media) -> dict[str, Any]:
        urls = {"image": m.image, "video": m.video, "audio": m.audio}
        return {"references": [{"type": kind, "url": urls[kind]} for kind in kinds]}

    return body


def _expect_26(body: Mapping[str, Any], m: Media) -> None:
    assert body["model"] == "wan2.6-r2v"
    assert body["input"]["reference_urls"] == [m.image, m.video]
    assert body["parameters"]["size"] == "1280*720" and body["parameters"]["duration"] == 5


def _expect_27_r2v(body: Mapping[str, Any], m: Media) -> None:
    assert body["model"] == "wan2.7-r2v"
    assert body["input"]["media"] == [
        {"type": "reference_image", "url": m.image},
        {"type": "reference_video", "url": m.video},
    ]
    assert body["parameters"]["ratio"] == "16:9"


def _expect_27_edit(body: Mapping[str, Any], m: Media) -> None:
    assert body["model"] == "wan2.7-videoedit"
    assert body["input"]["media"] == [
        {"type": "video", "url": m.video},
        {"type": "reference_image", "url": m.image},
    ]
    assert "duration" not in body["parameters"]  # the source's length


def _expect_27_extend(body: Mapping[str, Any], m: Media) -> None:
    assert body["model"] == "wan2.7-i2v"
    assert body["input"]["media"] == [{"type": "first_clip", "url": m.video}]
    assert body["parameters"]["duration"] == 4  # the whole video: the 1 s source and 3 s more


CASES: list[InputsCase] = [
    InputsCase("wan", "wan-2.6", "reference-to-video", _refs("image", "video"), _expect_26),
    InputsCase("wan", "wan-2.7", "reference-to-video", _refs("image", "video"), _expect_27_r2v),
    InputsCase("wan", "wan-2.7", "video-to-video", _refs("image"), _expect_27_edit, source="url"),
    InputsCase(
        "wan", "wan-2.7", "video-extend", _refs(), _expect_27_extend, source="url", duration=3
    ),
]
