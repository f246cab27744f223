"""Vidu: what its adapter does that the contract suite does not cover. The endpoint each
input chooses (text, image, start and end frames) and its body, a cancel before and after
the task starts, a task Vidu does not know, a result that expired, the fake's fidelity, and
Vidu's signed callbacks (valid, forged, stale). Vidu publishes no Python SDK (its MCP server
`vidu-mcp` is the only client it ships), so the fake follows the docs (docs/providers/vidu.md)."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.fakes.vidu import ViduFake, signed_headers
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, image_host, png
from tests.support.providers import image_to_video_against, until_ended
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.vidu import ViduProvider, verify_callback
from vidrouter.providers.vidu.callbacks import signing_string

KEY = "test-key"


@pytest.fixture
async def vidu() -> AsyncIterator[tuple[ViduFake, ViduProvider]]:
    fake = ViduFake(api_key=KEY, polls_to_finish=1)
    async with serve_app(fake.app()) as url:
        config = AdapterConfig(url, {"VIDU_API_KEY": KEY}.get, allow_private_images=True)
        provider = ViduProvider(config)
        try:
            yield fake, provider
        finally:
            await provider.aclose()


def _request(**kw: object) -> base.ProviderRequest:
    values: dict[str, object] = {"controls": Controls("720p", True), **kw}
    return base.ProviderRequest("gen_v1", "viduq3-pro", "a fox in the snow", 5, "16:9", **values)  # type: ignore[arg-type]


async def test_text_to_video_body_and_result(vidu: tuple[ViduFake, ViduProvider]) -> None:
    fake, provider = vidu
    job = await provider.submit(_request(controls=Controls("1080p", False, seed=42)))
    assert fake.submitted == [
        {
            "model": "viduq3-pro",
            "prompt": "a fox in the snow",
            "duration": 5,
            "payload": "gen_v1",  # echoed back by Vidu: our generation id
            "aspect_ratio": "16:9",
            "resolution": "1080p",
            "audio": False,
            "seed": 42,
        }
    ]
    assert job.id in fake.tasks and len(job.id) == 18
    assert (await provider.poll(job)).state is base.JobState.QUEUED  # queueing
    assert (await provider.poll(job)).state is base.JobState.RUNNING  # processing
    done = await until_ended(provider, job)
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 5.0
    assert done.data is not None and done.data["credits"] == 20
    ref = await provider.fetch_result(base.ProviderJob(job.id, done.data))
    assert ref.url is not None and ref.url.endswith(f"/results/{job.id}.mp4")


async def test_an_image_chooses_img2video_and_an_end_frame_start_end2video(
    vidu: tuple[ViduFake, ViduProvider],
) -> None:
    fake, provider = vidu
    inline = data_uri(png(4, 4))
    async with image_host() as host:
        first = f"{host}/frame.png"
        one = await provider.submit(_request(image_url=first))
        two = await provider.submit(
            _request(image_url=inline, controls=Controls("720p", True, end_image_url=first))
        )
    assert (fake.tasks[one.id].kind, fake.tasks[two.id].kind) == ("img2video", "start-end2video")
    assert fake.submitted[0]["images"] == [first]  # Vidu fetches URLs itself
    assert fake.submitted[1]["images"] == [inline, first]  # data: URIs keep their prefix
    assert not {"aspect_ratio"} & (set(fake.submitted[0]) | set(fake.submitted[1]))
    with pytest.raises(base.InvalidInput):  # an end frame alone is no request Vidu has
        await provider.submit(_request(controls=Controls("720p", True, end_image_url=inline)))
    assert len(fake.submitted) == 2


async def test_a_cancel_before_the_start_and_after_it(vidu: tuple[ViduFake, ViduProvider]) -> None:
    fake, provider = vidu
    waiting = await provider.submit(_request())
    await provider.cancel(waiting)
    assert (await provider.poll(waiting)).state is base.JobState.CANCELED  # UserCancelled
    running = await provider.submit(_request())
    await provider.poll(running)
    await provider.poll(running)  # processing: Vidu no longer cancels it
    await provider.cancel(running)  # refused with a 400, quietly
    assert fake.cancels == [waiting.id, running.id]
    assert (await until_ended(provider, running)).state is base.JobState.SUCCEEDED


async def test_a_lost_task_and_an_expired_result(vidu: tuple[ViduFake, ViduProvider]) -> None:
    fake, provider = vidu
    with pytest.raises(base.JobFailed) as lost:
        await provider.poll(base.ProviderJob("809387572068364288"))
    assert (lost.value.provider_code, lost.value.is_retryable) == ("TaskNotFound", False)
    job = await provider.submit(_request())
    fake.expire_results = True  # the creation is gone once the task ends (after 24 h)
    with pytest.raises(base.JobFailed) as expired:
        await until_ended(provider, job)
    assert (expired.value.provider_code, expired.value.is_retryable) == ("CreationNotFound", True)


@pytest.mark.parametrize(
    ("knob", "error", "code"),
    [
        ({"moderate_outputs_containing": "fox"}, base.ContentRejected, "CreationPolicyViolation"),
        ({"fail_jobs_with": "InternalServiceFailure"}, base.JobFailed, "InternalServiceFailure"),
        ({"fail_jobs_with": "ImageDownloadFailure"}, base.InvalidInput, "ImageDownloadFailure"),
    ],
)
async def test_failed_tasks_by_err_code(
    vidu: tuple[ViduFake, ViduProvider],
    knob: dict[str, object],
    error: type[base.ProviderError],
    code: str,
) -> None:
    fake, provider = vidu
    for name, value in knob.items():
        setattr(fake, name, value)
    status = await until_ended(provider, await provider.submit(_request()))
    assert status.state is base.JobState.FAILED and isinstance(status.error, error)
    assert status.error.provider_code == code


async def test_only_five_tasks_run_at_once() -> None:
    fake = ViduFake(api_key=KEY, never_finish=True)
    async with serve_app(fake.app()) as url:
        provider = ViduProvider(AdapterConfig(url, {"VIDU_API_KEY": KEY}.get))
        try:
            jobs = [await provider.submit(_request()) for _ in range(6)]
            for _ in range(2):
                states = [(await provider.poll(job)).state for job in jobs]
        finally:
            await provider.aclose()
    assert states.count(base.JobState.RUNNING) == 5 and states[-1] is base.JobState.QUEUED


@pytest.mark.parametrize(
    ("path", "body", "reason"),
    [
        ("text2video", {"negative_prompt": "blur"}, "FieldUnwanted"),
        ("text2video", {"images": ["https://x/a.png"]}, "FieldItemCountOutOfRange"),
        ("text2video", {"duration": 17}, "FieldInvalid"),
        ("text2video", {"resolution": "4k"}, "FieldInvalid"),
        ("img2video", {"images": []}, "FieldItemCountOutOfRange"),
        ("img2video", {"aspect_ratio": "16:9", "images": ["https://x/a.png"]}, "FieldUnwanted"),
        ("img2video", {"images": ["iVBORw0KGgo="]}, "ImageFormatInvalid"),  # no data: prefix
        ("start-end2video", {"images": ["https://x/a.png"]}, "FieldItemCountOutOfRange"),
        (
            "reference2video",
            {"model": "viduq3-pro", "images": ["https://x/a.png"]},
            "ModelUnavailable",
        ),
    ],
)
async def test_the_fake_refuses_what_vidu_does_not_take(
    path: str, body: dict[str, object], reason: str
) -> None:
    fake = ViduFake(api_key=KEY)
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            f"/ent/v2/{path}",
            json={"model": "viduq3-turbo", "prompt": "p", **body},
            headers={"Authorization": f"Token {KEY}"},
        )
        bearer = await client.post(
            "/ent/v2/text2video",
            json={"model": "viduq3-turbo", "prompt": "p"},
            headers={"Authorization": f"Bearer {KEY}"},  # Vidu wants `Token`
        )
    assert answer.status_code == 400 and answer.json()["reason"] == reason, answer.text
    assert bearer.status_code == 401 and bearer.json()["reason"] == "Unauthorized"
    assert fake.tasks == {}


# --- signed callbacks -----------------------------------------------------------------------


def test_the_signing_string_is_the_documented_example() -> None:
    """platform.vidu.com/docs/callback-signature's own example."""
    date = "Tue, 06 May 2025 12:09:42 GMT"
    signed = [("Date", date), ("x-request-nonce", "123e4567-e89b-12d3-a456-426614174000")]
    text = signing_string(
        "POST", "http://127.0.0.1:8080/vidu/callback?name=james&age=36", date, signed
    )
    assert text == (
        "POST\n/vidu/callback\nname=james&age=36\nvidu\nTue, 06 May 2025 12:09:42 GMT\n"
        "Date:Tue, 06 May 2025 12:09:42 GMT\n"
        "x-request-nonce:123e4567-e89b-12d3-a456-426614174000\n"
    )


