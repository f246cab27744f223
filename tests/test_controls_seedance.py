"""Seedance's controls (issue 13): our adapter's create body against Ark's fake, which checks
each field as Ark does, and the catalog's declaration and prices of each model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.fakes.seedance import TASKS, FakeArk
from tests.support.images import data_uri, png
from tests.support.providers import route_fields, served_adapter
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import InvalidInput, ProviderRequest
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.seedance.adapter import SeedanceProvider

KEY = "test-key"


@pytest.fixture
async def ark() -> AsyncIterator[tuple[FakeArk, SeedanceProvider]]:
    fake = FakeArk(api_key=KEY)
    async with served_adapter(
        fake.app(), lambda url: SeedanceProvider(AdapterConfig(url, {"ARK_API_KEY": KEY}.get))
    ) as provider:
        yield fake, provider


def request(model: str, controls: Controls, **fields: Any) -> ProviderRequest:
    """The request the engine makes for the catalog's route of `model`."""
    values: dict[str, Any] = {"duration": 5, "aspect_ratio": "16:9", **fields}
    values = {**route_fields("seedance", model), **values}
    return ProviderRequest("gen_abc123", model, "a fox", controls=controls, **values)


async def submitted(ark: tuple[FakeArk, SeedanceProvider], req: ProviderRequest) -> dict[str, Any]:
    fake, provider = ark
    await provider.submit(req)
    return fake.submitted[-1]


async def test_every_control_reaches_ark_with_its_field_names(
    ark: tuple[FakeArk, SeedanceProvider],
) -> None:
    first, last = png(640, 360), png(640, 400)
    body = await submitted(
        ark,
        request(
            "seedance-1-5-pro-251215",
            Controls(
                resolution="1080p",
                generate_audio=False,
                seed=4_294_967_295,
                end_image_url=data_uri(last),
            ),
            image_url=data_uri(first),
        ),
    )
    assert body["resolution"] == "1080p"
    assert body["generate_audio"] is False
    assert body["seed"] == 4_294_967_295
    assert body["content"][1:] == [
        {"type": "image_url", "image_url": {"url": data_uri(first)}, "role": "first_frame"},
        {"type": "image_url", "image_url": {"url": data_uri(last)}, "role": "last_frame"},
    ]


async def test_only_what_is_set_is_sent(ark: tuple[FakeArk, SeedanceProvider]) -> None:
    # A silent 1.0 model's `false` stays out: only 1.5 Pro and the 2.0 series take the field.
    body = await submitted(
        ark, request("seedance-1-0-pro-250528", Controls(resolution="480p", generate_audio=False))
    )
    assert body["resolution"] == "480p"
    assert not {"generate_audio", "seed"} & set(body)
    assert len(body["content"]) == 1
    body = await submitted(
        ark, request("dreamina-seedance-2-0-mini-260615", Controls("720p", generate_audio=True))
    )
    assert (body["resolution"], body["generate_audio"]) == ("720p", True)
    # The seed 0 is a seed like any other.
    body = await submitted(ark, request("seedance-1-0-pro-250528", Controls("1080p", seed=0)))
    assert body["seed"] == 0


async def test_the_fake_refuses_what_ark_refuses(ark: tuple[FakeArk, SeedanceProvider]) -> None:
    fake, provider = ark
    refused = [
        # 2.0 Fast makes 720p at most.
        request("dreamina-seedance-2-0-fast-260128", Controls(resolution="1080p")),
        # 1.0 Pro Fast takes a first frame only.
        request(
            "seedance-1-0-pro-fast-251015",
            Controls(end_image_url=data_uri(png(640, 360))),
            image_url=data_uri(png(640, 360)),
        ),
        # A last frame without a first.
        request("seedance-1-0-pro-250528", Controls(end_image_url=data_uri(png(640, 360)))),
        # Sound from a silent model.
        request("seedance-1-0-pro-250528", Controls(generate_audio=True)),
    ]
    for req in refused:
        with pytest.raises(InvalidInput):
            await provider.submit(req)
    assert fake.submitted == []
    assert fake.plan.count("POST", TASKS) == len(refused)


@pytest.mark.parametrize("name", ["negative_prompt", "audio", "last_frame", "prompt_extend"])
async def test_the_fake_refuses_a_field_ark_does_not_have(name: str) -> None:
    """A control under a name Ark has no field for fails where it is sent, not silently."""
    fake = FakeArk(api_key=KEY)
    body = {
        "model": "seedance-1-5-pro-251215",
        "content": [{"type": "text", "text": "a fox"}],
        name: True,
    }
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(TASKS, json=body, headers={"Authorization": f"Bearer {KEY}"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["param"] == name and fake.submitted == []


def test_each_model_declares_its_controls_and_prices() -> None:
    catalog = load_catalog()
    declared = {
        "seedance-1-pro": (("1080p", "720p", "480p"), False, {"seed", "end_image_url"}),
        "seedance-1-pro-fast": (("1080p", "720p", "480p"), False, {"seed"}),
        "seedance-1.5-pro": (
            ("720p", "480p", "1080p"),
            True,
            {"seed", "generate_audio", "end_image_url"},
        ),
        "seedance-2": (
            ("720p", "480p", "1080p"),
            True,
            {"seed", "generate_audio", "end_image_url"},
        ),
        "seedance-2-fast": (("720p", "480p"), True, {"seed", "generate_audio", "end_image_url"}),
        "seedance-2-mini": (("720p", "480p"), True, {"seed", "generate_audio", "end_image_url"}),
    }
    for model_id, (resolutions, audio, supports) in declared.items():
        spec = catalog.get(model_id)
        assert spec is not None
        [route] = [r for r in spec.routes if r.provider == "seedance"]
        assert (route.resolutions, route.audio, route.supports) == (
            resolutions,
            audio,
            frozenset(supports),
        )
    # Ark's price per million tokens x the tokens a second of each resolution makes (16:9).
    tokens = {"480p": 864 * 480 * 24 / 1024, "720p": 21_600, "1080p": 48_600}
    per_million = {
        "seedance-1-pro": {False: 2.5},
        "seedance-1-pro-fast": {False: 1.0},
        "seedance-1.5-pro": {True: 2.4, False: 1.2},
        "seedance-2-fast": {True: 5.6, False: 5.6},
        "seedance-2-mini": {True: 3.5, False: 3.5},
    }
    for model_id, prices in per_million.items():
        spec = catalog.get(model_id)
        assert spec is not None
        route = next(r for r in spec.routes if r.provider == "seedance")
        for variant in route.variants:
            if variant.type is not None:  # with a video input: tests/test_inputs_seedance.py
                continue
            expected = tokens[variant.resolution] * prices[variant.audio] / 1e6
            assert variant.per_second == pytest.approx(expected, abs=1e-6), (model_id, variant)
    spec = catalog.get("seedance-2")
    assert spec is not None
    flagship = next(r for r in spec.routes if r.provider == "seedance")
    assert flagship.price_for("1080p", True) == pytest.approx(48_600 * 7.7 / 1e6)
    assert flagship.price_for("720p", False) == pytest.approx(21_600 * 7.0 / 1e6)
