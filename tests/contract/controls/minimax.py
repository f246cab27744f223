"""MiniMax's controls (issue 13): `resolution` "768P"/"1080P", `prompt_optimizer`, and the
last frame as `last_frame_image` on MiniMax-Hailuo-02 (data URIs sent as they are)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = data_uri(png(640, 360)), data_uri(png(600, 360))
# MiniMax's V1 models have no negative prompt, seed or sound.
NONE_OF_THESE = ("negative_prompt", "seed", "generate_audio", "resolution")  # and no 480p


def _hailuo_23(sent: Mapping[str, Any]) -> None:
    assert (sent["model"], sent["resolution"], sent["duration"]) == (
        "MiniMax-Hailuo-2.3",
        "1080P",
        6,
    )
    assert sent["prompt_optimizer"] is False


def _fast(sent: Mapping[str, Any]) -> None:
    assert (sent["model"], sent["resolution"]) == ("MiniMax-Hailuo-2.3-Fast", "1080P")
    assert sent["first_frame_image"] == FIRST and sent["prompt_optimizer"] is False


def _first_and_last(sent: Mapping[str, Any]) -> None:
    assert (sent["model"], sent["resolution"], sent["duration"]) == (
        "MiniMax-Hailuo-02",
        "768P",
        10,
    )
    assert sent["first_frame_image"] == FIRST and sent["last_frame_image"] == LAST
    assert sent["prompt_optimizer"] is False


def _first_and_last_1080p(sent: Mapping[str, Any]) -> None:
    assert (sent["model"], sent["resolution"], sent["duration"]) == (
        "MiniMax-Hailuo-02",
        "1080P",
        6,
    )
    assert sent["first_frame_image"] == FIRST and sent["last_frame_image"] == LAST
    assert "prompt_optimizer" not in sent  # not asked: MiniMax's default (on) applies


CASES = [
    ControlsCase(
        "minimax",
        "hailuo-2.3",
        {"resolution": "1080p", "enhance_prompt": False},
        _hailuo_23,
        unsupported=(*NONE_OF_THESE, "end_image_url"),
        duration=6,
    ),
    ControlsCase(
        "minimax",
        "hailuo-2.3-fast",
        {"resolution": "1080p", "enhance_prompt": False, "image_url": FIRST},
        _fast,
        unsupported=(*NONE_OF_THESE, "end_image_url"),
        duration=6,
    ),
    ControlsCase(
        "minimax",
        "hailuo-02",
        {"image_url": FIRST, "end_image_url": LAST, "enhance_prompt": False},
        _first_and_last,
        unsupported=NONE_OF_THESE,
        duration=10,
    ),
    ControlsCase(
        "minimax",
        "hailuo-02",
        {"resolution": "1080p", "image_url": FIRST, "end_image_url": LAST},
        _first_and_last_1080p,
        duration=6,
    ),
]
