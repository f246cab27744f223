"""Luma AI (Dream Machine API): the official SDK drives the fake unchanged, and generations
run through our API to their documented end state, faults included."""

from __future__ import annotations

import asyncio
import struct
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import lumaai
import pytest
from standardwebhooks.webhooks import Webhook
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

from tests.fakes.base import Fault, sample_mp4
from tests.fakes.luma import MODERATION_FAILED, LumaFake
from tests.support.harness import running, test_settings
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.engine.advance import MAX_TRIES
from vidrouter.settings import Settings

KEY = "test-key"
CREATE = "/dream-machine/v1/generations"


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + b"\xff\x00\x00" * 2 + b"\x00" + b"\x00\x00\xff" * 2)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _image_host() -> Starlette:
    async def frame(_: Any) -> Response:
        return Response(_png(), media_type="image/png")

    async def not_an_image(_: Any) -> Response:
        return Response(b"<html>nope</html>", media_type="text/html")

    return Starlette(routes=[Route("/frame.png", frame), Route("/page.png", not_an_image)])


@pytest.fixture
async def luma() -> AsyncIterator[tuple[LumaFake, str]]:
    fake = LumaFake(api_key=KEY)
    async with serve_app(fake.app()) as url:
        yield fake, url


@pytest.fixture
async def images() -> AsyncIterator[str]:
    async with serve_app(_image_host()) as url:
        yield url


def _settings(tmp_path: Path, url: str, key: str = KEY, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"provider_delay_scale": 0.01, **overrides}
    environ = {"LUMAAI_API_KEY": key, "VIDROUTER_LUMA_BASE_URL": url}
    return test_settings(tmp_path / "data", environ=environ, **values)


async def _run(settings: Settings, **body: Any) -> dict[str, Any]:
    """Create one generation and wait for its end; our API must never answer 500."""
    async with running(settings) as app:
        key = await app.new_key()
        created = await app.create(key, **{"model": "ray-2", "prompt": "a fox", **body})
        assert created.status_code == 202, created.text
        done = await app.wait_for(key, created.json()["id"], timeout=30)
        return done


# --- the official SDK against the fake ----------------------------------------------------


async def test_sdk_creates_polls_downloads_and_deletes(
    luma: tuple[LumaFake, str], images: str
) -> None:
    fake, url = luma
    client = lumaai.AsyncLumaAI(auth_token=KEY, base_url=f"{url}/dream-machine/v1", max_retries=0)
    try:
        generation = await client.generations.create(
            model="ray-2",
            prompt="a tiger walking in snow",
            aspect_ratio="9:16",
            duration="5s",
            resolution="720p",
            keyframes={"frame0": {"type": "image", "url": f"{images}/frame.png"}},
        )
        generation_id = generation.id
        assert generation.state == "queued" and generation_id
        seen = []
        for _ in range(10):
            generation = await client.generations.get(generation_id)
            seen.append(generation.state)
            if generation.state == "completed":
                break
        assert seen == ["queued", "dreaming", "dreaming", "completed"]
        assert generation.assets is not None and generation.assets.video
        async with httpx.AsyncClient() as http:
            video = await http.get(generation.assets.video)
        assert video.content == sample_mp4()

        assert fake.created[0]["keyframes"] == {
            "frame0": {"type": "image", "url": f"{images}/frame.png"}
        }
        other = await client.generations.video.create(model="ray-flash-2", prompt="waves")
        assert other.model == "ray-flash-2"

        await client.generations.delete(generation_id)
        assert fake.deleted == [generation_id]
        with pytest.raises(lumaai.NotFoundError):
            await client.generations.get(generation_id)
    finally:
        await client.close()


async def test_sdk_sees_errors_and_failures(luma: tuple[LumaFake, str]) -> None:
    _, url = luma
    base = f"{url}/dream-machine/v1"
    wrong = lumaai.AsyncLumaAI(auth_token="wrong", base_url=base, max_retries=0)
    client = lumaai.AsyncLumaAI(auth_token=KEY, base_url=base, max_retries=0)
    try:
        with pytest.raises(lumaai.AuthenticationError) as denied:
            await wrong.generations.create(model="ray-2", prompt="p")
        assert denied.value.body == {"detail": "Invalid API key is provided"}
        with pytest.raises(lumaai.BadRequestError):
            await client.generations.create(model="ray-2", prompt="p", duration="7s")

        flagged = await client.generations.create(model="ray-2", prompt="something forbidden")
        flagged_id = flagged.id
        assert flagged_id
        for _ in range(3):
            flagged = await client.generations.get(flagged_id)
        assert (flagged.state, flagged.failure_reason) == ("failed", MODERATION_FAILED)
    finally:
        await wrong.close()
        await client.close()


