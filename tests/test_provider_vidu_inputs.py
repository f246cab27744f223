"""Vidu's reference-to-video (docs/providers/vidu.md, "Types"): the reference images as
`images` on /ent/v2/reference2video, by URL or inline, with the aspect ratio; what Vidu does
not take refused before it is called; the fake refusing what the endpoint does not take."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.fakes.vidu import ViduFake
from tests.support.images import data_uri, png
from tests.support.providers import served_adapter, until_ended
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.vidu import ViduProvider

KEY = "test-key"
REFERENCE = "/ent/v2/reference2video"


@pytest.fixture
async def vidu() -> AsyncIterator[tuple[ViduFake, ViduProvider]]:
    fake = ViduFake(api_key=KEY, polls_to_finish=1)

    def make(url: str) -> ViduProvider:
        return ViduProvider(AdapterConfig(url, {"VIDU_API_KEY": KEY}.get))

    async with served_adapter(fake.app(), make) as provider:
        yield fake, provider


def _media(url: str, kind: str = "image", reachable: bool = True) -> base.ProviderMedia:
    return base.ProviderMedia(kind, url, "image/png", reachable=reachable)


def _request(*references: base.ProviderMedia) -> base.ProviderRequest:
    return base.ProviderRequest(
        "gen_v1",
        "viduq2",
        "@1 and @2 meet",
        6,
        "9:16",
        controls=Controls("1080p", False, seed=7),
        type="reference-to-video",
        references=references,
    )


async def test_reference_images_go_as_images_by_url_or_inline(
    vidu: tuple[ViduFake, ViduProvider],
) -> None:
    fake, provider = vidu
    inline = data_uri(png(128, 128))
    job = await provider.submit(
        _request(_media("https://cdn.example/a.png"), _media(inline, reachable=False))
    )
    assert fake.submitted == [
        {
            "model": "viduq2",
            "prompt": "@1 and @2 meet",
            "duration": 6,
            "payload": "gen_v1",
            "aspect_ratio": "9:16",  # a reference generation takes the ratio asked
            "resolution": "1080p",
            "audio": False,
            "seed": 7,
            "images": ["https://cdn.example/a.png", inline],
        }
    ]
    assert [p for m, p in fake.plan.requests if m == "POST"] == [REFERENCE]
    done = await until_ended(provider, job)
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 6.0


async def test_what_vidu_does_not_take_is_refused_before_it_is_called(
    vidu: tuple[ViduFake, ViduProvider],
) -> None:
    fake, provider = vidu
    image = _media("https://cdn.example/a.png")
    for refs in ((image,) * 8, (image, _media("https://cdn.example/v.mp4", "video"))):
        with pytest.raises(base.InvalidInput):
            await provider.submit(_request(*refs))
    assert fake.submitted == []


@pytest.mark.parametrize(
    "body",
    [
        {"model": "viduq3-pro", "images": ["https://x/a.png"]},  # Q3 has no reference2video
        {"model": "viduq2", "images": ["https://x/a.png"] * 8},
        {"model": "viduq2", "images": []},
        {"model": "viduq2", "images": ["https://x/a.png"], "subjects": [{"id": "1"}]},
        {"model": "viduq2", "images": ["https://x/a.png"], "end_image": "https://x/b.png"},
    ],
)
async def test_the_fake_refuses_what_reference2video_does_not_take(body: dict[str, Any]) -> None:
    fake = ViduFake(api_key=KEY)
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            REFERENCE, json={"prompt": "p", **body}, headers={"Authorization": f"Token {KEY}"}
        )
    assert answer.status_code == 400, answer.text
    assert set(answer.json()) == {"code", "reason", "message", "metadata"}
    assert fake.tasks == {}
