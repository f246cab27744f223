"""PixVerse's types (docs/providers/pixverse.md, "Types"): reference images through fusion
(each uploaded, then named in `image_references`), and the extension of a video the same
route made, by its PixVerse id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _refs(media: Media) -> dict[str, Any]:
    return {"references": [{"type": "image", "url": media.image}] * 2, "duration": 5}


def _expect_fusion(body: Mapping[str, Any], media: Media) -> None:
    refs = body["image_references"]
    assert [(r["type"], r["ref_name"]) for r in refs] == [("subject", "ref1"), ("subject", "ref2")]
    assert all(isinstance(r["img_id"], int) for r in refs)  # uploaded first
    assert (body["duration"], body["aspect_ratio"]) == (5, "16:9")


def _expect_extend(body: Mapping[str, Any], media: Media) -> None:
    assert isinstance(body["source_video_id"], int)  # the video this route made
    assert "video_media_id" not in body and "aspect_ratio" not in body
    assert body["duration"] == 5


def _fusion(model: str) -> InputsCase:
    return InputsCase(
        "pixverse", model, "reference-to-video", _refs, _expect_fusion, path="/video/fusion/"
    )


def _extend(model: str) -> InputsCase:
    return InputsCase(
        "pixverse",
        model,
        "video-extend",
        lambda media: {},
        _expect_extend,
        source="own",
        path="/video/extend/",
        duration=5,
    )


CASES = [
    _fusion("pixverse-v5.6"),
    _fusion("pixverse-v5.5"),
    _fusion("pixverse-v5"),
    _extend("pixverse-v6"),
    _extend("pixverse-v5.5"),
    _extend("pixverse-v5"),
]
