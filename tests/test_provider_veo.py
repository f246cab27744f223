"""Google Veo on the Gemini API: google-genai drives our fake, and generations through our API
end as documented for each Veo behaviour and fault."""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from tests.fakes.base import sample_mp4
from tests.fakes.veo import RAI_REASON, VeoFake
from tests.support.harness import Harness, assert_error, running
from tests.support.images import data_uri, png
from tests.support.providers import fake_fixture
from tests.support.veo import PREDICT, settings_for
from tests.support.video import decode
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import (
    AuthFailed,
    ProviderJob,
    ProviderRequest,
    ProviderUnavailable,
    RateLimited,
)
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.veo import VeoProvider

OPERATIONS = "/operations/"


fake = fake_fixture(VeoFake)


async def generate(app: Harness, **body: Any) -> dict[str, Any]:
    done = await app.generate(**{"model": "veo-3.1", "prompt": "a red fox", **body}, timeout=30)
    return done


# --- the official SDK against the fake -------------------------------------------------------


async def test_google_genai_drives_the_fake(fake: tuple[VeoFake, str], tmp_path: Path) -> None:
    veo, url = fake
    options = types.HttpOptions(base_url=url, api_version="v1beta")
    client = genai.Client(api_key="test-key", http_options=options)

    # google-genai 3.x sends generate_videos to Vertex AI only: it refuses before any request.
    with pytest.raises(ValueError, match="Gemini Enterprise Agent Platform"):
        await client.aio.models.generate_videos(
            model="veo-3.1-generate-preview",
            source=types.GenerateVideosSource(prompt="a red fox"),
        )
    assert veo.plan.requests == []

    # So the create goes through the SDK's own transport (base URL, version, key header), with
    # the body google-genai 2.25's `_GenerateVideosParameters_to_mldev` builds for
    # source=GenerateVideosSource(prompt=..., image=Image(image_bytes, mime_type)) and
    # config=GenerateVideosConfig(aspect_ratio, duration_seconds, resolution, negative_prompt,
    # last_frame): every control the Gemini API takes.
    frame = {"bytesBase64Encoded": base64.b64encode(png()).decode(), "mimeType": "image/png"}
    body: dict[str, object] = {
        "instances": [{"prompt": "a red fox in the snow", "image": frame, "lastFrame": frame}],
        "parameters": {
            "aspectRatio": "9:16",
            "durationSeconds": 8,
            "resolution": "1080p",
            "negativePrompt": "blur",
        },
    }
    sent = await client.aio._api_client.async_request(
        "post", "models/veo-3.1-generate-preview:predictLongRunning", body
    )
    assert sent.body is not None
    operation = types.GenerateVideosOperation.from_api_response(
        json.loads(sent.body), is_vertex_ai=False
    )
    assert re.fullmatch(r"models/veo-3\.1-generate-preview/operations/\w+", operation.name or "")
    assert not operation.done

    # The SDK's public operations and files calls, unchanged.
    for _ in range(10):
        operation = await client.aio.operations.get(operation)
        if operation.done:
            break
    assert operation.done and operation.error is None
    assert operation.result is not None and operation.result.generated_videos
    video = operation.result.generated_videos[0].video
    assert video is not None and video.uri is not None
    assert video.uri.endswith(":download?alt=media")
    # The SDK parses only https:// uris into a file name, so name the file for it.
    file_name = re.search(r"/files/(\w+):download", video.uri)
    assert file_name is not None
    downloaded = await client.aio.files.download(file=f"files/{file_name.group(1)}")
    assert downloaded == sample_mp4()
    async with httpx.AsyncClient() as plain:
        direct = await plain.get(video.uri, headers={"x-goog-api-key": "test-key"})
        refused = await plain.get(video.uri)
    assert direct.content == sample_mp4() and refused.status_code == 403
    assert decode(downloaded, tmp_path).codec == "h264"
    assert veo.accepted == [body]


