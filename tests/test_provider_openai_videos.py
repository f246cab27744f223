"""The generic OpenAI-style `/v1/videos` upstream: the official SDK against the fake, then
our API end to end against the fake, routed by an operator's catalog file."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.openai_videos import FakeOpenAIVideos
from tests.support.harness import Harness, running, test_settings
from tests.support.images import data_uri, png
from tests.support.openai_videos import KEY, KEY_ENV, operator_catalog
from tests.support.providers import assert_creates_refused
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.domain.catalog import load_catalog
from vidrouter.providers.base import AuthFailed, InvalidInput, JobState, MalformedResponse
from vidrouter.providers.openai_videos import Upstream, seconds_for, size_for, status_of
from vidrouter.settings import Settings


@pytest.fixture(autouse=True, scope="module")
def _warm_sample() -> Iterator[None]:
    sample_mp4()  # render it once, outside any request the fake is timing
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the SDK flags the Sora API
        yield


@pytest.fixture
async def upstream() -> AsyncIterator[tuple[FakeOpenAIVideos, str]]:
    fake = FakeOpenAIVideos(api_key=KEY, models=frozenset({"upstream-clip-1", "upstream-clip-hd"}))
    async with serve_app(fake.app()) as url:
        yield fake, url


# --- 1. the official SDK drives the fake unchanged ---------------------------------------------


async def test_official_sdk_drives_the_fake(tmp_path: Path) -> None:
    fake = FakeOpenAIVideos(api_key=KEY, moderate_prompts_containing="forbidden")
    async with (
        serve_app(fake.app()) as url,
        openai.AsyncOpenAI(api_key=KEY, base_url=url + "/v1", max_retries=0) as client,
        openai.AsyncOpenAI(api_key="sk-wrong", base_url=url + "/v1", max_retries=0) as wrong_key,
    ):
        video = await client.videos.create(
            model="sora-2", prompt="a red fox in the snow", seconds="4", size="1280x720"
        )
        assert (video.object, video.status, video.model, video.size) == (
            "video",
            "queued",
            "sora-2",
            "1280x720",
        )
        polls = 0
        while video.status != "completed":
            video = await client.videos.retrieve(video.id)
            assert video.status in ("in_progress", "completed")
            polls += 1
            assert polls <= fake.polls_to_finish
        assert video.progress == 100 and video.seconds == "4" and video.completed_at
        content = await client.videos.download_content(video.id)
        assert content.content == sample_mp4()
        assert decode(content.content, tmp_path).codec == "h264"
        assert fake.created[0].encoding == "multipart"  # what the SDK always sends
        assert fake.created[0].fields == {
            "model": "sora-2",
            "prompt": "a red fox in the snow",
            "seconds": "4",
            "size": "1280x720",
        }

        # An image reference, uploaded as the multipart file `input_reference`.
        reference = png(720, 1280)
        with_image = await client.videos.create(
            model="sora-2",
            prompt="animate it",
            size="720x1280",
            input_reference=("frame.png", reference, "image/png"),
        )
        assert fake.created[1].image == reference
        assert (fake.created[1].image_type, fake.created[1].image_size) == (
            "image/png",
            (720, 1280),
        )

        # The resolution travels in `size`: 1080p is the size Sora 2 Pro took late in its life.
        full_hd = await client.videos.create(
            model="sora-2-pro",
            prompt="p",
            seconds="8",
            size="1920x1080",  # type: ignore[arg-type]
        )
        assert (full_hd.size, fake.submitted[-1]["size"]) == ("1920x1080", "1920x1080")

        listed = await client.videos.list()
        assert {v.id for v in listed.data} == {video.id, with_image.id, full_hd.id}
        deleted = await client.videos.delete(video.id)
        assert (deleted.id, deleted.deleted, deleted.object) == (video.id, True, "video.deleted")

        # Errors come back in OpenAI's shape and raise the SDK's own exception classes.
        with pytest.raises(openai.NotFoundError):
            await client.videos.retrieve(video.id)
        with pytest.raises(openai.BadRequestError) as mismatch:
            await client.videos.create(
                prompt="p", size="1280x720", input_reference=("f.png", reference, "image/png")
            )
        assert "must match the requested width and height" in mismatch.value.message
        with pytest.raises(openai.BadRequestError) as blocked:
            await client.videos.create(prompt="something forbidden")
        assert blocked.value.code == "moderation_blocked"
        with pytest.raises(openai.BadRequestError) as bad_seconds:
            await client.videos.create(prompt="p", seconds="5")  # type: ignore[arg-type]
        assert (bad_seconds.value.param, bad_seconds.value.code) == ("seconds", "invalid_value")
        with pytest.raises(openai.AuthenticationError) as denied:
            await wrong_key.videos.retrieve(with_image.id)
        assert denied.value.code == "invalid_api_key"
        assert denied.value.request_id and denied.value.request_id.startswith("req_")


# --- 2. end to end through our API, routed by an operator's catalog -----------------------------


@pytest.fixture
async def gateway(
    upstream: tuple[FakeOpenAIVideos, str], tmp_path: Path
) -> AsyncIterator[tuple[FakeOpenAIVideos, Harness]]:
    """Our service routing the operator's models to the gateway (the fake)."""
    fake, url = upstream
    async with running(settings_for(tmp_path, url)) as app:
        yield fake, app


