"""Seedance on ModelArk: each model's controls as Ark's create body carries them
(docs/providers/seedance.md, "Controls")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import data_uri, png

FIRST, LAST = data_uri(png(640, 360)), data_uri(png(640, 400))
NEVER = ("negative_prompt", "enhance_prompt")  # Ark has neither


def ark(
    resolution: str, seed: int, audio: bool | None, last_frame: bool
) -> Callable[[Mapping[str, Any]], None]:
    """Asserts Ark's fields: `resolution`, `seed`, `generate_audio` (absent where None) and
    the frames' roles in `content`."""

    def expect(body: Mapping[str, Any]) -> None:
        assert body["resolution"] == resolution
        assert body["seed"] == seed
        assert body.get("generate_audio") is audio
        roles = [item.get("role") for item in body["content"][1:]]
        assert roles == (["first_frame", "last_frame"] if last_frame else []), roles
        if last_frame:
            assert body["content"][2]["image_url"]["url"] == LAST

    return expect


CASES = [
    ControlsCase(
        provider="seedance",
        model="seedance-1-pro",
        body={"resolution": "720p", "seed": 7, "image_url": FIRST, "end_image_url": LAST},
        expect=ark("720p", 7, None, last_frame=True),
        unsupported=(*NEVER, "generate_audio", "resolution"),
    ),
    ControlsCase(
        provider="seedance",
        model="seedance-1-pro-fast",
        body={"resolution": "480p", "seed": 0},
        expect=ark("480p", 0, None, last_frame=False),
        unsupported=(*NEVER, "generate_audio", "end_image_url", "resolution"),
    ),
    ControlsCase(
        provider="seedance",
        model="seedance-1.5-pro",
        body={
            "resolution": "1080p",
            "generate_audio": False,
            "seed": 4_294_967_295,
            "image_url": FIRST,
            "end_image_url": LAST,
        },
        expect=ark("1080p", 4_294_967_295, False, last_frame=True),
        unsupported=(*NEVER, "resolution"),
    ),
    ControlsCase(
        provider="seedance",
        model="seedance-2-fast",
        body={"resolution": "480p", "generate_audio": False, "seed": 12345},
        expect=ark("480p", 12345, False, last_frame=False),
        unsupported=(*NEVER, "resolution"),  # 1080p: 720p at most
        duration=4,
    ),
    ControlsCase(
        provider="seedance",
        model="seedance-2-fast",
        body={"image_url": FIRST, "end_image_url": LAST, "seed": 1},
        expect=ark("720p", 1, True, last_frame=True),
        duration=4,
    ),
    ControlsCase(
        provider="seedance",
        model="seedance-2",
        body={
            "resolution": "1080p",
            "generate_audio": False,
            "seed": 99,
            "image_url": FIRST,
            "end_image_url": LAST,
        },
        expect=ark("1080p", 99, False, last_frame=True),
        unsupported=(*NEVER, "resolution"),  # 4k
        duration=15,
    ),
    ControlsCase(
        provider="seedance",
        model="seedance-2-mini",
        body={
            "resolution": "480p",
            "generate_audio": False,
            "seed": 3,
            "image_url": FIRST,
            "end_image_url": LAST,
        },
        expect=ark("480p", 3, False, last_frame=True),
        unsupported=(*NEVER, "resolution"),  # 1080p: 720p at most
        duration=6,
    ),
]
