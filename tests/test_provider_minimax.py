"""MiniMax Hailuo: the fake against MiniMax's published examples, then our API end to end.

MiniMax publishes no Python SDK, so the first tests replay the request/response examples of
platform.minimax.io (see docs/providers/minimax.md) against the fake; the rest drive the
whole service through our HTTP API, with faults injected at the fake.
"""

from __future__ import annotations

import base64
import contextlib
import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from standardwebhooks.webhooks import Webhook
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

from tests.fakes.base import Fault
from tests.fakes.minimax import MinimaxFake
from tests.support.harness import Harness, running, test_settings
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app, serve_app_in_thread
from tests.support.video import decode
from vidrouter.engine.advance import MAX_JOB_FAILURES
from vidrouter.providers import http as provider_http
from vidrouter.providers.base import (
    AuthFailed,
    ContentRejected,
    InvalidInput,
    JobFailed,
    JobState,
    ProviderError,
    ProviderJob,
    ProviderRequest,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.minimax import MinimaxProvider

CREATE, QUERY, RETRIEVE = "/v1/video_generation", "/v1/query/video_generation", "/v1/files/retrieve"
MODELS = {"hailuo-2.3", "hailuo-2.3-fast", "hailuo-02"}
WAIT = 20.0


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 80, 40)).save(out, "PNG")
    return out.getvalue()


def data_uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


@contextlib.asynccontextmanager
async def service(
    tmp_path: Path, fake: MinimaxFake, *, key: str = "test-key", scale: float = 0.01
) -> AsyncIterator[Harness]:
    async with serve_app(fake.app()) as url:
        environ = {"MINIMAX_API_KEY": key, "VIDROUTER_MINIMAX_BASE_URL": url}
        settings = test_settings(tmp_path / "data", environ=environ, provider_delay_scale=scale)
        async with running(settings) as app:
            yield app


async def generate(app: Harness, **body: Any) -> dict[str, Any]:
    key = await app.new_key()
    created = await app.create(key, **body)
    assert created.status_code == 202, created.text
    return await app.wait_for(key, created.json()["id"], timeout=WAIT)


# --- the fake against the published examples -------------------------------------------------

# The examples of platform.minimax.io's video API reference (checked 2026-11-22): the create
# request of "Create Text-to-Video Generation Task", the VideoGenerationResp,
# QueryVideoGenerationTaskResp and RetrieveFileResp examples (file_id is a placeholder there,
# typed int64; download_url a placeholder string).
EXAMPLE_REQUEST = {
    "model": "MiniMax-Hailuo-2.3",
    "prompt": "A man picks up a book [Pedestal up], then reads [Static shot].",
    "duration": 6,
    "resolution": "1080P",
}
OK_EXAMPLE = {"status_code": 0, "status_msg": "success"}
CREATE_EXAMPLE = {"task_id": "106916112212032", "base_resp": OK_EXAMPLE}
QUERY_EXAMPLE = {
    "task_id": "176843862716480",
    "status": "Success",
    "file_id": "176844028768320",
    "video_width": 1920,
    "video_height": 1080,
    "base_resp": OK_EXAMPLE,
}
RETRIEVE_EXAMPLE = {
    "file": {
        "file_id": 176844028768320,
        "bytes": 0,
        "created_at": 1700469398,
        "filename": "output_aigc.mp4",
        "purpose": "video_generation",
        "download_url": "www.downloadurl.com",
    },
    "base_resp": OK_EXAMPLE,
}


def same_shape(answer: object, example: object) -> bool:
    """The same keys, recursively, with values of the same JSON types."""
    if isinstance(example, dict):
        return (
            isinstance(answer, dict)
            and set(answer) == set(example)
            and all(same_shape(answer[k], v) for k, v in example.items())
        )
    return type(answer) is type(example)


