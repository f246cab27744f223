"""LTX and PixVerse among the hosts: each key alone lists what it serves, one model has its
maker's route and the hosts' routes, the cheapest first, and the hosts' apps take what our
routes send them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.fal import FalFake
from tests.support.contract.cases import BY_NAME
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, png
from tests.support.providers import running_against
from vidrouter.domain.catalog import load_catalog
from vidrouter.providers.registry import factories

LTX = {"ltx-2.5-fast", "ltx-2.5-pro", "ltx-2.3-fast", "ltx-2.3-pro"}
PIXVERSE = {"pixverse-v6", "pixverse-v5.6", "pixverse-v5.5", "pixverse-v5"}
NEW = LTX | PIXVERSE


async def _listed(tmp_path: Path, environ: dict[str, str]) -> dict[str, dict[str, Any]]:
    settings = test_settings(tmp_path / "data", environ=environ)
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        answer = await app.client.get("/v1/models", headers=app.auth(key))
    return {m["id"]: m for m in answer.json()["data"]}


async def test_each_key_alone_lists_the_new_models_it_serves(tmp_path: Path) -> None:
    expected = {
        "LTX_API_KEY": LTX,
        "PIXVERSE_API_KEY": PIXVERSE,
        "FAL_KEY": {"ltx-2.3-fast", "ltx-2.3-pro", "pixverse-v6", "pixverse-v5.6"},
        "REPLICATE_API_TOKEN": {"pixverse-v6", "pixverse-v5"},
        "OPENROUTER_API_KEY": set(),  # OpenRouter serves neither maker
    }
    for name, models in expected.items():
        listed = await _listed(tmp_path / name, {name: "k"})
        assert set(listed) & NEW == models, name
    ltx = (await _listed(tmp_path / "ltx", {"LTX_API_KEY": "k"}))["ltx-2.5-fast"]
    assert (ltx["provider"], ltx["max_duration"], ltx["aspect_ratios"]) == (
        "Lightricks",
        20,
        ["16:9", "9:16"],
    )
    assert ltx["resolutions"] == ["1080p", "720p", "4k"] and ltx["pricing"]["per_second"] == 0.13


def test_one_model_many_routes_cheapest_first() -> None:
    catalog = load_catalog()
    every = {"ltx", "pixverse", "fal", "replicate"}

    def order(model: str) -> list[str]:
        found = catalog.find_listed(model, lambda route: route.provider in every)
        assert found is not None
        return [route.provider for route in found.routes]

    assert order("ltx-2.3-fast") == ["fal", "ltx"]  # $0.04/s against LTX's $0.06
    assert order("pixverse-v6")[0] == "fal"
    assert set(order("pixverse-v6")) == {"fal", "pixverse", "replicate"}
    assert sorted(order("pixverse-v5")) == ["pixverse", "replicate"]  # the same list price
    assert order("ltx-2.5-fast") == ["ltx"]


async def test_the_hosts_serve_the_new_models_with_their_own_field_names(tmp_path: Path) -> None:
    fake = FalFake()
    fal = BY_NAME["fal"].environ
    served = running_against(
        tmp_path, fake.app(), lambda url: fal(url, fake.api_key), provider_delay_scale=0.01
    )
    async with served as app:
        pixverse = await app.generate(
            model="pixverse-v6", prompt="a fox", duration=3, generate_audio=True
        )
        image = data_uri(png())
        ltx = await app.generate(
            model="ltx-2.3-pro",
            prompt="a heron",
            image_url=image,
            end_image_url=image,
            resolution="4k",
        )
    assert (pixverse["status"], pixverse["route"]) == ("completed", "fal"), pixverse
    assert (ltx["status"], ltx["route"]) == ("completed", "fal"), ltx
    (v6_app, v6_input), (ltx_app, ltx_input) = fake.submissions
    assert v6_app == "fal-ai/pixverse/v6/text-to-video"
    assert v6_input["generate_audio_switch"] is True and v6_input["duration"] == 3
    assert ltx_app == "fal-ai/ltx-2.3/image-to-video"
    assert ltx_input["resolution"] == "2160p" and ltx_input["end_image_url"]
    assert "aspect_ratio" not in ltx_input  # the image sets the shape


async def test_with_every_key_each_model_is_listed_once_with_its_maker(tmp_path: Path) -> None:
    every = {name: "k" for f in factories().values() for name in f.credentials}
    async with running(test_settings(tmp_path / "data", environ=every), workers=False) as app:
        key = await app.new_key()
        answer = await app.client.get("/v1/models", headers=app.auth(key))
    data = answer.json()["data"]
    ids = [m["id"] for m in data]
    assert len(ids) == len(set(ids)) and set(ids) >= NEW
    assert {m["provider"] for m in data if m["id"] in NEW} == {"Lightricks", "PixVerse"}
