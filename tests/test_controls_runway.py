"""Runway's controls: Gen-4.x take a seed and nothing else of issue 13's controls (the
contract in tests/support/contract/controls/runway.py checks the refusals); a seed of 0 still travels,
and the models show their one configuration."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.runway import RunwayFake
from tests.support.harness import running
from tests.support.providers import fake_fixture, models_listed
from tests.support.runway import settings_for

fake = fake_fixture(RunwayFake)


async def test_a_seed_of_zero_is_sent(fake: tuple[RunwayFake, str], tmp_path: Path) -> None:
    runway, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        done = await app.generate(model="gen4.5", prompt="a fox", duration=5, seed=0)
    assert done["status"] == "completed", done
    assert done["seed"] == 0
    [(endpoint, body)] = runway.created
    assert endpoint == "text_to_video" and body["seed"] == 0


async def test_models_show_one_configuration_and_the_seed(
    fake: tuple[RunwayFake, str], tmp_path: Path
) -> None:
    _, url = fake
    models = await models_listed(settings_for(tmp_path, url))
    for model_id, per_second in (("gen4.5", 0.12), ("gen4-turbo", 0.05)):
        model = models[model_id]
        assert (model["resolutions"], model["audio"]) == (["720p"], False)
        assert model["supports"] == ["seed"]
        assert model["pricing"]["variants"] == [
            {"resolution": "720p", "audio": False, "per_second": per_second}
        ]