def settings_for(
    tmp_path: Path, url: str, key: str | None = KEY, timeout: float = 5.0, **overrides: Any
) -> Settings:
    environ = {KEY_ENV: key} if key is not None else {}
    values: dict[str, Any] = {"provider_delay_scale": 0.01, **overrides}
    return test_settings(
        tmp_path / "data",
        environ=environ,
        catalog=operator_catalog(tmp_path / "operator.toml", url, timeout),
        **values,
    )


async def generate(app: Harness, **body: Any) -> dict[str, Any]:
    done = await app.generate(**{"model": "gateway-clip", "prompt": "a fox", **body}, timeout=40)
    assert done["status"] in ("completed", "failed"), done
    return done


async def test_models_as_listed_and_sora_is_retired(
    gateway: tuple[FakeOpenAIVideos, Harness], tmp_path: Path
) -> None:
    fake, app = gateway
    key = await app.new_key()
    listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
    ids = {m["id"] for m in listed}
    assert {"gateway-clip", "gateway-hd", "gateway-strict"} <= ids
    assert not {"sora-2", "sora-2-pro"} & ids
    clip = next(m for m in listed if m["id"] == "gateway-clip")
    assert clip["pricing"]["per_second"] == 0.1
    assert clip["aspect_ratios"] == ["16:9", "9:16"]
    assert (clip["resolutions"], clip["supports"]) == (["720p", "1080p"], [])

    for retired in ("sora-2", "sora-2-pro"):
        r = await app.create(key, model=retired, prompt="a fox")
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["code"] == "model_retired"
        assert "2026-09-24" in error["message"] and "'veo-3.1'" in error["message"]
        got = await app.client.get(f"/v1/models/{retired}", headers=app.auth(key))
        assert got.status_code == 404
    assert fake.plan.requests == []


async def test_text_to_video_sends_the_documented_request(
    gateway: tuple[FakeOpenAIVideos, Harness],
    upstream: tuple[FakeOpenAIVideos, str],
    tmp_path: Path,
) -> None:
    fake, app = gateway
    url = upstream[1]
    done = await app.generate(
        model="gateway-clip",
        prompt="a red fox in the snow",
        duration=8,
        aspect_ratio="9:16",
    )
    gen_id = done["id"]
    assert done["status"] == "completed", done
    assert done["cost"] == {"amount": 0.8, "currency": "USD"}  # billed the upstream's "8"
    video = await app.client.get(done["video_url"])
    assert video.status_code == 200
    info = decode(video.content, tmp_path)
    assert (info.codec, info.width, info.height) == ("h264", 320, 180)

    # The job remembers where its upstream is and which variable holds the key, not the key.
    row = await app.service.generation_store.get(gen_id)
    assert row is not None
    assert row.provider_job_data["base_url"] == f"{url}/v1"
    assert row.provider_job_data["api_key_env"] == KEY_ENV
    assert KEY not in repr(row.provider_job_data)
    assert row.provider_request_id and row.provider_request_id.startswith("req_")

    [call] = fake.created
    assert call.encoding == "multipart"
    assert call.fields == {
        "model": "upstream-clip-1",
        "prompt": "a red fox in the snow",
        "seconds": "8",
        "size": "720x1280",
    }
    assert call.headers["authorization"] == f"Bearer {KEY}"
    assert call.headers["x-client-request-id"] == gen_id
    assert fake.plan.count("GET", "/content") == 1


async def test_image_to_video_sends_the_image_at_the_requested_size(
    gateway: tuple[FakeOpenAIVideos, Harness], tmp_path: Path
) -> None:
    fake, app = gateway
    done = await generate(app, image_url=data_uri(png(640, 480)), aspect_ratio="16:9")
    assert done["status"] == "completed", done
    # A JSON-speaking upstream with its own sizes gets the image inline, as a data URL.
    done = await generate(
        app, model="gateway-hd", image_url=data_uri(png(1024, 1792)), aspect_ratio="9:16"
    )
    assert done["status"] == "completed", done
    multipart, json_body = fake.created
    assert (multipart.encoding, multipart.fields["size"]) == ("multipart", "1280x720")
    assert (multipart.image_type, multipart.image_filename) == ("image/png", "reference.png")
    assert multipart.image_size == (1280, 720)  # cropped and scaled from 640x480
    assert (json_body.encoding, json_body.fields["size"]) == ("json", "1024x1792")
    assert json_body.fields["model"] == "upstream-clip-hd"
    assert json_body.image == png(1024, 1792)  # already the right size: sent untouched
    assert json_body.image_type == "image/png"


