"""Veo on the Gemini API: reference images inline as ASSET references (8 s clips), and an
extension of its own output by the `video.uri` of the operation that made it."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from tests.support.contract.inputs import InputsCase, Media


def _references(media: Media) -> Mapping[str, Any]:
    return {"references": [{"type": "image", "url": media.image}] * 2, "duration": 8}


def _sent_references(body: Mapping[str, Any], media: Media) -> None:
    instance = body["instances"][0]
    encoded = base64.b64encode(media.image_bytes).decode()
    image = {"bytesBase64Encoded": encoded, "mimeType": "image/png"}
    assert instance["referenceImages"] == [{"image": image, "referenceType": "ASSET"}] * 2
    assert "image" not in instance and body["parameters"]["durationSeconds"] == 8


def _sent_extension(body: Mapping[str, Any], media: Media) -> None:
    instance = body["instances"][0]
    assert set(instance) == {"prompt", "video"}
    assert instance["video"]["uri"].endswith(":download?alt=media")  # the source's own uri
    assert body["parameters"] == {"resolution": "720p"}


CASES = [
    InputsCase("veo", "veo-3.1", "reference-to-video", _references, _sent_references),
    *(
        InputsCase(
            "veo",
            model,
            "video-extend",
            lambda media: {},
            _sent_extension,
            source="own",
            duration=7,
        )
        for model in ("veo-3.1", "veo-3.1-fast")
    ),
]
