"""A generation as the route it goes to receives it (`ProviderRequest`): the route's names
and options, the controls with the first and last frames as the provider gets them, and
the references and source kept at accept."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from vidrouter.domain.generation import Generation
from vidrouter.domain.route import Route
from vidrouter.engine.inputs import InputImages, kept_file, route_inputs
from vidrouter.providers.base import ProviderRequest


async def provider_request(
    g: Generation,
    route: Route,
    images: dict[str, str | None],
    inputs: InputImages | None,
    callback_url: str | None,
    now: datetime,
) -> ProviderRequest:
    refs, source = await route_inputs(inputs, g, route, now)
    return ProviderRequest(
        generation_id=g.id,
        model=route.provider_model,
        prompt=g.prompt,
        duration=g.duration,
        aspect_ratio=g.aspect_ratio,
        image_url=images["image_url"],
        options=route.options,
        callback_url=callback_url,
        controls=replace(g.controls, end_image_url=images["end_image_url"]),
        supports=route.supports or frozenset(),
        type=g.type,
        references=refs,
        source=source,
        image_path=await kept_file(inputs, g, g.id if g.image_url else None, route),
        end_image_path=await kept_file(
            inputs, g, f"{g.id}-end" if g.controls.end_image_url else None, route
        ),
    )
