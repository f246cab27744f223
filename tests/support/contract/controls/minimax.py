"""MiniMax's controls (issue 13): `resolution` "768P"/"1080P", `prompt_optimizer`, and the
last frame as `last_frame_image` on MiniMax-Hailuo-02 (data URIs sent as they are)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
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


def _first_and_last(
    resolution: str, duration: int, optimizer: bool | None
) -> Callable[[Mapping[str, Any]], None]:
    def expect(sent: Mapping[str, Any]) -> None:
        assert (sent["model"], sent["resolution"], sent["duration"]) == (
            "MiniMax-Hailuo-02",
            resolution,
            duration,
        )
        assert sent["first_frame_image"] == FIRST and sent["last_frame_image"] == LAST
        # Not asked (None): MiniMax's default (on) applies.
        assert sent.get("prompt_optimizer") is optimizer

    return expect


def _subject(sent: Mapping[str, Any]) -> None:
    assert sent["model"] == "S2V-01" and sent["prompt_optimizer"] is False
    assert sent["subject_reference"][0]["image"] == [FIRST]


def _one_frame_at_most(
    model: str, controls: Mapping[str, Any], expect: Callable[[Mapping[str, Any]], None]
) -> ControlsCase:
    """A 6-second case of a model without an end frame."""
    return ControlsCase(
        "minimax",
        model,
        controls,
        expect,
        unsupported=(*NONE_OF_THESE, "end_image_url"),
        duration=6,
    )


def _both_frames(
    controls: Mapping[str, Any],
    resolution: str,
    seconds: int,
    optimizer: bool | None,
    unsupported: tuple[str, ...] = (),
) -> ControlsCase:
    """Hailuo-02 from a first and a last frame, with `controls`."""
    return ControlsCase(
        "minimax",
        "hailuo-02",
        {"image_url": FIRST, "end_image_url": LAST, **controls},
        _first_and_last(resolution, seconds, optimizer),
        unsupported,
        seconds,
    )


CASES = [
    _one_frame_at_most("hailuo-2.3", {"resolution": "1080p", "enhance_prompt": False}, _hailuo_23),
    _one_frame_at_most(
        "hailuo-2.3-fast",
        {"resolution": "1080p", "enhance_prompt": False, "image_url": FIRST},
        _fast,
    ),
    _both_frames({"enhance_prompt": False}, "768P", 10, False, NONE_OF_THESE),
    _both_frames({"resolution": "1080p"}, "1080P", 6, None),
    _one_frame_at_most(
        "s2v-01",
        {"enhance_prompt": False, "references": [{"type": "image", "url": FIRST}]},
        _subject,
    ),
]
