"""xAI's Grok Imagine: the resolution always sent (xAI's own default is 480p), and on 1.5
`generate_audio: false`; no seed, negative prompt, end frame or prompt rewriting
(docs/providers/xai.md, "Controls")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.contract.controls import ControlsCase

NOTHING_ELSE = ("negative_prompt", "seed", "end_image_url", "enhance_prompt")


def _base(sent: Mapping[str, Any]) -> None:
    assert (sent["model"], sent["resolution"]) == ("grok-imagine-video", "480p")
    assert "generate_audio" not in sent  # sound is on by default at xAI


def _silent_1080p(sent: Mapping[str, Any]) -> None:
    assert (sent["model"], sent["resolution"]) == ("grok-imagine-video-1.5", "1080p")
    assert sent["generate_audio"] is False


CASES = [
    ControlsCase(
        "xai",
        "grok-imagine-video",
        {"resolution": "480p"},
        _base,
        unsupported=("resolution", "generate_audio", *NOTHING_ELSE),
        duration=4,
    ),
    ControlsCase(
        "xai",
        "grok-imagine-video-1.5",
        {"resolution": "1080p", "generate_audio": False},
        _silent_1080p,
        unsupported=("resolution", *NOTHING_ELSE),
        duration=4,
    ),
]