def test_published_examples_drive_the_fake(tmp_path: Path) -> None:
    """The documented three steps, as MiniMax's own Python example makes them (a plain HTTP
    client with a Bearer key), each answer in the shape of the published example."""
    fake = MinimaxFake(polls_before_done=2)
    headers = {"authorization": "Bearer test-key", "content-type": "application/json"}
    with serve_app_in_thread(fake.app()) as url, httpx.Client(base_url=url) as client:
        created = client.post(CREATE, headers=headers, json=EXAMPLE_REQUEST).json()
        assert same_shape(created, CREATE_EXAMPLE), created
        assert created["task_id"].isdigit() and created["base_resp"] == OK_EXAMPLE

        # Query until Success, through the documented statuses.
        seen = []
        for _ in range(10):
            answer = client.get(
                QUERY, headers=headers, params={"task_id": created["task_id"]}
            ).json()
            seen.append(answer["status"])
            if answer["status"] == "Success":
                break
            assert set(answer) == {"task_id", "status", "base_resp"}
            assert answer["task_id"] == created["task_id"] and answer["base_resp"] == OK_EXAMPLE
        assert seen == ["Preparing", "Queueing", "Success"]
        assert same_shape(answer, QUERY_EXAMPLE), answer

        # Retrieve the file, then download it from the pre-signed URL without the key.
        retrieved = client.get(
            RETRIEVE, headers=headers, params={"file_id": answer["file_id"]}
        ).json()
        assert same_shape(retrieved, RETRIEVE_EXAMPLE), retrieved
        file = retrieved["file"]
        assert str(file["file_id"]) == answer["file_id"]
        assert (file["filename"], file["purpose"]) == ("output_aigc.mp4", "video_generation")
        video = httpx.get(file["download_url"])
        assert video.status_code == 200 and video.headers["content-type"] == "video/mp4"
        assert len(video.content) == file["bytes"]
        info = decode(video.content, tmp_path)
        assert (info.width, info.height) == (answer["video_width"], answer["video_height"])

        # What MiniMax checks: the key, and its documented limits.
        payload = EXAMPLE_REQUEST
        denied = client.post(CREATE, headers={"authorization": "Bearer nope"}, json=payload)
        assert denied.status_code == 401
        assert denied.json()["base_resp"]["status_code"] == 1004
        too_long = client.post(CREATE, headers=headers, json={**payload, "duration": 10})
        assert too_long.status_code == 200
        assert too_long.json()["base_resp"]["status_code"] == 2013
        text_only = {**payload, "model": "MiniMax-Hailuo-2.3-Fast", "resolution": "768P"}
        refused = client.post(CREATE, headers=headers, json=text_only).json()
        assert refused["base_resp"]["status_code"] == 2013
        assert "Trace-Id" in denied.headers


@contextlib.asynccontextmanager
async def adapter(fake: MinimaxFake, key: str = "test-key") -> AsyncIterator[MinimaxProvider]:
    async with serve_app(fake.app()) as url:
        provider = MinimaxProvider(
            AdapterConfig(url, {"MINIMAX_API_KEY": key}.get, allow_private_images=True)
        )
        try:
            yield provider
        finally:
            await provider.aclose()


def request(**overrides: Any) -> ProviderRequest:
    values: dict[str, Any] = {
        "generation_id": "gen_test",
        "model": "MiniMax-Hailuo-2.3",
        "prompt": "a red fox in the snow",
        "duration": 6.0,
        "aspect_ratio": "16:9",
        "options": {"resolution": "768P"},
    }
    values.update(overrides)
    return ProviderRequest(**values)


@pytest.mark.parametrize(
    ("code", "error"),
    [
        (1002, RateLimited),
        (1039, RateLimited),
        (1000, ProviderUnavailable),
        (1013, ProviderUnavailable),
        (1024, ProviderUnavailable),
        (1001, ProviderTimeout),
        (1004, AuthFailed),
        (2049, AuthFailed),
        (1008, AuthFailed),
        (2038, AuthFailed),
        (1026, ContentRejected),
        (2013, InvalidInput),
        (4242, JobFailed),
    ],
)
async def test_base_resp_codes_map_onto_our_errors(code: int, error: type[ProviderError]) -> None:
    fake = MinimaxFake(submit_errors=[(code, "as documented")])
    async with adapter(fake) as provider:
        with pytest.raises(error) as raised:
            await provider.submit(request())
    assert raised.value.provider_code == str(code)
    assert raised.value.request_id  # the Trace-Id header
    assert type(raised.value) is error


