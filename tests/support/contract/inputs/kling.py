"""Kling: the omni models' reference images and video and their edit of a video
(`omni-video`), kling-v1-6's reference images (`multi-image2video`) and its extension of
its own video by the video's id (`video-extend`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media

OMNI = ("kling-v3-omni", "kling-o1")


def _references(media: Media) -> Mapping[str, Any]:
    return {
        "references": [
            {"type": "image", "url": media.image},
            {"type": "image", "url": media.image},
            {"type": "video", "url": media.video},
        ]
    }


def _sent_references(body: Mapping[str, Any], media: Media) -> None:
    assert body["image_list"] == [{"image_url": media.image}] * 2  # no type: references
    assert body["video_list"] == [
        {"video_url": media.video, "refer_type": "feature", "keep_original_sound": "no"}
    ]
    assert body["duration"] == "5" and body["aspect_ratio"] == "16:9"


def _edit(media: Media) -> Mapping[str, Any]:
    return {"references": [{"type": "image", "url": media.image}]}


def _sent_edit(body: Mapping[str, Any], media: Media) -> None:
    assert body["video_list"] == [
        {"video_url": media.video, "refer_type": "base", "keep_original_sound": "yes"}
    ]
    assert body["image_list"] == [{"image_url": media.image}]
    assert "duration" not in body and "aspect_ratio" not in body  # the source's


def _multi(media: Media) -> Mapping[str, Any]:
    return {"references": [{"type": "image", "url": media.image}] * 3}


def _sent_multi(body: Mapping[str, Any], media: Media) -> None:
    assert body["model_name"] == "kling-v1-6"
    assert body["image_list"] == [{"image": media.image}] * 3


def _sent_extension(body: Mapping[str, Any], media: Media) -> None:
    assert set(body) == {"video_id", "prompt"}
    assert body["video_id"].startswith("v")  # the source video's id, not its task's


CASES = [
    *(
        InputsCase(
            "kling",
            model,
            "reference-to-video",
            _references,
            _sent_references,
            path="/v1/videos/omni-video",
        )
        for model in OMNI
    ),
    *(
        InputsCase(
            "kling",
            model,
            "video-to-video",
            _edit,
            _sent_edit,
            source="url",
            path="/v1/videos/omni-video",
        )
        for model in OMNI
    ),
    InputsCase(
        "kling",
        "kling-v1.6",
        "reference-to-video",
        _multi,
        _sent_multi,
        path="/v1/videos/multi-image2video",
    ),
    InputsCase(
        "kling",
        "kling-v1.6",
        "video-extend",
        lambda media: {},
        _sent_extension,
        source="own",
        duration=5,
        path="/v1/videos/video-extend",
    ),
]
