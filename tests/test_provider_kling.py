"""Kling: the JWT, the fake against Kling's published examples, the adapter's error mapping,
and generations end to end through our API with each fault class.

Kling publishes no Python SDK, so the fake is checked against the request/response examples of
Kling's API reference (see docs/providers/kling.md) by `test_published_*`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import struct
import time
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from tests.fakes.kling import KlingFake, image_size
from tests.support import harness
from tests.support.images import data_uri, png
from tests.support.kling import frame_url, service
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.providers.kling import TokenSource, encode_jwt

KLING_MODELS = {"kling-v3", "kling-v2.6", "kling-v2.5-turbo", "kling-v2.1-master"}


def b64url_json(part: str) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    return decoded


# --- the JWT ----------------------------------------------------------------------------------


def test_jwt_is_hs256_with_kling_claims() -> None:
    token, expires = encode_jwt("ak-1", "sk-1", now=1_700_000_000.7)
    head, payload, signature = token.split(".")
    assert b64url_json(head) == {"alg": "HS256", "typ": "JWT"}
    assert b64url_json(payload) == {"iss": "ak-1", "exp": 1_700_001_800, "nbf": 1_699_999_995}
    assert expires == 1_700_001_800
    expected = hmac.new(b"sk-1", f"{head}.{payload}".encode(), hashlib.sha256).digest()
    assert base64.urlsafe_b64encode(expected).rstrip(b"=").decode() == signature
    assert KlingFake("ak-1", "sk-1", clock=lambda: 1_700_000_100)._check_token(token) == 0


def test_jwt_decodes_with_pyjwt() -> None:
    now = time.time()
    token, _ = encode_jwt("ak-1", "sk-1", now=now)
    claims = jwt.decode(token, "sk-1", algorithms=["HS256"])
    assert claims["iss"] == "ak-1" and claims["exp"] == int(now) + 1800


def test_token_is_reused_until_shortly_before_expiry() -> None:
    now = [1_000_000.0]
    tokens = TokenSource("ak", "sk", clock=lambda: now[0])
    first = tokens.token()
    now[0] += 1400  # 25 min 0 s after signing: still more than 5 min left
    assert tokens.token() == first
    now[0] += 101  # under 5 min left: sign again
    second = tokens.token()
    assert second != first
    tokens.forget()
    assert tokens.token() == second  # same second, same claims: same token, newly signed
    now[0] += 1
    tokens.forget()
    assert tokens.token() != second


def test_fake_checks_the_token_window_and_signature() -> None:
    fake = KlingFake("ak", "sk", clock=lambda: 2_000_000.0)
    assert fake._check_token(encode_jwt("ak", "sk", now=2_000_000)[0]) == 0
    assert fake._check_token(encode_jwt("ak", "other", now=2_000_000)[0]) == 1002
    assert fake._check_token(encode_jwt("someone", "sk", now=2_000_000)[0]) == 1002
    assert fake._check_token(encode_jwt("ak", "sk", now=2_000_100)[0]) == 1003  # nbf ahead
    assert fake._check_token(encode_jwt("ak", "sk", now=1_998_000)[0]) == 1004  # expired
    assert fake._check_token("not.a.jwt") == 1002


# --- the fake against Kling's published examples ----------------------------------------------


async def test_published_text2video_example_round_trip(tmp_path: Path) -> None:
    """The curl example of 'Text to Video - Create Task', then 'Query Task (Single)'."""
    fake = KlingFake()
    async with serve_app(fake.app) as url, httpx.AsyncClient(base_url=url) as client:
        auth = {
            "Authorization": f"Bearer {encode_jwt(fake.access_key, fake.secret_key, time.time())[0]}"
        }
        created = await client.post(
            "/v1/videos/text2video",
            headers=auth,
            json={
                "model_name": "kling-v2-6",
                "prompt": "A cute little rabbit wearing glasses, sitting at a table, reading a "
                "newspaper, with a cup of cappuccino on the table",
                "negative_prompt": "",
                "duration": "5",
                "mode": "pro",
                "sound": "on",
                "aspect_ratio": "1:1",
                "callback_url": "",
                "external_task_id": "",
            },
        )
        assert created.status_code == 200
        body = created.json()
        assert set(body) == {"code", "message", "request_id", "data"} and body["code"] == 0
        data = body["data"]
        assert set(data) == {"task_id", "task_info", "task_status", "created_at", "updated_at"}
        assert data["task_status"] == "submitted" and isinstance(data["created_at"], int)

        statuses = []
        for _ in range(5):
            query = await client.get(f"/v1/videos/text2video/{data['task_id']}", headers=auth)
            assert query.status_code == 200
            task = query.json()["data"]
            statuses.append(task["task_status"])
            if task["task_status"] == "succeed":
                break
        assert statuses == ["submitted", "processing", "succeed"]
        assert {"task_status_msg", "task_info", "watermark_info", "final_unit_deduction"} <= set(
            task
        )
        [video] = task["task_result"]["videos"]
        assert set(video) == {"id", "url", "watermark_url", "duration"}
        assert float(video["duration"]) == pytest.approx(5.042)
        download = await client.get(video["url"])  # the CDN URL needs no token
        assert download.headers["content-type"] == "video/mp4"
        assert decode(download.content, tmp_path).codec == "h264"


async def test_published_image2video_example_and_auth_envelopes() -> None:
    fake = KlingFake()
    async with (
        frame_url(png(640, 360)) as image_url,
        serve_app(fake.app) as url,
        httpx.AsyncClient(base_url=url) as client,
    ):
        token = encode_jwt(fake.access_key, fake.secret_key, time.time())[0]
        example = {
            "model_name": "kling-v2-6",
            "image": image_url,
            "image_tail": image_url,
            "prompt": "Camera zooms out, the girl smiles",
            "negative_prompt": "",
            "duration": "5",
            "mode": "pro",
            "sound": "off",
            "callback_url": "",
            "external_task_id": "",
        }
        ok = await client.post(
            "/v1/videos/image2video", headers={"Authorization": f"Bearer {token}"}, json=example
        )
        assert ok.status_code == 200 and ok.json()["data"]["task_status"] == "submitted"

        prefixed = {**example, "image": data_uri(png(640, 360))}
        refused = await client.post(
            "/v1/videos/image2video", headers={"Authorization": f"Bearer {token}"}, json=prefixed
        )
        assert refused.status_code == 400 and refused.json()["code"] == 1201

        for headers, code in [
            ({}, 1001),
            ({"Authorization": "Bearer nonsense"}, 1002),
            ({"Authorization": f"Bearer {encode_jwt('ak', 'sk', time.time())[0]}"}, 1002),
            (
                {"Authorization": f"Bearer {encode_jwt(fake.access_key, fake.secret_key, 1)[0]}"},
                1004,
            ),
        ]:
            answer = await client.post("/v1/videos/image2video", headers=headers, json=example)
            assert answer.status_code == 401
            assert answer.json()["code"] == code
            assert set(answer.json()) == {"code", "message", "request_id"}


def test_fake_reads_png_and_jpeg_sizes() -> None:
    assert image_size(png(320, 480)) == (320, 480)
    jpeg = (
        b"\xff\xd8"
        + b"\xff\xe0\x00\x04\x00\x00"
        + b"\xff\xc0\x00\x11\x08"
        + struct.pack(">HH", 200, 400)
    )
    assert image_size(jpeg + b"\x00" * 16) == (400, 200)
    assert image_size(b"GIF89a....") is None


# --- end to end through our API ---------------------------------------------------------------


async def generate(app: harness.Harness, **body: Any) -> dict[str, Any]:
    done = await app.generate(
        **{"model": "kling-v2.5-turbo", "prompt": "a fox", **body}, timeout=30.0
    )
    return done


async def test_models_as_listed_and_not_with_one_of_the_two_keys(tmp_path: Path) -> None:
    fake = KlingFake()
    async with service(tmp_path / "a", fake) as (app, _):
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        kling = {m["id"]: m for m in data if m["id"] in KLING_MODELS}
        assert set(kling) == KLING_MODELS
        assert {m["provider"] for m in kling.values()} == {"Kuaishou"}
        assert kling["kling-v2.5-turbo"]["durations"] == [5, 10]
        assert kling["kling-v3"]["max_duration"] == 15
        master = kling["kling-v2.1-master"]
        assert (master["pricing"]["per_second"], master["pricing"]["currency"]) == (0.28, "USD")
        v3 = kling["kling-v3"]
        assert (v3["resolutions"], v3["audio"]) == (["1080p", "720p"], False)
        assert v3["supports"] == ["negative_prompt", "generate_audio", "end_image_url"]
        assert {
            (v["resolution"], v["audio"]): v["per_second"] for v in v3["pricing"]["variants"]
        } == {
            ("1080p", False): 0.224,
            ("1080p", True): 0.336,
            ("720p", False): 0.168,
            ("720p", True): 0.252,
        }
    settings = harness.test_settings(tmp_path / "b", environ={"KLING_ACCESS_KEY": "only-one"})
    async with harness.running(settings, workers=False) as app:
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        assert not KLING_MODELS & {m["id"] for m in data}


async def test_generation_sends_the_documented_request(tmp_path: Path) -> None:
    fake = KlingFake()
    async with service(tmp_path, fake) as (app, _):
        done = await generate(app, duration=10, aspect_ratio="9:16")
        assert done["status"] == "completed", done
        assert done["cost"] == {"amount": 0.7, "currency": "USD"}  # 10 s x $0.07
        video = await app.client.get(done["video_url"])
        assert decode(video.content, tmp_path).codec == "h264"
    [sent] = fake.received
    assert sent["model_name"] == "kling-v2-5-turbo" and sent["external_task_id"] == done["id"]
    assert (sent["duration"], sent["aspect_ratio"], sent["mode"]) == ("10", "9:16", "pro")


async def test_image_to_video_by_url_and_by_data_uri(tmp_path: Path) -> None:
    fake = KlingFake()
    frame = png(640, 360)
    async with service(tmp_path, fake) as (app, _), frame_url(frame) as image_url:
        by_url = await generate(app, model="kling-v2.1-master", image_url=image_url)
        by_data = await generate(app, model="kling-v3", duration=7, image_url=data_uri(frame))
    assert by_url["status"] == by_data["status"] == "completed"
    master, v3 = fake.received
    assert master["image"] == image_url and "mode" not in master and "aspect_ratio" not in master
    assert base64.b64decode(v3["image"], validate=True) == frame  # raw base64, no data: prefix
    assert (v3["duration"], v3["mode"], v3["sound"]) == ("7", "pro", "off")


async def test_kling_limits_are_enforced_before_any_request(tmp_path: Path) -> None:
    fake = KlingFake()
    async with service(tmp_path, fake) as (app, timed):
        key = await app.new_key()
        cases: list[tuple[dict[str, Any], str]] = [
            ({"model": "kling-v2.6", "duration": 7}, "duration_unsupported"),
            ({"model": "kling-v3", "duration": 20}, "duration_too_long"),
            ({"model": "kling-v3", "duration": 4.5}, "duration_unsupported"),
            ({"model": "kling-v2.5-turbo", "aspect_ratio": "4:3"}, "aspect_ratio_unsupported"),
        ]
        for body, code in cases:
            answer = await app.create(key, prompt="p", **body)
            assert answer.status_code == 400, answer.text
            assert answer.json()["error"]["code"] == code
    assert timed.log == [] and fake.plan.requests == []


async def test_timeouts_are_retried_and_the_first_task_is_reused(tmp_path: Path) -> None:
    fake = KlingFake()
    fake.plan.add(kind="slow", delay=1.0, method="POST", times=1)  # Kling creates it, late
    async with service(tmp_path, fake) as (app, _):
        app.service.providers.get("kling").client.timeout = httpx.Timeout(0.3)  # type: ignore[attr-defined]
        done = await generate(app)
    assert done["status"] == "completed", done
    assert len(fake.tasks) == 1  # the retry found the task by external_task_id


async def test_lost_submit_answer_does_not_create_a_second_task(tmp_path: Path) -> None:
    fake = KlingFake(accept_then_time_out=1)
    async with service(tmp_path, fake) as (app, _):
        done = await generate(app)
    assert done["status"] == "completed", done
    assert len(fake.tasks) == 1


async def test_a_failed_task_is_submitted_again_as_a_new_task(tmp_path: Path) -> None:
    fake = KlingFake(transient_failures=1)
    async with service(tmp_path, fake) as (app, _):
        done = await generate(app)
    assert done["status"] == "completed", done
    first, second = fake.tasks.values()
    assert (first.status, second.status) == ("failed", "succeed")
    assert second.body["external_task_id"] == first.body["external_task_id"] + "-2"


async def test_terminal_failures_end_in_their_documented_codes(tmp_path: Path) -> None:
    fake = KlingFake(
        moderate_prompts_containing="forbidden",
        fail_prompts_containing={
            "gore": "Failure to pass the risk control system",
            "glitch": "unknown failure",
        },
    )
    cases = {
        "moderated-at-submit": ({"prompt": "a forbidden scene"}, "content_policy"),
        "moderated-task": ({"prompt": "gore"}, "content_policy"),
        "task-failed": ({"prompt": "a glitch"}, "provider_error"),
        "small-image": ({"image_url": data_uri(png(100, 100))}, "invalid_input"),
    }
    async with service(tmp_path, fake) as (app, _):
        results = await asyncio.gather(*(generate(app, **body) for body, _ in cases.values()))
    for (name, (_, code)), done in zip(cases.items(), results, strict=True):
        assert done["status"] == "failed" and done["error"]["code"] == code, (name, done)
    # Kling refused the 100 px image (code 1201); a data URI that is no PNG or JPEG is refused
    # at create (tests/test_openapi_contract.py).
    assert sorted(b["prompt"] for b in fake.received) == ["a glitch", "gore"]