async def test_adapter_steps_and_task_failures() -> None:
    fake = MinimaxFake(polls_before_done=1)
    async with adapter(fake) as provider:
        job = await provider.submit(request(duration=10.0))
        assert fake.created[0] == {
            "model": "MiniMax-Hailuo-2.3",
            "prompt": "a red fox in the snow",
            "duration": 10,
            "resolution": "768P",
            "prompt_optimizer": True,
        }
        assert job.request_id and job.data == {"duration": 10, "resolution": "768P"}
        assert (await provider.poll(job)).state is JobState.QUEUED
        done = await provider.poll(job)
        assert done.state is JobState.SUCCEEDED and done.billed_seconds == 10.0
        assert done.data is not None and done.data["file_id"]
        ref = await provider.fetch_result(ProviderJob(job.id, done.data))
        assert ref.url is not None and "Signature=" in ref.url and not ref.headers

        fake.fail_jobs_with = (0, "generation failed")
        failing = await provider.submit(request())
        await provider.poll(failing)
        failed = await provider.poll(failing)
        assert failed.state is JobState.FAILED and isinstance(failed.error, JobFailed)

        fake.fail_jobs_with = (1027, "output new_sensitive")
        moderated = await provider.submit(request())
        await provider.poll(moderated)
        status = await provider.poll(moderated)
        assert isinstance(status.error, ContentRejected) and status.error.provider_code == "1027"

        with pytest.raises(InvalidInput):  # 1080P renders 6 s only
            await provider.submit(request(duration=10.0, options={"resolution": "1080P"}))
        with pytest.raises(InvalidInput):
            await provider.submit(request(aspect_ratio="9:16"))
    assert len(fake.tasks) == 3


async def test_wrong_key_is_auth_failed_with_minimax_code() -> None:
    async with adapter(MinimaxFake(), key="wrong") as provider:
        with pytest.raises(AuthFailed) as raised:
            await provider.submit(request())
    assert raised.value.status_code == 401 and raised.value.provider_code == "1004"


# --- end to end through our API -----------------------------------------------------------


async def test_models_are_listed_only_with_the_key(tmp_path: Path) -> None:
    async with service(tmp_path, MinimaxFake()) as app:
        key = await app.new_key()
        listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        ours = {m["id"]: m for m in listed if m["provider"] == "MiniMax"}
        assert set(ours) == MODELS
        assert ours["hailuo-2.3"]["durations"] == [6, 10]
        assert ours["hailuo-2.3"]["aspect_ratios"] == ["16:9"]
        assert ours["hailuo-2.3-fast"]["capabilities"] == ["image-to-video"]
    settings = test_settings(tmp_path / "bare", environ={})
    async with running(settings, workers=False) as bare:
        key = await bare.new_key()
        listed = (await bare.client.get("/v1/models", headers=bare.auth(key))).json()["data"]
        assert not MODELS & {m["id"] for m in listed}


async def test_text_to_video_completes_with_video_and_signed_webhook(tmp_path: Path) -> None:
    fake = MinimaxFake()
    receiver = WebhookReceiver()
    async with service(tmp_path, fake) as app, serve_app(receiver) as hook_url:
        key = await app.new_key()
        created = await app.create(
            key, model="hailuo-2.3", prompt="a lighthouse at dusk", webhook_url=hook_url
        )
        assert created.status_code == 202, created.text
        done = await app.wait_for(key, created.json()["id"], timeout=WAIT)
        assert done["status"] == "completed", done
        assert (done["duration"], done["aspect_ratio"], done["progress"]) == (6, "16:9", 100)
        assert done["cost"] == {"amount": round(6 * 0.046667, 6), "currency": "USD"}
        video = await app.client.get(done["video_url"])
        assert video.status_code == 200
        info = decode(video.content, tmp_path)
        assert (info.codec, info.width, info.height) == ("h264", 320, 180)
        [hook] = await receiver.wait_for(1)
    payload = Webhook(key.key.webhook_secret).verify(hook.body, hook.headers)
    assert payload["id"] == done["id"] and payload["status"] == "completed"
    assert fake.created == [
        {
            "model": "MiniMax-Hailuo-2.3",
            "prompt": "a lighthouse at dusk",
            "duration": 6,
            "resolution": "768P",
            "prompt_optimizer": True,
        }
    ]
    assert fake.downloads == 1


