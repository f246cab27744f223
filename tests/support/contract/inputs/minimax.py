"""MiniMax: S2V-01's one subject image (`subject_reference`, a character), inline as a data
URI like MiniMax's first frames."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _sent_subject(body: Mapping[str, Any], media: Media) -> None:
    [subject] = body["subject_reference"]
    assert subject["type"] == "character"
    [image] = subject["image"]
    assert image == "data:image/png;base64," + base64.b64encode(media.image_bytes).decode()
    assert body["model"] == "S2V-01" and not {"duration", "resolution"} & set(body)


CASES = [
    InputsCase(
        "minimax",
        "s2v-01",
        "reference-to-video",
        lambda media: {"references": [{"type": "image", "url": media.image}]},
        _sent_subject,
    ),
]
