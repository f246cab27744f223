"""MiniMax Hailuo: the fake against MiniMax's published examples, then our API end to end.

MiniMax publishes no Python SDK, so the first tests replay the request/response examples of
platform.minimax.io (see docs/providers/minimax.md) against the fake; the rest drive the
whole service through our HTTP API, with faults injected at the fake.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.minimax import MinimaxFake
from tests.support.harness import Harness
from tests.support.images import data_uri, image_host, png
from tests.support.minimax import WAIT, adapter, request, service
from tests.support.providers import assert_limits_refused
from tests.support.servers import serve_app_in_thread
from tests.support.video import decode
from vidrouter.engine.advance import MAX_JOB_FAILURES
from vidrouter.providers import base

CREATE, QUERY, RETRIEVE = "/v1/video_generation", "/v1/query/video_generation", "/v1/files/retrieve"
MODELS = {"hailuo-2.3", "hailuo-2.3-fast", "hailuo-02", "s2v-01"}


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


@pytest.mark.parametrize(
    ("code", "error"),
    [
        (1002, base.RateLimited),
        (1039, base.RateLimited),
        (1000, base.ProviderUnavailable),
        (1013, base.ProviderUnavailable),
        (1024, base.ProviderUnavailable),
        (1001, base.ProviderTimeout),
        (1004, base.AuthFailed),
        (2049, base.AuthFailed),
        (1008, base.AuthFailed),
        (2038, base.AuthFailed),
        (1026, base.ContentRejected),
        (2013, base.InvalidInput),
        (4242, base.JobFailed),
    ],
)
async def test_base_resp_codes_map_onto_our_errors(
    code: int, error: type[base.ProviderError]
) -> None:
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
        }
        assert job.request_id and job.data == {"duration": 10, "resolution": "768P"}
        assert (await provider.poll(job)).state is base.JobState.QUEUED
        done = await provider.poll(job)
        assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 10.0
        assert done.data is not None and done.data["file_id"]
        ref = await provider.fetch_result(base.ProviderJob(job.id, done.data))
        assert ref.url is not None and "Signature=" in ref.url and not ref.headers

        fake.fail_jobs_with = (0, "generation failed")
        failing = await provider.submit(request())
        await provider.poll(failing)
        failed = await provider.poll(failing)
        assert failed.state is base.JobState.FAILED and isinstance(failed.error, base.JobFailed)

        fake.fail_jobs_with = (1027, "output new_sensitive")
        moderated = await provider.submit(request())
        await provider.poll(moderated)
        status = await provider.poll(moderated)
        assert (
            isinstance(status.error, base.ContentRejected) and status.error.provider_code == "1027"
        )

        with pytest.raises(base.InvalidInput):  # 1080P renders 6 s only
            await provider.submit(request(duration=10.0, options={"resolution": "1080P"}))
        with pytest.raises(base.InvalidInput):
            await provider.submit(request(aspect_ratio="9:16"))
    assert len(fake.tasks) == 3


async def test_wrong_key_is_auth_failed_with_minimax_code() -> None:
    async with adapter(MinimaxFake(), key="wrong") as provider:
        with pytest.raises(base.AuthFailed) as raised:
            await provider.submit(request())
    assert raised.value.status_code == 401 and raised.value.provider_code == "1004"


# --- end to end through our API -----------------------------------------------------------


async def test_models_as_listed(tmp_path: Path) -> None:
    async with service(tmp_path, MinimaxFake()) as app:
        key = await app.new_key()
        listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        ours = {m["id"]: m for m in listed if m["provider"] == "MiniMax"}
        assert set(ours) == MODELS
        assert ours["hailuo-2.3"]["durations"] == [6, 10]
        assert ours["hailuo-2.3"]["aspect_ratios"] == ["16:9"]
        assert ours["hailuo-2.3-fast"]["capabilities"] == ["image-to-video"]
        subject = ours["s2v-01"]  # one character image, 6 s
        assert subject["capabilities"] == ["reference-to-video"]
        assert subject["limits"]["references"] == {"image": 1} and subject["durations"] == [6]


async def test_text_to_video_sends_the_documented_request(tmp_path: Path) -> None:
    fake = MinimaxFake()
    async with service(tmp_path, fake) as app:
        key = await app.new_key()
        created = await app.create(key, model="hailuo-2.3", prompt="a lighthouse at dusk")
        assert created.status_code == 202, created.text
        done = await app.wait_for(key, created.json()["id"], timeout=WAIT)
        assert done["status"] == "completed", done
        assert (done["duration"], done["aspect_ratio"], done["progress"]) == (6, "16:9", 100)
        assert done["cost"] == {"amount": round(6 * 0.046667, 6), "currency": "USD"}
        video = await app.client.get(done["video_url"])
        assert video.status_code == 200
        info = decode(video.content, tmp_path)
        assert (info.codec, info.width, info.height) == ("h264", 320, 180)
    assert fake.created == [
        {
            "model": "MiniMax-Hailuo-2.3",
            "prompt": "a lighthouse at dusk",
            "duration": 6,
            "resolution": "768P",
        }
    ]
    assert fake.downloads == 1


async def test_image_to_video_sends_the_first_frame_inline(tmp_path: Path) -> None:
    frame = png(640, 360)
    fake = MinimaxFake(polls_before_done=1)
    async with service(tmp_path, fake) as app, image_host(frame) as images:
        fetched = await generate(
            app,
            model="hailuo-2.3-fast",
            prompt="the fox turns its head",
            duration=10,
            image_url=f"{images}/frame.png",
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
        cases: list[tuple[dict[str, Any], str]] = [
            ({"duration": 8}, "duration_unsupported"),  # between its 6 and 10 s
            ({"duration": 5}, "duration_invalid"),  # under its shortest, 6 s
            ({"duration": 12}, "duration_too_long"),
            ({"aspect_ratio": "9:16"}, "aspect_ratio_unsupported"),
            ({"aspect_ratio": "1:1"}, "aspect_ratio_unsupported"),
        ]
        await assert_limits_refused(app, key, "hailuo-2.3", cases)
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


async def test_faults_on_the_file_and_download_steps_are_retried(tmp_path: Path) -> None:
    """MiniMax's result takes two more calls (file retrieve, then the download URL); faults on
    the create and query calls are the contract suite's."""
    fake = MinimaxFake(polls_before_done=1)
    fake.plan.add(kind="drop", path=RETRIEVE, times=2)
    fake.plan.add(kind="drop", path="/download/")
    async with service(tmp_path, fake) as app:
        done = await generate(app, model="hailuo-2.3", prompt="p")
    assert done["status"] == "completed", done
    assert fake.plan.faults == []
    assert fake.plan.count("POST", CREATE) == 1 and len(fake.tasks) == 1


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
        stored = await app.service.generation_store.get(failed_task["id"])
    # The client's own mistakes show MiniMax's reason after our sentence.
    expected = [
        (moderated_input, "content_policy", "1026"),
        (moderated_output, "content_policy", "1027"),
        (bad_image, "invalid_input", "2013"),
    ]
    for done, code, detail in expected:
        assert done["status"] == "failed", done
        assert done["error"]["code"] == code, done
        assert detail in done["error"]["message"], done
    # MiniMax's own failure is our sentence; its words are kept for operators.
    assert failed_task["status"] == "failed", failed_task
    assert failed_task["error"]["code"] == "provider_error", failed_task
    message = failed_task["error"]["message"]
    assert message.startswith("the provider could not make this video"), failed_task
    assert "generation failed" not in message
    assert stored is not None and stored.error is not None
    assert "generation failed" in stored.error.message
    # The refused prompt and the refused image made no task; the moderated output made one;
    # the job MiniMax failed on its side was submitted again, up to MAX_JOB_FAILURES times.
    assert len(fake.tasks) == 1 + MAX_JOB_FAILURES
    assert [a["outcome"] for a in failed_task["attempts"]].count("failed") == MAX_JOB_FAILURES
