"""Veo's typed inputs on the Gemini API: google-genai's own transport and types drive the
fake's reference-image and extension wire, and our API refuses what Veo cannot make before
Google is called."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from google import genai
from google.genai import types

from tests.fakes.base import sample_mp4
from tests.fakes.veo import VeoFake
from tests.support.harness import assert_error, running
from tests.support.images import data_uri, png
from tests.support.providers import fake_fixture
from tests.support.veo import PREDICT, settings_for
from tests.support.video import decode

fake = fake_fixture(VeoFake)
MODEL = "models/veo-3.1-generate-preview"


async def _finished(client: genai.Client, name: str) -> types.GenerateVideosOperation:
    operation = types.GenerateVideosOperation.model_validate({"name": name})
    for _ in range(10):
        operation = await client.aio.operations.get(operation)
        if operation.done:
            return operation
    raise AssertionError(f"{name} never finished")


async def _create(client: genai.Client, body: dict[str, Any]) -> Any:
    return await client.aio._api_client.async_request(
        "post", "models/veo-3.1-generate-preview:predictLongRunning", body
    )


async def test_google_genai_drives_references_and_an_extension_of_its_own_video(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    veo, url = fake
    options = types.HttpOptions(base_url=url, api_version="v1beta")
    client = genai.Client(api_key="test-key", http_options=options)
    image = types.Image(image_bytes=png(), mime_type="image/png")
    asset = types.VideoGenerationReferenceImage(
        image=image, reference_type=types.VideoGenerationReferenceType.ASSET
    )
    encoded = {"bytesBase64Encoded": base64.b64encode(png()).decode(), "mimeType": "image/png"}
    reference = {"image": encoded, "referenceType": asset.reference_type.value}  # type: ignore[union-attr]
    body = {
        "instances": [{"prompt": "the fox from the photo", "referenceImages": [reference]}],
        "parameters": {"aspectRatio": "16:9", "durationSeconds": 8},
    }
    made = await _finished(client, json.loads((await _create(client, body)).body)["name"])
    assert made.result is not None and made.result.generated_videos
    video = made.result.generated_videos[0].video
    assert video is not None and video.uri is not None

    # The extension takes the SDK's Video of that result as it is: {"uri"}.
    extend = {
        "instances": [{"prompt": "it keeps running", "video": {"uri": video.uri}}],
        "parameters": {"resolution": "720p"},
    }
    extended = await _finished(client, json.loads((await _create(client, extend)).body)["name"])
    assert extended.result is not None and extended.result.generated_videos
    whole = extended.result.generated_videos[0].video
    assert whole is not None and whole.uri is not None and whole.uri != video.uri
    file_id = whole.uri.rsplit("/files/", 1)[1].split(":", 1)[0]
    downloaded = await client.aio.files.download(file=f"files/{file_id}")
    assert decode(downloaded, tmp_path).duration > 7  # the source and its 7 s, as one video
    assert veo.submitted == [body, extend]

    # What the Gemini API refuses: a STYLE reference, a video it did not make, 1080p.
    refused: list[dict[str, Any]] = [
        {
            **body,
            "instances": [
                {"prompt": "p", "referenceImages": [{**reference, "referenceType": "STYLE"}]}
            ],
        },
        {"instances": [{"prompt": "p", "video": {"uri": f"{url}/v1beta/files/nope:download"}}]},
        {**extend, "parameters": {"resolution": "1080p"}},
        {**body, "parameters": {"durationSeconds": 4}},
    ]
    for wrong in refused:
        try:
            await _create(client, wrong)
        except genai.errors.ClientError as caught:
            assert caught.code == 400 and caught.status == "INVALID_ARGUMENT"
        else:
            raise AssertionError(f"accepted {wrong}")
    assert len(veo.submitted) == 2


async def test_what_veo_cannot_extend_is_refused_at_create(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    veo, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        key = await app.new_key()
        made = await app.generate(key, model="veo-3.1", prompt="a fox", timeout=30)
        assert made["status"] == "completed"
        source = {"generation_id": made["id"]}
        base = {"model": "veo-3.1", "prompt": "on", "type": "video-extend", "video": source}
        # An extension adds 7 s: 8 is refused, and 7 is what is asked without a duration.
        assert_error(await app.create(key, **base, duration=8), 400, "duration_unsupported")
        # Veo extends only its own videos: one given by URL goes nowhere.
        mp4 = "data:video/mp4;base64," + base64.b64encode(sample_mp4()).decode()
        elsewhere = {**base, "video": {"url": mp4}}
        assert assert_error(await app.create(key, **elsewhere), 400)["param"] in ("type", "video")
        # 1080p makes 8 s clips only: no 7 s extension there.
        assert_error(await app.create(key, **base, resolution="1080p"), 400)
        # Four reference images are one too many.
        images = [{"type": "image", "url": data_uri(png())}] * 4
        asked = {"model": "veo-3.1", "prompt": "p", "references": images}
        assert_error(await app.create(key, **asked), 400)
        assert [m for m, p in veo.plan.requests if m == "POST"] == ["POST"]  # the source only
        # Within the limits it goes: 7 s added, billed as 7 s, the whole video stored.
        done = await app.generate(key, **base, timeout=30)
        assert done["status"] == "completed" and done["duration"] == 7
        assert done["cost"]["amount"] == round(7 * 0.40, 6), done  # 7 s at 720p
        assert veo.plan.count("POST", PREDICT) == 2
