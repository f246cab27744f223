"""Kling's controls (issue 13): `mode` std/pro for 720p/1080p, `sound` on/off,
`negative_prompt`, and the end frame as `image_tail` (raw base64, no `data:` prefix)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = png(400, 400), png(480, 400)


def _tail(sent: Mapping[str, Any]) -> bytes:
    return base64.b64decode(sent["image_tail"], validate=True)


def _v3(sent: Mapping[str, Any]) -> None:
    assert (sent["model_name"], sent["mode"], sent["sound"]) == ("kling-v3", "std", "on")
    assert sent["negative_prompt"] == "blurry, text"
    assert base64.b64decode(sent["image"], validate=True) == FIRST and _tail(sent) == LAST


def _v26_sound(sent: Mapping[str, Any]) -> None:
    assert (sent["model_name"], sent["mode"], sent["sound"]) == ("kling-v2-6", "pro", "on")
    assert sent["negative_prompt"] == "low quality" and "image_tail" not in sent


def _v26_end_frame(sent: Mapping[str, Any]) -> None:
    assert (sent["mode"], sent["sound"]) == ("pro", "off") and _tail(sent) == LAST


def _turbo_720p(sent: Mapping[str, Any]) -> None:
    assert (sent["model_name"], sent["mode"]) == ("kling-v2-5-turbo", "std")
    assert sent["negative_prompt"] == "blur" and "sound" not in sent


def _turbo_end_frame(sent: Mapping[str, Any]) -> None:
    assert sent["mode"] == "pro" and _tail(sent) == LAST


def _master(sent: Mapping[str, Any]) -> None:
    assert sent["model_name"] == "kling-v2-1-master" and sent["negative_prompt"] == "blur"
    assert "mode" not in sent and "sound" not in sent  # one tier, no sound


def _v3_omni(sent: Mapping[str, Any]) -> None:
    assert (sent["model_name"], sent["mode"], sent["sound"]) == ("kling-v3-omni", "std", "on")
    assert "negative_prompt" not in sent and "image_list" not in sent


def _o1(sent: Mapping[str, Any]) -> None:
    assert (sent["model_name"], sent["mode"]) == ("kling-video-o1", "std")
    assert "sound" not in sent


def _v16(sent: Mapping[str, Any]) -> None:
    assert (sent["model_name"], sent["mode"]) == ("kling-v1-6", "std")
    assert sent["negative_prompt"] == "blur"


FRAMES = {"image_url": data_uri(FIRST), "end_image_url": data_uri(LAST)}
NO_SEED = ("seed", "enhance_prompt", "resolution")  # Kling has neither; nor 480p

CASES = [
    ControlsCase(
        "kling",
        "kling-v3",
        {
            "resolution": "720p",
            "generate_audio": True,
            "negative_prompt": "blurry, text",
            **FRAMES,
        },
        _v3,
        unsupported=NO_SEED,
        duration=4,
    ),
    ControlsCase(
        "kling",
        "kling-v2.6",
        {"resolution": "1080p", "generate_audio": True, "negative_prompt": "low quality"},
        _v26_sound,
        unsupported=NO_SEED,
    ),
    ControlsCase("kling", "kling-v2.6", FRAMES, _v26_end_frame),
    ControlsCase(
        "kling",
        "kling-v2.5-turbo",
        {"resolution": "720p", "negative_prompt": "blur"},
        _turbo_720p,
        unsupported=(*NO_SEED, "generate_audio"),
        duration=10,
    ),
    ControlsCase("kling", "kling-v2.5-turbo", FRAMES, _turbo_end_frame),
    ControlsCase(
        "kling",
        "kling-v2.1-master",
        {"negative_prompt": "blur"},
        _master,
        unsupported=(*NO_SEED, "generate_audio", "end_image_url"),
    ),
    ControlsCase(
        "kling",
        "kling-v3-omni",
        {"resolution": "720p", "generate_audio": True},
        _v3_omni,
        unsupported=(*NO_SEED, "negative_prompt", "end_image_url"),
    ),
    ControlsCase(
        "kling",
        "kling-o1",
        {"resolution": "720p"},
        _o1,
        unsupported=(*NO_SEED, "generate_audio", "negative_prompt", "end_image_url"),
    ),
    ControlsCase(
        "kling",
        "kling-v1.6",
        {"resolution": "720p", "negative_prompt": "blur"},
        _v16,
        unsupported=(*NO_SEED, "generate_audio", "end_image_url"),
    ),
]
