"""OpenRouter's controls (issue 13): resolution ("4K"), generate_audio, seed and the last
frame are its own normalised fields; negative prompts and prompt rewriting go through
`provider.options.<upstream>` under the names each model allows. The fake checks the
normalised fields like OpenRouter (400) and records the passthrough names OpenRouter would
silently drop, so a wrong name cannot pass unnoticed."""

from __future__ import annotations

import httpx
import pytest

from tests.fakes.openrouter import OpenRouterFake
from tests.support import host_controls as host
from tests.support.providers import adapter_fixture
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import InvalidInput
from vidrouter.providers.openrouter.adapter import OpenRouterProvider

KEY = "test-key"

openrouter = adapter_fixture(
    lambda: OpenRouterFake(api_key=KEY), OpenRouterProvider, {"OPENROUTER_API_KEY": KEY}, "/api"
)


async def test_every_configuration_of_every_route_is_accepted_and_forwarded(
    openrouter: tuple[OpenRouterFake, OpenRouterProvider],
) -> None:
    fake, provider = openrouter
    async for _, request, body in host.each_submitted(provider, fake):
        if request.controls.seed is not None:
            assert body["seed"] == request.controls.seed
        if request.controls.end_image_url is not None:
            assert body["frame_images"][-1]["frame_type"] == "last_frame"
    assert fake.dropped == []


async def test_veo_takes_normalised_fields_and_vertex_parameters(
    openrouter: tuple[OpenRouterFake, OpenRouterProvider],
) -> None:
    fake, provider = openrouter
    controls = Controls("4k", False, "blurry", 7, host.END_URI, True)
    await provider.submit(host.request("openrouter", "veo-3.1", controls, host.PNG_URI))
    body = fake.submitted[-1]
    assert {k: body[k] for k in ("resolution", "generate_audio", "seed")} == {
        "resolution": "4K",
        "generate_audio": False,
        "seed": 7,
    }
    assert body["frame_images"] == [
        {"type": "image_url", "image_url": {"url": host.PNG_URI}, "frame_type": "first_frame"},
        {"type": "image_url", "image_url": {"url": host.END_URI}, "frame_type": "last_frame"},
    ]
    assert body["provider"] == {
        "options": {
            "google-vertex": {"parameters": {"negativePrompt": "blurry", "enhancePrompt": True}}
        }
    }
    assert fake.dropped == []


async def test_wan_takes_negative_prompt_and_prompt_extend_as_alibaba_options(
    openrouter: tuple[OpenRouterFake, OpenRouterProvider],
) -> None:
    fake, provider = openrouter
    await provider.submit(
        host.request("openrouter", "wan-2.7", Controls("1080p", True, "rain", 9, None, False), None)
    )
    body = fake.submitted[-1]
    assert (body["resolution"], body["generate_audio"], body["seed"]) == ("1080p", True, 9)
    assert body["provider"] == {
        "options": {"alibaba": {"negative_prompt": "rain", "prompt_extend": False}}
    }


async def test_a_silent_model_gets_no_audio_field_and_kling_no_resolution(
    openrouter: tuple[OpenRouterFake, OpenRouterProvider],
) -> None:
    fake, provider = openrouter
    await provider.submit(
        host.request("openrouter", "gen4.5", Controls("720p", False, seed=1), None)
    )
    assert "generate_audio" not in fake.submitted[-1]
    await provider.submit(host.request("openrouter", "kling-v3", Controls("1080p", True), None))
    assert "resolution" not in fake.submitted[-1]
    assert fake.submitted[-1]["generate_audio"] is True


async def test_a_seed_on_a_model_without_one_is_refused_like_openrouter(
    openrouter: tuple[OpenRouterFake, OpenRouterProvider],
) -> None:
    fake, provider = openrouter
    with pytest.raises(InvalidInput, match="seed"):
        await provider.submit(host.seeded("minimax/hailuo-2.3", 6))
    assert fake.submitted == []


@pytest.mark.parametrize(
    "extra",
    [
        {"negative_prompt": "blurry"},  # a passthrough name at the top level
        {"end_image_url": host.END_URI},  # ours, not OpenRouter's (`frame_images`)
        {"provider": {"order": ["alibaba"]}},  # chat routing, not in the video schema
    ],
)
async def test_the_fake_refuses_a_field_the_video_schema_does_not_have(
    extra: dict[str, object],
) -> None:
    fake = OpenRouterFake(api_key=KEY)
    body = {"model": "alibaba/wan-2.7", "prompt": "a fox", **extra}
    async with serve_app(fake.app) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            "/api/v1/videos", json=body, headers={"Authorization": f"Bearer {KEY}"}
        )
    assert answer.status_code == 400, answer.text
    assert next(iter(extra)) in answer.json()["error"]["message"] and fake.created == []
