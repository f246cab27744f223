"""An OpenAI-style gateway's extensions: `POST /videos/extensions` of the gateway's own video
by its id, answered whole (docs/providers/openai_videos.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _expect_extension(body: Mapping[str, Any], m: Media) -> None:
    assert set(body) == {"prompt", "seconds", "video"}
    assert body["prompt"] == "a red fox runs through snow" and body["seconds"] == "4"
    assert body["video"]["id"].startswith("video_")  # the upstream's id of the source


CASES: list[InputsCase] = [
    InputsCase(
        "openai_videos",
        "gateway-clip",
        "video-extend",
        lambda m: {},
        _expect_extension,
        source="own",
        path="/v1/videos/extensions",
        duration=4,
    ),
]
