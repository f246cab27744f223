"""LTX's source types (docs/providers/ltx.md, "Types"): a retake of the whole source
(video-to-video) and an extension at its end, on LTX-2.3 Pro, each polled at the segment
that created it."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _inline(body: Mapping[str, Any], media: Media) -> None:
    # A loopback URL is nothing LTX could fetch (domain names only): the video goes inline.
    header, _, payload = body["video_uri"].partition(",")
    assert header == "data:video/mp4;base64"
    assert base64.b64decode(payload) == media.video_bytes


def _expect_retake(body: Mapping[str, Any], media: Media) -> None:
    _inline(body, media)
    assert (body["model"], body["start_time"], body["duration"]) == ("ltx-2-3-pro", 0, 2)
    assert "resolution" not in body and "generate_audio" not in body


def _expect_extend(body: Mapping[str, Any], media: Media) -> None:
    assert body["video_uri"].startswith("data:video/mp4;base64,")
    assert (body["model"], body["duration"], body["mode"]) == ("ltx-2-3-pro", 6, "end")


CASES = [
    InputsCase(
        "ltx",
        "ltx-2.3-pro",
        "video-to-video",
        lambda media: {},
        _expect_retake,
        source="url",
        path="/v2/retake",
    ),
    InputsCase(
        "ltx",
        "ltx-2.3-pro",
        "video-extend",
        lambda media: {},
        _expect_extend,
        source="own",
        path="/v2/extend",
        duration=6,
    ),
]
