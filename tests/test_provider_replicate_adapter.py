"""The Replicate adapter on its own: webhook signatures and the published catalog, against the fake."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook

from tests.fakes.replicate import MODELS, ReplicateFake
from tests.support.providers import fake_fixture
from tests.support.receiver import WebhookReceiver
from tests.support.replicate import KEY, settings_for
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog
from vidrouter.providers.base import (
    AuthFailed,
    InvalidInput,
    JobState,
    ProviderContext,
    ProviderJob,
    ProviderRequest,
)
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.replicate import FACTORY
from vidrouter.providers.replicate.adapter import ReplicateProvider
from vidrouter.providers.replicate.callbacks import verify_webhook
from vidrouter.providers.replicate.catalog import published

fake = fake_fixture(lambda: ReplicateFake(api_token=KEY), lambda made: made.app())

# --- the adapter alone: webhooks, published catalog -----------------------------------------


async def test_webhooks_verify_the_standard_webhooks_way(fake: tuple[ReplicateFake, str]) -> None:
    replicate_fake, url = fake
    receiver = WebhookReceiver()
    provider = ReplicateProvider(AdapterConfig(url, {"REPLICATE_API_TOKEN": KEY}.get))
    try:
        async with serve_app(receiver) as hook_url:
            request = ProviderRequest(
                "gen_1", "luma/ray-flash-2-720p", "a boat", 5, "16:9", callback_url=hook_url
            )
            job = await provider.submit(request)
            [(_, body)] = replicate_fake.created
            assert (body["webhook"], body["webhook_events_filter"]) == (hook_url, ["completed"])
            for _ in range(4):
                status = await provider.poll(job)
            assert status.state is JobState.SUCCEEDED
            [hook] = await receiver.wait_for(1, timeout=5)
        secret = await provider.webhook_secret()
    finally:
        await provider.aclose()
    assert json.loads(hook.body)["id"] == job.id
    assert verify_webhook(secret, hook.headers, hook.body)
    Webhook(secret).verify(hook.body, hook.headers)  # the reference package agrees
    assert not verify_webhook(secret, hook.headers, hook.body + b" ")
    assert not verify_webhook(_other_secret(), hook.headers, hook.body)
    later = datetime.now(UTC) + timedelta(minutes=6)
    assert not verify_webhook(secret, hook.headers, hook.body, now=later)
    assert not verify_webhook(secret, {}, hook.body)
    assert not verify_webhook(secret, {**hook.headers, "webhook-signature": "v1,é"}, hook.body)

    # A body signed by the standardwebhooks package itself.
    sent = datetime.now(UTC)
    payload = '{"id": "p1", "status": "succeeded"}'
    headers = {
        "Webhook-Id": "msg_1",
        "Webhook-Timestamp": str(int(sent.timestamp())),
        "Webhook-Signature": "v1,bm90IGl0 " + Webhook(secret).sign("msg_1", sent, payload),
    }
    assert verify_webhook(secret, headers, payload)
    assert not verify_webhook("not base64!", headers, payload)


def _other_secret() -> str:
    """Another account's signing secret."""
    return "whsec_" + base64.b64encode(b"another account's secret....!!").decode()


async def test_published_models_agree_with_our_catalog(
    fake: tuple[ReplicateFake, str], tmp_path: Path
) -> None:
    _, url = fake
    settings = settings_for(tmp_path, url)
    ctx = FACTORY.config(ProviderContext(settings, tmp_path, render_pool=lambda: pytest.fail("x")))
    catalog = load_catalog()
    routes = {
        route.provider_model: (spec, route)
        for spec in catalog.models
        for route in spec.routes
        if route.provider == "replicate"
    }
    assert set(routes) <= set(MODELS)
    found = await published(ctx, [*routes, "nobody/nothing"])
    by_model = {p.provider_model: p for p in found}
    assert set(by_model) == set(routes)  # unknown models are left out
    for model, (spec, route) in routes.items():
        host = by_model[model]
        assert host.price_per_second is None  # Replicate's API publishes no prices
        offered = route.durations or spec.durations
        assert host.durations is not None and offered is not None
        assert set(offered) <= set(host.durations), model
        if host.aspect_ratios is not None:
            assert set(route.aspect_ratios or spec.aspect_ratios) <= set(host.aspect_ratios), model
    assert by_model["bytedance/seedance-1-pro"].durations == tuple(float(s) for s in range(2, 13))
    assert by_model["wan-video/wan-2.5-t2v"].aspect_ratios == ("16:9", "9:16")
    assert by_model["kwaivgi/kling-v2.1-master"].aspect_ratios == ("16:9", "9:16", "1:1")
    assert by_model["minimax/hailuo-02"].aspect_ratios is None  # no aspect-ratio input
    assert by_model["google/veo-3.1"].max_duration == 8


async def test_outputs_deleted_after_an_hour_and_cancel_of_a_gone_prediction(
    fake: tuple[ReplicateFake, str],
) -> None:
    replicate_fake, url = fake
    provider = ReplicateProvider(AdapterConfig(url, {"REPLICATE_API_TOKEN": KEY}.get))
    try:
        job = await provider.submit(ProviderRequest("g", "luma/ray-2-720p", "p", 5, "16:9"))
        prediction = replicate_fake.predictions[job.id]
        prediction.update(status="succeeded", output=None, data_removed=True)
        status = await provider.poll(job)
        assert status.state is JobState.FAILED and status.error is not None
        assert (status.error.provider_code, status.error.is_retryable) == ("data_removed", True)
        await provider.cancel(ProviderJob("no-such-prediction"))
    finally:
        await provider.aclose()


async def test_create_errors_are_classified_from_the_problem_details(
    fake: tuple[ReplicateFake, str],
) -> None:
    replicate_fake, url = fake
    provider = ReplicateProvider(AdapterConfig(url, {"REPLICATE_API_TOKEN": KEY}.get))
    try:
        with pytest.raises(AuthFailed, match="does not serve nobody/nothing"):
            await provider.submit(ProviderRequest("g", "nobody/nothing", "p", 5, "16:9"))
        with pytest.raises(InvalidInput, match="duration must be one of the following") as bad:
            await provider.submit(ProviderRequest("g", "kwaivgi/kling-v2.1-master", "p", 7, "16:9"))
        assert bad.value.provider_code == "Input validation failed"
        replicate_fake.out_of_credits = True
        with pytest.raises(AuthFailed, match="billing") as poor:
            await provider.submit(ProviderRequest("g", "luma/ray-2-720p", "p", 5, "16:9"))
        assert poor.value.provider_code == "Insufficient credit"
    finally:
        await provider.aclose()
