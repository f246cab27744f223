"""xAI's types (docs/providers/xai.md): reference images on /v1/videos/generations, edits on
/v1/videos/edits, extensions (the seconds added, returned whole) on /v1/videos/extensions."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _refs(media: Media, count: int) -> dict[str, Any]:
    return {"references": [{"type": "image", "url": media.image}] * count}


def _expect_references(count: int) -> Any:
    def expect(body: Mapping[str, Any], media: Media) -> None:
        assert body["reference_images"] == [{"url": media.image}] * count
        assert "image" not in body and body["duration"] == 5
        assert body["resolution"] == "720p"

    return expect


def _expect_edit(body: Mapping[str, Any], media: Media) -> None:
    # An edit follows its input: no duration, aspect ratio or resolution.
    assert body["video"] == {"url": media.video}
    assert set(body) == {"model", "prompt", "video"}


def _expect_extension(body: Mapping[str, Any], media: Media) -> None:
    # The source is our own generation, which this loopback server cannot hand out by URL:
    # the video goes inline.
    header, _, payload = body["video"]["url"].partition(",")
    assert header == "data:video/mp4;base64"
    assert base64.b64decode(payload)[4:8] == b"ftyp"
    assert body["duration"] == 3
    assert set(body) == {"model", "prompt", "video", "duration"}


def _references_case(model: str, count: int) -> InputsCase:
    """A 5-second run of `model` from `count` reference images."""
    return InputsCase(
        "xai",
        model,
        "reference-to-video",
        lambda media: {**_refs(media, count), "duration": 5},
        _expect_references(count),
        path="/v1/videos/generations",
    )


CASES = [
    _references_case("grok-imagine-video", 2),
    InputsCase(
        "xai",
        "grok-imagine-video",
        "video-to-video",
        lambda media: {},
        _expect_edit,
        source="url",
        path="/v1/videos/edits",
    ),
    InputsCase(
        "xai",
        "grok-imagine-video",
        "video-extend",
        lambda media: {},
        _expect_extension,
        source="own",
        path="/v1/videos/extensions",
        duration=3,
    ),
    _references_case("grok-imagine-video-1.5", 7),
]
