"""A generation from request to playable MP4 and signed webhook, on each database."""

from __future__ import annotations

import json
import re
from pathlib import Path

from standardwebhooks.webhooks import Webhook

from tests.support.harness import Harness
from tests.support.receiver import WebhookReceiver
from tests.support.servers import serve_app
from tests.support.video import decode, moov_before_mdat

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


async def test_seed_request_completes_with_video_and_signed_webhook(
    app_any_db: Harness, tmp_path: Path
) -> None:
    app = app_any_db
    key = await app.new_key()
    receiver = WebhookReceiver()
    async with serve_app(receiver) as hook_url:
        created = await app.create(
            key, model="local-preview", prompt="a red fox in the snow", webhook_url=hook_url
        )
        assert created.status_code == 202, created.text
        body = created.json()
        assert re.match(r"^gen_[A-Za-z0-9]{20,}$", body["id"])
        assert created.headers["location"] == f"/v1/generations/{body['id']}"
        assert body["status"] == "queued"
        assert body["object"] == "generation"
        assert body["duration"] == 5 and body["aspect_ratio"] == "16:9"
        assert ISO_Z.match(body["created_at"])
        assert body["video_url"] is None and body["completed_at"] is None

        done = await app.wait_for(key, body["id"])
        assert done["status"] == "completed", done
        assert done["progress"] == 100
        assert ISO_Z.match(done["completed_at"]) and ISO_Z.match(done["started_at"])
        assert done["cost"] == {"amount": 0.0, "currency": "USD"}
        assert done["video_url"].split("?")[0].endswith(f"/content/videos/{body['id']}.mp4")

        [hook] = await receiver.wait_for(1)

    # The webhook: the Generation object, verified exactly as a receiver would.
    secret = key.key.webhook_secret
    payload = Webhook(secret).verify(hook.body, hook.headers)
    assert payload["id"] == body["id"]
    assert payload["status"] == "completed"
    assert payload["video_url"].startswith("http")
    assert payload["created_at"] == body["created_at"]
    assert ISO_Z.match(payload["completed_at"])
    assert hook.headers["content-type"] == "application/json"
    assert hook.headers["webhook-id"].startswith("msg_")

    # No Authorization header: the signed URL is the capability.
    video = await app.client.get(done["video_url"])
    assert video.status_code == 200
    assert video.headers["content-type"] == "video/mp4"
    info = decode(video.content, tmp_path)
    assert (info.codec, info.width, info.height, info.pix_fmt) == ("h264", 1280, 720, "yuv420p")
    assert abs(info.duration - 5.0) <= 0.1
    assert info.frames == 120
    assert moov_before_mdat(video.content)


async def test_each_aspect_ratio_and_duration_is_rendered_as_asked(
    app: Harness, tmp_path: Path
) -> None:
    key = await app.new_key()
    cases = {"9:16": (720, 1280, 2.5), "1:1": (720, 720, 1.25), "16:9": (1280, 720, 0.5)}
    ids = {}
    for ratio, (_, _, seconds) in cases.items():
        r = await app.create(
            key,
            model="local-preview",
            prompt=f"ratio {ratio}",
            aspect_ratio=ratio,
            duration=seconds,
        )
        assert r.status_code == 202, r.text
        ids[ratio] = r.json()["id"]
    for ratio, (width, height, seconds) in cases.items():
        done = await app.wait_for(key, ids[ratio])
        assert done["status"] == "completed", done
        assert done["duration"] == seconds
        video = await app.client.get(done["video_url"])
        info = decode(video.content, tmp_path)
        assert (info.width, info.height) == (width, height)
        assert abs(info.duration - seconds) <= 0.1


async def test_metadata_is_echoed_everywhere(app: Harness) -> None:
    key = await app.new_key()
    r = await app.create(
        key,
        model="local-preview",
        prompt="m",
        duration=0.5,
        metadata={"order": "42", "customer": "ü"},
    )
    assert r.json()["metadata"] == {"order": "42", "customer": "ü"}
    done = await app.wait_for(key, r.json()["id"])
    assert done["metadata"] == {"order": "42", "customer": "ü"}


async def test_webhook_body_is_the_generation_object(app: Harness) -> None:
    key = await app.new_key()
    receiver = WebhookReceiver()
    async with serve_app(receiver) as hook_url:
        done = await app.wait_for(key, await app.create_preview(key, webhook_url=hook_url))
        [hook] = await receiver.wait_for(1)
    sent = json.loads(hook.body)
    assert set(sent) == set(done)
    for field in ("id", "status", "created_at", "completed_at", "model", "prompt", "cost"):
        assert sent[field] == done[field]
