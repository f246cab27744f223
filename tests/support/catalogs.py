"""Operators' catalog entries the tests write (see docs/catalog.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

GATEWAY_MODEL = """
[[models]]
id = "{id}"
name = "{id}"
description = "An operator's model behind an OpenAI-style /v1/videos gateway."
provider = "Example Labs"
type = "text-to-video"
capabilities = ["text-to-video", "image-to-video"]
max_duration = 12
default_duration = 4
durations = [4, 8, 12]
aspect_ratios = ["16:9", "9:16"]
resolutions = ["720p", "1080p"]

  [[models.routes]]
  provider = "openai_videos"
  model = "{upstream}"
  price_per_second = 0.1
{route}
  [models.routes.options]
  base_url = "{base_url}/v1"
  api_key_env = "{key_env}"
  timeout_seconds = {timeout}
"""


def gateway_model(
    model_id: str,
    upstream: str,
    base_url: str,
    key_env: str,
    timeout: float,
    route: str = "",
    **options: str,
) -> str:
    """A model served by one OpenAI-style gateway; `route` is more route keys (TOML lines),
    `options` more route options (TOML values, written as given)."""
    text = GATEWAY_MODEL.format(
        id=model_id,
        upstream=upstream,
        base_url=base_url,
        key_env=key_env,
        timeout=timeout,
        route=route,
    )
    return text + "".join(f"  {name} = {value}\n" for name, value in options.items())


def local_model(
    model_id: str, price: float, route: Mapping[str, object] | None = None, **fields: object
) -> str:
    """A model served by the local renderer's `title-card` at `price` per second; `fields`
    are its other catalog keys (strings, numbers, lists and tables, as in docs/catalog.md),
    the provider Example Co unless one is given; `route` adds keys to its route."""
    fields = {"provider": "Example Co", **fields}
    lines = ["[[models]]", f"id = {json.dumps(model_id)}"]
    lines += [f"{name} = {_toml(value)}" for name, value in fields.items()]
    lines += ["  [[models.routes]]", '  provider = "local"', '  model = "title-card"']
    lines += [f"  {name} = {_toml(value)}" for name, value in (route or {}).items()]
    return "\n".join([*lines, f"  price_per_second = {price}", ""])


def _toml(value: object) -> str:
    """A TOML value: JSON's spelling, but for tables (inline)."""
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


TEXT_ONLY_MODEL = "local-text"
# The local renderer as a model that makes text-to-video only, for tests of what such a
# model refuses (an image, references, a source) now that `local-preview` takes every input.
TEXT_ONLY = local_model(
    TEXT_ONLY_MODEL,
    0.0,
    name="text only",
    max_duration=20,
    min_duration=0.5,
    capabilities=["text-to-video"],
    aspect_ratios=["16:9", "9:16", "1:1"],
)


def text_only_catalog(directory: Path) -> Path:
    """A catalog file (written in `directory`) adding `TEXT_ONLY`."""
    path = directory / "text-only.toml"
    path.write_text(TEXT_ONLY)
    return path
