"""Operators' catalog entries the tests write (see docs/catalog.md)."""

from __future__ import annotations

import json

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

  [models.routes.options]
  base_url = "{base_url}/v1"
  api_key_env = "{key_env}"
  timeout_seconds = {timeout}
"""


def gateway_model(
    model_id: str, upstream: str, base_url: str, key_env: str, timeout: float, **options: str
) -> str:
    """A model served by one OpenAI-style gateway; `options` are more route options (TOML
    values, written as given)."""
    text = GATEWAY_MODEL.format(
        id=model_id, upstream=upstream, base_url=base_url, key_env=key_env, timeout=timeout
    )
    return text + "".join(f"  {name} = {value}\n" for name, value in options.items())


def local_model(model_id: str, price: float, **fields: object) -> str:
    """A model served by the local renderer's `title-card` at `price` per second; `fields`
    are its other catalog keys (strings, numbers and lists, as in docs/catalog.md), the
    provider Example Co unless one is given."""
    fields = {"provider": "Example Co", **fields}
    lines = ["[[models]]", f"id = {json.dumps(model_id)}"]
    lines += [f"{name} = {json.dumps(value)}" for name, value in fields.items()]
    lines += ["  [[models.routes]]", '  provider = "local"', '  model = "title-card"']
    return "\n".join([*lines, f"  price_per_second = {price}", ""])
