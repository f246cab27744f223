"""The Kling adapter on its own against the fake: requests, error mapping, idempotency."""

from __future__ import annotations

import base64

import pytest

from tests.fakes.kling import KlingFake, error_body
from tests.support.images import data_uri, png
from tests.support.kling import adapter_for, frame_url, request
from vidrouter.providers.base import (
    AuthFailed,
    ContentRejected,
    InvalidInput,
    ProviderError,
    ProviderJob,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)

# --- the adapter on its own -----------------------------------------------------------------


ERROR_CODES = [
    (401, 1000, AuthFailed),
    (401, 1004, ProviderUnavailable),  # re-signed on the next try
    (429, 1100, AuthFailed),
    (429, 1101, AuthFailed),
    (429, 1102, AuthFailed),  # out of units: a 429 that is no rate limit
    (403, 1103, AuthFailed),
    (400, 1200, InvalidInput),
    (400, 1201, InvalidInput),
    (404, 1203, InvalidInput),
    (400, 1300, ContentRejected),
    (400, 1301, ContentRejected),
    (429, 1302, RateLimited),
    (429, 1303, RateLimited),
    (429, 1304, AuthFailed),
    (500, 5000, ProviderUnavailable),
    (503, 5001, ProviderUnavailable),
    (504, 5002, ProviderTimeout),
    (418, 4242, InvalidInput),  # undocumented: the HTTP status decides
]


async def test_error_codes_map_onto_our_classes() -> None:
    fake = KlingFake()
    async with adapter_for(fake) as provider:
        for status, code, expected in ERROR_CODES:
            fake.plan.add(status=status, body=error_body(code, "injected"), retry_after=7)
            with pytest.raises(ProviderError) as caught:
                await provider.submit(request())
            error = caught.value
            assert type(error) is expected, (code, error)
            assert error.provider_code == str(code) and error.request_id, code
            assert error.status_code == status
            if expected is RateLimited:
                assert isinstance(error, RateLimited) and error.retry_after == 7
    assert fake.tasks == {}


async def test_payloads_for_text_and_both_image_forms() -> None:
    fake = KlingFake()
    frame = png(400, 400)
    async with frame_url(frame) as image_url, adapter_for(fake) as provider:
        text = await provider.submit(request(callback_url="https://hooks.example/k"))
        by_url = await provider.submit(
            request(generation_id="gen_b", image_url=image_url, aspect_ratio="9:16")
        )
        by_data = await provider.submit(
            request(
                generation_id="gen_c",
                image_url=data_uri(frame),
                model="kling-v3",
                duration=7.0,
                options={"mode": "std", "sound": "off", "cfg_scale": 0.4},
            )
        )
    assert fake.received[0] == {
        "model_name": "kling-v2-5-turbo",
        "prompt": "a lighthouse at dusk",
        "duration": "5",
        "external_task_id": "gen_test1",
        "mode": "pro",
        "aspect_ratio": "16:9",
        "callback_url": "https://hooks.example/k",
    }
    assert fake.received[1]["image"] == image_url and "aspect_ratio" not in fake.received[1]
    assert base64.b64decode(fake.received[2]["image"], validate=True) == frame
    assert fake.received[2]["duration"] == "7" and fake.received[2]["cfg_scale"] == 0.4
    assert (text.data["kind"], by_url.data["kind"], by_data.data["kind"]) == (
        "text2video",
        "image2video",
        "image2video",
    )


async def test_lost_answer_is_recovered_by_external_task_id() -> None:
    fake = KlingFake(accept_then_time_out=1)
    async with adapter_for(fake) as provider:
        with pytest.raises(ProviderTimeout):
            await provider.submit(request())
        job = await provider.submit(request())  # the engine's retry: refused as a duplicate
        assert list(fake.tasks) == [job.id]
        statuses = [(await provider.poll(job)).state.value for _ in range(2)]
    assert statuses == ["running", "succeeded"]  # the lookup was the task's first query


async def test_poll_reports_requested_seconds_as_billed_and_keeps_the_url() -> None:
    fake = KlingFake(polls_before_done=1)
    async with adapter_for(fake) as provider:
        job = await provider.submit(request(duration=10.0))
        status = await provider.poll(job)
        assert status.billed_seconds == 10.0 and status.data is not None
        assert status.data["video_duration"] == pytest.approx(10.042)
        ref = await provider.fetch_result(ProviderJob(job.id, status.data))
        assert ref.url is not None and ref.url.endswith(f"/kcdn/videos/{job.id}.mp4")
        assert dict(ref.headers) == {}


async def test_an_expired_token_answer_makes_the_adapter_sign_a_new_one() -> None:
    fake = KlingFake()
    fake.plan.add(status=401, body=error_body(1004, "Authorization has expired"))
    async with adapter_for(fake) as provider:
        stale = provider._tokens.token()
        with pytest.raises(ProviderUnavailable):
            await provider.submit(request())
        assert provider._tokens._token is None  # forgotten: the next call signs afresh
        await provider.submit(request())
    assert stale  # (same second: the new token may be byte-identical, which Kling accepts)
