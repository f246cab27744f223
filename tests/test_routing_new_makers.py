"""xAI Grok Imagine and Vidu through the hosts: each host's key alone lists the new models it
serves (and only those), every model is listed once whatever keys are set, routes are tried
cheapest first, and an account refusal on the maker's own API moves the generation to fal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.fal import FalFake
from tests.fakes.xai import XaiFake
from tests.support.harness import running, test_settings
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog

KEY = "test-key"
NEW = {"grok-imagine-video", "grok-imagine-video-1.5", "viduq3-pro", "viduq3-turbo"}
ALL_KEYS = {
    name: KEY
    for name in (
        "GEMINI_API_KEY", "RUNWAYML_API_SECRET", "LUMAAI_API_KEY", "KLING_ACCESS_KEY",
        "KLING_SECRET_KEY", "MINIMAX_API_KEY", "ARK_API_KEY", "DASHSCOPE_API_KEY", "FAL_KEY",
        "REPLICATE_API_TOKEN", "OPENROUTER_API_KEY", "XAI_API_KEY", "VIDU_API_KEY",
        "LTX_API_KEY", "PIXVERSE_API_KEY",
    )
}  # fmt: skip


async def _listed(tmp_path: Path, environ: dict[str, str]) -> list[dict[str, object]]:
    settings = test_settings(tmp_path / "data", environ=environ)
    async with running(settings) as app:
        key = await app.new_key()
        answer = await app.client.get("/v1/models", headers=app.auth(key))
    assert answer.status_code == 200, answer.text
    return list(answer.json()["data"])


@pytest.mark.parametrize(
    ("environ", "served"),
    [
        ({"XAI_API_KEY": KEY}, {"grok-imagine-video", "grok-imagine-video-1.5"}),
        ({"VIDU_API_KEY": KEY}, {"viduq3-pro", "viduq3-turbo"}),
        ({"FAL_KEY": KEY}, NEW),
        ({"REPLICATE_API_TOKEN": KEY}, {"viduq3-turbo"}),
        ({"OPENROUTER_API_KEY": KEY}, {"grok-imagine-video"}),
    ],
    ids=["xai", "vidu", "fal", "replicate", "openrouter"],
)
async def test_one_key_lists_the_new_models_it_serves(
    tmp_path: Path, environ: dict[str, str], served: set[str]
) -> None:
    listed = {str(m["id"]) for m in await _listed(tmp_path, environ)}
    assert listed & NEW == served


async def test_every_key_lists_each_model_once_from_every_maker(tmp_path: Path) -> None:
    listed = await _listed(tmp_path, ALL_KEYS)
    ids = [str(m["id"]) for m in listed]
    assert len(ids) == len(set(ids))  # one model, however many hosts serve it
    assert set(ids) >= NEW
    makers = {str(m["provider"]) for m in listed}
    assert {"xAI", "Shengshu (Vidu)", "Lightricks", "PixVerse"} <= makers
    # Twelve makers: eleven providers' and our own local renderer (OpenAI's are retired).
    assert len(makers) >= 12, sorted(makers)


def test_routes_are_tried_cheapest_first() -> None:
    catalog = load_catalog()
    turbo = catalog.find_listed("viduq3-turbo", lambda route: True)
    grok = catalog.find_listed("grok-imagine-video", lambda route: True)
    assert turbo is not None and grok is not None
    # Vidu 0.055 and Replicate 0.055 (ties keep the catalog's order), fal 0.077 last.
    assert [r.provider for r in turbo.routes] == ["vidu", "replicate", "fal"]
    assert [r.price_per_second for r in turbo.routes] == [0.055, 0.055, 0.077]
    assert {r.provider for r in grok.routes} == {"xai", "fal", "openrouter"}
    assert {r.price_per_second for r in grok.routes} == {0.07}


@pytest.mark.parametrize("status", [429, 403])
async def test_xai_out_of_credits_moves_to_fal(tmp_path: Path, status: int) -> None:
    xai = XaiFake(api_key=KEY, out_of_credits=True, credits_status=status)
    fal = FalFake(api_key=KEY)
    async with serve_app(xai.app()) as xai_url, serve_app(fal.app()) as fal_url:
        environ = {
            "XAI_API_KEY": KEY,
            "VIDROUTER_XAI_BASE_URL": xai_url,
            "FAL_KEY": KEY,
            "VIDROUTER_FAL_BASE_URL": fal_url,
        }
        settings = test_settings(tmp_path / "data", environ=environ, provider_delay_scale=0.01)
        async with running(settings) as app:
            done = await app.generate(
                model="grok-imagine-video", prompt="a fox", duration=6, resolution="480p"
            )
    assert (done["status"], done["route"]) == ("completed", "fal"), done
    assert xai.tasks == {} and len(xai.plan.requests) == 1  # refused once, never again
    [(app_id, body)] = fal.submissions
    assert app_id == "xai/grok-imagine-video/text-to-video"
    assert body == {"prompt": "a fox", "duration": 6, "aspect_ratio": "16:9", "resolution": "480p"}
    assert done["cost"]["amount"] == pytest.approx(6 * 0.05)
