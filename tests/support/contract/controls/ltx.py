"""LTX's controls: the tier and aspect ratio as one `resolution` "WxH", `generate_audio`
(LTX's default is sound on), the end frame as `last_frame_uri` (LTX-2.3); no seed, negative
prompt or prompt rewriting on this API."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = data_uri(png(640, 360)), data_uri(png(600, 400))
NEVER = ("negative_prompt", "seed", "enhance_prompt", "resolution")


def _sent(model: str, resolution: str, **more: Any) -> Callable[[Mapping[str, Any]], None]:
    def expect(sent: Mapping[str, Any]) -> None:
        assert (sent["model"], sent["resolution"]) == (model, resolution), sent
        assert sent["generate_audio"] is False and sent["fps"] == 24
        for name, value in more.items():
            assert sent[name] == value, name

    return expect


def _both_frames(model: str, resolution: str, size: str) -> ControlsCase:
    """A silent run of an LTX-2.3 model from a first and a last frame."""
    return ControlsCase(
        "ltx",
        model,
        {
            "resolution": resolution,
            "generate_audio": False,
            "image_url": FIRST,
            "end_image_url": LAST,
        },
        _sent(model.replace(".", "-"), size, image_uri=FIRST, last_frame_uri=LAST),
        unsupported=NEVER,
    )


CASES = [
    ControlsCase(
        "ltx",
        "ltx-2.5-fast",
        {"resolution": "4k", "generate_audio": False, "aspect_ratio": "9:16"},
        _sent("ltx-2-5-fast", "2160x3840"),
        unsupported=(*NEVER, "end_image_url"),
    ),
    ControlsCase(
        "ltx",
        "ltx-2.5-pro",
        {"resolution": "720p", "generate_audio": False},
        _sent("ltx-2-5-pro", "1280x720"),
        unsupported=(*NEVER, "end_image_url"),
    ),
    _both_frames("ltx-2.3-fast", "720p", "1280x720"),
    _both_frames("ltx-2.3-pro", "4k", "3840x2160"),
]
