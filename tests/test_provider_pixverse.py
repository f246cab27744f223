"""The PixVerse adapter against its fake: uploads, the three generate endpoints, the two
headers on every call, the status codes of a video, and PixVerse's signed webhooks. PixVerse's
own Python client (pixverse-mcp) needs Python 3.12, so it cannot drive the fake here."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from typing import Any

import httpx
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.pixverse import PixverseFake, signed_webhook
from tests.support.images import data_uri, png
from tests.support.providers import (
    assert_cancel_sends_nothing,
    assert_refused_unsent,
    keyed_adapter,
)
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.pixverse import PixverseProvider
from vidrouter.providers.pixverse.callbacks import ACK, signing_payload, verify_webhook

V6_AUDIO = {"field.generate_audio": "generate_audio_switch"}
SECRET = "pixverse-webhook-secret"


def request(**kw: Any) -> base.ProviderRequest:
    """A 5 s 720p V6 text-to-video with sound and a seed, but for `kw`."""
    fox = base.ProviderRequest(
        "gen_pix1", "v6", "a red fox runs through fresh snow at dawn", 5.0, "21:9"
    )
    sound = Controls(resolution="720p", generate_audio=True, seed=12345)
    return replace(fox, **{"options": V6_AUDIO, "controls": sound, **kw})


def adapter_for(fake: PixverseFake) -> contextlib.AbstractAsyncContextManager[PixverseProvider]:
    return keyed_adapter(fake, PixverseProvider, "PIXVERSE_API_KEY")


async def _until_done(provider: PixverseProvider, job: base.ProviderJob) -> base.ProviderStatus:
    for _ in range(10):
        status = await provider.poll(job)
        if status.state in (base.JobState.SUCCEEDED, base.JobState.FAILED):
            return status
    raise AssertionError("the video never ended")


async def test_text_to_video_sends_the_v6_fields_and_a_fresh_trace_id_per_call() -> None:
    fake = PixverseFake()
    async with adapter_for(fake) as provider:
        job = await provider.submit(request())
        done = await _until_done(provider, job)
        ref = await provider.fetch_result(base.ProviderJob(job.id, done.data or {}))
        async with httpx.AsyncClient() as client:
            video = await client.get(str(ref.url))
    assert fake.submitted == [
        {
            "model": "v6",
            "prompt": "a red fox runs through fresh snow at dawn",
            "duration": 5,
            "quality": "720p",
            "aspect_ratio": "21:9",
            "seed": 12345,
            "generate_audio_switch": True,
        }
    ]
    assert job.id == str(next(iter(fake.tasks))) and job.request_id in fake.trace_ids
    assert len(set(fake.trace_ids)) == len(fake.trace_ids) == 3  # create and two polls
    assert done.billed_seconds == 5.0 and video.content == sample_mp4()


async def test_image_to_video_uploads_the_frame_and_sends_its_id() -> None:
    fake = PixverseFake()
    async with adapter_for(fake) as provider:
        job = await provider.submit(request(image_url=data_uri(png())))
        assert (await _until_done(provider, job)).state is base.JobState.SUCCEEDED
    [body] = fake.submitted
    [img_id] = fake.images
    assert body["img_id"] == img_id and "aspect_ratio" not in body  # the image sets the shape
    assert fake.plan.count("POST", "/openapi/v2/video/img/generate") == 1


async def test_an_end_frame_goes_to_the_transition_endpoint() -> None:
    fake = PixverseFake()
    image = data_uri(png())
    controls = Controls(resolution="1080p", generate_audio=False, end_image_url=image)
    async with adapter_for(fake) as provider:
        await provider.submit(
            request(model="v5.6", duration=8.0, image_url=image, controls=controls)
        )
    [body] = fake.submitted
    first, last = fake.images
    assert (body["first_frame_img"], body["last_frame_img"]) == (first, last)
    assert body["generate_audio_switch"] is False
    assert fake.plan.count("POST", "/openapi/v2/video/transition/generate") == 1


async def test_fields_a_model_lacks_are_never_sent() -> None:
    """V5 has no sound switch (its route names no field for it) but a negative prompt."""
    fake = PixverseFake()
    options = {"field.negative_prompt": "negative_prompt"}
    controls = Controls(resolution="540p", generate_audio=False, negative_prompt="blur")
    async with adapter_for(fake) as provider:
        await provider.submit(
            request(model="v5", aspect_ratio="16:9", options=options, controls=controls)
        )
    [body] = fake.submitted
    assert body["negative_prompt"] == "blur" and "generate_audio_switch" not in body


async def test_moderation_failure_and_a_lost_or_expired_video() -> None:
    fake = PixverseFake(moderate_prompts_containing="forbidden")
    async with adapter_for(fake) as provider:
        moderated = await _until_done(provider, await provider.submit(request(prompt="forbidden")))
        fake.moderate_prompts_containing, fake.fail_jobs = None, True
        failed = await _until_done(provider, await provider.submit(request()))
        fake.fail_jobs = False
        job = await provider.submit(request())
        await _until_done(provider, job)
        fake.tasks.clear()  # PixVerse no longer knows the video (its URL lifetime is unpublished)
        with pytest.raises(base.JobFailed) as expired:
            await provider.fetch_result(job)
        lost = await provider.poll(base.ProviderJob("999"))
    assert isinstance(moderated.error, base.ContentRejected)
    assert moderated.error.provider_code == "status_7"
    assert isinstance(failed.error, base.JobFailed) and failed.error.is_retryable
    assert lost.state is base.JobState.FAILED and isinstance(lost.error, base.JobFailed)
    for error in (expired.value, lost.error):
        assert error.provider_code == "500008" and error.is_retryable


async def test_cancel_asks_nothing_of_pixverse_which_has_no_cancel() -> None:
    fake = PixverseFake()
    async with adapter_for(fake) as provider:
        await assert_cancel_sends_nothing(provider, fake, request())


async def test_an_image_pixverse_cannot_take_is_refused_before_any_request() -> None:
    fake = PixverseFake()
    async with adapter_for(fake) as provider:
        bad = (
            request(image_url=data_uri(b"plain text")),
            request(controls=Controls(resolution="4k")),
        )
        await assert_refused_unsent(provider, fake, *bad)


# --- webhooks ---------------------------------------------------------------------------------


def test_the_signing_payload_is_the_documented_query_string() -> None:
    payload = {"id": "123456789", "status": 1, "url": "https://example.com/video.mp4"}
    assert signing_payload({**payload, "has_audio": True}) == (
        "has_audio=true&id=123456789&status=1&url=https%3A%2F%2Fexample.com%2Fvideo.mp4"
    )


def test_webhooks_are_verified_before_use() -> None:
    payload = {"id": "318466123456789", "status": 1, "url": "https://m.example/v.mp4"}
    payload |= {"size": 10.5, "has_audio": True, "credits": 100}
    now = 1_790_000_000
    headers, body = signed_webhook(SECRET, payload, timestamp=now)
    assert verify_webhook(SECRET, headers, body, now=now + 60) == payload  # valid
    assert verify_webhook("another-secret", headers, body, now=now) is None  # forged
    tampered = json.dumps({**payload, "status": 7}).encode()
    assert verify_webhook(SECRET, headers, tampered, now=now) is None  # body changed
    assert verify_webhook(SECRET, headers, body, now=now + 301) is None  # stale
    assert verify_webhook(SECRET, {**headers, "Webhook-Signature": ""}, body, now=now) is None
    assert verify_webhook("", headers, body, now=now) is None  # no secret: nothing verifies
    assert ACK == b"ok"  # what PixVerse must read back, or it retries for hours
