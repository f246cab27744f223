"""Schemathesis hooks (loaded by `SCHEMATHESIS_HOOKS`) for what a JSON Schema cannot say.

A multipart file part is `format: binary`: any bytes, to a fuzzer. `/v1/videos` takes an
`input_reference` file only when it is a PNG or JPEG (its description and its encoding's
`contentType` say so), so the fuzzer's file is a real PNG.

An input given by URL (`image_url`, `end_image_url`, a reference's or the source's `url`)
must name a host that resolves and serves that kind of media: a `400` otherwise, at accept
wherever the input is kept then. A schema can say "a URI", not "a reachable image", so an
http(s) URL the fuzzer drew becomes a data: URI of a real PNG (or MP4 for a video); every
other field, and every data: URI it drew, stays as drawn."""

from __future__ import annotations

from typing import Any

import schemathesis

from tests.fakes.base import sample_mp4
from tests.support.images import data_uri, png

_IMAGE = png(8, 8)
_IMAGE_URI = data_uri(_IMAGE)
_VIDEO_URI = data_uri(sample_mp4(0.5, 64, 36), "video/mp4")
_IMAGE_FIELDS = ("image_url", "end_image_url")


def _remote(value: Any) -> bool:
    return isinstance(value, str) and not value.startswith("data:")


def _reachable(body: dict[str, Any]) -> None:
    for name in _IMAGE_FIELDS:
        if _remote(body.get(name)):
            body[name] = _IMAGE_URI
    reference = body.get("input_reference")
    if isinstance(reference, dict):
        _reachable(reference)
    references = body.get("references")
    for item in references if isinstance(references, list) else ():
        if isinstance(item, dict) and _remote(item.get("url")):
            if item.get("type") == "image":
                item["url"] = _IMAGE_URI
            elif item.get("type") == "video":
                item["url"] = _VIDEO_URI
    video = body.get("video")
    if isinstance(video, dict) and _remote(video.get("url")):
        video["url"] = _VIDEO_URI


@schemathesis.hook
def map_body(context: Any, body: Any) -> Any:
    if not isinstance(body, dict):
        return body
    # The multipart file: the JSON form of input_reference is an object or null.
    if body.get("input_reference") is not None and not isinstance(body["input_reference"], dict):
        body["input_reference"] = _IMAGE
    _reachable(body)
    return body
