"""The LTX adapter against its fake (written from LTX's OpenAPI document): the requests it
sends, the job it follows on the segment that created it, and how a lost or expired job, a
failed job and LTX's errors end. No official Python SDK exists to drive the fake."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.ltx import LtxFake
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, png
from tests.support.providers import (
    assert_cancel_sends_nothing,
    assert_refused_unsent,
    keyed_adapter,
)
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.ltx import LtxProvider

KEY = "test-key"


def request(**kw: Any) -> base.ProviderRequest:
    """A 6 s 1080p text-to-video with sound, but for `kw`."""
    heron = base.ProviderRequest(
        "gen_ltx1", "ltx-2-5-fast", "a heron lifts off a misty lake", 6.0, "16:9"
    )
    sound = Controls(resolution="1080p", generate_audio=True)
    return replace(heron, **{"options": {"fps": 24}, "controls": sound, **kw})


def adapter_for(fake: LtxFake) -> contextlib.AbstractAsyncContextManager[LtxProvider]:
    return keyed_adapter(fake, LtxProvider, "LTX_API_KEY")


async def _until_done(provider: LtxProvider, job: base.ProviderJob) -> list[base.ProviderStatus]:
    seen = []
    for _ in range(10):
        status = await provider.poll(job)
        seen.append(status)
        if status.state in (base.JobState.SUCCEEDED, base.JobState.FAILED):
            break
    return seen


async def test_text_to_video_follows_the_v2_job_to_its_video() -> None:
    fake = LtxFake()
    async with adapter_for(fake) as provider:
        job = await provider.submit(request())
        seen = await _until_done(provider, job)
        ref = await provider.fetch_result(base.ProviderJob(job.id, seen[-1].data or {}))
        async with httpx.AsyncClient() as client:
            video = await client.get(str(ref.url))
    assert [s.state for s in seen] == ["queued", "running", "succeeded"]
    assert seen[-1].billed_seconds == 6.0 and job.request_id
    assert fake.submitted == [
        {
            "prompt": "a heron lifts off a misty lake",
            "model": "ltx-2-5-fast",
            "duration": 6,
            "resolution": "1920x1080",
            "fps": 24,
            "generate_audio": True,
        }
    ]
    assert fake.plan.count("GET", f"/v2/text-to-video/{job.id}") == 3
    assert video.content == sample_mp4() and ref.headers == {}


async def test_image_to_video_portrait_with_a_last_frame_and_silence() -> None:
    fake = LtxFake()
    image = data_uri(png())
    controls = Controls(resolution="720p", generate_audio=False, end_image_url=image)
    async with adapter_for(fake) as provider:
        job = await provider.submit(
            request(model="ltx-2-3-pro", aspect_ratio="9:16", image_url=image, controls=controls)
        )
        seen = await _until_done(provider, job)
    [body] = fake.submitted
    assert (body["resolution"], body["generate_audio"]) == ("720x1280", False)
    assert body["image_uri"] == image and body["last_frame_uri"] == image
    assert fake.jobs[job.id].endpoint == "image-to-video"
    assert fake.plan.count("GET", f"/v2/image-to-video/{job.id}") == len(seen)
    assert seen[-1].state is base.JobState.SUCCEEDED


async def test_a_lost_job_and_an_expired_result_are_job_failures() -> None:
    fake = LtxFake()
    async with adapter_for(fake) as provider:
        lost = await provider.poll(base.ProviderJob("no-such-job", {"endpoint": "text-to-video"}))
        job = await provider.submit(request())
        done = (await _until_done(provider, job))[-1]
        fake.expire(job.id)  # LTX keeps a job 24 hours after it ends
        with pytest.raises(base.JobFailed) as expired:
            await provider.fetch_result(job)  # nothing stored: asks LTX again
        assert done.data is not None
        async with httpx.AsyncClient() as client:  # and its video URL is gone with it
            assert (await client.get(str(done.data["video_url"]))).status_code == 404
    assert lost.state is base.JobState.FAILED and isinstance(lost.error, base.JobFailed)
    for error in (lost.error, expired.value):
        assert error.provider_code == "not_found_error" and error.is_retryable


async def test_failed_jobs_end_by_their_error_type() -> None:
    fake = LtxFake(moderate_prompts_containing="forbidden", moderate_at_create=False)
    async with adapter_for(fake) as provider:
        job = await provider.submit(request(prompt="something forbidden"))
        moderated = (await _until_done(provider, job))[-1]
        fake.moderate_prompts_containing = None
        fake.fail_jobs_with = ("api_error", "Unexpected error")
        job = await provider.submit(request())
        broken = (await _until_done(provider, job))[-1]
    assert isinstance(moderated.error, base.ContentRejected)
    assert moderated.error.provider_code == "content_filtered_error"
    assert isinstance(broken.error, base.JobFailed) and broken.error.is_retryable


async def test_cancel_asks_nothing_of_ltx_which_has_no_cancel() -> None:
    fake = LtxFake()
    async with adapter_for(fake) as provider:
        await assert_cancel_sends_nothing(provider, fake, request())


async def test_the_concurrency_limit_is_a_rate_limit_with_its_wait() -> None:
    fake = LtxFake(max_concurrent=1, never_finish=True)
    async with adapter_for(fake) as provider:
        await provider.submit(request())
        with pytest.raises(base.RateLimited) as limited:
            await provider.submit(request())
    assert limited.value.provider_code == "concurrency_limit_error"
    assert limited.value.retry_after == 5.0


async def test_what_ltx_cannot_make_is_refused_before_any_request() -> None:
    fake = LtxFake()
    async with adapter_for(fake) as provider:
        bad = (request(aspect_ratio="1:1"), request(controls=Controls(resolution="480p")))
        await assert_refused_unsent(provider, fake, *bad)


async def test_the_fake_keeps_ltx_rules() -> None:
    """Unknown fields, the model matrix and the v1 synchronous twin, as LTX documents them."""
    fake = LtxFake()
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        auth = {"Authorization": f"Bearer {KEY}"}
        ok = {"prompt": "p", "model": "ltx-2-5-pro", "duration": 6, "resolution": "1920x1080"}
        for extra in ({"seed": 1}, {"duration": 12}, {"resolution": "3840x2160"}, {"fps": 48}):
            answer = await client.post("/v2/text-to-video", json=ok | extra, headers=auth)
            assert answer.status_code == 400, extra
            assert answer.json()["error"]["type"] == "invalid_request_error"
        last = ok | {"image_uri": data_uri(png()), "last_frame_uri": data_uri(png())}
        refused = await client.post("/v2/image-to-video", json=last, headers=auth)
        assert refused.status_code == 400  # last frames: LTX-2.3 only
        sync = await client.post("/v1/text-to-video", json=ok, headers=auth)
        assert sync.headers["content-type"] == "video/mp4" and sync.headers["x-request-id"]
        denied = await client.post("/v2/text-to-video", json=ok)
        assert denied.json() == {
            "type": "error",
            "error": {"type": "authentication_error", "message": "Invalid or missing API key"},
        }


async def test_a_job_lost_at_ltx_is_made_again_through_our_api(tmp_path: Path) -> None:
    """LTX forgets the job (its 24 hours passed, or it never kept it): the poll's 404 fails
    that job, and the engine makes the generation again instead of polling a ghost."""
    fake = LtxFake(polls_to_finish=3)
    async with serve_app(fake.app()) as url:
        environ = {"LTX_API_KEY": KEY, "VIDROUTER_LTX_BASE_URL": url}
        settings = test_settings(tmp_path / "data", environ=environ, provider_delay_scale=0.01)
        async with running(settings) as app:
            key = await app.new_key()
            created = await app.create(key, model="ltx-2.5-fast", prompt="a heron")
            generation_id = created.json()["id"]
            for _ in range(200):
                if fake.plan.count("GET", "/v2/text-to-video/") >= 1:
                    break
                await asyncio.sleep(0.02)
            fake.expire()
            done = await app.wait_for(key, generation_id, timeout=30)
    assert done["status"] == "completed", done
    assert len(fake.jobs) == 2  # the lost job, and the one made again
