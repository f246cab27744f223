"""What the control tests of the model hosts (fal, Replicate, OpenRouter) share: the three
declare their fields the same way, so one walk over each route's configurations and one check
of its declared fields serve all three."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import replace
from typing import Any

from tests.support.images import png
from vidrouter.domain.catalog import ModelSpec, Route, load_catalog
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import Provider, ProviderRequest
from vidrouter.providers.controls_fields import field_name

PNG_URI = "data:image/png;base64," + base64.b64encode(png(2, 2)).decode()
END_URI = "data:image/png;base64," + base64.b64encode(png(3, 3)).decode()
# The optional controls, each at a value that is no provider's default.
SET = Controls(negative_prompt="blurry, text", seed=4_000_000_000, enhance_prompt=False)


def host_routes(provider: str) -> list[tuple[ModelSpec, Route]]:
    return [(m, r) for m in load_catalog().models for r in m.routes if r.provider == provider]


def route(provider: str, model_id: str) -> tuple[ModelSpec, Route]:
    """The catalog's one route of `provider` for the model `model_id`."""
    [found] = [(m, r) for m, r in host_routes(provider) if m.id == model_id]
    return found


def every_configuration(provider: str) -> Iterator[tuple[Route, ProviderRequest]]:
    """Each route of `provider` with each of its `configurations`."""
    for model, route in host_routes(provider):
        for request in configurations(model, route):
            yield route, request


async def each_submitted(
    adapter: Provider, fake: Any
) -> AsyncIterator[tuple[Route, ProviderRequest, Mapping[str, Any]]]:
    """Each of `every_configuration` of the adapter's provider, submitted (a refusal raises),
    with the body the fake recorded last in its `submitted`."""
    for route, request in every_configuration(adapter.name):
        await adapter.submit(request)
        yield route, request, fake.submitted[-1]


def configurations(model: ModelSpec, route: Route) -> Iterator[ProviderRequest]:
    """A request for every configuration the route prices, then one with every optional
    control it supports set to a value that is not the provider's default."""
    supports = route.supports or frozenset()
    audios = [route.audio, *([not route.audio] if "generate_audio" in supports else [])]
    i2v_only = "text-to-video" not in model.capabilities or "image-to" in route.provider_model
    for resolution in route.resolutions or ():
        for audio in audios:
            yield request_for(
                model, route, Controls(resolution, audio), PNG_URI if i2v_only else None
            )
    optional = ("negative_prompt", "seed", "enhance_prompt")
    controls = replace(
        SET,
        resolution=(route.resolutions or (None,))[-1],
        generate_audio=audios[-1],
        **{name: None for name in optional if name not in supports},  # unset what it lacks
    )
    end = "end_image_url" in supports
    if end:
        controls = replace(controls, end_image_url=END_URI)
    yield request_for(model, route, controls, PNG_URI if end or i2v_only else None)


def request_for(
    model: ModelSpec, route: Route, controls: Controls, image: str | None
) -> ProviderRequest:
    allowed = route.durations_by_resolution.get(controls.resolution or "")
    durations = allowed or route.durations or model.durations or (model.default_duration,)
    duration = model.default_duration if model.default_duration in durations else durations[0]
    ratio = next(r for r in model.aspect_ratios if r in (route.aspect_ratios or (r,)))
    return ProviderRequest(
        "gen_controls",
        route.provider_model,
        "a fox",
        duration,
        ratio,
        image_url=image,
        options=route.options,
        controls=controls,
    )


def request(provider: str, model_id: str, controls: Controls, image: str | None) -> ProviderRequest:
    """`request_for` the catalog's route of `provider` for the model `model_id`."""
    return request_for(*route(provider, model_id), controls, image)


def seeded(model: str, duration: int, options: Mapping[str, str] | None = None) -> ProviderRequest:
    """A 16:9 request of `model` asking for seed 3 (routed through `options`)."""
    return ProviderRequest(
        "gen_1", model, "a fox", duration, "16:9", options=options or {}, controls=Controls(seed=3)
    )


def declared_fields_problems(
    provider: str, defaults: Mapping[str, str] | None = None, built_in: tuple[str, ...] = ()
) -> list[str]:
    """Routes whose declarations a request could ask for but whose options send nowhere:
    a supported control without a field, several resolutions without a resolution field."""
    problems = []
    for model, route in host_routes(provider):
        wanted = [c for c in route.supports or () if c not in built_in]
        if len(route.resolutions or ()) > 1:
            wanted.append("resolution")
        problems += [
            f"{model.id} {route.key}: {name}"
            for name in wanted
            if field_name(route.options, name, defaults) is None
        ]
    return problems


def sent(request: ProviderRequest, body: Mapping[str, Any], name: str, value: object) -> None:
    """`value` is in `body` at the route's field for control `name`."""
    path = field_name(request.options, name)
    assert path is not None, name
    found: Any = body
    for part in path.split("."):
        found = found[part]
    assert found == value, (name, path, found, value)
