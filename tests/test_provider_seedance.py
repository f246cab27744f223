"""Seedance on BytePlus ModelArk: the official SDK against the fake, then our API end to end."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import byteplussdkarkruntime as ark_runtime
import httpx
import pytest
from byteplussdkarkruntime import _exceptions as ark_errors

from tests.fakes.seedance import TASKS, FakeArk, ark_error
from tests.support.harness import Harness, assert_error, running, test_settings
from tests.support.images import data_uri, image_host, png
from tests.support.servers import serve_app, serve_app_in_thread
from tests.support.video import decode
from vidrouter.domain.catalog import load_catalog

SEEDANCE_IDS = (
    "seedance-1-pro",
    "seedance-1-pro-fast",
    "seedance-1.5-pro",
    "seedance-2",
    "seedance-2-fast",
    "seedance-2-mini",
)


# --- 1. the official SDK drives the fake ----------------------------------------------------


@contextlib.contextmanager
def sdk_client(fake: FakeArk, api_key: str = "test-key") -> Iterator[Any]:
    with serve_app_in_thread(fake.app()) as url:
        client = ark_runtime.Ark(base_url=url + "/api/v3", api_key=api_key, max_retries=0)
        try:
            yield client
        finally:
            client.close()


def test_sdk_creates_polls_downloads_and_cancels() -> None:
    fake = FakeArk(polls_to_finish=3)
    with sdk_client(fake) as client:
        created = client.content_generation.tasks.create(
            model="seedance-1-0-pro-250528",
            content=[
                {"type": "text", "text": "a red fox in the snow"},
                {
                    "type": "image_url",
                    "image_url": {"url": data_uri(png(640, 360))},
                    "role": "first_frame",
                },
                {
                    "type": "image_url",
                    "image_url": {"url": data_uri(png(640, 360))},
                    "role": "last_frame",
                },
            ],
            ratio="16:9",
            duration=5,
            resolution="1080p",
            seed=42,
            watermark=False,
        )
        assert created.id.startswith("cgt-")
        seen = []
        for _ in range(10):
            task = client.content_generation.tasks.get(task_id=created.id)
            seen.append(task.status)
            if task.status == "succeeded":
                break
        assert seen == ["queued", "running", "succeeded"]
        assert task.duration == 5 and task.resolution == "1080p" and task.ratio == "16:9"
        assert task.seed == 42
        assert task.usage.completion_tokens == 1920 * 1080 * 121 // 1024
        video = httpx.get(task.content.video_url)
        assert video.status_code == 200 and video.content[4:8] == b"ftyp"

        # A queued task can be cancelled; its status then reads "cancelled".
        queued = client.content_generation.tasks.create(
            model="seedance-1-0-pro-fast-251015", content=[{"type": "text", "text": "x"}]
        )
        client.content_generation.tasks.delete(queued.id)
        assert client.content_generation.tasks.get(task_id=queued.id).status == "cancelled"

    body = fake.submitted[0]
    assert body["model"] == "seedance-1-0-pro-250528"
    assert body["ratio"] == "16:9" and body["duration"] == 5 and body["resolution"] == "1080p"
    assert body["seed"] == 42
    assert [c["role"] for c in body["content"][1:]] == ["first_frame", "last_frame"]


def test_sdk_sees_arks_errors() -> None:
    fake = FakeArk(moderate_prompts_containing="forbidden")
    with sdk_client(fake) as client:
        with pytest.raises(ark_errors.ArkBadRequestError) as bad:
            client.content_generation.tasks.create(
                model="seedance-1-0-pro-250528",
                content=[{"type": "text", "text": "something forbidden"}],
            )
        assert bad.value.body["code"] == "InputTextSensitiveContentDetected"
        with pytest.raises(ark_errors.ArkBadRequestError) as out_of_range:
            client.content_generation.tasks.create(
                model="seedance-1-0-pro-250528",
                content=[{"type": "text", "text": "x"}],
                duration=13,
            )
        assert out_of_range.value.body["code"] == "InvalidParameter"
        assert out_of_range.value.body["param"] == "duration"
    with (
        sdk_client(fake, api_key="wrong") as client,
        pytest.raises(ark_errors.ArkAuthenticationError) as denied,
    ):
        client.content_generation.tasks.get(task_id="cgt-20261122000000-abcde")
    assert denied.value.body["code"] == "AuthenticationError"


def test_async_sdk_reads_a_failed_task() -> None:
    fake = FakeArk(polls_to_finish=1, fail_jobs_with=("InternalServiceError", "boom"))
    with serve_app_in_thread(fake.app()) as url:

        async def run() -> Any:
            client = ark_runtime.AsyncArk(base_url=url + "/api/v3", api_key="test-key")
            try:
                created = await client.content_generation.tasks.create(
                    model="dreamina-seedance-2-0-fast-260128",
                    content=[{"type": "text", "text": "x"}],
                    duration=4,
                    resolution="480p",
                    generate_audio=False,
                )
                return await client.content_generation.tasks.get(task_id=created.id)
            finally:
                await client.close()

        task = asyncio.run(run())
    assert task.status == "failed"
    assert task.error.code == "InternalServiceError"
    assert task.resolution == "480p" and task.generate_audio is False
    assert fake.submitted[0]["generate_audio"] is False


# --- 2. our API end to end --------------------------------------------------------------------


@contextlib.asynccontextmanager
async def seedance_app(
    tmp_path: Path, fake: FakeArk, *, key: str | None = "test-key", scale: float = 0.01
) -> AsyncIterator[Harness]:
    async with serve_app(fake.app()) as url:
        environ = {"VIDROUTER_SEEDANCE_BASE_URL": url}
        if key is not None:
            environ["ARK_API_KEY"] = key
        settings = test_settings(tmp_path / "data", environ=environ, provider_delay_scale=scale)
        async with running(settings) as app:
            yield app


async def generate(app: Harness, **body: Any) -> dict[str, Any]:
    done = await app.generate(**{"model": "seedance-1-pro", "prompt": "a fox", **body}, timeout=30)
    assert done["status"] in ("completed", "failed"), done
    return done


def price(model_id: str) -> float:
    spec = load_catalog().get(model_id)
    assert spec is not None
    return spec.routes[0].price_per_second


async def test_models_as_listed(tmp_path: Path) -> None:
    fake = FakeArk()
    async with seedance_app(tmp_path / "with", fake) as app:
        key = await app.new_key()
        listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        ours = {m["id"]: m for m in listed if m["provider"] == "ByteDance"}
        assert set(ours) == set(SEEDANCE_IDS)
        assert ours["seedance-1-pro"]["durations"] == list(range(2, 13))
        assert ours["seedance-2"]["max_duration"] == 15
        assert ours["seedance-1-pro"]["pricing"]["per_second"] == 0.1215
        audio = ours["seedance-1.5-pro"]
        assert audio["resolutions"] == ["720p", "480p", "1080p"]
        assert audio["supports"] == ["seed", "generate_audio", "end_image_url"]
        assert {"resolution": "480p", "audio": False, "per_second": 0.011664} in audio["pricing"][
            "variants"
        ]
        assert ours["seedance-1-pro"]["capabilities"] == ["text-to-video", "image-to-video"]
        retired = await app.create(key, model="seedance-1-lite", prompt="p")
        assert retired.status_code == 400
        assert retired.json()["error"]["code"] == "model_retired"
        assert "seedance-1-pro-fast" in retired.json()["error"]["message"]


async def test_text_to_video_sends_the_documented_request(tmp_path: Path) -> None:
    fake = FakeArk()
    async with seedance_app(tmp_path, fake) as app:
        done = await app.generate(
            model="seedance-1-pro",
            prompt="a red fox in the snow",
            duration=6,
            aspect_ratio="9:16",
        )
        assert done["status"] == "completed", done
        assert done["cost"] == {"amount": round(6 * 0.1215, 6), "currency": "USD"}
        video = await app.client.get(done["video_url"])
        info = decode(video.content, tmp_path)
        assert info.codec == "h264" and info.frames > 0

    [body] = fake.submitted
    assert body == {
        "model": "seedance-1-0-pro-250528",
        "content": [{"type": "text", "text": "a red fox in the snow"}],
        "ratio": "9:16",
        "duration": 6,
        "watermark": False,
        "execution_expires_after": 3600,
        "resolution": "1080p",
    }
    # The generation id travels in Ark's tracing header.
    assert fake.client_request_ids[0].endswith(done["id"].removeprefix("gen_"))


async def test_audio_models_ask_for_audio(tmp_path: Path) -> None:
    fake = FakeArk(polls_to_finish=1)
    async with seedance_app(tmp_path, fake) as app:
        done = await generate(app, model="seedance-2-fast", duration=4)
        assert done["status"] == "completed", done
        assert done["cost"]["amount"] == round(4 * price("seedance-2-fast"), 6)
    [body] = fake.submitted
    assert body["model"] == "dreamina-seedance-2-0-fast-260128"
    assert body["generate_audio"] is True and body["resolution"] == "720p"


async def test_the_cost_follows_the_configuration(tmp_path: Path) -> None:
    fake = FakeArk(polls_to_finish=1)
    async with seedance_app(tmp_path, fake) as app:
        done = await generate(
            app, model="seedance-1.5-pro", duration=6, resolution="480p", generate_audio=False
        )
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == round(6 * 0.011664, 6)  # 1.2 USD / M tokens x 9,720/s
    [body] = fake.submitted
    assert (body["resolution"], body["generate_audio"]) == ("480p", False)


async def test_image_to_video_sends_the_first_frame_inline(tmp_path: Path) -> None:
    image = png(800, 450)
    fake = FakeArk(polls_to_finish=1)
    async with seedance_app(tmp_path, fake) as app, image_host(image) as images:
        from_uri = await generate(app, model="seedance-1.5-pro", image_url=data_uri(image))
        from_url = await generate(app, model="seedance-2", image_url=images + "/frame.png")
    assert from_uri["status"] == "completed", from_uri
    assert from_url["status"] == "completed", from_url
    for body in fake.submitted:
        text, frame = body["content"]
        assert text == {"type": "text", "text": "a fox"}
        assert frame == {
            "type": "image_url",
            "image_url": {"url": data_uri(image)},
            "role": "first_frame",
        }


async def test_provider_limits_are_checked_before_any_request(tmp_path: Path) -> None:
    fake = FakeArk()
    async with seedance_app(tmp_path, fake) as app:
        key = await app.new_key()
        cases: list[tuple[dict[str, Any], str | None]] = [
            ({"model": "seedance-1-pro", "duration": 13}, "duration_too_long"),
            ({"model": "seedance-1-pro", "duration": 5.5}, "duration_unsupported"),
            ({"model": "seedance-2", "duration": 3}, "duration_invalid"),  # under its 4 s
            ({"model": "seedance-1.5-pro", "duration": 2}, "duration_invalid"),  # under its 4 s
            ({"model": "seedance-2-fast", "aspect_ratio": "4:3"}, "aspect_ratio_unsupported"),
            ({"model": "seedance-1-pro", "image_url": "data:image/gif;base64,R0lG"}, None),
        ]
        for body, code in cases:
            response = await app.create(key, prompt="p", **body)
            assert response.status_code == 400, (body, response.text)
            if code is not None:
                assert response.json()["error"]["code"] == code, body
                param = "duration" if code.startswith("duration") else "aspect_ratio"
                assert response.json()["error"]["param"] == param, body
    assert fake.plan.requests == []


# --- faults -------------------------------------------------------------------------------


async def test_bad_images_fail_with_invalid_input(tmp_path: Path) -> None:
    fake = FakeArk()
    async with seedance_app(tmp_path, fake) as app:
        too_small = await generate(app, image_url=data_uri(png(100, 100)))
        gif = data_uri(b"GIF89a not really a png")
        key = await app.new_key()
        not_png = await app.create(key, model="seedance-1-pro", prompt="a fox", image_url=gif)
    assert too_small["status"] == "failed"
    assert too_small["error"]["code"] == "invalid_input"
    assert "100x100" in too_small["error"]["message"]
    assert assert_error(not_png, 400, "image_url_invalid")["param"] == "image_url"
    assert fake.plan.count("POST", TASKS) == 1  # the one that is no image never left us


async def test_failed_and_expired_tasks(tmp_path: Path) -> None:
    failing = FakeArk(fail_jobs_with=("InternalServiceError", "The service encountered an error."))
    async with seedance_app(tmp_path / "a", failing) as app:
        failed = await generate(app)
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == "provider_error"
    expiring = FakeArk(expire_jobs=True)
    async with seedance_app(tmp_path / "b", expiring) as app:
        expired = await generate(app)
    assert expired["status"] == "failed"
    assert expired["error"]["code"] == "timeout"


async def test_a_closed_endpoint_is_retried(tmp_path: Path) -> None:
    fake = FakeArk()
    fake.plan.add(
        status=400,
        body=ark_error(
            400,
            "InvalidEndpoint.ClosedEndpoint",
            "The request targeted an endpoint that is currently closed or temporarily unavailable.",
        ),
        path=TASKS,
        method="POST",
    )
    async with seedance_app(tmp_path / "a", fake) as app:
        reopened = await generate(app)
    assert reopened["status"] == "completed", reopened
