"""Luma's controls on the Dream Machine API (issue 13): each resolution costs Luma's price for
its pixels, the models show them, and an end frame Luma cannot fetch fails before any request.
The contract in tests/support/contract/controls/luma.py checks each control on Luma's field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.luma import LumaFake
from tests.support.harness import running
from tests.support.images import data_uri, png
from tests.support.luma import CREATE, KEY, settings_for
from tests.support.providers import fake_fixture, models_listed

luma = fake_fixture(lambda: LumaFake(api_key=KEY), lambda made: made.app())


async def test_an_end_frame_luma_cannot_fetch_fails_before_any_request(
    luma: tuple[LumaFake, str], images: str, tmp_path: Path
) -> None:
    fake, url = luma
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(
            model="ray-2",
            prompt="p",
            image_url=f"{images}/frame.png",
            end_image_url=data_uri(png()),
            timeout=30,
        )
    assert done["status"] == "failed" and done["error"]["code"] == "invalid_input", done
    assert "http" in done["error"]["message"]
    assert fake.plan.count("POST", CREATE) == 0


@pytest.mark.parametrize(
    ("model", "resolution", "duration", "per_second"),
    [
        ("ray-2", "1080p", 5, 0.3185),
        ("ray-2", "540p", 9, 0.0796),
        ("ray-flash-2", "4k", 5, 0.4379),
    ],
)
async def test_each_resolution_costs_lumas_price_for_its_pixels(
    luma: tuple[LumaFake, str],
    tmp_path: Path,
    model: str,
    resolution: str,
    duration: int,
    per_second: float,
) -> None:
    fake, url = luma
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(
            model=model, prompt="a fox", duration=duration, resolution=resolution, timeout=30
        )
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == pytest.approx(duration * per_second)
    [body] = fake.submitted
    assert (body["resolution"], body["duration"]) == (resolution, f"{duration}s")


async def test_models_show_each_resolution_and_its_price(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    _, url = luma
    models = await models_listed(settings_for(tmp_path, url))
    prices = {
        "ray-2": (0.1416, 0.0796, 0.3185, 1.274),
        "ray-flash-2": (0.0487, 0.0274, 0.1095, 0.4379),
    }
    for model_id, per_second in prices.items():
        model = models[model_id]
        assert model["resolutions"] == ["720p", "540p", "1080p", "4k"]
        assert (model["audio"], model["supports"]) == (False, ["end_image_url"])
        assert "durations_by_resolution" not in model  # 5 and 9 s at every resolution
        untyped = [v for v in model["pricing"]["variants"] if "type" not in v]
        assert untyped == [
            {"resolution": r, "audio": False, "per_second": p}
            for r, p in zip(model["resolutions"], per_second, strict=True)
        ]
        # A modify is priced per pixel of its source: $0.01582 per million pixels.
        variants = model["pricing"]["variants"]
        edits = {v["resolution"]: v["per_second"] for v in variants if "type" in v}
        assert edits == {"720p": 0.3499, "540p": 0.1968, "1080p": 0.7873, "4k": 3.1493}
