"""Vidu's reference-to-video (docs/providers/vidu.md): reference images as `images` on
/ent/v2/reference2video, with the aspect ratio."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _expect(body: Mapping[str, Any], media: Media) -> None:
    assert body["model"] == "viduq2"
    assert body["images"] == [media.image, media.image, media.image]
    assert (body["duration"], body["aspect_ratio"], body["resolution"]) == (4, "9:16", "720p")
    assert "subjects" not in body and "videos" not in body


CASES = [
    InputsCase(
        "vidu",
        "viduq2",
        "reference-to-video",
        lambda media: {
            "references": [{"type": "image", "url": media.image}] * 3,
            "duration": 4,
            "aspect_ratio": "9:16",
        },
        _expect,
        path="/ent/v2/reference2video",
    ),
]
