"""What Replicate publishes about the models our routes name (for `vidrouter catalog check`):
durations and aspect ratios from each model's `latest_version.openapi_schema`, read with the
route's own field names. Replicate's API publishes no prices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vidrouter.providers import base, http, openapi
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.controls_fields import pairs
from vidrouter.providers.openapi import mapping
from vidrouter.providers.replicate import errors
from vidrouter.providers.replicate.adapter import (
    MODEL_PATH,
    NAME,
    OUR_RATIOS,
    TOKEN_ENV,
    Options,
    route_field,
)


async def published(config: AdapterConfig, wanted: Sequence[str]) -> list[base.PublishedModel]:
    """What Replicate publishes about the models our routes name: durations and aspect ratios
    from each model's input schema. Replicate's API publishes no prices (price: None)."""
    token = config.credential(TOKEN_ENV)
    if token is None:
        raise base.AccountRefused(f"{TOKEN_ENV} is not set")
    options = config.route_options(NAME)
    client = http.client_for(config, {"Authorization": f"Bearer {token}"})
    found = []
    try:
        for model in wanted:
            path = MODEL_PATH.format(model=model.partition(":")[0])
            try:
                response = await http.send(client, "GET", path, refine=errors.refine)
            except base.ProviderError as exc:
                if exc.status_code == 404:
                    continue  # Replicate no longer publishes it
                raise
            found.append(describe(model, http.json_object(response), options.get(model, {})))
    finally:
        await client.aclose()
    return found


def describe(model: str, body: Mapping[str, Any], options: Options) -> base.PublishedModel:
    """A model as its `latest_version.openapi_schema` describes it, read with the route's
    field names (Cog writes enums as `allOf` references to named schemas)."""
    version = body.get("latest_version")
    schema = version.get("openapi_schema") if isinstance(version, dict) else None
    components = mapping(mapping(schema).get("components")).get("schemas")
    schemas = mapping(components)
    properties = mapping(mapping(schemas.get("Input")).get("properties"))
    durations: tuple[float, ...] | None = None
    duration_field = route_field(options, "duration_field", False, "duration")
    if duration_field:
        durations = openapi.durations(properties.get(duration_field), schemas)
    ratios: tuple[str, ...] | None = None
    ratio_field = route_field(options, "aspect_ratio_field", False, "aspect_ratio")
    if ratio_field:
        renamed = pairs(options.get("aspect_ratio_map"))
        values = openapi.enum(properties.get(ratio_field), schemas)
        if values:
            inverse = {value: ratio for ratio, value in renamed.items()}
            ours = {inverse.get(str(v), str(v)) if renamed else str(v) for v in values}
            ratios = tuple(r for r in OUR_RATIOS if r in ours)
    return base.PublishedModel(
        provider_model=model,
        durations=durations,
        max_duration=max(durations) if durations else None,
        aspect_ratios=ratios,
    )
