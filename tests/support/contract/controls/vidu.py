"""Vidu Q3: resolution, `audio` (our generate_audio), `seed`, and the end frame, which makes
the request a start-end-to-video one (`images` = [start, end], data URIs with their prefix);
no negative prompt or prompt rewriting (docs/providers/vidu.md, "Controls")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = data_uri(png(64, 36)), data_uri(png(64, 40))


def _expect(model: str, resolution: str) -> Callable[[Mapping[str, Any]], None]:
    def expect(sent: Mapping[str, Any]) -> None:
        assert (sent["model"], sent["resolution"]) == (model, resolution)
        assert (sent["audio"], sent["seed"]) == (False, 42)
        assert sent["images"] == [FIRST, LAST] and "aspect_ratio" not in sent

    return expect


def _case(model: str, resolution: str) -> ControlsCase:
    return ControlsCase(
        "vidu",
        model,
        {
            "resolution": resolution,
            "generate_audio": False,
            "seed": 42,
            "image_url": FIRST,
            "end_image_url": LAST,
        },
        _expect(model, resolution),
        unsupported=("resolution", "negative_prompt", "enhance_prompt"),
        duration=4,
    )


CASES = [_case("viduq3-pro", "1080p"), _case("viduq3-turbo", "540p")]


def _expect_q2(sent: Mapping[str, Any]) -> None:
    assert (sent["model"], sent["resolution"], sent["seed"]) == ("viduq2", "1080p", 42)
    assert sent["aspect_ratio"] == "16:9" and "images" not in sent


# Vidu Q2 (text-to-video here): no sound to switch, no end frame.
CASES.append(
    ControlsCase(
        "vidu",
        "viduq2",
        {"resolution": "1080p", "seed": 42},
        _expect_q2,
        unsupported=(
            "resolution",
            "negative_prompt",
            "enhance_prompt",
            "generate_audio",
            "end_image_url",
        ),
        duration=4,
    )
)