async def test_google_genai_reads_the_fakes_errors_and_filtered_results(
    fake: tuple[VeoFake, str],
) -> None:
    veo, url = fake
    veo.moderate_prompts_containing = "forbidden"
    options = types.HttpOptions(base_url=url, api_version="v1beta")
    client = genai.Client(api_key="test-key", http_options=options)
    body: dict[str, object] = {
        "instances": [{"prompt": "something forbidden"}],
        "parameters": {"aspectRatio": "16:9"},
    }
    sent = await client.aio._api_client.async_request(
        "post", "models/veo-3.1-fast-generate-preview:predictLongRunning", body
    )
    assert sent.body is not None
    operation = types.GenerateVideosOperation.from_api_response(json.loads(sent.body))
    while not operation.done:
        operation = await client.aio.operations.get(operation)
    assert operation.result is not None
    assert operation.result.rai_media_filtered_count == 1
    assert operation.result.rai_media_filtered_reasons == [RAI_REASON]
    assert not operation.result.generated_videos

    wrong = genai.Client(api_key="wrong-key", http_options=options)
    with pytest.raises(genai_errors.ClientError) as caught:
        await wrong.aio.operations.get(operation)
    assert (caught.value.code, caught.value.status) == (400, "INVALID_ARGUMENT")
    assert caught.value.message == "API key not valid. Please pass a valid API key."
    with pytest.raises(genai_errors.ClientError) as caught:
        await client.aio._api_client.async_request(
            "post",
            "models/veo-3.1-generate-preview:predictLongRunning",
            {"instances": [{"prompt": "p"}], "parameters": {"durationSeconds": 5}},
        )
    assert caught.value.status == "INVALID_ARGUMENT" and "4, 6, 8" in str(caught.value.message)
    # What the Gemini API refuses of Vertex AI's controls, and 1080p under 8 s.
    refused = [
        ({"seed": 7}, "`seed` isn't supported by this model."),
        ({"generateAudio": False}, "`generateAudio` isn't supported by this model."),
        ({"resolution": "1080p", "durationSeconds": 6}, "only supported with a duration of 8"),
    ]
    for parameters, message in refused:
        with pytest.raises(genai_errors.ClientError) as caught:
            await client.aio._api_client.async_request(
                "post",
                "models/veo-3.1-generate-preview:predictLongRunning",
                {"instances": [{"prompt": "p"}], "parameters": parameters},
            )
        assert caught.value.code == 400 and message in str(caught.value.message)
    assert veo.submitted == [body]


# --- the adapter alone -----------------------------------------------------------------------


VEO_REQUEST = ProviderRequest(
    "gen_1", "veo-3.1-generate-preview", "p", 8, "16:9", controls=Controls(resolution="720p")
)


def request(**kw: Any) -> ProviderRequest:
    return dataclasses.replace(VEO_REQUEST, **kw)


async def test_adapter_maps_google_error_bodies(fake: tuple[VeoFake, str]) -> None:
    veo, url = fake
    provider = VeoProvider(AdapterConfig(url, {"GEMINI_API_KEY": "wrong-key"}.get))
    try:
        with pytest.raises(AuthFailed) as auth:
            await provider.submit(request())
        assert auth.value.provider_code == "API_KEY_INVALID"
    finally:
        await provider.aclose()
    provider = VeoProvider(AdapterConfig(url, {"GEMINI_API_KEY": "test-key"}.get))
    try:
        # A model Google shut down: the route's fault, retryable so the router fails over.
        with pytest.raises(ProviderUnavailable) as gone:
            await provider.submit(request(model="veo-3.0-generate-001"))
        assert gone.value.provider_code == "NOT_FOUND"
        assert "no longer available" in gone.value.message
        # Quota errors carry their wait in a google.rpc.RetryInfo detail, not in a header.
        retry_info = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "38s"}
        veo.plan.add(
            status=429,
            path=PREDICT,
            body={
                "error": {
                    "code": 429,
                    "message": "Resource has been exhausted (e.g. check quota).",
                    "status": "RESOURCE_EXHAUSTED",
                    "details": [retry_info],
                }
            },
        )
        with pytest.raises(RateLimited) as limited:
            await provider.submit(request())
        assert limited.value.retry_after == 38.0
        assert limited.value.provider_code == "RESOURCE_EXHAUSTED"
        # Result URLs get the key only when they point at Google or at our configured host.
        elsewhere = ProviderJob("models/m/operations/x", {"video_uri": "https://cdn.example/v"})
        assert (await provider.fetch_result(elsewhere)).headers == {}
        google = ProviderJob(
            "models/m/operations/x",
            {"video_uri": "https://generativelanguage.googleapis.com/v1beta/files/a:download"},
        )
        assert (await provider.fetch_result(google)).headers == {"x-goog-api-key": "test-key"}
    finally:
        await provider.aclose()


