"""fal's typed apps: Seedance 2.0's reference-to-video (references, and edits and extensions
of @Video1), Wan 2.7's edit-video, Ray 2's modify, Veo 3.1's reference-to-video and
extend-video, Kling O3 / O1's reference-to-video and edit, and Vidu Q2's reference-to-video
(docs/providers/fal.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from tests.support.contract.inputs import InputsCase, Media

PROMPT = "a red fox runs through snow"


def _all_kinds(m: Media) -> dict[str, Any]:
    kinds = (("image", m.image), ("video", m.video), ("audio", m.audio), ("image", m.image))
    return {"references": [{"type": kind, "url": url} for kind, url in kinds]}


def _expect_refs(body: Mapping[str, Any], m: Media) -> None:
    assert body["image_urls"] == [m.image, m.image]
    assert body["video_urls"] == [m.video] and body["audio_urls"] == [m.audio]
    assert body["prompt"] == PROMPT and body["duration"] == "5"


def _expect_seedance_edit(body: Mapping[str, Any], m: Media) -> None:
    assert body["video_urls"] == [m.video] and body["image_urls"] == [m.image]
    assert body["prompt"] == "Edit @Video1: " + PROMPT
    assert body["duration"] == "auto"  # as long as the source


def _expect_seedance_extend(body: Mapping[str, Any], m: Media) -> None:
    assert body["video_urls"] == [m.video]
    assert body["prompt"] == "Extend @Video1: " + PROMPT and body["duration"] == "4"


def _expect_wan_edit(body: Mapping[str, Any], m: Media) -> None:
    assert body == {
        "prompt": PROMPT,
        "video_url": m.video,
        "reference_image_url": m.image,
        "resolution": "720p",
    }


def _expect_modify(body: Mapping[str, Any], m: Media) -> None:
    assert body == {"prompt": PROMPT, "video_url": m.video, "mode": "flex_1"}


def _image(m: Media) -> dict[str, Any]:
    return {"references": [{"type": "image", "url": m.image}]}


def _veo(body: Mapping[str, Any], m: Media) -> None:
    assert body == {
        "prompt": PROMPT,
        "image_urls": [m.image] * 3,
        "duration": "8s",
        "aspect_ratio": "16:9",
        "resolution": "720p",
        "generate_audio": True,
    }


def _veo_extend(body: Mapping[str, Any], m: Media) -> None:
    assert body == {
        "prompt": PROMPT,
        "video_url": m.video,
        "duration": "7s",  # no aspect ratio: "auto", the source's
        "resolution": "720p",
        "generate_audio": True,
    }


def _kling_refs(body: Mapping[str, Any], m: Media) -> None:
    assert body == {
        "prompt": PROMPT,
        "image_urls": [m.image, m.image],
        "duration": "5",
        "aspect_ratio": "16:9",
        "generate_audio": False,
    }


def _kling_edit(body: Mapping[str, Any], m: Media) -> None:
    # No duration, aspect ratio or audio switch: the edit is the source's length and sound.
    assert body == {
        "prompt": "Edit @Video1: " + PROMPT,
        "video_url": m.video,
        "image_urls": [m.image],
    }


def _kling_o1_edit(body: Mapping[str, Any], m: Media) -> None:
    assert body == {"prompt": "Edit @Video1: " + PROMPT, "video_url": m.video, "keep_audio": True}


def _image_and_video(m: Media) -> dict[str, Any]:
    return {"references": [{"type": "image", "url": m.image}, {"type": "video", "url": m.video}]}


def _vidu_refs(body: Mapping[str, Any], m: Media) -> None:
    assert body == {
        "prompt": PROMPT,
        "reference_image_urls": [m.image],
        "reference_video_urls": [m.video],
        "duration": 5,
        "resolution": "720p",
    }


def _images(count: int) -> Callable[[Media], dict[str, Any]]:
    return lambda m: {"references": [{"type": "image", "url": m.image}] * count}


def _none(m: Media) -> dict[str, Any]:
    return {}


def _case(
    model: str,
    kind: str,
    body: Callable[[Media], Mapping[str, Any]],
    expect: Callable[[Mapping[str, Any], Media], None],
    app: str,
    **more: Any,
) -> InputsCase:
    """A case whose typed submit goes to fal's `app`; an edit or extension of the media
    host's clip (`source="url"`) for those types."""
    source: Literal["url"] | None = "url" if kind in ("video-to-video", "video-extend") else None
    return InputsCase("fal", model, kind, body, expect, source=source, path=f"/{app}", **more)


R2V = "bytedance/seedance-2.0/reference-to-video"
KLING = "fal-ai/kling-video"
CASES: list[InputsCase] = [
    _case(
        "veo-3.1",
        "reference-to-video",
        _images(3),
        _veo,
        "fal-ai/veo3.1/reference-to-video",
        duration=8,
    ),
    _case("seedance-2", "reference-to-video", _all_kinds, _expect_refs, R2V),
    _case(
        "seedance-2-fast",
        "video-to-video",
        _image,
        _expect_seedance_edit,
        "bytedance/seedance-2.0/fast/reference-to-video",
    ),
    _case("seedance-2", "video-extend", _none, _expect_seedance_extend, R2V, duration=4),
    _case("wan-2.7", "video-to-video", _image, _expect_wan_edit, "fal-ai/wan/v2.7/edit-video"),
    _case(
        "ray-2", "video-to-video", _none, _expect_modify, "fal-ai/luma-dream-machine/ray-2/modify"
    ),
    _case("veo-3.1", "video-extend", _none, _veo_extend, "fal-ai/veo3.1/extend-video", duration=7),
    _case(
        "kling-v3-omni",
        "reference-to-video",
        _images(2),
        _kling_refs,
        f"{KLING}/o3/pro/reference-to-video",
    ),
    _case(
        "kling-v3-omni",
        "video-to-video",
        _image,
        _kling_edit,
        f"{KLING}/o3/pro/video-to-video/edit",
    ),
    _case("kling-o1", "video-to-video", _none, _kling_o1_edit, f"{KLING}/o1/video-to-video/edit"),
    _case(
        "viduq2",
        "reference-to-video",
        _image_and_video,
        _vidu_refs,
        "fal-ai/vidu/q2/reference-to-video/pro",
    ),
]
