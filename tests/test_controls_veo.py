"""Veo's controls on the Gemini API: what reaches Google's fields, what Google's limits refuse
before any request, and what each configuration costs (issue 13)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.veo import VeoFake
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, png
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import InvalidInput, ProviderRequest
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.veo import VeoProvider
from vidrouter.settings import Settings

PREDICT = ":predictLongRunning"


@pytest.fixture
async def fake() -> AsyncIterator[tuple[VeoFake, str]]:
    veo = VeoFake()
    async with serve_app(veo.app) as url:
        yield veo, url


def settings_for(tmp_path: Path, url: str) -> Settings:
    environ = {"VIDROUTER_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "test-key"}
    return test_settings(tmp_path / "data", environ=environ, provider_delay_scale=0.01)


def inline(image: bytes) -> dict[str, str]:
    return {"bytesBase64Encoded": base64.b64encode(image).decode(), "mimeType": "image/png"}


async def submit(url: str, request: ProviderRequest) -> None:
    provider = VeoProvider(AdapterConfig(url, {"GEMINI_API_KEY": "test-key"}.get))
    try:
        await provider.submit(request)
    finally:
        await provider.aclose()


# --- the adapter alone -----------------------------------------------------------------------


async def test_every_control_reaches_its_gemini_field(fake: tuple[VeoFake, str]) -> None:
    veo, url = fake
    first, last = png(64, 36), png(32, 18)
    controls = Controls(
        resolution="4k",
        generate_audio=True,
        negative_prompt="rain, blur",
        end_image_url=data_uri(last),
    )
    request = ProviderRequest(
        "gen_1",
        "veo-3.1-generate-preview",
        "a fox crossing a river",
        8,
        "9:16",
        image_url=data_uri(first),
        controls=controls,
    )
    await submit(url, request)
    assert veo.submitted == [
        {
            "instances": [
                {
                    "prompt": "a fox crossing a river",
                    "image": inline(first),
                    "lastFrame": inline(last),
                }
            ],
            # No generateAudio: the Gemini API always makes sound and has no such field.
            "parameters": {
                "aspectRatio": "9:16",
                "durationSeconds": 8,
                "resolution": "4k",
                "negativePrompt": "rain, blur",
            },
        }
    ]


async def test_google_refuses_1080p_under_8_seconds(fake: tuple[VeoFake, str]) -> None:
    veo, url = fake
    request = ProviderRequest(
        "gen_1", "veo-3.1-fast-generate-preview", "p", 6, "16:9", controls=Controls("1080p")
    )
    with pytest.raises(InvalidInput, match="only supported with a duration of 8 seconds"):
        await submit(url, request)
    assert veo.submitted == []


# --- through our API -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "resolution", "per_second"),
    [("veo-3.1", "1080p", 0.40), ("veo-3.1", "4k", 0.60), ("veo-3.1-fast", "1080p", 0.12)],
)
async def test_a_configuration_costs_what_google_charges_for_it(
    fake: tuple[VeoFake, str], tmp_path: Path, model: str, resolution: str, per_second: float
) -> None:
    veo, url = fake
    veo.video = sample_mp4(8.0)  # Google bills the seconds of video it made
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(
            model=model,
            prompt="a red fox",
            duration=8,
            resolution=resolution,
            generate_audio=True,
            timeout=30,
        )
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == pytest.approx(per_second * 8, rel=0.02)
    assert done["estimated_cost"]["amount"] == pytest.approx(per_second * 8)
    [body] = veo.submitted
    assert body["parameters"]["resolution"] == resolution
    assert "generateAudio" not in body["parameters"]


@pytest.mark.parametrize(
    ("body", "params"),
    [
        ({"resolution": "1080p", "duration": 6}, ("duration", "resolution")),
        ({"resolution": "540p"}, ("resolution",)),
        ({"seed": 7}, ("seed",)),
        ({"generate_audio": False}, ("generate_audio",)),
        ({"enhance_prompt": True}, ("enhance_prompt",)),
    ],
)
async def test_what_veo_cannot_do_is_refused_before_any_request(
    fake: tuple[VeoFake, str], tmp_path: Path, body: dict[str, Any], params: tuple[str, ...]
) -> None:
    veo, url = fake
    async with running(settings_for(tmp_path, url), workers=False) as app:
        key = await app.new_key()
        answer = await app.create(key, model="veo-3.1", prompt="p", **body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["param"] in params, answer.json()
    assert veo.plan.count("POST", PREDICT) == 0
