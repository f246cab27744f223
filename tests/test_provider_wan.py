"""Alibaba Wan (Model Studio / DashScope): the official SDK against the fake, then generations
through our API against the fake, with each fault class ending in its documented state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import dashscope
import httpx
import pytest
from dashscope import VideoSynthesis
from starlette.responses import Response

from tests.fakes.wan import CREATE_PATH, FakeWan
from tests.support.harness import CreateBody, assert_failed, running
from tests.support.images import data_uri, png
from tests.support.servers import serve_app, serve_app_in_thread
from tests.support.video import decode
from tests.support.wan import KEY, generate, wan_settings
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.wan import WanProvider

TASKS = "/api/v1/tasks/"
WAN_MODELS = {"wan-2.5", "wan-2.6", "wan-2.7"}
INTERNAL_ERROR = {"request_id": "r", "code": "InternalError", "message": "Internal server error!"}
THROTTLED = {
    "request_id": "r",
    "code": "Throttling.RateQuota",
    "message": "Requests rate limit exceeded, please try again later.",
}


# --- 1. the dashscope SDK drives the fake unchanged ----------------------------------------


def test_dashscope_sdk_drives_the_fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = FakeWan(api_key=KEY, pending_polls=1, running_polls=1)
    with serve_app_in_thread(fake.app) as url:
        monkeypatch.setattr(dashscope, "base_http_api_url", url + "/api/v1")

        created = VideoSynthesis.async_call(
            model="wan2.6-t2v",
            prompt="a red fox in the snow",
            negative_prompt="blurry, watermark",
            size="1280*720",
            duration=5,
            prompt_extend=False,
            seed=2_147_483_647,
            audio=False,  # an extra keyword: the SDK puts it under `parameters`
            api_key=KEY,
        )
        assert created.status_code == 200, created
        assert created.output.task_status == "PENDING" and created.request_id
        assert VideoSynthesis.fetch(created, api_key=KEY).output.task_status == "PENDING"
        assert VideoSynthesis.fetch(created, api_key=KEY).output.task_status == "RUNNING"
        done = VideoSynthesis.wait(created, api_key=KEY)
        assert done.status_code == 200 and done.output.task_status == "SUCCEEDED"
        assert done.usage.video_count == 1 and done.usage["output_video_duration"] == 5
        video = httpx.get(done.output.video_url)
        assert video.status_code == 200
        assert decode(video.content, tmp_path).codec == "h264"

        body = fake.submitted[0]
        assert body["model"] == "wan2.6-t2v"
        assert body["input"]["prompt"] == "a red fox in the snow"
        assert body["input"]["negative_prompt"] == "blurry, watermark"
        assert body["parameters"] == {
            "size": "1280*720",
            "duration": 5,
            "prompt_extend": False,
            "seed": 2_147_483_647,
            "audio": False,
        }
        assert fake.create_headers[0]["x-dashscope-async"] == "enable"

        # Image-to-video with the first frame inline (a base64 data URI) and the resolution tier.
        image = data_uri(png(400, 400))
        it_moves = partial(VideoSynthesis.async_call, prompt="it moves", api_key=KEY)
        i2v = it_moves(model="wan2.5-i2v-preview", img_url=image, resolution="720P", duration=10)
        assert i2v.status_code == 200, i2v
        assert fake.created[-1]["input"]["img_url"] == image

        # Wan 2.7: the media list and resolution + ratio.
        media = it_moves(
            model="wan2.7-i2v",
            resolution="1080P",
            duration=3,
            media=[
                {"type": "first_frame", "url": "https://example.com/frame.png"},
                {"type": "last_frame", "url": "https://example.com/last.png"},
            ],
        )
        assert media.status_code == 200, media
        assert fake.submitted[-1]["input"]["media"][1]["type"] == "last_frame"

        # Cancel works while PENDING, and the task then reads CANCELED.
        fake.never_finish = True
        pending = VideoSynthesis.async_call(
            model="wan2.7-t2v", prompt="slow", resolution="720P", ratio="9:16", api_key=KEY
        )
        assert VideoSynthesis.cancel(pending, api_key=KEY).status_code == 200
        assert VideoSynthesis.fetch(pending, api_key=KEY).output.task_status == "CANCELED"
        refused = VideoSynthesis.cancel(pending, api_key=KEY)
        assert (refused.status_code, refused.code) == (400, "UnsupportedOperation")
        unknown = VideoSynthesis.fetch("no-such-task", api_key=KEY)
        assert unknown.output.task_status == "UNKNOWN"

        # Error bodies as the SDK reads them.
        denied = VideoSynthesis.async_call(model="wan2.6-t2v", prompt="p", api_key="wrong")
        assert (denied.status_code, denied.code) == (401, "InvalidApiKey")
        fake.moderate_prompts_containing = "forbidden"
        moderated = VideoSynthesis.async_call(model="wan2.6-t2v", prompt="forbidden", api_key=KEY)
        assert (moderated.status_code, moderated.code) == (400, "DataInspectionFailed")
        bad = VideoSynthesis.async_call(model="wan2.6-t2v", prompt="p", duration=7, api_key=KEY)
        assert (bad.status_code, bad.code) == (400, "InvalidParameter")


# --- 2. through our API ----------------------------------------------------------------------


@pytest.fixture
async def wan() -> AsyncIterator[tuple[FakeWan, str]]:
    fake = FakeWan(api_key=KEY)
    async with serve_app(fake.app) as url:
        yield fake, url


# Keeps the route's circuit breaker closed, so that one route sees all MAX_TRIES attempts.
NO_BREAKER = {"circuit_failure_threshold": 1000}


async def test_models_as_listed(wan: tuple[FakeWan, str], tmp_path: Path) -> None:
    _, url = wan
    async with running(wan_settings(tmp_path / "with", url)) as app:
        key = await app.new_key()
        models = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
    listed = {m["id"]: m for m in models}
    assert set(listed) >= WAN_MODELS
    assert listed["wan-2.5"]["provider"] == "Alibaba"
    assert listed["wan-2.5"]["durations"] == [5, 10]
    assert listed["wan-2.7"]["durations"] == list(range(2, 16))
    assert listed["wan-2.6"]["capabilities"] == [
        "text-to-video",
        "image-to-video",
        "reference-to-video",
    ]
    wan26 = listed["wan-2.6"]
    assert (wan26["pricing"]["per_second"], wan26["resolutions"]) == (0.1, ["720p", "1080p"])
    assert wan26["supports"] == ["negative_prompt", "seed", "generate_audio", "enhance_prompt"]
    prices = {(v["resolution"], v["audio"]): v["per_second"] for v in wan26["pricing"]["variants"]}
    assert prices == {
        ("720p", True): 0.1,
        ("720p", False): 0.1,
        ("1080p", True): 0.15,
        ("1080p", False): 0.15,
    }
    assert listed["wan-2.5"]["resolutions"] == ["720p", "480p", "1080p"]


async def test_text_to_video_sends_the_documented_request(
    wan: tuple[FakeWan, str], tmp_path: Path
) -> None:
    fake, url = wan  # the stored video and the webhook: the contract suite
    ours: CreateBody = {
        "model": "wan-2.5",
        "prompt": "a red fox",
        "duration": 10,
        "aspect_ratio": "9:16",
    }
    done = await generate(wan_settings(tmp_path, url), **ours)
    assert done["status"] == "completed", done
    assert done["cost"] == {"amount": 1.0, "currency": "USD"}  # 10 billed s x $0.10
    [body] = fake.created
    assert body["model"] == "wan2.5-t2v-preview"
    assert body["input"] == {"prompt": "a red fox"}
    assert body["parameters"] == {"duration": 10, "watermark": False, "size": "720*1280"}
    [headers] = fake.create_headers
    assert headers["x-dashscope-async"] == "enable"
    assert headers["authorization"] == f"Bearer {KEY}"
    assert fake.downloads == 1


async def test_wan_27_sends_resolution_and_ratio(wan: tuple[FakeWan, str], tmp_path: Path) -> None:
    fake, url = wan
    done = await generate(
        wan_settings(tmp_path, url), model="wan-2.7", prompt="p", duration=3, aspect_ratio="1:1"
    )
    assert done["status"] == "completed", done
    [body] = fake.created
    assert body["model"] == "wan2.7-t2v"
    assert body["parameters"] == {
        "duration": 3,
        "watermark": False,
        "resolution": "720P",
        "ratio": "1:1",
    }


async def test_image_to_video_sends_the_image_inline_to_the_i2v_model(
    wan: tuple[FakeWan, str], tmp_path: Path
) -> None:
    fake, url = wan
    image = data_uri(png(400, 400))
    done = await generate(wan_settings(tmp_path, url), model="wan-2.6", prompt="p", image_url=image)
    assert done["status"] == "completed", done
    [body] = fake.created
    assert body["model"] == "wan2.6-i2v"
    assert body["input"] == {"prompt": "p", "img_url": image}
    assert body["parameters"] == {
        "duration": 5,
        "watermark": False,
        "resolution": "720P",
        "audio": True,  # the model's default, stated: wan2.6 has the switch
    }


async def test_wan_27_image_to_video_sends_the_first_frame_in_media(
    wan: tuple[FakeWan, str], tmp_path: Path
) -> None:
    fake, url = wan
    served = png(512, 512)

    async def image_app(scope: Any, receive: Any, send: Any) -> None:
        await Response(served, media_type="image/png")(scope, receive, send)

    async with serve_app(image_app) as image_host:
        image_url = f"{image_host}/frame.png"
        done = await generate(
            wan_settings(tmp_path, url), model="wan-2.7", prompt="p", image_url=image_url
        )
    assert done["status"] == "completed", done
    [body] = fake.created
    assert body["model"] == "wan2.7-i2v"
    assert body["input"]["media"] == [{"type": "first_frame", "url": image_url}]
    assert "ratio" not in body["parameters"] and body["parameters"]["resolution"] == "720P"


async def test_provider_limits_are_checked_before_any_request(
    wan: tuple[FakeWan, str], tmp_path: Path
) -> None:
    fake, url = wan
    async with running(wan_settings(tmp_path, url)) as app:
        key = await app.new_key()
        cases: list[dict[str, Any]] = [
            {"model": "wan-2.5", "duration": 7},
            {"model": "wan-2.6", "duration": 20},
            {"model": "wan-2.7", "duration": 2.5},
            {"model": "wan-2.7", "aspect_ratio": "4:3"},
        ]
        for case in cases:
            r = await app.create(key, prompt="p", **case)
            assert r.status_code == 400, (case, r.text)
    assert fake.plan.requests == []


# --- faults ----------------------------------------------------------------------------------


async def test_an_image_the_provider_refuses_fails_with_invalid_input(
    wan: tuple[FakeWan, str], tmp_path: Path
) -> None:
    fake, url = wan
    done = await generate(
        wan_settings(tmp_path, url), model="wan-2.5", prompt="p", image_url=data_uri(png(100, 100))
    )
    assert_failed(done, "invalid_input")
    assert fake.plan.count("POST", CREATE_PATH) == 1
    assert fake.created == []


async def test_a_task_failed_by_the_provider_is_submitted_again_then_fails(
    wan: tuple[FakeWan, str], tmp_path: Path
) -> None:
    fake, url = wan
    fake.fail_jobs_with = ("InternalError.Algo", "An internal error occurred in the algorithm.")
    done = await generate(wan_settings(tmp_path, url, scale=0.001), model="wan-2.7", prompt="p")
    assert done["status"] == "failed"
    # The provider's own failure is retryable: the engine submits again until its budget (the
    # retry count, or the deadline: the engine resets its count on each accepted submit).
    assert len(fake.created) >= 2
    assert done["error"]["code"] in ("provider_error", "timeout")


async def test_a_task_failed_on_its_input_is_not_submitted_again(
    wan: tuple[FakeWan, str], tmp_path: Path
) -> None:
    fake, url = wan
    fake.fail_jobs_with = ("InvalidParameter", "The audio file could not be decoded.")
    done = await generate(wan_settings(tmp_path, url), model="wan-2.6", prompt="p")
    assert_failed(done, "invalid_input")
    assert len(fake.created) == 1


# --- the error table, through the adapter alone ----------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "expected", "our_code"),
    [
        (400, "DataInspectionFailed", base.ContentRejected, "content_policy"),
        (400, "IPInfringementSuspect", base.ContentRejected, "content_policy"),
        (400, "InvalidParameter", base.InvalidInput, "invalid_input"),
        (400, "Arrearage", base.AuthFailed, "provider_unavailable"),
        (401, "InvalidApiKey", base.AuthFailed, "provider_unavailable"),
        (403, "AccessDenied.Unpurchased", base.AuthFailed, "provider_unavailable"),
        (404, "ModelNotFound", base.AuthFailed, "provider_unavailable"),
        (429, "Throttling.AllocationQuota", base.AuthFailed, "provider_unavailable"),
        (429, "Throttling.RateQuota", base.RateLimited, "rate_limited"),
        (500, "InternalError", base.ProviderUnavailable, "provider_unavailable"),
    ],
)
async def test_error_bodies_map_to_our_errors(
    status: int, code: str, expected: type[base.ProviderError], our_code: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"request_id": "req-1", "code": code, "message": "m"})

    transport = httpx.MockTransport(answer)
    provider = WanProvider(AdapterConfig("https://wan.test", transport=transport))
    request = base.ProviderRequest("gen_1", "wan2.6-t2v", "p", 5.0, "16:9")
    try:
        with pytest.raises(expected) as caught:
            await provider.submit(request)
    finally:
        await provider.aclose()
    error = caught.value
    assert (error.code, error.provider_code, error.request_id) == (our_code, code, "req-1")
    assert error.status_code == status


@pytest.mark.parametrize(
    ("code", "expected", "our_code"),
    [
        ("DataInspectionFailed", base.ContentRejected, "content_policy"),
        ("InvalidParameter.FileFormat", base.InvalidInput, "invalid_input"),
        ("InternalError.Timeout", base.JobFailed, "provider_error"),
    ],
)
async def test_failed_tasks_map_to_our_errors(
    code: str, expected: type[base.ProviderError], our_code: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        output = {"task_id": "t1", "task_status": "FAILED", "code": code, "message": "m"}
        return httpx.Response(200, json={"request_id": "req-2", "output": output})

    transport = httpx.MockTransport(answer)
    provider = WanProvider(AdapterConfig("https://wan.test", transport=transport))
    try:
        status = await provider.poll(base.ProviderJob("t1"))
    finally:
        await provider.aclose()
    assert status.state is base.JobState.FAILED
    assert isinstance(status.error, expected)
    assert (status.error.code, status.error.provider_code) == (our_code, code)
    assert status.error.request_id == "req-2"
