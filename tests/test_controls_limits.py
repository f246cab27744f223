"""Provider limits on the controls (issue 13) declared in the catalog: `max_seed`,
`max_negative_prompt_chars`, `controls_by_resolution` and `exclusive_controls`. A request
beyond one is a 400 naming `param` before any provider is called; one within reaches the
provider; GET /v1/models and the OpenAPI document show them.

Wan (DashScope's seed and negative-prompt limits) and Kling (end frames in pro only on 2.5
Turbo, and on 2.6 without sound) run against their fakes; the generic rules against an
operator's model served by the local renderer."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.fakes.kling import KlingFake
from tests.fakes.wan import FakeWan
from tests.support.harness import Harness, running, test_settings
from tests.support.images import data_uri, png
from tests.support.kling import service
from tests.support.servers import serve_app
from tests.support.wan import wan_settings
from vidrouter.domain.catalog import CatalogError, Route, load_catalog
from vidrouter.domain.controls import Controls, Limits
from vidrouter.domain.routing import DEFAULT_POLICY, RouteAsk, route_candidates

WAN_KEY = "test-key"
FRAME, TAIL = data_uri(png(400, 400)), data_uri(png(500, 400))


@contextlib.asynccontextmanager
async def wan(tmp_path: Path) -> AsyncIterator[tuple[Harness, FakeWan]]:
    fake = FakeWan(api_key=WAN_KEY)
    async with serve_app(fake.app) as url, running(wan_settings(tmp_path, url)) as app:
        yield app, fake


async def refused(app: Harness, body: dict[str, Any], param: str, code: str) -> str:
    answer = await app.create(await app.new_key(), **body)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert (error["param"], error["code"]) == (param, code), error
    return str(error["message"])


async def reaches(app: Harness, body: dict[str, Any]) -> dict[str, Any]:
    done = await app.generate(**body, timeout=30.0)
    assert done["status"] == "completed", done
    return done


async def test_wan_seed_and_negative_prompt_beyond_dashscope_are_400(tmp_path: Path) -> None:
    async with wan(tmp_path) as (app, fake):
        body = {"model": "wan-2.6", "prompt": "a fox"}
        message = await refused(app, {**body, "seed": 2_147_483_648}, "seed", "seed_invalid")
        assert "2147483647" in message
        too_long = {**body, "negative_prompt": "x" * 501}
        message = await refused(app, too_long, "negative_prompt", "negative_prompt_too_long")
        assert "500" in message
        assert fake.submitted == []
        await reaches(app, {**body, "seed": 2_147_483_647, "negative_prompt": "y" * 500})
    [sent] = fake.submitted
    assert sent["parameters"]["seed"] == 2_147_483_647
    assert sent["input"]["negative_prompt"] == "y" * 500


async def test_wan_models_show_their_limits(tmp_path: Path) -> None:
    async with wan(tmp_path) as (app, _):
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
    for model in (m for m in data if m["id"].startswith("wan-")):
        assert (model["max_seed"], model["max_negative_prompt_chars"]) == (2_147_483_647, 500)
        assert "controls_by_resolution" not in model and "exclusive_controls" not in model


async def test_kling_end_frames_only_where_kling_takes_them(tmp_path: Path) -> None:
    fake = KlingFake(polls_before_done=1)
    async with service(tmp_path, fake) as (app, _):
        turbo = {"model": "kling-v2.5-turbo", "prompt": "p", "image_url": FRAME}
        message = await refused(
            app,
            {**turbo, "resolution": "720p", "end_image_url": TAIL},
            "end_image_url",
            "control_unsupported",
        )
        assert "720p" in message
        v26 = {"model": "kling-v2.6", "prompt": "p", "image_url": FRAME, "end_image_url": TAIL}
        message = await refused(
            app, {**v26, "generate_audio": True}, "end_image_url", "control_unsupported"
        )
        assert "generate_audio" in message
        assert fake.submitted == [] and fake.tasks == {}
        await reaches(app, {**turbo, "resolution": "1080p", "end_image_url": TAIL})
        await reaches(app, {**turbo, "resolution": "720p", "negative_prompt": "blur"})
        await reaches(app, {**v26, "generate_audio": False})
        await reaches(app, {**v26, "end_image_url": None, "generate_audio": True})
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
    sent = [(b["model_name"], b["mode"], b.get("sound"), "image_tail" in b) for b in fake.submitted]
    assert sent == [
        ("kling-v2-5-turbo", "pro", None, True),
        ("kling-v2-5-turbo", "std", None, False),
        ("kling-v2-6", "pro", "off", True),
        ("kling-v2-6", "pro", "on", False),
    ]
    listed = {m["id"]: m for m in data}
    assert listed["kling-v2.5-turbo"]["controls_by_resolution"] == {"720p": ["negative_prompt"]}
    assert listed["kling-v2.6"]["exclusive_controls"] == [["generate_audio", "end_image_url"]]
    assert "max_seed" not in listed["kling-v3"] and "exclusive_controls" not in listed["kling-v3"]


# --- the rules, on an operator's model served by the local renderer -----------------------

CATALOG = """
[[models]]
id = "lim"
name = "Limited"
description = "The local renderer behind a model with every kind of limit."
provider = "Example Co"
type = "text-to-video"
capabilities = ["text-to-video", "image-to-video"]
max_duration = 4
min_duration = 0.5
default_duration = 0.5
aspect_ratios = ["16:9"]
resolutions = ["720p", "480p"]
audio = false
supports = ["negative_prompt", "seed", "generate_audio", "end_image_url", "enhance_prompt"]
max_seed = 100
max_negative_prompt_chars = 10
controls_by_resolution = { "480p" = ["negative_prompt", "seed"] }
exclusive_controls = [["generate_audio", "end_image_url"], ["seed", "enhance_prompt"]]

  [[models.routes]]
  provider = "local"
  model = "title-card"
  price_per_second = 0.1

  [[models.routes]]
  provider = "local"
  id = "narrower"
  model = "title-card"
  price_per_second = 0.2
  max_seed = 50
