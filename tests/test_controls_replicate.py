"""Replicate's controls (issue 13): each route's declared fields reach its model under the
names its input schema uses, and the fake (which checks inputs against each model's schema
like Replicate, 422 `invalid_fields`) accepts every configuration."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.replicate import ReplicateFake
from tests.support.servers import serve_app
from tests.test_controls_fal import (
    END_URI,
    PNG_URI,
    configurations,
    declared_fields_problems,
    host_routes,
    request_for,
    sent,
)
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import InvalidInput, ProviderRequest
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.replicate.adapter import ReplicateProvider

KEY = "test-key"


@pytest.fixture
async def replicate() -> AsyncIterator[tuple[ReplicateFake, ReplicateProvider]]:
    fake = ReplicateFake(api_token=KEY)
    async with serve_app(fake.app()) as url:
        provider = ReplicateProvider(AdapterConfig(url, {"REPLICATE_API_TOKEN": KEY}.get))
        try:
            yield fake, provider
        finally:
            await provider.aclose()


def test_every_declared_control_has_a_field() -> None:
    assert declared_fields_problems("replicate") == []


async def test_every_configuration_of_every_route_passes_the_models_schema(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    for model, route in host_routes("replicate"):
        for request in configurations(model, route):
            await provider.submit(request)  # a 422 would raise InvalidInput
            body = fake.submitted[-1]
            for name in ("resolution", "negative_prompt", "seed", "enhance_prompt"):
                value = getattr(request.controls, name)
                if value is not None and (name != "resolution" or len(route.resolutions or ()) > 1):
                    sent(request, body, name, value)
            if request.controls.end_image_url is not None:
                sent(request, body, "end_image_url", END_URI)


async def test_veo_takes_each_control_under_its_own_name(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    [(model, route)] = [(m, r) for m, r in host_routes("replicate") if m.id == "veo-3.1"]
    controls = Controls("1080p", False, "blurry", 7, END_URI)
    await provider.submit(request_for(model, route, controls, PNG_URI))
    assert fake.submitted[-1] == {
        "prompt": "a fox",
        "duration": 8,
        "aspect_ratio": "16:9",
        "image": PNG_URI,
        "resolution": "1080p",
        "generate_audio": False,
        "negative_prompt": "blurry",
        "seed": 7,
        "last_frame": END_URI,
    }


async def test_hailuo_takes_resolution_optimizer_and_last_frame_image(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    [(model, route)] = [(m, r) for m, r in host_routes("replicate") if m.id == "hailuo-02"]
    assert route.durations_by_resolution == {"1080p": (6.0,)}
    controls = Controls("1080p", False, enhance_prompt=False, end_image_url=END_URI)
    await provider.submit(request_for(model, route, controls, PNG_URI))
    assert fake.submitted[-1] == {
        "prompt": "a fox",
        "duration": 6,
        "first_frame_image": PNG_URI,
        "resolution": "1080p",
        "prompt_optimizer": False,
        "last_frame_image": END_URI,
    }


async def test_a_field_the_model_does_not_take_is_replicates_422(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    request = ProviderRequest(
        "gen_1",
        "kwaivgi/kling-v2.1-master",
        "a fox",
        5,
        "16:9",
        options={"field.seed": "seed"},
        controls=Controls(seed=3),
    )
    with pytest.raises(InvalidInput, match=r"input\.seed"):
        await provider.submit(request)
    assert fake.submitted == []
