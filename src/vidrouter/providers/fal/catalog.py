"""What fal publishes about the apps our catalog routes to (for `vidrouter catalog check`):
prices from its platform API (`GET /v1/models/pricing`) and input limits from each endpoint's
OpenAPI schema (`GET /v1/models?expand=openapi-3.0`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from vidrouter.providers import base, http, openapi
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.fal.adapter import CREDENTIAL, DEFAULT_API_BASE_URL

OUR_RATIOS = ("16:9", "9:16", "1:1")


async def published(config: AdapterConfig, wanted: Sequence[str]) -> list[base.PublishedModel]:
    """Prices (`GET /v1/models/pricing`) and input limits (`GET /v1/models` with the
    endpoint's OpenAPI schema) of the apps our catalog routes to, from fal's platform API."""
    key = config.credential(CREDENTIAL)
    if key is None:
        raise base.AccountRefused(f"{CREDENTIAL} is not set")
    root = config.base_urls.get("fal_api", DEFAULT_API_BASE_URL)
    ids = list(dict.fromkeys(wanted))
    prices: dict[str, dict[str, Any]] = {}
    schemas: dict[str, dict[str, Any]] = {}
    async with http.new_client(
        root, {"Authorization": f"Key {key}"}, transport=config.transport
    ) as client:
        for start in range(0, len(ids), 50):  # the API takes 1-50 endpoint ids per call
            chunk = [("endpoint_id", i) for i in ids[start : start + 50]]
            for item in await _pages(client, "/v1/models/pricing", chunk, "prices"):
                prices[str(item.get("endpoint_id"))] = item
            query = [*chunk, ("expand", "openapi-3.0")]
            for item in await _pages(client, "/v1/models", query, "models"):
                if isinstance(item.get("openapi"), dict):
                    schemas[str(item.get("endpoint_id"))] = item["openapi"]
    out = []
    for app in ids:
        if app in prices or app in schemas:
            durations, ratios = _limits(schemas.get(app, {}))
            out.append(
                base.PublishedModel(
                    app,
                    price_per_second=_per_second(prices.get(app)),
                    durations=durations,
                    max_duration=max(durations) if durations else None,
                    aspect_ratios=ratios,
                )
            )
    return out


async def _pages(
    client: httpx.AsyncClient, path: str, query: list[tuple[str, str]], key: str
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(20):
        params = [*query, ("cursor", cursor)] if cursor else query
        body = http.json_object(await http.send(client, "GET", path, params=params))
        items += [i for i in body.get(key) or [] if isinstance(i, dict)]
        cursor = body.get("next_cursor") if body.get("has_more") else None
        if not isinstance(cursor, str) or not cursor:
            break
    return items


def _per_second(price: Mapping[str, Any] | None) -> float | None:
    if not price or str(price.get("currency", "USD")).upper() != "USD":
        return None
    unit = str(price.get("unit", "")).lower().replace("-", "_").replace(" ", "_")
    value = price.get("unit_price")
    if unit in ("second", "seconds", "video_second", "video_seconds", "per_second"):
        return float(value) if isinstance(value, int | float) else None
    return None  # per video, per image, per GPU-second: not a price per second of video


def _limits(spec: Mapping[str, Any]) -> tuple[tuple[float, ...] | None, tuple[str, ...] | None]:
    """Durations and aspect ratios (our vocabulary) from an endpoint's OpenAPI document."""
    schemas = spec.get("components", {}).get("schemas", {})
    if not isinstance(schemas, dict):
        return None, None
    fields = _input_properties(spec, schemas)
    durations = openapi.durations(fields.get("duration"), schemas)
    ratios = openapi.enum(fields.get("aspect_ratio"), schemas)
    ours = tuple(r for r in OUR_RATIOS if r in ratios) if ratios else None
    return durations, ours


def _input_properties(spec: Mapping[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    for item in (spec.get("paths") or {}).values():
        post = item.get("post") if isinstance(item, dict) else None
        content = ((post or {}).get("requestBody") or {}).get("content") or {}
        schema = openapi.resolve((content.get("application/json") or {}).get("schema"), schemas)
        if isinstance(schema.get("properties"), dict) and "prompt" in schema["properties"]:
            return dict(schema["properties"])
    for name, schema in schemas.items():
        props = schema.get("properties") if isinstance(schema, dict) else None
        if str(name).endswith("Input") and isinstance(props, dict) and "prompt" in props:
            return dict(props)
    return {}
