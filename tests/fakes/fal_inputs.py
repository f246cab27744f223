"""fal's typed apps for references, edits and extensions, as their schemas describe them
(shared/providers/inputs.md "fal": fal-js generated endpoint types @381105e1 and the apps'
API pages, and each app's fal.ai llms.txt / model-api-reference page read 2026-11-28). Each
is an `App(**spec)` in tests/fakes/fal.py: its own fields only, the required ones
(`required`), lists of URLs with their most (`Urls`); an undocumented field is refused with
fal's 422 `extra_forbidden`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Urls:
    """A list of 1 to `most` URLs (http(s) or data:)."""

    most: int

    def problem(self, value: object) -> str | None:
        if not isinstance(value, list) or not value:
            return "Input should be a valid list"
        if len(value) > self.most:
            return f"List should have at most {self.most} items after validation"
        if not all(
            isinstance(v, str) and v.startswith(("https://", "http://", "data:")) for v in value
        ):
            return "Input should be a valid URL"
        return None


URL = "url"
SEEDANCE_R2V = {
    "image_urls": Urls(9),
    "video_urls": Urls(3),
    "audio_urls": Urls(3),
    "duration": ("auto", *(str(s) for s in range(4, 16))),
    "resolution": ("480p", "720p", "1080p"),
    "generate_audio": bool,
    "seed": int,
}
_SEEDANCE = {
    "durations": (),
    "ratios": ("21:9", "16:9", "4:3", "1:1", "3:4", "9:16", "auto"),
    "inputs": SEEDANCE_R2V,
}
LUMA_MODES = tuple(f"{m}_{n}" for m in ("adhere", "flex", "reimagine") for n in (1, 2, 3))
# Veo 3.1's extend-video (+ /fast): a source of at most 8 s (720p / 1080p), +7 s ("7s"), the
# whole video back (`output_seconds`: the source and its extension, in the fake's scale).
_VEO_EXTEND = {
    "durations": (7,),
    "duration_kind": "seconds",
    "ratios": ("auto", "16:9", "9:16"),
    "required": ("video_url",),
    "output_seconds": 2.0,
    "inputs": {
        "video_url": URL,
        "resolution": ("720p", "1080p"),
        "negative_prompt": str,
        "seed": int,
        "generate_audio": bool,
        "auto_fix": bool,
        "safety_tolerance": tuple(str(n) for n in range(1, 7)),
    },
}
# Kling O3 / O1 (Pro): references as @Image1... (7 at most, 4 beside a video), elements as
# @Element1...; an edit takes its source as @Video1 and no duration (the source's length).
_KLING_REF = {
    "image_urls": Urls(7),
    "elements": list,
    "start_image_url": URL,
    "end_image_url": URL,
    "multi_prompt": list,
    "shot_type": str,
}
_KLING_EDIT = {
    "durations": (),
    "takes_duration": False,
    "ratios": None,
    "required": ("video_url",),
    "inputs": {"video_url": URL, "image_urls": Urls(4), "elements": list, "keep_audio": bool},
}
TYPED_APPS: dict[str, dict[str, Any]] = {
    "bytedance/seedance-2.0/reference-to-video": _SEEDANCE,
    "bytedance/seedance-2.0/fast/reference-to-video": _SEEDANCE,
    "fal-ai/veo3.1/reference-to-video": {
        "durations": (8,),
        "duration_kind": "seconds",
        "ratios": ("16:9", "9:16"),
        "required": ("image_urls",),
        "inputs": {
            "image_urls": Urls(3),
            "resolution": ("720p", "1080p", "4k"),
            "generate_audio": bool,
            "safety_tolerance": tuple(str(n) for n in range(1, 7)),
            "auto_fix": bool,
        },
    },
    "fal-ai/wan/v2.7/edit-video": {
        "durations": (),
        "ratios": None,
        "required": ("video_url",),
        "inputs": {
            "video_url": URL,
            "reference_image_url": URL,
            "audio_setting": ("auto", "origin"),
            "duration": (0, *range(2, 11)),
            "resolution": ("720p", "1080p"),
        },
    },
    "fal-ai/veo3.1/extend-video": _VEO_EXTEND,
    "fal-ai/veo3.1/fast/extend-video": _VEO_EXTEND,
    "fal-ai/kling-video/o3/pro/reference-to-video": {
        "durations": tuple(range(3, 16)),
        "ratios": ("16:9", "9:16", "1:1"),
        "inputs": {**_KLING_REF, "generate_audio": bool},
    },
    "fal-ai/kling-video/o3/pro/video-to-video/edit": _KLING_EDIT,
    "fal-ai/kling-video/o1/reference-to-video": {
        "durations": tuple(range(3, 11)),
        "ratios": ("16:9", "9:16", "1:1"),
        "inputs": _KLING_REF,
    },
    "fal-ai/kling-video/o1/video-to-video/edit": _KLING_EDIT,
    # Vidu Q2 Pro: 1-7 images, or 4 beside 1-2 videos ("video editing or motion reference").
    "fal-ai/vidu/q2/reference-to-video/pro": {
        "durations": (),
        "duration_kind": "integer",
        "ratios": None,
        "inputs": {
            "reference_image_urls": Urls(7),
            "reference_video_urls": Urls(2),
            "resolution": ("540p", "720p", "1080p"),
            "bgm": bool,
            "movement_amplitude": ("auto", "small", "medium", "large"),
        },
    },
    "fal-ai/luma-dream-machine/ray-2/modify": {
        "durations": (),
        "takes_duration": False,
        "ratios": None,
        "required": ("video_url",),
        "inputs": {"video_url": URL, "image_url": URL, "mode": LUMA_MODES},
    },
}
