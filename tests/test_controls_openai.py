"""The OpenAI-style `/v1/videos` upstream's one control (issue 13): the resolution, which
travels with the aspect ratio as `size`. Our adapter against the fake, which refuses a field
or a size the format does not have, and the size table on its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.fakes.openai_videos import FakeOpenAIVideos
from tests.support.images import data_uri, png
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import AccountRefused, InvalidInput, ProviderRequest
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.openai_videos import OpenAIVideosProvider, size_for

KEY_ENV, KEY = "GATEWAY_VIDEO_KEY", "sk-gateway-test"


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[FakeOpenAIVideos, OpenAIVideosProvider, str]]:
    fake = FakeOpenAIVideos(api_key=KEY)
    async with serve_app(fake.app()) as url:
        provider = OpenAIVideosProvider(AdapterConfig("", {KEY_ENV: KEY}.get))
        try:
            yield fake, provider, url + "/v1"
        finally:
            await provider.aclose()


def request(base_url: str, controls: Controls, **options: Any) -> ProviderRequest:
    return ProviderRequest(
        "gen_abc123",
        "upstream-clip-1",
        "a fox",
        duration=8,
        aspect_ratio=options.pop("aspect_ratio", "16:9"),
        image_url=options.pop("image_url", None),
        options={"base_url": base_url, "api_key_env": KEY_ENV, **options},
        controls=controls,
    )


async def test_the_resolution_travels_as_size(
    upstream: tuple[FakeOpenAIVideos, OpenAIVideosProvider, str],
) -> None:
    fake, provider, base_url = upstream
    await provider.submit(request(base_url, Controls(resolution="1080p", generate_audio=True)))
    await provider.submit(
        request(base_url, Controls(resolution="1080p"), aspect_ratio="9:16", request_format="json")
    )
    await provider.submit(request(base_url, Controls(resolution="720p"), aspect_ratio="9:16"))
    multipart, json_body, portrait = fake.submitted
    # Nothing but the format's own fields: the audio the model makes by default is not a field.
    assert multipart == {
        "model": "upstream-clip-1",
        "prompt": "a fox",
        "seconds": "8",
        "size": "1920x1080",
    }
    assert json_body == {**multipart, "size": "1080x1920"}
    assert portrait["size"] == "720x1280"


async def test_an_image_is_fitted_to_the_size_of_the_resolution(
    upstream: tuple[FakeOpenAIVideos, OpenAIVideosProvider, str],
) -> None:
    fake, provider, base_url = upstream
    image = data_uri(png(640, 480))
    await provider.submit(request(base_url, Controls(resolution="1080p"), image_url=image))
    assert fake.created[0].image_size == (1920, 1080)


async def test_an_upstream_without_the_size_refuses_it(
    upstream: tuple[FakeOpenAIVideos, OpenAIVideosProvider, str],
) -> None:
    fake, provider, base_url = upstream
    fake.sizes = ("720x1280", "1280x720")  # sora-2's two
    with pytest.raises(InvalidInput, match="1920x1080"):
        await provider.submit(request(base_url, Controls(resolution="1080p")))
    assert fake.submitted == []


def test_sizes_by_resolution() -> None:
    assert size_for("16:9", {}, "720p") == "1280x720"
    assert size_for("9:16", {}, "1080p") == "1080x1920"
    assert size_for("16:9", {}) == "1280x720"  # no resolution asked: the 720p size
    # A resolution OpenAI never sized: the short side is the resolution, the long one follows
    # the ratio, rounded to even; the upstream decides whether it makes it.
    assert size_for("16:9", {}, "480p") == "854x480"
    assert size_for("9:16", {}, "768p") == "768x1366"
    assert size_for("16:9", {}, "4k") == "3840x2160"
    with pytest.raises(InvalidInput, match="no size"):
        size_for("wide", {}, "720p")  # not a ratio: nothing to work a size out from
    sizes = {"sizes": "16:9@1080p=1792x1024, 16:9@480p=854x480, 9:16=1024x1792"}
    assert size_for("16:9", sizes, "1080p") == "1792x1024"
    assert size_for("16:9", sizes, "480p") == "854x480"
    assert size_for("16:9", sizes, "720p") == "1280x720"
    # A bare ratio is the operator's one size for it, whatever the resolution.
    assert size_for("9:16", sizes, "1080p") == size_for("9:16", sizes, "720p") == "1024x1792"
    with pytest.raises(AccountRefused):
        size_for("16:9", {"sizes": "16:9@1080p=big"}, "1080p")


def test_sora_models_declare_their_resolutions() -> None:
    catalog = load_catalog()
    sora, pro = catalog.get("sora-2"), catalog.get("sora-2-pro")
    assert sora is not None and pro is not None
    assert (sora.resolutions, sora.audio, sora.supports) == (("720p",), True, frozenset())
    assert (pro.resolutions, pro.audio, pro.supports) == (("720p", "1080p"), True, frozenset())
