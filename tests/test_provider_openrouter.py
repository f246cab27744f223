"""OpenRouter: the official SDK drives our fake unchanged; generations through our API end as
documented for each OpenRouter behaviour and fault; the published catalog, the price rules
and the callback signature."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from openrouter import OpenRouter, errors

from tests.fakes.base import sample_mp4
from tests.fakes.minimax import MinimaxFake
from tests.fakes.openrouter import OpenRouterFake
from tests.support.harness import running
from tests.support.hosts import assert_cheaper_unless_pinned
from tests.support.images import data_uri, png
from tests.support.openrouter import KEY, ROUTED, context, settings_for
from tests.support.providers import assert_creates_refused, fake_fixture
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.domain.generation import Generation
from vidrouter.engine.advance import MAX_TRIES
from vidrouter.providers.base import (
    JobState,
    ProviderRequest,
)
from vidrouter.providers.openrouter import FACTORY
from vidrouter.providers.openrouter.callbacks import verify_callback

VIDEOS = "/api/v1/videos"
NO_BREAKER = {"circuit_failure_threshold": 1000}


fake = fake_fixture(lambda: OpenRouterFake(api_key=KEY))


async def run_one(
    tmp_path: Path,
    url: str,
    *,
    scale: float = 0.01,
    settings: dict[str, Any] | None = None,
    **body: Any,
) -> dict[str, Any]:
    """Create one generation through our API and wait for its end."""
    done, _ = await run_and_store(tmp_path, url, scale=scale, settings=settings, **body)
    return done


async def run_and_store(
    tmp_path: Path,
    url: str,
    *,
    scale: float = 0.01,
    settings: dict[str, Any] | None = None,
    **body: Any,
) -> tuple[dict[str, Any], Generation]:
    """As run_one, with the generation as stored: the provider's words are kept there."""
    async with running(settings_for(tmp_path, url, scale=scale, **(settings or {}))) as app:
        done = await app.generate(**body, timeout=30)
        assert done["status"] in ("completed", "failed"), done
        stored = await app.service.generation_store.get(done["id"])
        assert stored is not None
        return done, stored


async def _unbroken(tmp_path: Path, url: str, model: str) -> tuple[dict[str, Any], Generation]:
    """`run_and_store` of `model` with no circuit breaker between its tries."""
    return await run_and_store(tmp_path, url, model=model, prompt="p", settings=NO_BREAKER)


def assert_ours_kept_theirs(done: dict[str, Any], stored: Generation, theirs: str) -> None:
    """A provider_error shows the client our sentence, never the provider's words, which the
    stored generation keeps for operators."""
    assert done["error"]["code"] == "provider_error", done
    assert done["error"]["message"].startswith("the provider could not make this video"), done
    assert theirs not in done["error"]["message"], done
    assert stored.error is not None and theirs in stored.error.message, stored.error


# --- 1. the official SDK against the fake ----------------------------------------------------


