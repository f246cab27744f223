"""Luma AI (Dream Machine API): the official SDK drives the fake unchanged, and generations
run through our API to their documented end state, faults included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import lumaai
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.luma import MODERATION_FAILED, LumaFake
from tests.support.harness import assert_failed, running
from tests.support.luma import CREATE, KEY, settings_for
from tests.support.providers import assert_create_refused_unsent, fake_fixture, models_listed
from vidrouter.settings import Settings

luma = fake_fixture(lambda: LumaFake(api_key=KEY), lambda made: made.app())


async def _run(settings: Settings, **body: Any) -> dict[str, Any]:
    """Create one generation and wait for its end; our API must never answer 500."""
    async with running(settings) as app:
        done = await app.generate(**{"model": "ray-2", "prompt": "a fox", **body}, timeout=30)
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
            resolution="1080p",
            keyframes={
                "frame0": {"type": "image", "url": f"{images}/frame.png"},
                "frame1": {"type": "image", "url": f"{images}/frame.png"},
            },
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

        frame = {"type": "image", "url": f"{images}/frame.png"}
        assert fake.submitted[0]["keyframes"] == {"frame0": frame, "frame1": frame}
        assert fake.submitted[0]["resolution"] == "1080p"
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
        for wrong_field in ({"resolution": "2k"}, {"seed": 7}, {"negative_prompt": "blur"}):
            with pytest.raises(lumaai.BadRequestError):
                await client.generations.create(model="ray-2", prompt="p", extra_body=wrong_field)

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


async def test_models_as_listed(luma: tuple[LumaFake, str], tmp_path: Path) -> None:
    _, url = luma
    models = await models_listed(settings_for(tmp_path / "a", url))
    assert models["ray-2"]["provider"] == "Luma AI"
    assert models["ray-2"]["durations"] == [5, 9]
    assert models["ray-2"]["default_duration"] == 5 and models["ray-2"]["max_duration"] == 9
    assert models["ray-2"]["pricing"]["per_second"] == 0.1416  # the default configuration
    assert models["ray-2"]["pricing"]["currency"] == "USD"
    assert models["ray-flash-2"]["pricing"]["per_second"] == 0.0487
    assert models["ray-flash-2"]["capabilities"] == [
        "text-to-video",
        "image-to-video",
        "video-to-video",
        "video-extend",
    ]


async def test_text_to_video_sends_the_documented_request(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma  # the stored video and the webhook: the contract suite
    done = await _run(settings_for(tmp_path, url), prompt="a red fox", aspect_ratio="9:16")
    assert done["status"] == "completed", done
    assert done["cost"] == {"amount": round(5 * 0.1416, 6), "currency": "USD"}
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
        settings_for(tmp_path, url), model="ray-flash-2", duration=9, image_url=image_url
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
    settings = settings_for(tmp_path, url)
    await assert_create_refused_unsent(
        settings, fake, code, **{"model": "ray-2", "prompt": "p", **body}
    )


async def test_data_uri_image_fails_as_invalid_input_without_a_request(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    data_uri = "data:image/png;base64,iVBORw0KGgo="
    done = await _run(settings_for(tmp_path, url), image_url=data_uri)
    assert_failed(done, "invalid_input", "http(s) image URL")
    assert fake.plan.requests == []


async def test_image_that_is_not_an_image_fails_before_luma_sees_it(
    luma: tuple[LumaFake, str], images: str, tmp_path: Path
) -> None:
    fake, url = luma
    done = await _run(settings_for(tmp_path, url), image_url=f"{images}/page.png")
    assert_failed(done, "invalid_input", "neither PNG nor JPEG")
    # We fetch and check every input image once, before any provider is called.
    assert fake.plan.count("POST", CREATE) == 0


async def test_luma_side_failure_is_a_provider_error(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    fake.fail_jobs_with = "Job failed due to an internal error"
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(model="ray-2", prompt="a fox", timeout=30)
        stored = await app.service.generation_store.get(done["id"])
    assert_failed(done, "provider_error")
    # The client reads our sentence; Luma's own words are kept for operators.
    assert done["error"]["message"].startswith("the provider could not make this video")
    assert "internal error" not in done["error"]["message"]
    assert stored is not None and stored.error is not None
    assert "Job failed due to an internal error" in stored.error.message


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
