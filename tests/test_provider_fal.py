"""fal.ai (queue API): the official SDK drives the fake unchanged, every catalog route's input
is one the fake's app accepts, and generations run through our API to their documented end
state, faults included."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import fal_client
import httpx
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.fal import FLAGGED, FalFake
from tests.fakes.minimax import MinimaxFake
from tests.support.harness import assert_error, assert_failed, running, test_settings
from tests.support.images import png
from tests.support.providers import fake_fixture
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.domain.catalog import load_catalog
from vidrouter.engine.advance import MAX_JOB_FAILURES
from vidrouter.providers.base import (
    AuthFailed,
    JobFailed,
    JobState,
    ProviderContext,
    ProviderJob,
    ProviderRequest,
    ProviderUnavailable,
)
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.fal import FACTORY
from vidrouter.providers.fal.adapter import FalProvider, _requests_path
from vidrouter.providers.fal.catalog import published
from vidrouter.settings import Settings

KEY = "test-key"
T2V = "fal-ai/kling-video/v2.5-turbo/pro/text-to-video"
I2V = "fal-ai/kling-video/v2.5-turbo/pro/image-to-video"
MODEL = "kling-v2.5-turbo"


PNG_URI = "data:image/png;base64," + base64.b64encode(png(2, 2)).decode()


fal = fake_fixture(lambda: FalFake(api_key=KEY), lambda made: made.app())


def _settings(tmp_path: Path, url: str, key: str = KEY, **overrides: Any) -> Settings:
    environ = {
        "FAL_KEY": key,
        "VIDROUTER_FAL_BASE_URL": url,
        "VIDROUTER_FAL_API_BASE_URL": url,
        **overrides.pop("environ", {}),
    }
    # MAX_TRIES and the job-failure budget end these runs, not the circuit breaker.
    values: dict[str, Any] = {
        "provider_delay_scale": 0.01,
        "circuit_failure_threshold": 100,
        **overrides,
    }
    return test_settings(tmp_path / "data", environ=environ, **values)


async def _run(settings: Settings, **body: Any) -> dict[str, Any]:
    """Create one generation and wait for its end; our API must never answer 500."""
    async with running(settings) as app:
        key = await app.new_key()
        created = await app.create(key, **{"model": MODEL, "prompt": "a fox", **body})
        assert created.status_code == 202, created.text
        return await app.wait_for(key, created.json()["id"], timeout=30)


# --- the official SDK against the fake ----------------------------------------------------


async def test_sdk_submits_polls_fetches_downloads_and_cancels(
    fal: tuple[FalFake, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, url = fal
    # fal-client builds queue URLs from a module constant (FAL_QUEUE_RUN_HOST, https only).
    monkeypatch.setattr(fal_client.client, "QUEUE_URL_FORMAT", f"{url}/")
    client = fal_client.AsyncClient(key=KEY)
    arguments = {
        "prompt": "a fox",
        "duration": "5",
        "aspect_ratio": "9:16",
        "negative_prompt": "blurry",  # issue 13: the controls, under the app's own names
        "cfg_scale": 0.5,
    }
    handle = await client.submit(T2V, arguments, webhook_url="https://example.com/hook")
    assert handle.status_url == f"{url}/fal-ai/kling-video/requests/{handle.request_id}/status"
    seen = []
    for _ in range(10):
        status = await handle.status(with_logs=True)
        seen.append(type(status).__name__)
        if isinstance(status, fal_client.Completed):
            break
    assert seen == ["Queued", "InProgress", "InProgress", "Completed"]
    assert isinstance(status, fal_client.Completed) and status.error is None
    result = await handle.get()
    assert result["video"]["content_type"] == "video/mp4"
    async with httpx.AsyncClient() as http:  # fal's CDN: no key
        video = await http.get(result["video"]["url"])
    assert video.content == sample_mp4()
    assert fake.submissions == [(T2V, arguments)]
    assert fake.jobs[handle.request_id].webhook == "https://example.com/hook"

    other = await client.submit(I2V, {"prompt": "waves", "image_url": PNG_URI})
    veo = {"prompt": "a fox", "resolution": "4k", "generate_audio": False, "seed": 7}
    await client.submit("fal-ai/veo3.1", {**veo, "negative_prompt": "text"})
    assert fake.submitted[-1] == {**veo, "negative_prompt": "text"}
    await client.cancel(I2V, other.request_id)  # rebuilt from the app id: first two segments
    assert fake.cancelled == [other.request_id]
    ended = await client.status(I2V, other.request_id)
    assert isinstance(ended, fal_client.Completed) and ended.error_type == "client_cancelled"
    with pytest.raises(fal_client.FalClientHTTPError) as again:
        await client.cancel(I2V, other.request_id)
    assert again.value.status_code == 400


async def test_sdk_sees_auth_and_result_errors(
    fal: tuple[FalFake, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, url = fal
    monkeypatch.setattr(fal_client.client, "QUEUE_URL_FORMAT", f"{url}/")
    with pytest.raises(fal_client.FalClientHTTPError) as denied:
        await fal_client.AsyncClient(key="wrong").submit(T2V, {"prompt": "p"})
    assert denied.value.status_code == 401
    client = fal_client.AsyncClient(key=KEY)
    handle = await client.submit(T2V, {"prompt": "something forbidden"})
    with pytest.raises(fal_client.FalClientHTTPError) as flagged:
        await handle.get(interval=0.01)  # COMPLETED, then the result answers the failure
    assert flagged.value.status_code == 422
    [problem] = flagged.value.response.json()["detail"]
    assert (problem["type"], problem["msg"]) == ("content_policy_violation", FLAGGED)
    bad = await client.submit(T2V, {"prompt": "p", "duration": 5})  # Kling wants "5"
    with pytest.raises(fal_client.FalClientHTTPError) as invalid:
        await bad.get(interval=0.01)
    assert invalid.value.response.json()["detail"][0]["loc"] == ["body", "duration"]


# --- the adapter against the fake ---------------------------------------------------------


@pytest.fixture
async def adapter(fal: tuple[FalFake, str]) -> AsyncIterator[tuple[FalFake, FalProvider]]:
    """The adapter alone, against a fake whose requests finish at once."""
    fake, url = fal
    fake.polls_to_finish = 0
    provider = FalProvider(AdapterConfig(url, {"FAL_KEY": KEY}.get))
    try:
        yield fake, provider
    finally:
        await provider.aclose()


async def _until_done(provider: FalProvider, job: ProviderJob) -> JobState:
    for _ in range(10):
        status = await provider.poll(job)
        if status.state not in (JobState.QUEUED, JobState.RUNNING):
            assert status.error is None, status.error
            return status.state
    raise AssertionError("still running")


async def test_every_catalog_route_sends_an_input_its_app_accepts(
    adapter: tuple[FalFake, FalProvider],
) -> None:
    _, provider = adapter
    checked = 0
    for model in load_catalog().models:
        for route in (r for r in model.routes if r.provider == "fal"):
            ratios = [a for a in model.aspect_ratios if a in (route.aspect_ratios or [a])]
            durations = route.durations or model.durations or (model.default_duration,)
            types = route.inputs.types or model.capabilities  # a route makes only its own
            images: list[str | None] = [None] if "text-to-video" in types else []
            images += [PNG_URI] if "image-to-video" in types else []
            for image in images:
                request = ProviderRequest(
                    f"gen_{checked}",
                    route.provider_model,
                    "a fox",
                    max(durations),
                    ratios[-1],
                    image,
                    route.options,
                )
                job = await provider.submit(request)
                state = await _until_done(provider, job)
                assert state is JobState.SUCCEEDED, (model.id, image is not None)
                checked += 1
    assert checked >= 30


async def test_request_paths_keep_owner_and_alias_and_ignore_foreign_hosts() -> None:
    assert _requests_path("fal-ai/veo3.1", "r1") == "/fal-ai/veo3.1/requests/r1"
    assert _requests_path("fal-ai/a/b/c", "r1") == "/fal-ai/a/requests/r1"
    assert _requests_path("workflows/me/flow/x", "r1") == "/workflows/me/flow/requests/r1"
    provider = FalProvider(AdapterConfig("https://proxy.example/fal", {"FAL_KEY": KEY}.get))
    try:
        path = provider._path_of("https://evil.example/fal-ai/a/requests/r1/status", "fallback")
        assert path == "/fal-ai/a/requests/r1/status"  # sent to our base, never to evil.example
        assert (
            provider._path_of("https://proxy.example/fal/x/y/requests/r1", "-")
            == "/x/y/requests/r1"
        )
        assert provider._path_of(None, "fallback") == "fallback"
    finally:
        await provider.aclose()


async def test_cancel_is_quiet_and_a_lost_request_is_a_job_failure(
    adapter: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = adapter
    lost = ProviderJob("no-such-request", {"app": T2V})
    await provider.cancel(lost)  # 404 NOT_FOUND
    with pytest.raises(JobFailed):
        await provider.poll(lost)
    hook = "https://example.com/fal-callback"
    request = ProviderRequest("g", T2V, "a fox", 5, "16:9", callback_url=hook)
    job = await provider.submit(request)
    assert fake.jobs[job.id].webhook == hook  # sent as ?fal_webhook=
    assert job.data["status_path"] == f"/fal-ai/kling-video/requests/{job.id}/status"
    assert await _until_done(provider, job) is JobState.SUCCEEDED
    await provider.cancel(job)  # 400 ALREADY_COMPLETED
    ref = await provider.fetch_result(ProviderJob(job.id, job.data))  # no video_url kept
    assert ref.url is not None and ref.url.endswith(f"/cdn/{job.id}.mp4") and not ref.headers


def _no_pool() -> Executor:
    raise AssertionError("published() renders nothing")


async def test_published_reads_prices_and_limits_from_the_platform_api(
    fal: tuple[FalFake, str], tmp_path: Path
) -> None:
    _, url = fal
    wanted = [
        T2V,
        "fal-ai/minimax/hailuo-2.3/standard/text-to-video",
        "fal-ai/wan/v2.7/text-to-video",
        "fal-ai/luma-dream-machine/ray-2",
        "fal-ai/no-such-app",
    ]
    environ = {"FAL_KEY": KEY, "VIDROUTER_FAL_API_BASE_URL": url}
    ctx = FACTORY.config(
        ProviderContext(test_settings(tmp_path, environ=environ), tmp_path, _no_pool)
    )
    found = {p.provider_model: p for p in await published(ctx, wanted)}
    assert set(found) == set(wanted[:4])
    kling = found[T2V]
    assert (kling.price_per_second, kling.durations, kling.max_duration) == (
        0.07,
        (5.0, 10.0),
        10.0,
    )
    assert kling.aspect_ratios == ("16:9", "9:16", "1:1")
    hailuo = found["fal-ai/minimax/hailuo-2.3/standard/text-to-video"]
    assert hailuo.price_per_second is None  # priced per video, not per second
    assert hailuo.aspect_ratios is None and hailuo.durations == (6.0, 10.0)
    assert found["fal-ai/wan/v2.7/text-to-video"].durations == tuple(float(d) for d in range(2, 16))
    assert found["fal-ai/luma-dream-machine/ray-2"].aspect_ratios == ("16:9", "9:16")
    wrong_settings = test_settings(tmp_path, environ={**environ, "FAL_KEY": "wrong"})
    wrong = FACTORY.config(ProviderContext(wrong_settings, tmp_path, _no_pool))
    with pytest.raises(AuthFailed):
        await published(wrong, wanted)


# --- through our API ----------------------------------------------------------------------


async def test_models_as_listed(fal: tuple[FalFake, str], tmp_path: Path) -> None:
    _, url = fal
    async with running(_settings(tmp_path / "a", url), workers=False) as app:
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        models = {m["id"]: m for m in data}
        assert models[MODEL]["pricing"] == {
            "per_second": 0.07,
            "currency": "USD",
            "variants": [{"resolution": "1080p", "audio": False, "per_second": 0.07}],
        }
        assert models[MODEL]["durations"] == [5, 10]
        assert models["ray-2"]["aspect_ratios"] == ["16:9", "9:16"]  # fal has no 1:1
        assert models["ray-2"]["pricing"]["per_second"] == 0.2
        assert models["seedance-1-pro"]["durations"][0] == 3
        assert models["hailuo-2.3-fast"]["capabilities"] == ["image-to-video"]
        assert models["veo-3.1"]["pricing"]["per_second"] == 0.4
        # issue 13: what fal's Veo app takes, and its price per configuration
        veo = models["veo-3.1"]
        assert veo["resolutions"] == ["720p", "1080p", "4k"]
        assert veo["supports"] == ["negative_prompt", "seed", "generate_audio"]
        assert {(v["resolution"], v["audio"]): v["per_second"] for v in veo["pricing"]["variants"]}[
            ("4k", True)
        ] == 0.6
        assert "wan-2.6" not in models and "seedance-1-lite" not in models


async def test_text_to_video_sends_the_documented_request(
    fal: tuple[FalFake, str], tmp_path: Path
) -> None:
    fake, url = fal
    async with running(_settings(tmp_path, url)) as app:
        done = await app.generate(model=MODEL, prompt="a red fox", aspect_ratio="9:16", timeout=30)
        assert done["status"] == "completed", done
        assert done["route"] == "fal"
        assert done["cost"] == {"amount": round(5 * 0.07, 6), "currency": "USD"}
        video = await app.client.get(done["video_url"])
        assert video.status_code == 200
        info = decode(video.content, tmp_path)
        assert info.codec == "h264" and info.frames > 0
    assert fake.submissions == [
        (T2V, {"prompt": "a red fox", "duration": "5", "aspect_ratio": "9:16"})
    ]


async def test_image_to_video_calls_the_i2v_app_with_its_field_names(
    fal: tuple[FalFake, str], images: str, tmp_path: Path
) -> None:
    fake, url = fal
    image_url = f"{images}/frame.png"
    done = await _run(_settings(tmp_path / "a", url), model="kling-v2.6", image_url=image_url)
    assert done["status"] == "completed", done
    done = await _run(
        _settings(tmp_path / "b", url), model="hailuo-02", duration=10, image_url=PNG_URI
    )
    assert done["status"] == "completed", done
    assert fake.submissions == [
        (
            "fal-ai/kling-video/v2.6/pro/image-to-video",
            {
                "prompt": "a fox",
                "start_image_url": image_url,
                "duration": "5",
                "generate_audio": False,
            },
        ),
        (
            "fal-ai/minimax/hailuo-02/standard/image-to-video",
            {"prompt": "a fox", "image_url": PNG_URI, "duration": "10"},
        ),
    ]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"duration": 7}, "duration_unsupported"),
        ({"duration": 12}, "duration_too_long"),
        ({"model": "ray-2", "aspect_ratio": "1:1"}, "aspect_ratio_unsupported"),
        ({"model": "veo-3.1", "duration": 5}, "duration_unsupported"),
    ],
)
async def test_fal_limits_are_checked_before_any_request(
    fal: tuple[FalFake, str], tmp_path: Path, body: dict[str, Any], code: str
) -> None:
    fake, url = fal
    async with running(_settings(tmp_path, url), workers=False) as app:
        key = await app.new_key()
        response = await app.create(key, **{"model": MODEL, "prompt": "p", **body})
        assert_error(response, 400, code)
    assert fake.plan.requests == []


BAD_IMAGES = {
    "fal's app cannot read it": ("frame.png", 1),
    "the URL is no image": ("page.png", 0),  # refused before any request reaches fal
}


@pytest.mark.parametrize("case", list(BAD_IMAGES))
async def test_bad_image_fails_as_invalid_input(
    fal: tuple[FalFake, str], images: str, tmp_path: Path, case: str
) -> None:
    fake, url = fal
    image, submits = BAD_IMAGES[case]
    fake.reject_images = True
    image_url = image if image.startswith("data:") else f"{images}/{image}"
    done = await _run(_settings(tmp_path, url), image_url=image_url)
    assert_failed(done, "invalid_input")
    assert fake.plan.count("POST", "/fal-ai/") == submits


async def test_fal_side_failure_is_resubmitted_then_fails_as_provider_error(
    fal: tuple[FalFake, str], tmp_path: Path
) -> None:
    fake, url = fal
    fake.fail_jobs_with = (
        503,
        {"detail": "Runner disconnected", "error_type": "runner_disconnected"},
    )
    async with running(_settings(tmp_path, url)) as app:
        done = await app.generate(model=MODEL, prompt="a fox", timeout=30)
        stored = await app.service.generation_store.get(done["id"])
    assert_failed(done, "provider_error")
    # The client reads our sentence; fal's own words are kept for operators.
    assert done["error"]["message"].startswith("the provider could not make this video")
    assert "Runner disconnected" not in done["error"]["message"]
    assert stored is not None and stored.error is not None
    assert "Runner disconnected" in stored.error.message
    assert fake.plan.count("POST", "/fal-ai/") == MAX_JOB_FAILURES


async def test_a_gateway_error_on_the_result_is_polled_again_not_a_failure(
    fal: tuple[FalFake, str], tmp_path: Path
) -> None:
    fake, url = fal
    fake.result_errors = [502, 503]
    done = await _run(_settings(tmp_path, url))
    assert done["status"] == "completed", done
    assert fake.result_errors == []
    assert fake.plan.count("POST", "/fal-ai/") == 1


# --- choosing between fal and the maker's own API -------------------------------------------


PINNED = """
[[extra_routes]]
for_model = "hailuo-02"
id = "minimax-pinned"
provider = "minimax"
model = "MiniMax-Hailuo-02"
price_per_second = 0.046667
priority = -1

  [extra_routes.options]
  resolution = "768P"