async def test_callbacks_are_signed_with_the_key_and_verified(
    vidu: tuple[ViduFake, ViduProvider],
) -> None:
    fake, provider = vidu
    receiver = WebhookReceiver()
    async with serve_app(receiver) as hook_base:
        hook = f"{hook_base}/v1/provider-callbacks/gen_v1/token"
        job = await provider.submit(_request(callback_url=hook))
        assert fake.submitted[-1]["callback_url"] == hook
        assert (await until_ended(provider, job)).state is base.JobState.SUCCEEDED
        received = await receiver.wait_for(2)
    assert [state for state, _ in fake.callbacks] == ["processing", "success"]
    delivery = received[-1]
    assert b'"state":"success"' in delivery.body.replace(b" ", b"")
    assert verify_callback(KEY, "POST", hook, delivery.headers)
    # forged: another secret, another path, a changed signature or nonce, no signature
    assert not verify_callback("another-key", "POST", hook, delivery.headers)
    assert not verify_callback(KEY, "POST", hook.replace("gen_v1", "gen_v2"), delivery.headers)
    assert not verify_callback(KEY, "POST", hook, {**delivery.headers, "x-request-nonce": "x"})
    signature = delivery.headers["x-hmac-signature"]
    tampered = {
        **delivery.headers,
        "x-hmac-signature": ("B" if signature[0] == "A" else "A") + signature[1:],
    }
    assert not verify_callback(KEY, "POST", hook, tampered)
    unsigned = {k: v for k, v in delivery.headers.items() if k != "x-hmac-signature"}
    assert not verify_callback(KEY, "POST", hook, unsigned)
    assert not verify_callback("", "POST", hook, delivery.headers)


