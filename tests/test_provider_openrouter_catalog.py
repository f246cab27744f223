"""OpenRouter's published catalog, prices, error mapping and signed callbacks, checked against the fake."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.fakes.openrouter import OpenRouterFake
from tests.support.openrouter import KEY, ROUTED, context, settings_for
from tests.support.providers import fake_fixture
from vidrouter.cli.catalog import _check as check_catalog
from vidrouter.domain.catalog import load_catalog
from vidrouter.providers import http as provider_http
from vidrouter.providers.base import (
    AuthFailed,
    ContentRejected,
    ProviderJob,
    ProviderUnavailable,
)
from vidrouter.providers.openrouter import FACTORY
from vidrouter.providers.openrouter.callbacks import sign_callback, verify_callback
from vidrouter.providers.openrouter.catalog import price_per_second
from vidrouter.providers.openrouter.errors import refine

fake = fake_fixture(lambda: OpenRouterFake(api_key=KEY))

# --- 4. the published catalog, prices, errors, callbacks ------------------------------------


async def test_published_models_match_our_routes(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    """`vidrouter catalog check`'s source: what OpenRouter publishes, priced as our routes ask,
    agrees with every OpenRouter route in the built-in catalog."""
    _, url = fake
    assert FACTORY.published is not None
    routes = [
        (model, route)
        for model in load_catalog().models
        for route in model.routes
        if route.provider == "openrouter"
    ]
    wanted = [route.provider_model for _, route in routes] + ["acme/not-served"]
    found = await FACTORY.published(context(settings_for(tmp_path, url), tmp_path), wanted)
    by_name = {p.provider_model: p for p in found}
    assert set(by_name) == {route.provider_model for _, route in routes}
    assert len(routes) == len(ROUTED)
    for model, route in routes:
        published = by_name[route.provider_model]
        assert published.price_per_second == pytest.approx(route.price_per_second), route
        assert published.durations is not None
        assert set(route.durations or model.durations or ()) == set(published.durations)
        assert published.max_duration == (route.max_duration or model.max_duration)
        assert published.aspect_ratios is not None
        assert set(route.aspect_ratios or model.aspect_ratios) <= set(published.aspect_ratios)


async def test_catalog_check_finds_no_difference(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    _, url = fake
    differences, skipped = await check_catalog(settings_for(tmp_path, url))
    assert [d for d in differences if d.route.startswith("openrouter:")] == []
    assert "openrouter" not in {name for name, _ in skipped}


def test_prices_from_pricing_skus() -> None:
    veo = {
        "duration_seconds_with_audio": "0.40",
        "duration_seconds_without_audio": "0.20",
        "duration_seconds_with_audio_4k": "0.60",
    }
    assert price_per_second(veo, "720p", True) == 0.40
    assert price_per_second(veo, "720p", False) == 0.20
    assert price_per_second(veo, "4K", True) == 0.60
    assert price_per_second(veo) == 0.40  # the model's default: audio on
    grok = {"cents_per_image_input": "1", "cents_per_video_output_second_720p": "14"}
    assert price_per_second(grok, "720p") == 0.14
    seedance = {"video_tokens": "0.000007", "video_tokens_1080p": "0.0000077"}
    assert price_per_second(seedance, "1080p", True) == pytest.approx(0.37422)
    kling = {"duration_seconds": "0.112", "duration_seconds_with_audio": "0.168"}
    assert (price_per_second(kling, None, False), price_per_second(kling, None, True)) == (
        0.112,
        0.168,
    )
    assert price_per_second({"cents_per_megapixel_second_precise": "7.5"}) is None


def _response(status: int, body: object) -> httpx.Response:
    request = httpx.Request("POST", "https://openrouter.ai/api/v1/videos")
    return httpx.Response(status, json=body, request=request)


def test_error_bodies_are_refined() -> None:
    flagged = _response(
        403,
        {"error": {"code": 403, "message": "Input was flagged", "metadata": {"reasons": ["hate"]}}},
    )
    refined = refine(provider_http.error_for(flagged))
    assert isinstance(refined, ContentRejected) and refined.provider_code == "hate"
    forbidden = _response(403, {"error": {"code": 403, "message": "Key is disabled"}})
    assert isinstance(refine(provider_http.error_for(forbidden)), AuthFailed)
    closed = _response(499, {"error": {"code": 499, "message": "Client closed request"}})
    assert isinstance(refine(provider_http.error_for(closed)), ProviderUnavailable)


def test_callback_signature_scheme() -> None:
    body = b'{"type":"video.generation.failed","data":{"id":"gen-vid-1","status":"failed"}}'
    stamp = "1795000000"
    header = f"t={stamp},v1={sign_callback('s3cret', stamp, body)}"
    assert verify_callback("s3cret", {"X-OpenRouter-Signature": header}, body, now=1795000100)
    rotated = f"t={stamp},v1={'0' * 64},v1={sign_callback('s3cret', stamp, body)}"
    assert verify_callback("s3cret", {"x-openrouter-signature": rotated}, body, now=1795000000)
    for headers in (
        {},
        {"x-openrouter-signature": "v1=abc"},
        {"x-openrouter-signature": f"t=soon,v1={sign_callback('s3cret', stamp, body)}"},
    ):
        assert not verify_callback("s3cret", headers, body, now=1795000000)
    assert not verify_callback("", {"x-openrouter-signature": header}, body, now=1795000000)


async def test_results_come_from_the_authenticated_content_endpoint(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, "http://127.0.0.1:9")
    provider = FACTORY.build(context(settings, tmp_path))
    ref = await provider.fetch_result(ProviderJob("gen-vid-1-abc"))
    assert ref.url == "http://127.0.0.1:9/api/v1/videos/gen-vid-1-abc/content?index=0"
    assert ref.headers == {"Authorization": f"Bearer {KEY}"}
    await provider.cancel(ProviderJob("gen-vid-1-abc"))  # no cancel endpoint: nothing sent
    await provider.aclose()
