"""OpenRouter's `input_references`: images for Veo 3.1, images, videos and sounds for Seedance
2.0, whose edits and extensions send the source as the first video reference
(docs/providers/openrouter.md). The case's settings give our content host a public https
URL, so media reach OpenRouter as signed URLs of our copies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media

PROMPT = "a red fox runs through snow"
HOST = "https://videos.example.com/"


def _kinds(body: Mapping[str, Any]) -> list[str]:
    refs = body["input_references"]
    for ref in refs:
        assert ref[ref["type"]]["url"].startswith(HOST), ref  # our signed copy
    return [ref["type"] for ref in refs]


def _all_kinds(m: Media) -> dict[str, Any]:
    kinds = (("image", m.image), ("video", m.video), ("audio", m.audio))
    return {"references": [{"type": kind, "url": url} for kind, url in kinds]}


def _images(m: Media) -> dict[str, Any]:
    return {"references": [{"type": "image", "url": m.image}] * 3}


def _expect_veo(body: Mapping[str, Any], m: Media) -> None:
    assert body["model"] == "google/veo-3.1"
    assert _kinds(body) == ["image_url"] * 3 and "frame_images" not in body


def _expect_seedance(body: Mapping[str, Any], m: Media) -> None:
    assert body["model"] == "bytedance/seedance-2.0"
    assert _kinds(body) == ["image_url", "video_url", "audio_url"]
    assert body["prompt"] == PROMPT


def _expect_source(lead: str, seconds: int) -> Any:
    def expect(body: Mapping[str, Any], m: Media) -> None:
        assert _kinds(body) == ["video_url"]
        assert body["prompt"] == lead + PROMPT and body["duration"] == seconds

    return expect


CASES: list[InputsCase] = [
    InputsCase("openrouter", "veo-3.1", "reference-to-video", _images, _expect_veo, duration=8),
    InputsCase("openrouter", "seedance-2", "reference-to-video", _all_kinds, _expect_seedance),
    InputsCase(
        "openrouter",
        "seedance-2-fast",
        "video-to-video",
        lambda m: {},
        _expect_source("Edit Video 1: ", 4),
        source="own",
    ),
    InputsCase(
        "openrouter",
        "seedance-2-mini",
        "video-extend",
        lambda m: {},
        _expect_source("Extend Video 1: ", 5),
        source="url",
        duration=5,
    ),
]