async def test_official_sdk_drives_the_fake(fake: tuple[OpenRouterFake, str]) -> None:
    openrouter, url = fake
    async with OpenRouter(
        api_key=KEY, server_url=url + "/api/v1", x_open_router_title="vidrouter"
    ) as client:
        videos = client.video_generation
        # the published catalog, parsed into the SDK's VideoModel
        models = {m.id: m for m in (await videos.list_videos_models_async()).data}
        assert models["google/veo-3.1"].supported_durations == [4, 6, 8]
        assert models["runway/gen-4.5"].pricing_skus == {"cents_per_second_output": "12"}

        # text to video: submit (202), poll to completion, download with the key
        job = await videos.generate_async(
            model="google/veo-3.1",
            prompt="a fox in the snow",
            duration=8,
            aspect_ratio="16:9",
            resolution="720p",
            generate_audio=True,
        )
        assert job.status == "pending" and job.id.startswith("gen-vid-")
        assert job.polling_url.endswith(f"/api/v1/videos/{job.id}")
        with pytest.raises(errors.ConflictResponseError):  # not finished yet
            await videos.get_video_content_async(job_id=job.id)
        for _ in range(5):
            status = await videos.get_generation_async(job_id=job.id)
            if status.status == "completed":
                break
            assert status.status in ("pending", "in_progress")
        assert status.status == "completed" and status.usage is not None
        assert status.usage.cost == pytest.approx(3.2)
        assert status.unsigned_urls == [f"{url}/api/v1/videos/{job.id}/content?index=0"]
        content = await videos.get_video_content_async(job_id=job.id, index=0)
        assert await content.aread() == sample_mp4(1.0, 320, 180)

        # image to video: a first frame, inline
        image = data_uri(png())
        framed = await videos.generate_async(
            model="kwaivgi/kling-v3.0-pro",
            prompt="the waves roll in",
            duration=5,
            aspect_ratio="9:16",
            frame_images=[
                {"type": "image_url", "image_url": {"url": image}, "frame_type": "first_frame"},
                {"type": "image_url", "image_url": {"url": image}, "frame_type": "last_frame"},
            ],
            generate_audio=False,
        )
        assert openrouter.created[-1]["frame_images"][0]["image_url"] == {"url": image}

        # issue 13's controls: normalised fields, and Vertex's own names as passthrough
        vertex = {"parameters": {"negativePrompt": "blurry", "enhancePrompt": False}}
        await videos.generate_async(
            model="google/veo-3.1",
            prompt="a fox",
            duration=4,
            resolution="4K",
            generate_audio=False,
            seed=7,
            provider={"options": {"google-vertex": vertex}},
        )
        sent = openrouter.submitted[-1]
        assert (sent["resolution"], sent["generate_audio"], sent["seed"]) == ("4K", False, 7)
        assert sent["provider"] == {"options": {"google-vertex": vertex}}
        assert openrouter.dropped == []
        assert (await videos.get_generation_async(job_id=framed.id)).status == "pending"

        # OpenRouter's error answers, as the SDK classifies them
        with pytest.raises(errors.BadRequestResponseError) as bad:
            await videos.generate_async(model="google/veo-3.1", prompt="p", duration=5)
        assert bad.value.data.error.code == 400
        assert "duration" in bad.value.data.error.message
        with pytest.raises(errors.NotFoundResponseError):
            await videos.get_generation_async(job_id="gen-vid-0-missing")
        openrouter.credits = 0
        with pytest.raises(errors.PaymentRequiredResponseError):
            await videos.generate_async(model="google/veo-3.1", prompt="p", duration=4)
    async with OpenRouter(api_key="wrong", server_url=url + "/api/v1") as wrong:
        with pytest.raises(errors.UnauthorizedResponseError):
            await wrong.video_generation.get_generation_async(job_id=job.id)
    assert openrouter.headers_seen[0]["x-openrouter-title"] == "vidrouter"


# --- 2. end to end through our API -----------------------------------------------------------


async def test_models_as_listed(fake: tuple[OpenRouterFake, str], tmp_path: Path) -> None:
    _, url = fake
    async with running(settings_for(tmp_path / "a", url)) as app:
        key = await app.new_key()
        listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        models = {m["id"]: m for m in listed}
        assert set(models) == ROUTED | {"local-preview"}
        assert models["veo-3.1"]["pricing"]["per_second"] == 0.4
        assert models["veo-3.1"]["resolutions"] == ["720p", "1080p", "4k"]
        assert models["kling-v3"]["pricing"]["per_second"] == 0.112
        assert models["seedance-2-fast"]["pricing"]["per_second"] == 0.09072
        assert models["hailuo-2.3"]["durations"] == [6, 10]
        # OpenRouter's narrower limits are what the model offers through it
        assert models["wan-2.7"]["max_duration"] == 10
        assert models["wan-2.6"]["durations"] == [5, 10]
        assert models["wan-2.6"]["aspect_ratios"] == ["16:9", "9:16"]
        assert models["gen4.5"]["aspect_ratios"] == ["16:9", "9:16"]


