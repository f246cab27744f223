"""Seedance 2.0 on Ark: references, edits and extensions as `content` items with reference
roles (docs/providers/seedance.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media

MODELS = {
    "seedance-2": "dreamina-seedance-2-0-260128",
    "seedance-2-fast": "dreamina-seedance-2-0-fast-260128",
    "seedance-2-mini": "dreamina-seedance-2-0-mini-260615",
}


def _media(body: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(item type, url, role) of each medium in the content, in order."""
    return [
        (item["type"], item[item["type"]]["url"], item["role"])
        for item in body["content"]
        if item["type"] != "text"
    ]


def _text(body: Mapping[str, Any]) -> str:
    return str(next(item["text"] for item in body["content"] if item["type"] == "text"))


def _references(m: Media) -> dict[str, Any]:
    kinds = (("image", m.image), ("video", m.video), ("audio", m.audio), ("image", m.image))
    return {"references": [{"type": kind, "url": url} for kind, url in kinds]}


def _expect_references(model: str) -> Any:
    def expect(body: Mapping[str, Any], m: Media) -> None:
        assert body["model"] == model
        assert _media(body) == [
            ("image_url", m.image, "reference_image"),
            ("video_url", m.video, "reference_video"),
            ("audio_url", m.audio, "reference_audio"),
            ("image_url", m.image, "reference_image"),
        ]
        assert _text(body) == "a red fox runs through snow"

    return expect


def _expect_source(model: str, lead: str, seconds: int) -> Any:
    def expect(body: Mapping[str, Any], m: Media) -> None:
        assert body["model"] == model
        assert _media(body) == [("video_url", m.video, "reference_video")]
        assert _text(body) == lead + "a red fox runs through snow"
        assert body["duration"] == seconds  # an edit: its 1 s source, raised to Ark's least

    return expect


CASES: list[InputsCase] = []
for _ours, _theirs in MODELS.items():
    CASES += [
        InputsCase(
            "seedance", _ours, "reference-to-video", _references, _expect_references(_theirs)
        ),
        *(
            InputsCase(
                "seedance",
                _ours,
                kind,
                lambda m: {},
                _expect_source(_theirs, label, seconds),
                source="url",
                duration=duration,
            )
            # An edit sends no duration: its 1 s source is raised to Ark's least (4 s).
            for kind, label, seconds, duration in (
                ("video-to-video", "Edit Video 1: ", 4, None),
                ("video-extend", "Extend Video 1: ", 5, 5),
            )
        ),
    ]
