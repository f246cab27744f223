"""Veo's controls on the Gemini API (issue 13): what each configuration costs, how the models
show them, and Google's 8 s rule for 1080p and 4k, refused before any request. The contract in
tests/support/contract/controls/veo.py checks each control on its Gemini field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.veo import VeoFake
from tests.support.harness import running
from tests.support.providers import fake_fixture, models_listed
from tests.support.veo import PREDICT, settings_for

fake = fake_fixture(VeoFake)


@pytest.mark.parametrize(
    ("model", "resolution", "per_second"),
    [("veo-3.1", "1080p", 0.40), ("veo-3.1", "4k", 0.60), ("veo-3.1-fast", "1080p", 0.12)],
)
async def test_a_configuration_costs_what_google_charges_for_it(
    fake: tuple[VeoFake, str], tmp_path: Path, model: str, resolution: str, per_second: float
) -> None:
    veo, url = fake
    veo.video = sample_mp4(8.0)  # Google bills the seconds of video it made
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(
            model=model,
            prompt="a red fox",
            duration=8,
            resolution=resolution,
            generate_audio=True,
            timeout=30,
        )
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == pytest.approx(per_second * 8, rel=0.02)
    assert done["estimated_cost"]["amount"] == pytest.approx(per_second * 8)
    [body] = veo.submitted
    assert body["parameters"]["resolution"] == resolution
    assert "generateAudio" not in body["parameters"]


async def test_models_show_each_configuration_and_its_price(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    _, url = fake
    models = await models_listed(settings_for(tmp_path, url))
    for model_id, prices in (("veo-3.1", (0.40, 0.40, 0.60)), ("veo-3.1-fast", (0.10, 0.12, 0.30))):
        model = models[model_id]
        assert model["resolutions"] == ["720p", "1080p", "4k"]
        assert model["audio"] is True
        assert model["supports"] == ["negative_prompt", "end_image_url"]
        assert model["durations_by_resolution"] == {"1080p": [8], "4k": [8]}
        assert model["pricing"]["per_second"] == prices[0]
        assert model["pricing"]["variants"] == [
            {"resolution": r, "audio": True, "per_second": p}
            for r, p in zip(model["resolutions"], prices, strict=True)
        ]


async def test_1080p_and_4k_make_8_second_clips_only(
    fake: tuple[VeoFake, str], tmp_path: Path
) -> None:
    veo, url = fake
    async with running(settings_for(tmp_path, url), workers=False) as app:
        key = await app.new_key()
        for resolution in ("1080p", "4k"):
            for duration in (4, 6):
                answer = await app.create(
                    key, model="veo-3.1", prompt="p", resolution=resolution, duration=duration
                )
                assert answer.status_code == 400, answer.text
                assert answer.json()["error"]["param"] in ("duration", "resolution"), answer.text
        assert (await app.create(key, model="veo-3.1", prompt="p", duration=4)).status_code == 202
    assert veo.plan.count("POST", PREDICT) <= 1
