"""The input types each provider maps (references, video-to-video, extend), one module per
provider: `<provider>.py` exporting `CASES: list[InputsCase]`.
`tests/contract/test_inputs.py` finds every module here by itself; adding a provider's types
is adding its file.

For each case the harness starts our service with that provider's fake (its `ProviderCase`
in tests/support/contract/cases.py, by name) and a media host (`MEDIA`: an image, a video and
a sound at loopback URLs, which the test settings let through the SSRF guard). Where the case
has a `source` of "own", a text-to-video generation of the case's model completes first and
the case's create names it (`video: {"generation_id": ...}`: what providers that extend only
their own output need); "url" names the media host's MP4 (`video: {"url": ...}`). Then it
POSTs `/v1/generations` {model, prompt, type, **body(media)}, waits for the fake's submit of
it (the last body in the fake's `submitted`), calls `expect` with that body and, where
`path` is set, checks that the submit went to a path containing it; then waits until the
generation completes (the typed job is polled and its video fetched the way the provider's
API answers for that operation) and, for `video-extend`, that the stored video is the whole
video: longer than the source.

`test_the_cases_cover_every_type_of_the_provider` counts the cases against the catalog:
every type beyond text-to-video that a route of the provider lists in `capabilities` needs a
case (model by model for a maker's own API, once per host for fal, Replicate and OpenRouter),
and every reference kind in a route's `max_references` needs a case that sends one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Media:
    """The media host's URLs (and the bytes it serves, for `expect` to compare)."""

    image: str  # a 640x360 PNG (providers refuse images under 300 px a side)
    image_bytes: bytes
    video: str  # a 1 s 320x180 H.264 MP4
    video_bytes: bytes
    audio: str  # a 1 s WAV
    audio_bytes: bytes


@dataclass(frozen=True)
class InputsCase:
    provider: str  # the ProviderCase name in tests/support/contract/cases.py
    model: str  # public model id
    type: str  # the generation type asked for
    body: Callable[[Media], Mapping[str, Any]]  # create fields beyond model, prompt and type
    expect: Callable[[Mapping[str, Any], Media], None]  # asserts on the submit body the fake got
    source: Literal["own", "url"] | None = None  # the `video` of a video-to-video or extend
    path: str | None = None  # a part of the path the typed submit goes to, where it differs
    duration: float | None = None  # the `duration` sent (extend: the seconds added)
