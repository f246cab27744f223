"""Replicate: Ray 2's edits by luma/modify-video (docs/providers/replicate.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _expect_modify(body: Mapping[str, Any], m: Media) -> None:
    assert body == {
        "prompt": "a red fox runs through snow",
        "video": m.video,
        "mode": "flex_1",
    }


CASES: list[InputsCase] = [
    InputsCase(
        "replicate",
        "ray-2",
        "video-to-video",
        lambda m: {},
        _expect_modify,
        source="url",
        path="/v1/models/luma/modify-video/predictions",
    ),
]
