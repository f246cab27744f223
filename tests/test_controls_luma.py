"""Luma's controls on the Dream Machine API: the resolution and the end frame reach Luma's
fields, each resolution costs Luma's price for its pixels, and what Ray 2 cannot do is refused
before any request (issue 13)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.luma import LumaFake
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, image_host, png
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import InvalidInput, ProviderRequest
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.luma import LumaProvider
from vidrouter.settings import Settings

CREATE = "/dream-machine/v1/generations"


@pytest.fixture
async def images() -> AsyncIterator[str]:
    async with image_host() as url:
        yield url


@pytest.fixture
async def luma() -> AsyncIterator[tuple[LumaFake, str]]:
    fake = LumaFake()
    async with serve_app(fake.app()) as url:
        yield fake, url


def settings_for(tmp_path: Path, url: str) -> Settings:
    environ = {"LUMAAI_API_KEY": "test-key", "VIDROUTER_LUMA_BASE_URL": url}
    return test_settings(tmp_path / "data", environ=environ, provider_delay_scale=0.01)


async def submit(url: str, request: ProviderRequest) -> None:
    provider = LumaProvider(AdapterConfig(url, {"LUMAAI_API_KEY": "test-key"}.get))
    try:
        await provider.submit(request)
    finally:
        await provider.aclose()


# --- the adapter alone -----------------------------------------------------------------------


async def test_resolution_and_end_frame_reach_lumas_fields(
    luma: tuple[LumaFake, str], images: str
) -> None:
    fake, url = luma
    start, end = f"{images}/frame.png", f"{images}/frame.png?end"
    controls = Controls(resolution="4k", generate_audio=False, end_image_url=end)
    request = ProviderRequest("gen_1", "ray-2", "p", 9, "21:9", image_url=start, controls=controls)
    await submit(url, request)
    assert fake.submitted == [
        {
            "generation_type": "video",
            "model": "ray-2",
            "prompt": "p",
            "aspect_ratio": "21:9",
            "duration": "9s",
            "resolution": "4k",
            "keyframes": {
                "frame0": {"type": "image", "url": start},
                "frame1": {"type": "image", "url": end},
            },
        }
    ]


async def test_an_end_frame_luma_cannot_fetch_is_refused_before_any_request(
    luma: tuple[LumaFake, str], images: str
) -> None:
    fake, url = luma
    controls = Controls(resolution="720p", end_image_url=data_uri(png()))
    request = ProviderRequest(
        "gen_1", "ray-2", "p", 5, "16:9", image_url=f"{images}/frame.png", controls=controls
    )
    with pytest.raises(InvalidInput, match="http"):
        await submit(url, request)
    assert fake.plan.count("POST", CREATE) == 0


# --- through our API -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "resolution", "duration", "per_second"),
    [
        ("ray-2", "1080p", 5, 0.3185),
        ("ray-2", "540p", 9, 0.0796),
        ("ray-flash-2", "4k", 5, 0.4379),
    ],
)
async def test_each_resolution_costs_lumas_price_for_its_pixels(
    luma: tuple[LumaFake, str],
    tmp_path: Path,
    model: str,
    resolution: str,
    duration: int,
    per_second: float,
) -> None:
    fake, url = luma
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(
            model=model, prompt="a fox", duration=duration, resolution=resolution, timeout=30
        )
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == pytest.approx(duration * per_second)
    [body] = fake.submitted
    assert (body["resolution"], body["duration"]) == (resolution, f"{duration}s")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"resolution": "480p"}, "resolution"),
        ({"seed": 7}, "seed"),
        ({"negative_prompt": "blur"}, "negative_prompt"),
        ({"generate_audio": True}, "generate_audio"),
        ({"enhance_prompt": False}, "enhance_prompt"),
    ],
)
async def test_what_ray_cannot_do_is_refused_before_any_request(
    luma: tuple[LumaFake, str], tmp_path: Path, body: dict[str, Any], param: str
) -> None:
    fake, url = luma
    async with running(settings_for(tmp_path, url), workers=False) as app:
        key = await app.new_key()
        answer = await app.create(key, model="ray-2", prompt="p", **body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["param"] == param, answer.json()
    assert fake.plan.count("POST", CREATE) == 0
