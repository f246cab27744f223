"""Wan's controls beyond the shared contract (tests/support/contract/controls/wan.py): the tier as a
size or a resolution, the audio switch only wan2.6 has, DashScope's narrower seed range and
negative-prompt limit, and the fake refusing what DashScope refuses."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.wan import CREATE_PATH, FakeWan
from tests.support.images import data_uri, png
from tests.support.providers import route_fields, served_adapter
from tests.support.servers import serve_app
from tests.support.wan import generate, wan_settings
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.wan import WanProvider

KEY = "test-key"
FRAME = data_uri(png(640, 360))


@contextlib.asynccontextmanager
async def adapter(fake: FakeWan) -> AsyncIterator[WanProvider]:
    async with served_adapter(
        fake.app, lambda url: WanProvider(AdapterConfig(url, {"DASHSCOPE_API_KEY": KEY}.get))
    ) as provider:
        yield provider


def request(model: str = "wan2.5-t2v-preview", **kw: Any) -> base.ProviderRequest:
    """The request the engine makes for the catalog's route of `model`."""
    return base.ProviderRequest(
        "gen_1", model, "a fox", 5.0, kw.pop("ratio", "1:1"), **route_fields("wan", model), **kw
    )


async def test_each_tier_is_a_size_or_a_resolution() -> None:
    fake = FakeWan(api_key=KEY)
    async with adapter(fake) as provider:
        await provider.submit(request(controls=Controls("480p")))
        await provider.submit(request(controls=Controls("1080p"), ratio="16:9"))
        await provider.submit(request(image_url=FRAME, controls=Controls("480p")))
        await provider.submit(request("wan2.7-t2v", controls=Controls("1080p"), ratio="9:16"))
        await provider.submit(request("wan2.6-t2v"))  # no control: 720P
    params = [body["parameters"] for body in fake.submitted]
    assert [p.get("size") or p["resolution"] for p in params] == [
        "624*624",
        "1920*1080",
        "480P",
        "1080P",
        "960*960",
    ]
    assert params[3]["ratio"] == "9:16"


async def test_only_wan26_gets_the_audio_switch() -> None:
    fake = FakeWan(api_key=KEY)
    async with adapter(fake) as provider:
        await provider.submit(request("wan2.6-t2v", controls=Controls("720p", False)))
        await provider.submit(
            request("wan2.6-t2v", image_url=FRAME, controls=Controls("720p", True))
        )
        await provider.submit(request(controls=Controls("720p", True)))
        await provider.submit(request("wan2.7-t2v", controls=Controls("720p", True)))
    assert [body["parameters"].get("audio") for body in fake.submitted] == [False, True, None, None]


@pytest.mark.parametrize(
    ("controls", "message"),
    [
        (Controls("720p", seed=2_147_483_648), "seed"),
        (Controls("720p", negative_prompt="x" * 501), "negative prompt"),
    ],
)
async def test_what_dashscope_cannot_take_is_refused_before_calling(
    controls: Controls, message: str
) -> None:
    fake = FakeWan(api_key=KEY)
    async with adapter(fake) as provider:
        with pytest.raises(base.InvalidInput, match=message):
            await provider.submit(request(controls=controls))
    assert fake.submitted == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": "wan2.6-t2v", "parameters": {"seed": -1}}, "seed"),
        ({"model": "wan2.6-t2v", "parameters": {"seed": "7"}}, "seed"),
        ({"model": "wan2.6-t2v", "parameters": {"audio": "off"}}, "audio"),
        ({"model": "wan2.6-t2v", "parameters": {"prompt_extend": 1}}, "prompt_extend"),
        ({"model": "wan2.6-t2v", "input": {"negative_prompt": "x" * 501}}, "negative_prompt"),
        (
            {"model": "wan2.7-t2v", "input": {"media": [{"type": "last_frame", "url": FRAME}]}},
            "media",
        ),
        (
            {"model": "wan2.7-i2v", "input": {"media": [{"type": "last_frame", "url": FRAME}]}},
            "first frame",
        ),
        (
            {
                "model": "wan2.7-i2v",
                "input": {
                    "media": [
                        {"type": "first_frame", "url": FRAME},
                        {"type": "last_frame", "url": "data:image/png;base64,AAAA"},
                    ]
                },
            },
            "format",
        ),
        # A control in the wrong object, or under another provider's name.
        ({"model": "wan2.6-t2v", "parameters": {"negative_prompt": "blur"}}, "negative_prompt"),
        ({"model": "wan2.6-t2v", "input": {"seed": 7}}, "input.seed"),
        ({"model": "wan2.6-t2v", "parameters": {"generate_audio": False}}, "generate_audio"),
        ({"model": "wan2.6-t2v", "seed": 7}, "seed"),
    ],
)
async def test_the_fake_refuses_what_dashscope_refuses(body: dict[str, Any], message: str) -> None:
    fake = FakeWan(api_key=KEY)
    sent = {
        "input": {"prompt": "p", **body.get("input", {})},
        **{k: v for k, v in body.items() if k != "input"},
    }
    headers = {"Authorization": f"Bearer {KEY}", "X-DashScope-Async": "enable"}
    async with serve_app(fake.app) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(CREATE_PATH, json=sent, headers=headers)
    assert answer.status_code == 400 and answer.json()["code"] == "InvalidParameter"
    assert message in answer.json()["message"] and fake.submitted == []


# --- through our API ---------------------------------------------------------------------


async def test_a_480p_video_costs_the_480p_price(tmp_path: Path) -> None:
    fake = FakeWan(api_key=KEY)
    async with serve_app(fake.app) as url:
        done = await generate(
            wan_settings(tmp_path, url), model="wan-2.5", prompt="p", duration=10, resolution="480p"
        )
    assert done["status"] == "completed", done
    assert done["estimated_cost"]["amount"] == 0.5 and done["cost"]["amount"] == 0.5  # 10 x 0.05
    assert fake.submitted[0]["parameters"]["size"] == "832*480"
