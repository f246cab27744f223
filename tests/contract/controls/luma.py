"""Luma's Dream Machine API: the resolution and the end frame (`keyframes.frame1`), with
non-default values (docs/providers/luma.md, "Controls")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.contract.controls import ControlsCase

# Luma fetches keyframes itself: the fake tries these (nothing listens there, so the job fails
# after the create), but the body it accepted is what the case checks.
START, END = "http://127.0.0.1:9/start.png", "http://127.0.0.1:9/end.png"


def _expect(resolution: str) -> Callable[[Mapping[str, Any]], None]:
    def expect(body: Mapping[str, Any]) -> None:
        assert body["resolution"] == resolution
        assert body["keyframes"] == {
            "frame0": {"type": "image", "url": START},
            "frame1": {"type": "image", "url": END},
        }
        assert not {"seed", "negative_prompt", "audio", "generate_audio"} & set(body)

    return expect


def _case(model: str, resolution: str) -> ControlsCase:
    return ControlsCase(
        provider="luma",
        model=model,
        body={"resolution": resolution, "image_url": START, "end_image_url": END},
        expect=_expect(resolution),
        unsupported=(
            "resolution",
            "generate_audio",
            "negative_prompt",
            "seed",
            "enhance_prompt",
        ),
        duration=9,
    )


CASES: list[ControlsCase] = [_case("ray-2", "1080p"), _case("ray-flash-2", "540p")]