async def test_image_to_video_sends_the_first_frame_inline(tmp_path: Path) -> None:
    frame = png(640, 360)

    async def serve_frame(_request: Any) -> Response:
        return Response(frame, media_type="image/png")

    images = Starlette(routes=[Route("/frame.png", serve_frame)])
    fake = MinimaxFake(polls_before_done=1)
    async with service(tmp_path, fake) as app, serve_app(images) as image_host:
        fetched = await generate(
            app,
            model="hailuo-2.3-fast",
            prompt="the fox turns its head",
            duration=10,
            image_url=f"{image_host}/frame.png",
        )
        inline = await generate(
            app, model="hailuo-02", prompt="waves roll in", image_url=data_uri(frame)
        )
    assert fetched["status"] == "completed", fetched
    assert inline["status"] == "completed", inline
    assert fetched["cost"]["amount"] == round(10 * 0.031667, 6)
    by_model = {body["model"]: body for body in fake.created}
    # An image URL is fetched on our side (through the outbound guard) and sent as a data URI.
    assert by_model["MiniMax-Hailuo-2.3-Fast"]["first_frame_image"] == data_uri(frame)
    assert by_model["MiniMax-Hailuo-2.3-Fast"]["duration"] == 10
    assert by_model["MiniMax-Hailuo-02"]["first_frame_image"] == data_uri(frame)


async def test_minimax_limits_fail_before_any_request(tmp_path: Path) -> None:
    fake = MinimaxFake()
    async with service(tmp_path, fake) as app:
        key = await app.new_key()
        # What the catalog knows is a 400 from our API.
        cases = [
            ({"duration": 8}, "duration_unsupported"),
            ({"duration": 5}, "duration_unsupported"),
            ({"duration": 12}, "duration_too_long"),
            ({"aspect_ratio": "9:16"}, "aspect_ratio_unsupported"),
            ({"aspect_ratio": "1:1"}, "aspect_ratio_unsupported"),
        ]
        for extra, code in cases:
            response = await app.create(key, model="hailuo-2.3", prompt="p", **extra)
            assert response.status_code == 400, response.text
            assert response.json()["error"]["code"] == code
        no_image = await app.create(key, model="hailuo-2.3-fast", prompt="move")
        assert no_image.status_code == 400, no_image.text
        assert no_image.json()["error"]["code"] == "image_required"
        assert fake.plan.requests == []
        # What only the adapter knows fails the generation as invalid_input, still unsent.
        failed = [
            await generate(app, model="hailuo-2.3", prompt="x" * 2001),
            await generate(app, model="hailuo-2.3", prompt="p", image_url=data_uri(png(300, 300))),
            await generate(app, model="hailuo-02", prompt="p", image_url=data_uri(png(1200, 400))),
        ]
    for done in failed:
        assert done["status"] == "failed", done
        assert done["error"]["code"] == "invalid_input"
    assert fake.plan.count("POST", CREATE) == 0