async def test_text_to_video_sends_the_documented_request(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    openrouter, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(model="veo-3.1", prompt="a red fox in the snow", duration=8)
        assert done["status"] == "completed", done
        assert done["route"] == "openrouter"
        assert done["cost"] == {"amount": 3.2, "currency": "USD"}  # 8 s x $0.40
        video = await app.client.get(done["video_url"])
    info = decode(video.content, tmp_path)
    assert (info.codec, info.width, info.height) == ("h264", 320, 180)
    [body] = openrouter.created
    # our per-generation callback URL (a hint to poll; VIDROUTER_PUBLIC_URL is public here)
    callback = body.pop("callback_url")
    assert callback.startswith(f"https://videos.example.com/v1/provider-callbacks/{done['id']}/")
    assert body == {
        "model": "google/veo-3.1",
        "prompt": "a red fox in the snow",
        "duration": 8,
        "session_id": done["id"],
        "aspect_ratio": "16:9",
        "resolution": "720p",
        "generate_audio": True,
    }
    first = openrouter.headers_seen[0]
    assert first["authorization"] == f"Bearer {KEY}"
    assert (first["x-title"], first["http-referer"]) == ("vidrouter", "https://videos.example.com")
    assert openrouter.download_headers[0]["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("public_url", ["https://videos.example.com", None])
async def test_image_to_video_sends_a_first_frame(
    fake: tuple[OpenRouterFake, str], tmp_path: Path, public_url: str | None
) -> None:
    """With a public content host OpenRouter gets our signed copy's URL; without one (a
    loopback VIDROUTER_PUBLIC_URL), the image inline."""
    openrouter, url = fake
    image = data_uri(png(36, 64))
    done = await run_one(
        tmp_path,
        url,
        settings={"public_url": public_url},
        model="kling-v3",
        prompt="the lighthouse beam sweeps",
        image_url=image,
        aspect_ratio="9:16",
        duration=5,
    )
    assert done["status"] == "completed", done
    assert done["cost"] == {"amount": 0.56, "currency": "USD"}
    [body] = openrouter.created
    assert body["model"] == "kwaivgi/kling-v3.0-pro"
    assert (body["aspect_ratio"], body["duration"], body["generate_audio"]) == ("9:16", 5, False)
    assert "resolution" not in body
    [frame] = body["frame_images"]
    assert (frame["type"], frame["frame_type"]) == ("image_url", "first_frame")
    if public_url:
        assert frame["image_url"]["url"].startswith(public_url + "/")
    else:
        assert frame["image_url"] == {"url": image}


async def test_route_options_reference_images_passthrough_and_signed_callback(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    """Options a catalog route may set, and a callback_url: OpenRouter signs its delivery and
    `verify_callback` accepts it (and nothing else)."""
    openrouter, url = fake
    openrouter.allow_http_callbacks = True
    receiver = WebhookReceiver()
    provider = FACTORY.build(context(settings_for(tmp_path, url), tmp_path))
    image = data_uri(png())
    async with serve_app(receiver) as hook_url:
        job = await provider.submit(
            ProviderRequest(
                generation_id="gen_1",
                model="alibaba/wan-2.7",
                prompt="a paper boat",
                duration=4.0,
                aspect_ratio="1:1",
                image_url=image,
                options={
                    "image_as": "reference",
                    "send_aspect_ratio": False,
                    "provider_options": '{"alibaba": {"parameters": {"prompt_extend": false}}}',
                },
                callback_url=hook_url + "/openrouter",
            )
        )
        status = await provider.poll(job)
        while status.state in (JobState.QUEUED, JobState.RUNNING):
            status = await provider.poll(job)
        [delivery] = await receiver.wait_for(1)
        await provider.aclose()
    assert status.state is JobState.SUCCEEDED and status.data is not None
    assert status.data["cost_usd"] == pytest.approx(0.4)
    assert openrouter.created == [
        {
            "model": "alibaba/wan-2.7",
            "prompt": "a paper boat",
            "duration": 4,
            "session_id": "gen_1",
            "input_references": [{"type": "image_url", "image_url": {"url": image}}],
            "callback_url": hook_url + "/openrouter",
            "provider": {"options": {"alibaba": {"parameters": {"prompt_extend": False}}}},
        }
    ]
    event = json.loads(delivery.body)
    assert event["type"] == "video.generation.completed" and event["data"]["id"] == job.id
    assert delivery.headers["x-openrouter-idempotency-key"] == f"{job.id}-completed"
    secret = openrouter.webhook_secret
    assert verify_callback(secret, delivery.headers, delivery.body)
    assert not verify_callback("another-secret", delivery.headers, delivery.body)
    assert not verify_callback(secret, delivery.headers, delivery.body + b" ")
    assert not verify_callback(secret, delivery.headers, delivery.body, now=time.time() + 600)


async def test_provider_limits_are_checked_before_any_request(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    openrouter, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        key = await app.new_key()
        cases: list[tuple[dict[str, Any], str]] = [
            ({"model": "wan-2.7", "duration": 12}, "duration_too_long"),
            ({"model": "wan-2.6", "duration": 15}, "duration_too_long"),
            ({"model": "hailuo-2.3", "duration": 8}, "duration_unsupported"),
            ({"model": "veo-3.1", "duration": 5}, "duration_unsupported"),
            ({"model": "gen4.5", "aspect_ratio": "1:1"}, "aspect_ratio_unsupported"),
            ({"model": "veo-3.1", "aspect_ratio": "1:1"}, "aspect_ratio_unsupported"),
        ]
        await assert_creates_refused(app, key, cases, prompt="p")
    assert openrouter.plan.requests == []


async def test_bad_images_fail_invalid_input(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    openrouter, url = fake
    gif = data_uri(b"GIF89a\x01\x00\x01\x00", "image/gif")
    async with running(settings_for(tmp_path / "a", url)) as app:
        key = await app.new_key()
        r = await app.create(key, model="kling-v3", prompt="p", image_url=gif)
    assert r.status_code == 400 and r.json()["error"]["param"] == "image_url", r.text
    assert openrouter.plan.requests == []  # refused before any call

    openrouter.reject_images = True
    done = await run_one(
        tmp_path / "b", url, model="kling-v3", prompt="p", image_url=data_uri(png())
    )
    assert (done["status"], done["error"]["code"]) == ("failed", "invalid_input")
    assert "could not be decoded" in done["error"]["message"]
    assert openrouter.plan.count("POST", VIDEOS) == 1


@pytest.mark.parametrize(
    ("failure", "code", "jobs"),
    [
        ("The upstream provider returned an error", "provider_error", 3),
        ("Generated video was rejected by content moderation", "content_policy", 1),
        ("The input image has unsupported dimensions", "invalid_input", 1),
    ],
)
async def test_job_failures_map_to_our_codes(
    fake: tuple[OpenRouterFake, str], tmp_path: Path, failure: str, code: str, jobs: int
) -> None:
    openrouter, url = fake
    openrouter.fail_jobs_with = failure
    done, stored = await _unbroken(tmp_path, url, "gen4.5")
    assert done["status"] == "failed"
    if code == "provider_error":
        assert_ours_kept_theirs(done, stored, failure)
    else:  # the client's to fix: OpenRouter's reason follows our sentence
        assert done["error"]["code"] == code and failure in done["error"]["message"]
    assert len(openrouter.created) == jobs  # OpenRouter's own failures are tried again (3x)


async def test_expired_jobs_are_submitted_again(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    openrouter, url = fake
    openrouter.expire_jobs = True
    done, stored = await _unbroken(tmp_path, url, "wan-2.7")
    assert done["status"] == "failed"
    assert_ours_kept_theirs(done, stored, "expired")
    assert len(openrouter.created) == 3


@pytest.mark.parametrize(("times", "status"), [(1, "completed"), (-1, "failed")])
async def test_a_job_openrouter_does_not_know_is_polled_again_then_given_up(
    fake: tuple[OpenRouterFake, str], tmp_path: Path, times: int, status: str
) -> None:
    openrouter, url = fake
    openrouter.plan.add(
        status=404,
        path=VIDEOS + "/gen-vid-",
        method="GET",
        times=times,
        body={"error": {"code": 404, "message": "Video generation job not found"}},
    )
    done, stored = await _unbroken(tmp_path, url, "wan-2.7")
    assert done["status"] == status, done
    assert len(openrouter.created) == 1  # never paid for twice
    if status == "failed":
        assert_ours_kept_theirs(done, stored, "no longer knows this job")
        assert openrouter.plan.count("GET", VIDEOS + "/gen-vid-") == MAX_TRIES


# --- 3. route choice between OpenRouter and the maker's own API ------------------------------


async def test_the_cheaper_host_serves_unless_the_operator_pins_one(
    fake: tuple[OpenRouterFake, str], tmp_path: Path
) -> None:
    openrouter, url = fake
    minimax = MinimaxFake(polls_before_done=1)
    both = {"MINIMAX_API_KEY": KEY}
    pinned = tmp_path / "catalog.toml"
    pinned.write_text(  # an operator's own OpenRouter route, ahead of every other host
        '[[extra_routes]]\nfor_model = "hailuo-2.3"\nid = "openrouter-first"\n'
        'provider = "openrouter"\nmodel = "minimax/hailuo-2.3"\n'
        "price_per_second = 0.0817\npriority = -1\n"
    )
    async with serve_app(minimax.app()) as minimax_url:
        both["VIDROUTER_MINIMAX_BASE_URL"] = minimax_url
        await assert_cheaper_unless_pinned(
            lambda name, catalog: settings_for(tmp_path / name, url, environ=both, catalog=catalog),
            "hailuo-2.3",
            "a tram at dusk",
            cheapest=("minimax", 0.046667),
            pinned=(pinned, "openrouter", 0.0817),
        )
    assert len(minimax.tasks) == 1 and len(openrouter.created) == 1
