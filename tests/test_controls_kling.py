"""Kling's controls beyond the shared contract (tests/support/contract/controls/kling.py): the mode
and sound each model takes, end frames where Kling allows them, and the fake refusing
what Kling refuses."""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.kling import KlingFake
from tests.support.images import data_uri, png
from tests.support.kling import ROUTE_OPTIONS, adapter_for, request, service
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers.kling.adapter import encode_jwt

FRAME, TAIL = data_uri(png(400, 400)), data_uri(png(500, 400))


async def test_resolution_picks_the_mode_and_outranks_a_route_option() -> None:
    fake = KlingFake()
    async with adapter_for(fake) as provider:
        await provider.submit(request(controls=Controls(resolution="720p")))
        options = {**ROUTE_OPTIONS["kling-v2-5-turbo"], "mode": "std"}
        await provider.submit(
            request(generation_id="gen_2", options=options, controls=Controls("1080p"))
        )
        await provider.submit(request(generation_id="gen_3"))  # no control: the route's pro
        await provider.submit(
            request(generation_id="gen_4", model="kling-v2-1-master", controls=Controls("1080p"))
        )
    assert [body.get("mode") for body in fake.submitted] == ["std", "pro", "pro", None]


async def test_sound_is_sent_to_the_models_that_make_it_only() -> None:
    fake = KlingFake()
    async with adapter_for(fake) as provider:
        for model, audio in (
            ("kling-v3", True),
            ("kling-v2-6", False),
            ("kling-v2-5-turbo", False),
        ):
            controls = Controls(resolution="1080p", generate_audio=audio)
            await provider.submit(request(generation_id=model, model=model, controls=controls))
    assert [body.get("sound") for body in fake.submitted] == ["on", "off", None]


@pytest.mark.parametrize(
    ("model", "controls"),
    [
        ("kling-v2.5-turbo", {"resolution": "720p", "end_image_url": TAIL}),
        ("kling-v2.6", {"generate_audio": True, "end_image_url": TAIL}),
    ],
)
async def test_an_end_frame_kling_cannot_take_is_refused_before_calling(
    tmp_path: Path, model: str, controls: dict[str, Any]
) -> None:
    """The catalog declares where Kling takes an end frame (`controls_by_resolution`,
    `exclusive_controls`): the rest is our 400, and Kling is never called."""
    fake = KlingFake()
    async with service(tmp_path, fake) as (app, _):
        key = await app.new_key()
        body = {"model": model, "prompt": "p", "duration": 5, "image_url": FRAME, **controls}
        refused = await app.create(key, **body)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "control_unsupported"
    assert refused.json()["error"]["param"] == "end_image_url"
    assert fake.submitted == [] and fake.tasks == {}


async def test_the_end_frame_goes_as_raw_base64_beside_the_first() -> None:
    fake = KlingFake()
    controls = Controls("720p", generate_audio=False, end_image_url=TAIL)
    async with adapter_for(fake) as provider:
        await provider.submit(request(model="kling-v3", image_url=FRAME, controls=controls))
    [sent] = fake.submitted
    assert base64.b64decode(sent["image_tail"], validate=True) == png(500, 400)
    assert (sent["mode"], sent["sound"]) == ("std", "off")


@pytest.mark.parametrize(
    ("kind", "fields", "message"),
    [
        ("text2video", {"model_name": "kling-v2-6", "mode": "std", "sound": "on"}, "sound"),
        ("text2video", {"model_name": "kling-v2-5-turbo", "sound": "loud"}, "sound"),
        ("text2video", {"model_name": "kling-v3", "negative_prompt": 7}, "negative_prompt"),
        ("text2video", {"model_name": "kling-v3", "image_tail": "x"}, "image_tail"),
        (
            "image2video",
            {"model_name": "kling-v2-5-turbo", "mode": "std", "image_tail": "x"},
            "image_tail",
        ),
        (
            "image2video",
            {"model_name": "kling-v2-6", "mode": "pro", "sound": "on", "image_tail": "x"},
            "image_tail",
        ),
        (
            "image2video",
            {"model_name": "kling-v3", "image_tail": data_uri(png(400, 400))},
            "data: prefix",
        ),
        (
            "image2video",
            {"model_name": "kling-v3", "image_tail": base64.b64encode(png(200, 400)).decode()},
            "too small",
        ),
        # A control under another provider's name: Kling has no seed, no `negativePrompt`.
        ("text2video", {"model_name": "kling-v3", "seed": 7}, "seed"),
        ("text2video", {"model_name": "kling-v3", "negativePrompt": "blur"}, "negativePrompt"),
        ("text2video", {"model_name": "kling-v3", "image_tail": "x"}, "image_tail"),
    ],
)
async def test_the_fake_refuses_what_kling_refuses(
    kind: str, fields: dict[str, Any], message: str
) -> None:
    fake = KlingFake()
    token, _ = encode_jwt(fake.access_key, fake.secret_key, time.time())
    body = {"prompt": "p", "duration": "5", **fields}
    if kind == "image2video":
        body["image"] = base64.b64encode(png(400, 400)).decode()
    async with serve_app(fake.app) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            f"/v1/videos/{kind}", json=body, headers={"Authorization": f"Bearer {token}"}
        )
    assert answer.status_code == 400 and answer.json()["code"] == 1201
    assert message in answer.json()["message"] and fake.submitted == []


# --- through our API ---------------------------------------------------------------------


async def test_720p_with_sound_costs_what_kling_deducts_for_it(tmp_path: Path) -> None:
    fake = KlingFake(polls_before_done=1)
    async with service(tmp_path, fake) as (app, _):
        key = await app.new_key()
        body = {"model": "kling-v3", "prompt": "p", "duration": 5}
        created = await app.create(key, **body, resolution="720p", generate_audio=True)
        assert created.status_code == 202, created.text
        assert created.json()["estimated_cost"]["amount"] == 1.26  # 9 units x $0.14
        done = await app.wait_for(key, created.json()["id"], timeout=30)
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == 1.26
    assert (fake.submitted[0]["mode"], fake.submitted[0]["sound"]) == ("std", "on")
