"""What OpenRouter publishes about its video models (`GET /v1/videos/models`), for `vidrouter
catalog check`: durations, aspect ratios and a price per second from `pricing_skus`, priced
at the resolution and audio setting our routes ask for."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.generation import JsonScalar
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.openrouter.adapter import NAME, OUR_RATIOS, attribution_headers

# Frame areas behind Seedance's per-token prices (tokens = w x h x 24 fps / 1024 per second).
_FRAME_AREAS = {"480p": 854 * 480, "720p": 1280 * 720, "1080p": 1920 * 1080, "4k": 3840 * 2160}
_MODES = ("text_to_video", "image_to_video")
_AUDIO_PARTS = {True: "_with_audio", False: "_without_audio"}
# (SKU stem, USD per unit) of the SKUs priced per second of output video.
_SECOND_SKUS = (
    ("duration_seconds", 1.0),
    ("cents_per_second_output", 0.01),
    ("cents_per_video_output_second", 0.01),
)


def price_per_second(
    skus: Mapping[str, Any], resolution: str | None = None, audio: bool | None = None
) -> float | None:
    """USD per second of a clip at `resolution`, with or without audio (None: the model's
    default), from OpenRouter's `pricing_skus`: the dearer of text- and image-to-video."""
    prices = [p for p in (_sku_price(skus, resolution, audio, m) for m in _MODES) if p is not None]
    return round(max(prices), 6) if prices else None


def _sku_price(
    skus: Mapping[str, Any], resolution: str | None, audio: bool | None, mode: str
) -> float | None:
    res = resolution.lower() if resolution else None
    audio_parts = ["", "_with_audio"] if audio is None else [_AUDIO_PARTS[audio], ""]
    for aud in audio_parts:
        for part in ([f"_{res}"] if res else []) + [""]:
            for prefix in (f"{mode}_", ""):
                for stem, unit in _SECOND_SKUS:
                    value = _number(skus.get(f"{prefix}{stem}{aud}{part}"))
                    if value is not None:
                        return value * unit
                value = _number(skus.get(f"{prefix}video_tokens{aud}{part}"))
                if value is not None:
                    return value * _FRAME_AREAS.get(res or "720p", _FRAME_AREAS["720p"]) * 24 / 1024
    return None


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number >= 0 else None


def published_from(
    listing: Mapping[str, Any],
    wanted: Sequence[str],
    options: Mapping[str, Mapping[str, JsonScalar]] | None = None,
) -> list[base.PublishedModel]:
    """OpenRouter's `GET /v1/videos/models` answer as PublishedModels for `wanted`, priced at
    the resolution and audio setting of each model's route options (`options[model]`)."""
    entries = listing.get("data")
    if not isinstance(entries, list):
        raise base.MalformedResponse("GET /v1/videos/models: expected a data array")
    by_id = {e["id"]: e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)}
    return [
        _published(name, by_id[name], (options or {}).get(name, {}))
        for name in wanted
        if name in by_id
    ]


def _published(
    name: str, entry: Mapping[str, Any], route: Mapping[str, JsonScalar]
) -> base.PublishedModel:
    skus, durations = entry.get("pricing_skus"), entry.get("supported_durations")
    ratios, resolution, audio = (
        entry.get("supported_aspect_ratios"),
        route.get("resolution"),
        route.get("generate_audio"),
    )
    seconds = tuple(
        sorted(float(d) for d in durations if isinstance(d, int | float))
        if isinstance(durations, list)
        else ()
    )
    price = price_per_second(
        skus if isinstance(skus, dict) else {},
        resolution if isinstance(resolution, str) else None,
        audio if isinstance(audio, bool) else None,
    )
    return base.PublishedModel(
        provider_model=name,
        price_per_second=price,
        durations=seconds or None,
        max_duration=max(seconds) if seconds else None,
        aspect_ratios=(
            tuple(r for r in OUR_RATIOS if r in ratios) if isinstance(ratios, list) else None
        ),
    )


async def published(config: AdapterConfig, wanted: Sequence[str]) -> list[base.PublishedModel]:
    """What OpenRouter publishes now about `wanted`, priced as our catalog's routes ask."""
    async with http.client_for(config, attribution_headers(config.public_url)) as client:
        response = await http.send(client, "GET", "/v1/videos/models")
    return published_from(http.json_object(response), wanted, _route_defaults(config))


def _route_defaults(config: AdapterConfig) -> dict[str, Mapping[str, JsonScalar]]:
    """Each route's default configuration (its first resolution, its default audio), which
    its `price_per_second` is the price of; a route's own options say otherwise."""
    out: dict[str, Mapping[str, JsonScalar]] = {}
    for model in load_catalog(config.catalog).models:
        for route in model.routes:
            if route.provider == NAME and route.provider_model not in out:
                default: dict[str, JsonScalar] = {"generate_audio": route.audio}
                if route.resolutions:
                    default["resolution"] = route.resolutions[0]
                out[route.provider_model] = {**default, **route.options}
    return out