"""

LIM = {"model": "lim", "prompt": "a lighthouse"}
IMAGE = "https://example.com/first.png"

CASES: list[tuple[dict[str, Any], str | None, str | None]] = [
    # (body, refused param or None, its code)
    ({**LIM, "seed": 50}, None, None),
    ({**LIM, "seed": 51}, "seed", "seed_invalid"),  # the narrower route's limit
    ({**LIM, "negative_prompt": "x" * 10}, None, None),
    ({**LIM, "negative_prompt": "x" * 11}, "negative_prompt", "negative_prompt_too_long"),
    ({**LIM, "resolution": "480p", "seed": 3, "negative_prompt": "fog"}, None, None),
    (
        {**LIM, "resolution": "480p", "enhance_prompt": True},
        "enhance_prompt",
        "control_unsupported",
    ),
    (
        {**LIM, "resolution": "480p", "generate_audio": True},
        "generate_audio",
        "control_unsupported",
    ),
    ({**LIM, "resolution": "480p", "generate_audio": False}, None, None),
    (
        {**LIM, "resolution": "480p", "image_url": IMAGE, "end_image_url": IMAGE},
        "end_image_url",
        "control_unsupported",
    ),
    ({**LIM, "image_url": IMAGE, "end_image_url": IMAGE}, None, None),
    (
        {**LIM, "image_url": IMAGE, "end_image_url": IMAGE, "generate_audio": True},
        "end_image_url",
        "control_unsupported",
    ),
    ({**LIM, "image_url": IMAGE, "end_image_url": IMAGE, "generate_audio": False}, None, None),
    ({**LIM, "generate_audio": True}, None, None),
    ({**LIM, "seed": 1, "enhance_prompt": True}, "enhance_prompt", "control_unsupported"),
    ({**LIM, "seed": 1, "enhance_prompt": None}, None, None),
]


@contextlib.asynccontextmanager
async def limited(tmp_path: Path) -> AsyncIterator[Harness]:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(CATALOG)
    async with running(test_settings(tmp_path / "data", catalog=catalog)) as app:
        yield app


async def test_each_limit_is_a_400_the_document_agrees_with(tmp_path: Path) -> None:
    async with limited(tmp_path) as app:
        key = await app.new_key()
        doc = (await app.client.get("/openapi.json")).json()
        content = doc["paths"]["/v1/generations"]["post"]["requestBody"]["content"]
        validator = Draft202012Validator(content["application/json"]["schema"])
        for body, param, code in CASES:
            answer = await app.create(key, **body)
            if param is None:
                assert answer.status_code == 202, (body, answer.text)
            else:
                assert answer.status_code == 400, (body, answer.text)
                error = answer.json()["error"]
                assert (error["param"], error["code"]) == (param, code), (body, error)
            assert validator.is_valid(body) == (param is None), body
        listed = (await app.client.get("/v1/models/lim", headers=app.auth(key))).json()
    assert listed["max_seed"] == 50 and listed["max_negative_prompt_chars"] == 10
    assert listed["controls_by_resolution"] == {"480p": ["negative_prompt", "seed"]}
    assert listed["exclusive_controls"] == [
        ["generate_audio", "end_image_url"],
        ["seed", "enhance_prompt"],
    ]


def test_the_router_skips_a_route_whose_limits_refuse() -> None:
    """Generations made before a catalog change may ask what a route now refuses."""
    wide = Route("a", "m", 0.2, resolutions=("720p",), supports=frozenset({"seed"}))
    narrow = Route(
        "b", "m", 0.1, resolutions=("720p",), supports=frozenset({"seed"}), limits=Limits(10)
    )
    routes = [narrow, wide]
    assert (
        route_candidates(routes, RouteAsk(DEFAULT_POLICY, Controls("720p", seed=10)), {}) == routes
    )
    assert route_candidates(routes, RouteAsk(DEFAULT_POLICY, Controls("720p", seed=11)), {}) == [
        wide
    ]


@pytest.mark.parametrize(
    "declaration",
    [
        "max_seed = 0",
        "max_seed = 4294967296",
        "max_negative_prompt_chars = true",
        'controls_by_resolution = { "999p" = ["seed"] }',
        'controls_by_resolution = { "720p" = ["colour"] }',
        'controls_by_resolution = { "720p" = "seed" }',
        'exclusive_controls = [["seed"]]',
        'exclusive_controls = [["seed", "seed"]]',
        'exclusive_controls = [["seed", "colour"]]',
    ],
)
def test_the_loader_refuses_a_malformed_limit(tmp_path: Path, declaration: str) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(CATALOG.replace("max_seed = 100", declaration))
    with pytest.raises(CatalogError):
        load_catalog(catalog)


async def test_kling_negative_prompt_beyond_2500_characters_is_400(tmp_path: Path) -> None:
    """Kling takes 2,500 characters of negative prompt; our prompts may have 4,000."""
    fake = KlingFake(polls_before_done=1)
    async with service(tmp_path, fake) as (app, _):
        body = {"model": "kling-v3", "prompt": "p"}
        too_long = {**body, "negative_prompt": "x" * 2501}
        message = await refused(app, too_long, "negative_prompt", "negative_prompt_too_long")
        assert "2500" in message and fake.submitted == []
        await reaches(app, {**body, "negative_prompt": "y" * 2500})
        key = await app.new_key()
        listed = (await app.client.get("/v1/models/kling-v3", headers=app.auth(key))).json()
    assert fake.submitted[0]["negative_prompt"] == "y" * 2500
    assert listed["max_negative_prompt_chars"] == 2500
