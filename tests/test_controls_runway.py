"""Runway's controls: Gen-4.x take a seed and nothing else of issue 13's controls; the seed
reaches Runway's field, everything else is refused before any request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.runway import RunwayFake
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, png
from tests.support.servers import serve_app
from vidrouter.settings import Settings

IMAGE = data_uri(png())


@pytest.fixture
async def fake() -> AsyncIterator[tuple[RunwayFake, str]]:
    runway = RunwayFake()
    async with serve_app(runway.app) as url:
        yield runway, url


def settings_for(tmp_path: Path, url: str) -> Settings:
    environ = {"VIDROUTER_RUNWAY_BASE_URL": url, "RUNWAYML_API_SECRET": "test-key"}
    return test_settings(tmp_path / "data", environ=environ, provider_delay_scale=0.01)


@pytest.mark.parametrize(
    ("body", "endpoint"),
    [
        ({"model": "gen4.5", "seed": 4294967295}, "text_to_video"),
        ({"model": "gen4-turbo", "seed": 0, "image_url": IMAGE}, "image_to_video"),
    ],
)
async def test_the_seed_reaches_runways_field(
    fake: tuple[RunwayFake, str], tmp_path: Path, body: dict[str, Any], endpoint: str
) -> None:
    runway, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(prompt="a fox", duration=5, resolution="720p", **body)
    assert done["status"] == "completed", done
    [(used, sent)] = runway.created
    assert used == endpoint and sent["seed"] == body["seed"]
    assert not {"audio", "resolution", "negativePrompt"} & set(sent)


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"resolution": "1080p"}, "resolution"),
        ({"generate_audio": True}, "generate_audio"),
        ({"negative_prompt": "blur"}, "negative_prompt"),
        ({"image_url": IMAGE, "end_image_url": IMAGE}, "end_image_url"),
        ({"enhance_prompt": True}, "enhance_prompt"),
    ],
)
async def test_what_gen4_cannot_do_is_refused_before_any_request(
    fake: tuple[RunwayFake, str], tmp_path: Path, body: dict[str, Any], param: str
) -> None:
    runway, url = fake
    async with running(settings_for(tmp_path, url), workers=False) as app:
        key = await app.new_key()
        answer = await app.create(key, model="gen4.5", prompt="p", **body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["param"] == param, answer.json()
    assert runway.plan.requests == []