# --- through our API -------------------------------------------------------------------------


async def test_models_prices_and_the_retired_veo_3(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    _, url = fake
    async with running(settings_for(tmp_path / "with", url), workers=False) as app:
        key = await app.new_key()
        listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        veo = {m["id"]: m for m in listed if m["id"].startswith("veo")}
        assert set(veo) == {"veo-3.1", "veo-3.1-fast"}  # Veo 3 and 3 Fast are retired
        assert veo["veo-3.1"]["pricing"]["per_second"] == 0.4  # the default configuration
        assert veo["veo-3.1"]["pricing"]["currency"] == "USD"
        assert veo["veo-3.1-fast"]["pricing"]["per_second"] == 0.1  # the default configuration
        assert veo["veo-3.1-fast"]["pricing"]["currency"] == "USD"
        for model in veo.values():
            assert model["provider"] == "Google"
            assert model["durations"] == [4, 6, 8] and model["default_duration"] == 8
            assert model["aspect_ratios"] == ["16:9", "9:16"]
        both = ["text-to-video", "image-to-video"]
        assert veo["veo-3.1"]["capabilities"] == [*both, "reference-to-video", "video-extend"]
        assert veo["veo-3.1-fast"]["capabilities"] == [*both, "video-extend"]
        assert veo["veo-3.1"]["limits"]["references"] == {"image": 3}
        assert veo["veo-3.1-fast"]["limits"]["references"] == {}
        assert veo["veo-3.1"]["limits"]["extend_durations"] == [7]  # what an extension adds
        assert veo["veo-3.1-fast"]["limits"]["extends_own_output"] is True  # Veo's own only
        retired = await app.create(key, model="veo-3", prompt="p")
        assert retired.status_code == 400
        assert retired.json()["error"]["code"] == "model_retired"
        assert "veo-3.1" in retired.json()["error"]["message"]


async def test_text_to_video_sends_google_body_and_bills_the_decoded_length(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    veo, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        done = await generate(app, prompt="a red fox in the snow")
        assert done["status"] == "completed", done
        assert done["duration"] == 8 and done["aspect_ratio"] == "16:9"
        video = await app.client.get(done["video_url"])
    info = decode(video.content, tmp_path)
    assert (info.codec, info.width, info.height) == ("h264", 320, 180)
    assert done["cost"]["amount"] == pytest.approx(round(info.duration * 0.4, 6))
    assert veo.accepted == [
        {
            "instances": [{"prompt": "a red fox in the snow"}],
            "parameters": {"aspectRatio": "16:9", "durationSeconds": 8, "resolution": "720p"},
        }
    ]
    assert veo.downloads == 1


async def test_image_to_video_sends_the_image_inline(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    veo, url = fake
    image = png()
    async with running(settings_for(tmp_path, url)) as app:
        done = await generate(
            app,
            model="veo-3.1-fast",
            aspect_ratio="9:16",
            duration=4,
            image_url=data_uri(image),
        )
    assert done["status"] == "completed", done
    [body] = veo.accepted
    assert body["instances"][0]["image"] == {
        "bytesBase64Encoded": base64.b64encode(image).decode(),
        "mimeType": "image/png",
    }
    assert body["parameters"] == {"aspectRatio": "9:16", "durationSeconds": 4, "resolution": "720p"}
    assert veo.plan.count("POST", "/models/veo-3.1-fast-generate-preview:predictLongRunning") == 1


async def test_veo_limits_are_checked_before_any_request(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    veo, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        key = await app.new_key()
        cases: dict[str, dict[str, Any]] = {
            "duration_unsupported": {"duration": 5},
            "duration_too_long": {"duration": 10},
            "aspect_ratio_unsupported": {"aspect_ratio": "1:1"},
        }
        for code, extra in cases.items():
            r = await app.create(key, model="veo-3.1", prompt="p", **extra)
            assert_error(r, 400, code)
    assert veo.plan.requests == []


@pytest.mark.parametrize(
    ("knob", "code"),
    [
        ("moderated", "content_policy"),
        ("bad_image", "invalid_input"),
        ("operation_error", "provider_error"),
    ],
)
async def test_failures_at_google_end_with_their_error_code(
    fake: tuple[VeoFake, str], tmp_path: Path, knob: str, code: str
) -> None:
    veo, url = fake
    veo.moderate_prompts_containing = "forbidden"
    veo.fail_jobs_with = (
        {"code": 13, "message": "Internal error encountered."}
        if knob == "operation_error"
        else None
    )
    body: dict[str, Any] = {"prompt": "a forbidden scene" if knob == "moderated" else "p"}
    if knob == "bad_image":  # a PNG signature, then garbage: ours passes it, Google does not
        body["image_url"] = data_uri(png()[:40] + b"\x00" * 24)
    async with running(settings_for(tmp_path, url)) as app:
        done = await generate(app, **body)
    assert done["status"] == "failed", done
    assert done["error"]["code"] == code
    if knob == "moderated":
        assert "safety filters" in done["error"]["message"]
    posts = veo.plan.count("POST", PREDICT)
    if knob == "operation_error":  # Google's own failure: the engine may submit again
        assert posts >= 1 and all(op.done and "error" in op.done for op in veo.operations.values())
    else:
        assert posts == 1  # the user's errors are never retried


async def test_a_401_fails_without_retrying(fake: tuple[VeoFake, str], tmp_path: Path) -> None:
    """A wrong key is Google's 400 API_KEY_INVALID (the contract suite); an expired credential
    is a 401 UNAUTHENTICATED, refused the same way."""
    veo, url = fake
    unauthenticated = {
        "error": {
            "code": 401,
            "message": "Request had invalid authentication credentials.",
            "status": "UNAUTHENTICATED",
        }
    }
    veo.plan.add(status=401, body=unauthenticated, path=PREDICT, times=1)
    async with running(settings_for(tmp_path / "401", url)) as app:
        done = await generate(app)
    assert done["status"] == "failed", done
    assert done["error"]["code"] == "provider_unavailable"
    assert veo.plan.count("POST", PREDICT) == 1 and veo.accepted == []


async def test_redirected_downloads_are_followed(fake: tuple[VeoFake, str], tmp_path: Path) -> None:
    veo, url = fake
    veo.redirect_downloads = True
    async with running(settings_for(tmp_path, url)) as app:
        done = await generate(app)
        video = await app.client.get(done["video_url"])
    assert done["status"] == "completed", done
    assert decode(video.content, tmp_path).codec == "h264"
    assert veo.plan.count("GET", "/storage/") == 1


async def test_shut_down_model_fails_as_unavailable(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    """A host that no longer serves the route's model: the host's fault (retried, other hosts
    tried), never the user's. The adapter's message is checked in the adapter test above."""
    veo, url = fake
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        "[[models]]\nid = 'veo-old'\nname = 'Veo old'\nprovider = 'Google'\n"
        "max_duration = 8\ndurations = [8]\naspect_ratios = ['16:9']\n"
        "[[models.routes]]\nprovider = 'veo'\nmodel = 'veo-3.0-generate-001'\n"
        "price_per_second = 0.4\n"
    )
    async with running(settings_for(tmp_path, url, scale=0.001, catalog=catalog)) as app:
        done = await generate(app, model="veo-old")
    assert done["status"] == "failed", done
    assert done["error"]["code"] == "provider_unavailable"
    assert veo.plan.count("POST", PREDICT) >= 1 and veo.accepted == []