async def test_limits_are_checked_before_anything_reaches_the_upstream(
    gateway: tuple[FakeOpenAIVideos, Harness], tmp_path: Path
) -> None:
    fake, app = gateway
    key = await app.new_key()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"duration": 5}, "duration_unsupported"),
        ({"duration": 20}, "duration_too_long"),
        ({"aspect_ratio": "1:1"}, "aspect_ratio_unsupported"),
        ({"image_url": "data:image/gif;base64,R0lGOD"}, "image_url_invalid"),
    ]
    await assert_creates_refused(app, key, cases, model="gateway-clip", prompt="a fox")
    assert fake.plan.requests == []


async def test_bad_images_fail_with_invalid_input(
    gateway: tuple[FakeOpenAIVideos, Harness], tmp_path: Path
) -> None:
    fake, app = gateway
    # A PNG's signature, then no image: refused before the upstream is asked (a data URI
    # without the signature is refused at create: tests/test_openapi_contract.py).
    not_png = data_uri(b"\x89PNG\r\n\x1a\n this is not an image, whatever the header says")
    done = await generate(app, image_url=not_png)
    assert (done["status"], done["error"]["code"]) == ("failed", "invalid_input"), done
    assert fake.plan.requests == []
    # A route that sends images as they are: the upstream refuses the wrong size.
    done = await generate(app, model="gateway-strict", image_url=data_uri(png(300, 200)))
    assert (done["status"], done["error"]["code"]) == ("failed", "invalid_input"), done
    assert "must match the requested width and height" in done["error"]["message"]
    assert fake.plan.count("POST", "/v1/videos") == 1


@pytest.mark.parametrize("cause", ["job-failed", "job-lost"])
async def test_upstream_job_failures_end_failed(
    upstream: tuple[FakeOpenAIVideos, str], tmp_path: Path, cause: str
) -> None:
    fake, url = upstream
    if cause == "job-failed":
        fake.fail_jobs_with = ("internal_error", "Video generation failed.")
    else:
        fake.plan.add(
            status=404,
            body={"error": {"message": "Video not found.", "type": "invalid_request_error"}},
            path="/v1/videos/",
            method="GET",
            times=-1,
        )
    async with running(settings_for(tmp_path, url)) as app:
        done = await generate(app)
    assert (done["status"], done["error"]["code"]) == ("failed", "provider_error"), done


# --- 3. the translation rules on their own ------------------------------------------------------


def test_retired_sora_models_point_at_a_current_model() -> None:
    catalog = load_catalog()
    for model_id in ("sora-2", "sora-2-pro"):
        spec = catalog.get(model_id)
        assert spec is not None and spec.provider == "OpenAI" and not spec.routes
        assert spec.retired_on == date(2026, 9, 24)
        replacement = catalog.get(spec.replacement or "")
        assert replacement is not None and replacement.retired_on is None


@pytest.mark.parametrize(
    ("status", "state"),
    [
        ("queued", JobState.QUEUED),
        ("in_progress", JobState.RUNNING),
        ("completed", JobState.SUCCEEDED),
        ("failed", JobState.FAILED),
        # Spellings seen at resellers of the format.
        ("submitted", JobState.QUEUED),
        ("processing", JobState.RUNNING),
        ("succeeded", JobState.SUCCEEDED),
        ("cancelled", JobState.CANCELED),
        ("expired", JobState.FAILED),
    ],
)
def test_status_vocabulary(status: str, state: JobState) -> None:
    result = status_of({"id": "video_1", "status": status, "progress": 40, "seconds": "8"})
    assert result.state is state
    if state is JobState.SUCCEEDED:
        assert (result.progress, result.billed_seconds) == (100, 8.0)


def test_an_unknown_status_is_a_malformed_answer() -> None:
    with pytest.raises(MalformedResponse):
        status_of({"id": "video_1", "status": "thinking"})


def test_sizes_and_seconds() -> None:
    assert size_for("16:9", {}) == "1280x720" and size_for("9:16", {}) == "720x1280"
    with pytest.raises(InvalidInput):
        size_for("1:1", {})
    sizes = {"sizes": "1:1=1024x1024, 16:9=1792x1024"}
    assert size_for("1:1", sizes) == "1024x1024" and size_for("16:9", sizes) == "1792x1024"
    assert size_for("9:16", sizes) == "720x1280"  # the defaults stay unless overridden
    with pytest.raises(AuthFailed):  # the operator's mistake, not the user's
        size_for("16:9", {"sizes": "16:9=wide"})
    assert [seconds_for(d) for d in (4, 8.0, 12)] == ["4", "8", "12"]
    assert seconds_for(4.5) == "5"
    with pytest.raises(AuthFailed):
        Upstream.of({"api_key_env": KEY_ENV})  # a route without base_url
