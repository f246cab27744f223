"""Runway: Aleph 2's edit of a video on /v1/video_to_video; a source this server cannot hand
out by URL (the media host is a loopback one) goes inline as a data URI."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _sent_edit(body: Mapping[str, Any], media: Media) -> None:
    assert body["model"] == "aleph2" and body["promptText"]
    header, _, payload = body["videoUri"].partition(",")
    assert header == "data:video/mp4;base64"
    assert base64.b64decode(payload)[4:8] == b"ftyp"
    assert "ratio" not in body and "duration" not in body  # the source's


CASES = [
    InputsCase(
        "runway",
        "aleph-2",
        "video-to-video",
        lambda media: {},
        _sent_edit,
        source="url",
        path="/v1/video_to_video",
    ),
]
