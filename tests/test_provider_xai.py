"""xAI Grok Imagine: what its adapter does that the contract suite does not cover. The
request bodies of text and image to video, xAI's own states (`done` without a video,
`failed`, `expired`), a request xAI no longer knows, a cancel that xAI cannot do, and the
fake's own fidelity (it refuses what xAI does not document). xai-sdk speaks gRPC only, so
the fake follows the REST JSON (docs/providers/xai.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.fakes.xai import GENERATIONS, XaiFake
from tests.support.harness import assert_failed, running, test_settings
from tests.support.images import data_uri, image_host, png
from tests.support.providers import image_to_video_against, until_ended
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.xai import XaiProvider

KEY = "test-key"


@pytest.fixture
async def xai() -> AsyncIterator[tuple[XaiFake, XaiProvider]]:
    fake = XaiFake(api_key=KEY, polls_to_finish=1)
    async with serve_app(fake.app()) as url:
        provider = XaiProvider(
            AdapterConfig(url, {"XAI_API_KEY": KEY}.get, allow_private_images=True)
        )
        try:
            yield fake, provider
        finally:
            await provider.aclose()


def _request(model: str = "grok-imagine-video", **kw: object) -> base.ProviderRequest:
    values: dict[str, object] = {"controls": Controls("720p", True), **kw}
    return base.ProviderRequest("gen_x1", model, "a fox in the snow", 8, "16:9", **values)  # type: ignore[arg-type]


async def test_text_to_video_sends_the_documented_body_and_keeps_xais_charge(
    xai: tuple[XaiFake, XaiProvider],
) -> None:
    fake, provider = xai
    job = await provider.submit(_request())
    assert fake.submitted == [
        {
            "model": "grok-imagine-video",
            "prompt": "a fox in the snow",
            "duration": 8,
            "aspect_ratio": "16:9",
            "resolution": "720p",  # always sent: xAI's own default is 480p
        }
    ]
    first = await provider.poll(job)
    assert (first.state, first.progress) == (base.JobState.RUNNING, 40)
    done = await until_ended(provider, job)
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 8.0
    assert done.data is not None and done.data["cost_usd"] == pytest.approx(0.56)
    ref = await provider.fetch_result(base.ProviderJob(job.id, done.data))
    assert ref.url is not None and ref.url == done.data["video_url"] and not ref.headers
    async with httpx.AsyncClient() as client:
        assert (await client.get(ref.url)).status_code == 200


async def test_image_to_video_sends_the_first_frame_as_image_url(
    xai: tuple[XaiFake, XaiProvider],
) -> None:
    fake, provider = xai
    inline = data_uri(png(4, 4))
    await provider.submit(_request(image_url=inline))
    async with image_host() as host:
        await provider.submit(_request(image_url=f"{host}/frame.png"))
        with pytest.raises(base.InvalidInput):  # checked before xAI is asked
            await provider.submit(_request(image_url=f"{host}/page.png"))
    assert [body["image"] for body in fake.submitted] == [
        {"url": inline},
        {"url": f"{host}/frame.png"},  # xAI fetches public URLs itself
    ]
    assert len(fake.tasks) == 2


async def test_silent_1080p_on_grok_imagine_1_5(xai: tuple[XaiFake, XaiProvider]) -> None:
    fake, provider = xai
    await provider.submit(_request("grok-imagine-video-1.5", controls=Controls("1080p", False)))
    assert fake.submitted[-1]["resolution"] == "1080p"
    assert fake.submitted[-1]["generate_audio"] is False


@pytest.mark.parametrize(
    ("knob", "error", "code", "retryable"),
    [
        ({"moderate_outputs_containing": "fox"}, base.ContentRejected, "respect_moderation", False),
        ({"fail_jobs_with": ("internal_error", "boom")}, base.JobFailed, "internal_error", True),
        (
            {"fail_jobs_with": ("internal_error", "blocked by moderation")},
            base.ContentRejected,
            "internal_error",
            False,
        ),
        ({"expire_jobs": True}, base.JobFailed, "expired", True),
    ],
    ids=["done-without-video", "failed", "failed-moderation", "expired"],
)
async def test_xais_end_states(
    xai: tuple[XaiFake, XaiProvider],
    knob: dict[str, object],
    error: type[base.ProviderError],
    code: str,
    retryable: bool,
) -> None:
    fake, provider = xai
    for name, value in knob.items():
        setattr(fake, name, value)
    status = await until_ended(provider, await provider.submit(_request()))
    assert status.state is base.JobState.FAILED and isinstance(status.error, error)
    assert (status.error.provider_code, status.error.is_retryable) == (code, retryable)


async def test_a_lost_request_fails_and_a_cancel_asks_nothing(
    xai: tuple[XaiFake, XaiProvider],
) -> None:
    fake, provider = xai
    lost = base.ProviderJob("no-such-request")
    with pytest.raises(base.JobFailed) as caught:
        await provider.poll(lost)
    assert not caught.value.is_retryable  # it may have run: never paid for twice
    before = len(fake.plan.requests)
    await provider.cancel(lost)  # xAI has no cancel: the request runs to its end
    assert len(fake.plan.requests) == before


async def test_an_unknown_status_keeps_polling_and_a_bare_video_is_done(
    xai: tuple[XaiFake, XaiProvider],
) -> None:
    fake, provider = xai
    job = await provider.submit(_request())
    fake.plan.add(status=200, body={"status": "queued"}, path="/v1/videos/", method="GET")
    assert (await provider.poll(job)).state is base.JobState.RUNNING
    # An answer with the video and no status is a finished one (the Vercel AI SDK reads it so).
    video = {"url": "https://vidgen.x.ai/v.mp4", "duration": 8}
    fake.plan.add(status=200, body={"video": video}, path="/v1/videos/", method="GET")
    done = await provider.poll(job)
    assert done.state is base.JobState.SUCCEEDED and done.data is not None
    assert done.data["video_url"] == video["url"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"seed": 7}, 400),  # xAI has no seed
        ({"negative_prompt": "blur"}, 400),
        ({"duration": 16}, 400),
        ({"duration": "8"}, 422),
        ({"resolution": "1080p"}, 400),  # the first model makes 480p and 720p only
        ({"aspect_ratio": "21:9"}, 400),
        (
            {"image": {"url": "https://x/a.png"}, "reference_images": [{"url": "https://x/b.png"}]},
            400,
        ),
        ({"reference_images": [{"url": "https://x/b.png"}], "duration": 12}, 400),
    ],
)
async def test_the_fake_refuses_what_xai_does_not_take(
    body: dict[str, object], status: int
) -> None:
    fake = XaiFake(api_key=KEY)
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            GENERATIONS,
            json={"model": "grok-imagine-video", "prompt": "p", **body},
            headers={"Authorization": f"Bearer {KEY}"},
        )
    assert answer.status_code == status, answer.text
    assert set(answer.json()) == {"code", "error"} and fake.tasks == {}


async def test_an_expired_request_is_made_again_then_fails(tmp_path: Path) -> None:
    """`expired` is xAI's, not the user's: a fresh request is tried (as for any retryable
    failure), and the generation fails with xAI's code once the tries are spent."""
    fake = XaiFake(api_key=KEY, polls_to_finish=0, expire_jobs=True)
    async with serve_app(fake.app()) as url:
        environ = {"XAI_API_KEY": KEY, "VIDROUTER_XAI_BASE_URL": url}
        settings = test_settings(
            tmp_path / "data",
            environ=environ,
            provider_delay_scale=0.01,
            circuit_failure_threshold=100,
        )
        async with running(settings) as app:
            done = await app.generate(model="grok-imagine-video", prompt="p", duration=2)
            stored = await app.service.generation_store.get(done["id"])
    assert_failed(done, "provider_error")
    assert "expired" not in done["error"]["message"]  # xAI's words are the operator's
    assert stored is not None and stored.error is not None
    assert "expired" in stored.error.message
    assert len(fake.tasks) > 1


async def test_image_to_video_through_our_api(tmp_path: Path) -> None:
    fake = XaiFake(api_key=KEY, polls_to_finish=0)
    done = await image_to_video_against(
        tmp_path,
        fake.app(),
        lambda url: {"XAI_API_KEY": KEY, "VIDROUTER_XAI_BASE_URL": url},
        "grok-imagine-video-1.5",
    )
    assert (done["status"], done["route"]) == ("completed", "xai"), done
    [body] = fake.submitted
    assert body["image"]["url"].startswith(("data:image/png;base64,", "http"))
    assert (body["model"], body["duration"], body["resolution"]) == (
        "grok-imagine-video-1.5",
        3,
        "720p",
    )
    assert done["cost"]["amount"] == pytest.approx(3 * 0.14)
