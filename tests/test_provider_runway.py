"""Runway: the official SDK drives our fake unchanged, and generations through our API end as
documented for each Runway behaviour and fault."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import runwayml
import runwayml.lib.polling

from tests.fakes.base import sample_mp4
from tests.fakes.runway import RunwayFake
from tests.support.harness import assert_failed, running
from tests.support.images import data_uri, png
from tests.support.providers import assert_limits_refused, fake_fixture
from tests.support.runway import quick_sdk, settings_for
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.domain.generation import Generation

fake = fake_fixture(RunwayFake)


async def run_one(
    tmp_path: Path, url: str, *, scale: float = 0.01, **body: Any
) -> tuple[dict[str, Any], Generation]:
    """Create one generation through our API and wait for its end; with it as stored (where
    the provider's own words are kept for operators)."""
    async with running(settings_for(tmp_path, url, scale=scale)) as app:
        done = await app.generate(**body, timeout=30)
        assert done["status"] in ("completed", "failed"), done
        stored = await app.service.generation_store.get(done["id"])
        assert stored is not None
        return done, stored


# --- 1. the official SDK against the fake ----------------------------------------------------


async def test_official_sdk_drives_the_fake(
    fake: tuple[RunwayFake, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runway, url = fake
    client = quick_sdk(url, monkeypatch)
    async with client:
        # text to video, polled by hand
        created = await client.text_to_video.create(
            model="gen4.5", prompt_text="a fox in the snow", ratio="1280:720", duration=5
        )
        for _ in range(10):
            task = await client.tasks.retrieve(created.id)
            if task.status == "SUCCEEDED":
                break
            assert task.status in ("PENDING", "THROTTLED", "RUNNING")
        assert task.status == "SUCCEEDED"
        async with httpx.AsyncClient() as http:
            video = await http.get(task.output[0])  # presigned: no key needed
        assert video.status_code == 200 and video.content == sample_mp4(1.0, 320, 180)

        # image to video, waited for with the SDK's own helper
        image = data_uri(png())
        waited = await (
            await client.image_to_video.create(
                model="gen4_turbo", prompt_image=image, ratio="960:960", duration=5, seed=7
            )
        ).wait_for_task_output(timeout=10)
        assert waited.status == "SUCCEEDED" and waited.cost.credits == 25
        assert runway.created[-1] == (
            "image_to_video",
            {
                "model": "gen4_turbo",
                "promptImage": image,
                "ratio": "960:960",
                "duration": 5,
                "seed": 7,
            },
        )

        # cancel a task that has not finished
        runway.never_finish = True
        pending = await client.image_to_video.create(
            model="gen4.5",
            prompt_image=[{"uri": image, "position": "first"}],
            prompt_text="slow pan",
            ratio="720:1280",
            duration=10,
        )
        await client.tasks.delete(pending.id)
        assert (await client.tasks.retrieve(pending.id)).status == "CANCELLED"

        # Runway's error answers, as the SDK classifies them
        with pytest.raises(runwayml.BadRequestError) as bad:
            await client.text_to_video.create(  # type: ignore[call-overload]
                model="gen4.5", prompt_text="square", ratio="960:960", duration=5
            )
        assert bad.value.body["error"] == "Validation of body failed"  # type: ignore[index]
        assert bad.value.body["issues"][0]["path"] == ["ratio"]  # type: ignore[index]
        # Gen-4.x take no audio, negative prompt or last frame (Runway's Veo 3.1 models do).
        last = [{"uri": image, "position": "first"}, {"uri": image, "position": "last"}]
        for extra in ({"audio": True, "negativePrompt": "blur"}, {"promptImage": last}):
            with pytest.raises(runwayml.BadRequestError) as bad:
                await client.image_to_video.create(
                    model="gen4.5",
                    prompt_image=image,
                    prompt_text="p",
                    ratio="1280:720",
                    duration=5,
                    extra_body=extra,
                )
            issue = bad.value.body["issues"][0]  # type: ignore[index]
            assert issue["code"] in ("unrecognized_keys", "invalid_value"), issue
        with pytest.raises(runwayml.NotFoundError):
            await client.tasks.retrieve("00000000-0000-0000-0000-000000000000")

    async with runwayml.AsyncRunwayML(api_key="wrong", base_url=url, max_retries=0) as wrong:
        with pytest.raises(runwayml.AuthenticationError):
            await wrong.tasks.retrieve(created.id)
    assert all(h["x-runway-version"] == "2024-11-06" for h in runway.headers_seen)


# --- 2. end to end through our API -----------------------------------------------------------


async def test_models_as_listed(fake: tuple[RunwayFake, str], tmp_path: Path) -> None:
    _, url = fake
    async with running(settings_for(tmp_path / "a", url)) as app:
        key = await app.new_key()
        listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        models = {m["id"]: m for m in listed}
        assert models["gen4.5"]["provider"] == "Runway"
        assert models["gen4.5"]["capabilities"] == ["text-to-video", "image-to-video"]
        assert models["gen4.5"]["pricing"]["per_second"] == 0.12  # the default configuration
        assert models["gen4.5"]["pricing"]["currency"] == "USD"
        assert models["gen4.5"]["durations"] == [2, 3, 4, 5, 6, 7, 8, 9, 10]
        assert models["gen4-turbo"]["capabilities"] == ["image-to-video"]
        assert models["gen4-turbo"]["aspect_ratios"] == ["16:9", "9:16", "1:1"]


async def test_text_to_video_sends_the_documented_request(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(model="gen4.5", prompt="a red fox in the snow", duration=5)
        assert done["status"] == "completed", done
        assert done["cost"] == {"amount": 0.6, "currency": "USD"}  # 5 s x 12 credits x $0.01
        video = await app.client.get(done["video_url"])
    info = decode(video.content, tmp_path)
    assert (info.codec, info.width, info.height) == ("h264", 320, 180)
    assert "authorization" not in runway.download_headers[0]  # our key stays with Runway
    assert runway.created == [
        (
            "text_to_video",
            {
                "model": "gen4.5",
                "promptText": "a red fox in the snow",
                "ratio": "1280:720",
                "duration": 5,
            },
        )
    ]


async def test_image_to_video_sends_the_image_inline(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake
    image = data_uri(png())
    done, _ = await run_one(
        tmp_path,
        url,
        model="gen4-turbo",
        prompt="the lighthouse beam sweeps",
        image_url=image,
        aspect_ratio="1:1",
        duration=3,
    )
    assert done["status"] == "completed", done
    assert done["cost"] == {"amount": 0.15, "currency": "USD"}
    [(endpoint, body)] = runway.created
    assert endpoint == "image_to_video"
    assert body == {
        "model": "gen4_turbo",
        "promptText": "the lighthouse beam sweeps",
        "ratio": "960:960",
        "duration": 3,
        "promptImage": image,
    }


async def test_image_from_an_http_url_is_fetched_and_sent_as_data_uri(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake

    async def image_host(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        body = png(40, 60)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"image/png")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async with serve_app(image_host) as image_url:
        done, _ = await run_one(
            tmp_path,
            url,
            model="gen4.5",
            prompt="portrait",
            image_url=image_url + "/frame.png",
            aspect_ratio="9:16",
        )
    assert done["status"] == "completed", done
    [(_, body)] = runway.created
    assert body["promptImage"] == data_uri(png(40, 60)) and body["ratio"] == "720:1280"


async def test_provider_limits_are_checked_before_any_request(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        key = await app.new_key()
        cases: list[tuple[dict[str, Any], str]] = [
            ({"duration": 11}, "duration_too_long"),
            ({"duration": 2.5}, "duration_unsupported"),  # not one of its whole seconds
            ({"duration": 1}, "duration_invalid"),  # under its shortest, 2 s
            ({"aspect_ratio": "4:3"}, "aspect_ratio_unsupported"),
        ]
        await assert_limits_refused(app, key, "gen4.5", cases)
    assert runway.plan.requests == []


@pytest.mark.parametrize(
    ("body", "provider_text"),
    [
        ({"model": "gen4.5", "prompt": "square", "aspect_ratio": "1:1"}, "only from an image"),
        ({"model": "gen4.5", "prompt": "x" * 1001}, "at most 1000"),
    ],
)
async def test_requests_runway_cannot_take_fail_invalid_input_without_a_call(
    fake: tuple[RunwayFake, str], tmp_path: Path, body: dict[str, Any], provider_text: str
) -> None:
    runway, url = fake
    done, _ = await run_one(tmp_path, url, **body)
    assert_failed(done, "invalid_input")
    assert provider_text in done["error"]["message"]
    assert runway.plan.requests == []


async def test_image_only_model_without_image_is_a_400_without_a_call(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        key = await app.new_key()
        r = await app.create(key, model="gen4-turbo", prompt="no frame given")
        assert r.status_code == 400, r.text
        assert (r.json()["error"]["code"], r.json()["error"]["param"]) == (
            "image_required",
            "image_url",
        )
    assert runway.plan.requests == []


async def test_image_runway_cannot_use_fails_invalid_input(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake
    too_wide = data_uri(png(300, 50))  # a PNG, but outside Runway's 0.5-2 aspect ratio
    done, _ = await run_one(tmp_path, url, model="gen4-turbo", prompt="p", image_url=too_wide)
    assert done["status"] == "failed" and done["error"]["code"] == "invalid_input", done
    assert "ASSET.INVALID" in done["error"]["message"]
    assert runway.plan.count("POST", "/v1/image_to_video") == 1


@pytest.mark.parametrize(
    ("failure_code", "error_code"),
    [
        ("SAFETY.OUTPUT.VIDEO", "content_policy"),
        ("INPUT_PREPROCESSING.SAFETY.TEXT", "content_policy"),
        ("INTERNAL.BAD_OUTPUT.CODE01", "provider_error"),
        ("INTERNAL", "provider_error"),
    ],
)
async def test_task_failures_map_to_our_codes(
    fake: tuple[RunwayFake, str], tmp_path: Path, failure_code: str, error_code: str
) -> None:
    runway, url = fake
    runway.fail_jobs_with = (failure_code, "The task failed.")
    done, stored = await run_one(tmp_path, url, model="gen4.5", prompt="p")
    assert_failed(done, error_code)
    assert stored.error is not None and stored.error.code == error_code
    assert failure_code in stored.error.message  # Runway's words, for operators
    if error_code == "provider_error":  # the client reads our sentence, not Runway's
        message = done["error"]["message"]
        assert message.startswith("the provider could not make this video"), done
        assert failure_code not in message and "The task failed" not in message
    else:  # the client's to fix: Runway's reason follows our sentence
        assert failure_code in done["error"]["message"]


async def test_throttled_tasks_wait_then_complete(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake
    runway.throttled_polls = 3
    done, _ = await run_one(tmp_path, url, model="gen4.5", prompt="p")
    assert done["status"] == "completed", done
    assert runway.plan.count("GET", "/v1/tasks/") >= 6


async def test_result_download_failure_is_retried(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    runway, url = fake
    runway.plan.add(status=503, path="/_outputs/", times=2)
    done, _ = await run_one(tmp_path, url, model="gen4.5", prompt="p")
    assert done["status"] == "completed", done
    assert runway.plan.count("GET", "/_outputs/") == 3