"""


async def test_cheaper_fal_route_is_chosen_unless_the_operator_pins_minimax(
    fal: tuple[FalFake, str], tmp_path: Path
) -> None:
    fake, url = fal
    minimax = MinimaxFake(api_key=KEY, polls_before_done=1)
    both = {"MINIMAX_API_KEY": KEY, "VIDROUTER_MINIMAX_BASE_URL": ""}
    async with serve_app(minimax.app()) as minimax_url:
        both["VIDROUTER_MINIMAX_BASE_URL"] = minimax_url
        settings = _settings(tmp_path / "a", url, environ=both)
        async with running(settings) as app:
            key = await app.new_key()
            data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
            [hailuo] = [m for m in data if m["id"] == "hailuo-02"]
            assert hailuo["pricing"]["per_second"] == 0.045  # fal's, cheaper than 0.046667
            created = await app.create(key, model="hailuo-02", prompt="a fox")
            done = await app.wait_for(key, created.json()["id"], timeout=30)
        assert (done["status"], done["route"]) == ("completed", "fal"), done
        assert minimax.created == []

        catalog = tmp_path / "operator.toml"
        catalog.write_text(PINNED)
        settings = _settings(tmp_path / "b", url, environ=both, catalog=catalog)
        async with running(settings) as app:
            key = await app.new_key()
            data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
            [hailuo] = [m for m in data if m["id"] == "hailuo-02"]
            assert hailuo["pricing"]["per_second"] == 0.046667
            created = await app.create(key, model="hailuo-02", prompt="a fox")
            done = await app.wait_for(key, created.json()["id"], timeout=30)
        assert (done["status"], done["route"]) == ("completed", "minimax"), done
        assert len(minimax.created) == 1
    assert len(fake.submitted) == 1  # only the first generation went to fal


async def test_provider_errors_are_typed(fal: tuple[FalFake, str]) -> None:
    """A dropped status poll is retryable; the adapter never hides it as a job failure."""
    fake, url = fal
    provider = FalProvider(AdapterConfig(url, {"FAL_KEY": KEY}.get))
    try:
        job = await provider.submit(ProviderRequest("g", T2V, "a fox", 5, "16:9"))
        fake.plan.add(kind="drop", times=1, path="/status", method="GET")
        with pytest.raises(ProviderUnavailable):
            await provider.poll(job)
    finally:
        await provider.aclose()