def test_a_stale_callback_is_refused() -> None:
    url = "https://videos.example.com/v1/provider-callbacks/gen_1/t"
    old = email.utils.formatdate(1_790_000_000, usegmt=True)
    headers = signed_headers(KEY, "POST", url, date=old)
    assert verify_callback(KEY, "POST", url, headers, now=1_790_000_000 + 60)
    assert not verify_callback(KEY, "POST", url, headers, now=1_790_000_000 + 600)  # replayed
    assert not verify_callback(KEY, "POST", url, {**headers, "Date": "yesterday"})
    assert not verify_callback(KEY, "POST", url, {**headers, "X-HMAC-ALGORITHM": "hmac-sha1"})


async def test_our_callback_route_takes_only_vidus_signed_callbacks(tmp_path: Path) -> None:
    """Through our API: the token in the URL and Vidu's signature must both hold; a genuine
    callback makes us poll at once (the first poll is 15 s away otherwise)."""
    fake = ViduFake(api_key=KEY, never_finish=True)
    public = "https://vidrouter.example.com"
    async with serve_app(fake.app()) as url:
        settings = test_settings(
            tmp_path / "data",
            environ={"VIDU_API_KEY": KEY, "VIDROUTER_VIDU_BASE_URL": url},
            provider_delay_scale=1.0,
            provider_callbacks="on",
            public_url=public,
        )
        async with running(settings) as app:
            key = await app.new_key()
            created = await app.create(key, model="viduq3-turbo", prompt="a fox", duration=2)
            gid = created.json()["id"]
            await app.wait_for(key, gid, statuses=("in_progress",), timeout=10)
            callback = app.service.callback_tokens.url_for(gid)
            assert callback is not None and fake.submitted[0]["callback_url"] == callback
            path = callback.removeprefix(public)
            polls = fake.plan.count("GET", "/ent/v2/tasks/")
            body = {"id": "x", "state": "success"}
            old = email.utils.formatdate(time.time() - 3600, usegmt=True)
            forged = [
                signed_headers("another-key", "POST", callback),  # not our key
                signed_headers(KEY, "POST", public + "/elsewhere"),  # not this URL
                signed_headers(KEY, "POST", callback, date=old),  # replayed an hour later
                {},  # unsigned
            ]
            for headers in forged:
                answer = await app.client.post(path, json=body, headers=headers)
                assert answer.status_code == 404, answer.text
            await asyncio.sleep(0.3)
            assert fake.plan.count("GET", "/ent/v2/tasks/") == polls  # nothing polled
            genuine = await app.client.post(
                path, json=body, headers=signed_headers(KEY, "POST", callback)
            )
            assert genuine.status_code == 204
            for _ in range(50):
                if fake.plan.count("GET", "/ent/v2/tasks/") > polls:
                    break
                await asyncio.sleep(0.1)
            assert fake.plan.count("GET", "/ent/v2/tasks/") > polls  # polled now
            shown = (await app.get(key, gid)).json()
            assert shown["status"] == "in_progress"  # the body's "success" counted for nothing


async def test_image_to_video_through_our_api(tmp_path: Path) -> None:
    fake = ViduFake(api_key=KEY, polls_to_finish=0)
    done = await image_to_video_against(
        tmp_path,
        fake.app(),
        lambda url: {"VIDU_API_KEY": KEY, "VIDROUTER_VIDU_BASE_URL": url},
        "viduq3-pro",
    )
    assert (done["status"], done["route"]) == ("completed", "vidu"), done
    [task] = fake.tasks.values()
    assert task.kind == "img2video" and len(task.body["images"]) == 1
    assert task.body["payload"] == done["id"]
    assert done["cost"]["amount"] == pytest.approx(3 * 0.10)
