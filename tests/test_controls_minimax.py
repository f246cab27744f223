"""MiniMax's controls beyond the shared contract (tests/support/contract/controls/minimax.py): its
resolutions and the 6 s limit of 1080P, the prompt optimizer, and the last frame, which only
MiniMax-Hailuo-02 takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.minimax import MinimaxFake
from tests.support.images import data_uri, image_host, png
from tests.support.minimax import WAIT, adapter, request, service
from tests.support.servers import serve_app
from vidrouter.domain.controls import Controls
from vidrouter.providers import base

FIRST = data_uri(png(640, 360))


async def test_resolution_and_prompt_optimizer_as_minimax_spells_them() -> None:
    fake = MinimaxFake()
    async with adapter(fake) as provider:
        await provider.submit(request(controls=Controls("1080p", enhance_prompt=False)))
        await provider.submit(request(controls=Controls("768p", enhance_prompt=True)))
        # No control: the route option, else MiniMax's own default (nothing sent).
        await provider.submit(request(options={"resolution": "768P", "prompt_optimizer": False}))
        await provider.submit(request(options={}))
    sent = [(body["resolution"], body.get("prompt_optimizer")) for body in fake.submitted]
    assert sent == [("1080P", False), ("768P", True), ("768P", False), ("768P", None)]


async def test_1080p_takes_six_seconds_only() -> None:
    fake = MinimaxFake()
    async with adapter(fake) as provider:
        with pytest.raises(base.InvalidInput, match="1080P"):
            await provider.submit(request(duration=10.0, controls=Controls("1080p")))
    assert fake.submitted == []


async def test_a_last_frame_url_is_loaded_checked_and_sent_inline() -> None:
    fake = MinimaxFake()
    last = png(600, 360)
    async with image_host(last) as host, adapter(fake) as provider:
        controls = Controls("768p", end_image_url=f"{host}/frame.png")
        await provider.submit(
            request(model="MiniMax-Hailuo-02", image_url=FIRST, duration=10.0, controls=controls)
        )
        small = Controls("768p", end_image_url=data_uri(png(300, 300)))
        with pytest.raises(base.InvalidInput, match="short side"):
            await provider.submit(
                request(model="MiniMax-Hailuo-02", image_url=FIRST, controls=small)
            )
    [sent] = fake.submitted
    assert sent["first_frame_image"] == FIRST and sent["last_frame_image"] == data_uri(last)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"model": "MiniMax-Hailuo-2.3", "last_frame_image": FIRST}, "last_frame_image"),
        ({"model": "MiniMax-Hailuo-02", "last_frame_image": FIRST}, "first_frame_image"),
        (
            {"model": "MiniMax-Hailuo-02", "resolution": "512P", "last_frame_image": FIRST},
            "512P",
        ),
        ({"model": "MiniMax-Hailuo-2.3", "prompt_optimizer": "yes"}, "prompt_optimizer"),
        ({"model": "MiniMax-Hailuo-2.3", "resolution": "720P"}, "resolution"),
        # Controls MiniMax has no field for, or spelled as another provider spells them.
        ({"model": "MiniMax-Hailuo-2.3", "negative_prompt": "blur"}, "negative_prompt"),
        ({"model": "MiniMax-Hailuo-2.3", "seed": 7}, "seed"),
        ({"model": "MiniMax-Hailuo-02", "last_frame": FIRST}, "last_frame"),
    ],
)
async def test_the_fake_refuses_what_minimax_refuses(fields: dict[str, Any], message: str) -> None:
    fake = MinimaxFake()
    headers = {"Authorization": f"Bearer {fake.api_key}"}
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            "/v1/video_generation", json={"prompt": "p", "duration": 6, **fields}, headers=headers
        )
    resp = answer.json()["base_resp"]
    assert resp["status_code"] == 2013 and message in resp["status_msg"]
    assert fake.submitted == []


# --- through our API ---------------------------------------------------------------------


async def test_1080p_at_ten_seconds_is_a_400_naming_resolution(tmp_path: Path) -> None:
    fake = MinimaxFake()
    async with service(tmp_path, fake) as app:
        key = await app.new_key()
        refused = await app.create(
            key, model="hailuo-2.3", prompt="p", duration=10, resolution="1080p"
        )
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert (error["code"], error["param"]) == ("duration_unsupported", "resolution")
        assert fake.plan.requests == []


async def test_a_1080p_video_costs_the_1080p_price(tmp_path: Path) -> None:
    fake = MinimaxFake(polls_before_done=1)
    async with service(tmp_path, fake) as app:
        key = await app.new_key()
        created = await app.create(key, model="hailuo-02", prompt="p", resolution="1080p")
        assert created.status_code == 202, created.text
        # $0.49 per 6 s 1080P video (MiniMax's pay-as-you-go list): 6 s x $0.081667
        assert created.json()["estimated_cost"]["amount"] == round(6 * 0.081667, 6)
        done = await app.wait_for(key, created.json()["id"], timeout=WAIT)
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == round(6 * 0.081667, 6)
    assert fake.submitted[0]["resolution"] == "1080P"