async def test_transient_faults_are_retried_until_completed(tmp_path: Path) -> None:
    """Each fault in turn, on one service: every generation ends completed."""
    # (what, the fault or the base_resp error for the next two creates, create sent again?)
    scenarios: list[tuple[str, Fault | tuple[int, str], bool]] = [
        ("5xx burst on query", Fault(status=503, path=QUERY, times=3), False),
        ("5xx burst on create", Fault(status=502, path=CREATE, times=2), True),
        ("429 + Retry-After", Fault(status=429, retry_after=2.0, path=CREATE, body={}), True),
        ("dropped connection", Fault(kind="drop", path=RETRIEVE, times=2), False),
        ("malformed JSON", Fault(kind="malformed", path=QUERY, times=2), False),
        ("dropped download", Fault(kind="drop", path="/download/"), False),
        ("1002 rate limit in base_resp", (1002, "rate limit"), True),
    ]
    fake = MinimaxFake(polls_before_done=1)
    async with service(tmp_path, fake) as app:
        for name, fault, resent in scenarios:
            creates = fake.plan.count("POST", CREATE)
            if isinstance(fault, Fault):
                fake.plan.add(fault)
            else:
                fake.submit_errors = [fault, fault]
            done = await generate(app, model="hailuo-2.3", prompt=name)
            assert done["status"] == "completed", (name, done)
            assert fake.plan.faults == [] and fake.submit_errors == [], name
            assert (fake.plan.count("POST", CREATE) - creates > 1) == resent, name
    assert len(fake.tasks) == len(scenarios)


async def test_request_timeouts_are_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provider_http, "DEFAULT_TIMEOUT", httpx.Timeout(0.3, connect=1.0))
    fake = MinimaxFake(polls_before_done=1)
    fake.plan.add(kind="slow", delay=1.0, path=QUERY, times=2)
    async with service(tmp_path, fake) as app:
        done = await generate(app, model="hailuo-2.3", prompt="wait for it")
    assert done["status"] == "completed", done
    assert fake.plan.faults == []  # both polls timed out on our side first


async def test_failures_end_in_their_documented_state(tmp_path: Path) -> None:
    fake = MinimaxFake(
        polls_before_done=1,
        moderate_prompts_containing="forbidden",
        moderate_output_containing="unseemly",
    )
    async with service(tmp_path, fake) as app:
        moderated_input = await generate(app, model="hailuo-2.3", prompt="something forbidden")
        moderated_output = await generate(app, model="hailuo-2.3", prompt="something unseemly")
        fake.reject_images = True
        bad_image = await generate(
            app, model="hailuo-2.3", prompt="p", image_url=data_uri(png(640, 360))
        )
        fake.fail_jobs_with = (0, "generation failed")
        failed_task = await generate(app, model="hailuo-02", prompt="p")
    expected = [
        (moderated_input, "content_policy", "1026"),
        (moderated_output, "content_policy", "1027"),
        (bad_image, "invalid_input", "2013"),
        (failed_task, "provider_error", "generation failed"),
    ]
    for done, code, detail in expected:
        assert done["status"] == "failed", done
        assert done["error"]["code"] == code, done
        assert detail in done["error"]["message"], done
    # The refused prompt and the refused image made no task; the moderated output made one;
    # the job MiniMax failed on its side was submitted again, up to MAX_JOB_FAILURES times.
    assert len(fake.tasks) == 1 + MAX_JOB_FAILURES
    assert [a["outcome"] for a in failed_task["attempts"]].count("failed") == MAX_JOB_FAILURES


async def test_wrong_key_fails_as_provider_unavailable(tmp_path: Path) -> None:
    fake = MinimaxFake()
    async with service(tmp_path, fake, key="not-the-key") as app:
        done = await generate(app, model="hailuo-2.3", prompt="p")
    assert done["status"] == "failed", done
    assert done["error"]["code"] == "provider_unavailable"
    assert fake.plan.count("POST", CREATE) == 1  # not retried


async def test_task_that_never_finishes_times_out(tmp_path: Path) -> None:
    fake = MinimaxFake(never_finish=True)
    # 30 minutes of max_wait at 0.001 is 1.8 s.
    async with service(tmp_path, fake, scale=0.001) as app:
        done = await generate(app, model="hailuo-2.3", prompt="forever")
    assert done["status"] == "failed", done
    assert done["error"]["code"] == "timeout"
    # MiniMax has no cancel endpoint: nothing but creating and querying reached it.
    assert {(method, path) for method, path in fake.plan.requests} == {
        ("POST", CREATE),
        ("GET", QUERY),
    }
