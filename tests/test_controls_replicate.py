"""Replicate's controls (issue 13): each route's declared fields reach its model under the
names its input schema uses, and the fake (which checks inputs against each model's schema
like Replicate, 422 `invalid_fields`) accepts every configuration."""

from __future__ import annotations

import pytest

from tests.fakes.replicate import ReplicateFake
from tests.support import host_controls as host
from tests.support.providers import adapter_fixture
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import InvalidInput
from vidrouter.providers.replicate.adapter import ReplicateProvider

KEY = "test-key"

replicate = adapter_fixture(
    lambda: ReplicateFake(api_token=KEY), ReplicateProvider, {"REPLICATE_API_TOKEN": KEY}
)


async def test_every_configuration_of_every_route_passes_the_models_schema(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    async for route, request, body in host.each_submitted(provider, fake):
        for name in ("resolution", "negative_prompt", "seed", "enhance_prompt"):
            value = getattr(request.controls, name)
            if value is not None and (name != "resolution" or len(route.resolutions or ()) > 1):
                host.sent(request, body, name, value)
        if request.controls.end_image_url is not None:
            host.sent(request, body, "end_image_url", host.END_URI)


async def test_veo_takes_each_control_under_its_own_name(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    controls = Controls("1080p", False, "blurry", 7, host.END_URI)
    await provider.submit(host.request("replicate", "veo-3.1", controls, host.PNG_URI))
    assert fake.submitted[-1] == {
        "prompt": "a fox",
        "duration": 8,
        "aspect_ratio": "16:9",
        "image": host.PNG_URI,
        "resolution": "1080p",
        "generate_audio": False,
        "negative_prompt": "blurry",
        "seed": 7,
        "last_frame": host.END_URI,
    }


async def test_hailuo_takes_resolution_optimizer_and_last_frame_image(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    model, route = host.route("replicate", "hailuo-02")
    assert route.durations_by_resolution == {"1080p": (6.0,)}
    controls = Controls("1080p", False, enhance_prompt=False, end_image_url=host.END_URI)
    await provider.submit(host.request_for(model, route, controls, host.PNG_URI))
    assert fake.submitted[-1] == {
        "prompt": "a fox",
        "duration": 6,
        "first_frame_image": host.PNG_URI,
        "resolution": "1080p",
        "prompt_optimizer": False,
        "last_frame_image": host.END_URI,
    }


async def test_a_field_the_model_does_not_take_is_replicates_422(
    replicate: tuple[ReplicateFake, ReplicateProvider],
) -> None:
    fake, provider = replicate
    request = host.seeded("kwaivgi/kling-v2.1-master", 5, {"field.seed": "seed"})
    with pytest.raises(InvalidInput, match=r"input\.seed"):
        await provider.submit(request)
    assert fake.submitted == []