# --- through our API ----------------------------------------------------------------------


async def test_models_are_listed_only_with_the_key(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    _, url = luma
    async with running(_settings(tmp_path / "a", url), workers=False) as app:
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        models = {m["id"]: m for m in data}
        assert models["ray-2"]["provider"] == "Luma AI"
        assert models["ray-2"]["durations"] == [5, 9]
        assert models["ray-2"]["default_duration"] == 5 and models["ray-2"]["max_duration"] == 9
        assert models["ray-2"]["pricing"] == {"per_second": 0.1416, "currency": "USD"}
        assert models["ray-flash-2"]["pricing"]["per_second"] == 0.0487
        assert models["ray-flash-2"]["capabilities"] == ["text-to-video", "image-to-video"]
    async with running(_settings(tmp_path / "b", url, key=""), workers=False) as app:
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        assert not {"ray-2", "ray-flash-2"} & {m["id"] for m in data}


async def test_text_to_video_completes_with_video_and_signed_webhook(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    receiver = WebhookReceiver()
    async with serve_app(receiver) as hook_url, running(_settings(tmp_path, url)) as app:
        key = await app.new_key()
        created = await app.create(
            key, model="ray-2", prompt="a red fox", aspect_ratio="9:16", webhook_url=hook_url
        )
        assert created.status_code == 202, created.text
        done = await app.wait_for(key, created.json()["id"], timeout=30)
        assert done["status"] == "completed", done
        assert done["cost"] == {"amount": round(5 * 0.1416, 6), "currency": "USD"}
        video = await app.client.get(done["video_url"])
        assert video.status_code == 200
        info = decode(video.content, tmp_path)
        assert info.codec == "h264" and info.frames > 0
        [hook] = await receiver.wait_for(1)
    payload = Webhook(key.key.webhook_secret).verify(hook.body, hook.headers)
    assert payload["id"] == done["id"] and payload["status"] == "completed"
    assert fake.created == [
        {
            "generation_type": "video",
            "model": "ray-2",
            "prompt": "a red fox",
            "aspect_ratio": "9:16",
            "duration": "5s",
            "resolution": "720p",
        }
    ]


async def test_image_to_video_sends_the_url_as_frame0(
    luma: tuple[LumaFake, str], images: str, tmp_path: Path
) -> None:
    fake, url = luma
    image_url = f"{images}/frame.png"
    done = await _run(
        _settings(tmp_path, url), model="ray-flash-2", duration=9, image_url=image_url
    )
    assert done["status"] == "completed", done
    [body] = fake.created
    assert body["keyframes"] == {"frame0": {"type": "image", "url": image_url}}
    assert (body["model"], body["duration"]) == ("ray-flash-2", "9s")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"duration": 7}, "duration_unsupported"),
        ({"duration": 10}, "duration_too_long"),
        ({"aspect_ratio": "4:3"}, "aspect_ratio_unsupported"),
    ],
)
async def test_luma_limits_are_checked_before_any_request(
    luma: tuple[LumaFake, str], tmp_path: Path, body: dict[str, Any], code: str
) -> None:
    fake, url = luma
    async with running(_settings(tmp_path, url), workers=False) as app:
        key = await app.new_key()
        response = await app.create(key, model="ray-2", prompt="p", **body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == code
    assert fake.plan.requests == []


async def test_data_uri_image_fails_as_invalid_input_without_a_request(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    data_uri = "data:image/png;base64,iVBORw0KGgo="
    done = await _run(_settings(tmp_path, url), image_url=data_uri)
    assert done["status"] == "failed"
    assert done["error"]["code"] == "invalid_input"
    assert "http(s) image URL" in done["error"]["message"]
    assert fake.plan.requests == []


async def test_image_that_is_not_an_image_fails_before_luma_sees_it(
    luma: tuple[LumaFake, str], images: str, tmp_path: Path
) -> None:
    fake, url = luma
    done = await _run(_settings(tmp_path, url), image_url=f"{images}/page.png")
    assert done["status"] == "failed"
    assert done["error"]["code"] == "invalid_input"
    assert "neither PNG nor JPEG" in done["error"]["message"]
    # We fetch and check every input image once, before any provider is called.
    assert fake.plan.count("POST", CREATE) == 0


@pytest.mark.parametrize("at_create", [False, True])
async def test_moderation_fails_with_content_policy(
    luma: tuple[LumaFake, str], tmp_path: Path, at_create: bool
) -> None:
    fake, url = luma
    fake.moderate_at_create = at_create
    done = await _run(_settings(tmp_path, url), prompt="something forbidden")
    assert done["status"] == "failed"
    assert done["error"]["code"] == "content_policy"
    assert fake.plan.count("POST", CREATE) == 1  # never retried


async def test_luma_side_failure_is_a_provider_error(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    fake.fail_jobs_with = "Job failed due to an internal error"
    done = await _run(_settings(tmp_path, url))
    assert done["status"] == "failed"
    assert done["error"]["code"] == "provider_error"
    assert "internal error" in done["error"]["message"]


FAULTS = {
    "5xx burst on create": Fault(status=502, times=3, path=CREATE, method="POST"),
    "5xx burst on poll": Fault(status=503, times=3, path=CREATE, method="GET"),
    "429 on poll": Fault(status=429, times=2, path=CREATE, method="GET"),
    "create timed out": Fault(kind="slow", delay=1.0, times=1, path=CREATE, method="POST"),
    "dropped connection": Fault(kind="drop", times=2, path=CREATE, method="GET"),
    "malformed JSON": Fault(kind="malformed", times=2, path=CREATE),
}


@pytest.mark.parametrize("name", list(FAULTS))
async def test_transient_faults_are_retried_then_complete(
    luma: tuple[LumaFake, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    fake, url = luma
    fault = FAULTS[name]
    fake.plan.add(Fault(**vars(fault)))
    monkeypatch.setattr("vidrouter.providers.http.DEFAULT_TIMEOUT", httpx.Timeout(0.5))
    done = await _run(_settings(tmp_path, url))
    assert done["status"] == "completed", (name, done)
    assert fake.plan.faults == []  # every injected fault was met


async def test_429_waits_for_retry_after_then_completes(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    # Retry-After 80 s, scaled by 0.01: the second submit must wait 0.8 s.
    fake.plan.add(
        status=429, retry_after=80, path=CREATE, method="POST", body={"detail": "Too Many"}
    )
    loop = asyncio.get_running_loop()
    started = loop.time()
    done = await _run(_settings(tmp_path, url))
    assert done["status"] == "completed", done
    assert loop.time() - started >= 0.8
    assert fake.plan.count("POST", CREATE) == 2


@pytest.mark.parametrize("problem", ["wrong key", "no credits"])
async def test_auth_and_billing_refusals_fail_as_provider_unavailable(
    luma: tuple[LumaFake, str], tmp_path: Path, problem: str
) -> None:
    fake, url = luma
    fake.out_of_credits = problem == "no credits"
    key = "wrong" if problem == "wrong key" else KEY
    done = await _run(_settings(tmp_path, url, key=key))
    assert done["status"] == "failed"
    assert done["error"]["code"] == "provider_unavailable"
    assert fake.plan.count("POST", CREATE) == 1  # not retried


async def test_generation_that_never_finishes_times_out_and_is_deleted(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    fake.never_finish = True
    # 30 minutes of max_wait scaled by 0.0005: 0.9 s.
    done = await _run(_settings(tmp_path, url, provider_delay_scale=0.0005))
    assert done["status"] == "failed"
    assert done["error"]["code"] == "timeout"
    assert len(fake.deleted) == 1
    assert fake.plan.count("DELETE", CREATE) == 1


async def test_persistent_5xx_fails_after_max_tries(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    fake.plan.add(status=500, times=-1, path=CREATE, method="POST")
    done = await _run(_settings(tmp_path, url, provider_delay_scale=0.004))
    assert done["status"] == "failed"
    assert done["error"]["code"] == "provider_unavailable"
    assert fake.plan.count("POST", CREATE) == MAX_TRIES


async def test_cancel_of_a_generation_luma_already_dropped_is_quiet(
    luma: tuple[LumaFake, str],
) -> None:
    from vidrouter.providers.base import JobFailed, ProviderJob
    from vidrouter.providers.config import AdapterConfig
    from vidrouter.providers.luma import LumaProvider

    _, url = luma
    provider = LumaProvider(AdapterConfig(url, {"LUMAAI_API_KEY": KEY}.get))
    try:
        await provider.cancel(ProviderJob("no-such-generation"))
        with pytest.raises(JobFailed):
            await provider.poll(ProviderJob("no-such-generation"))
    finally:
        await provider.aclose()
