"""The controls of a create (issue 13) at the HTTP boundary: each is checked (a 400 naming
`param`), the model's defaults are filled in and shown, they are stored (both databases),
priced by their configuration, grouped in usage, and taken by /v1/videos the same way.

The models here are an operator's, served by the local renderer: `ctl-full` offers two
resolutions, sound either way, and prices each configuration; `ctl-plain` lists no
resolution, makes sound by default and honours no optional control.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import openai
import pytest
from jsonschema import Draft202012Validator

from tests.support.harness import CreateBody, Harness, running, test_settings
from vidrouter.domain.catalog import Route
from vidrouter.domain.controls import Controls
from vidrouter.domain.routing import DEFAULT_POLICY, RouteAsk, RoutingPolicy, route_candidates

CATALOG = """
[[models]]
id = "ctl-full"
name = "Controls, all of them"
description = "The local renderer behind a model that honours every control."
provider = "Example Co"
type = "text-to-video"
capabilities = ["text-to-video", "image-to-video"]
max_duration = 8
min_duration = 0.5
default_duration = 1
aspect_ratios = ["16:9", "9:16"]
resolutions = ["720p", "480p"]
audio = false
supports = ["negative_prompt", "seed", "generate_audio", "end_image_url", "enhance_prompt"]
durations_by_resolution = { "480p" = [0.5, 1, 2] }

  [[models.routes]]
  provider = "local"
  model = "title-card"
  variants = [
    { resolution = "720p", audio = false, per_second = 0.10 },
    { resolution = "720p", audio = true, per_second = 0.20 },
    { resolution = "480p", audio = false, per_second = 0.30 },
    { resolution = "480p", audio = true, per_second = 0.40 },
  ]

[[models]]
id = "ctl-plain"
name = "Controls, none of them"
description = "The local renderer behind a model with sound and no choices."
provider = "Example Co"
type = "text-to-video"
capabilities = ["text-to-video"]
max_duration = 8
min_duration = 0.5
default_duration = 1
aspect_ratios = ["16:9"]
audio = true

  [[models.routes]]
  provider = "local"
  model = "title-card"
  price_per_second = 0.05
"""

FULL: CreateBody = {"model": "ctl-full", "prompt": "a lighthouse at dusk"}
PLAIN: CreateBody = {"model": "ctl-plain", "prompt": "a lighthouse at dusk"}
IMAGE = "https://example.com/first.png"
CONTROLS = ("resolution", "generate_audio", "negative_prompt", "seed", "end_image_url")


@contextlib.asynccontextmanager
async def serving(
    tmp_path: Path, database_url: str | None = None, *, workers: bool = False
) -> AsyncIterator[Harness]:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(CATALOG)
    settings = test_settings(tmp_path / "data", database_url, catalog=catalog)
    async with running(settings, workers=workers) as app:
        yield app


REFUSED: list[tuple[dict[str, Any], str, str]] = [
    # (body, param, code)
    ({**FULL, "resolution": 1080}, "resolution", "parameter_invalid_type"),
    ({**FULL, "resolution": "4k"}, "resolution", "resolution_unsupported"),
    ({**FULL, "resolution": "480P"}, "resolution", "resolution_unsupported"),
    ({**FULL, "resolution": "480p", "duration": 4}, "resolution", "duration_unsupported"),
    ({**FULL, "generate_audio": "yes"}, "generate_audio", "parameter_invalid_type"),
    ({**FULL, "generate_audio": 1}, "generate_audio", "parameter_invalid_type"),
    ({**FULL, "seed": True}, "seed", "parameter_invalid_type"),
    ({**FULL, "seed": "42"}, "seed", "parameter_invalid_type"),
    ({**FULL, "seed": 1.5}, "seed", "parameter_invalid_type"),
    ({**FULL, "seed": -1}, "seed", "seed_invalid"),
    ({**FULL, "seed": 4_294_967_296}, "seed", "seed_invalid"),
    ({**FULL, "negative_prompt": 3}, "negative_prompt", "parameter_invalid_type"),
    ({**FULL, "negative_prompt": " \u200b "}, "negative_prompt", "negative_prompt_empty"),
    ({**FULL, "negative_prompt": "x" * 4001}, "negative_prompt", "negative_prompt_too_long"),
    ({**FULL, "end_image_url": IMAGE}, "end_image_url", "image_required"),
    (
        {**FULL, "image_url": IMAGE, "end_image_url": "ftp://x/y.png"},
        "end_image_url",
        "url_invalid",
    ),
    (
        {**FULL, "image_url": IMAGE, "end_image_url": "data:image/gif;base64,R0lG"},
        "end_image_url",
        "image_url_invalid",
    ),
    ({**FULL, "enhance_prompt": "true"}, "enhance_prompt", "parameter_invalid_type"),
    ({**PLAIN, "resolution": "720p"}, "resolution", "resolution_unsupported"),
    ({**PLAIN, "generate_audio": False}, "generate_audio", "control_unsupported"),
    ({**PLAIN, "negative_prompt": "blur"}, "negative_prompt", "control_unsupported"),
    ({**PLAIN, "seed": 7}, "seed", "control_unsupported"),
    ({**PLAIN, "end_image_url": IMAGE}, "end_image_url", "control_unsupported"),
    ({**PLAIN, "enhance_prompt": False}, "enhance_prompt", "control_unsupported"),
]


async def test_each_control_is_checked_before_anything_is_made(tmp_path: Path) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        for body, param, code in REFUSED:
            answer = await app.create(key, **body)
            assert answer.status_code == 400, (body, answer.text)
            error = answer.json()["error"]
            assert (error["param"], error["code"]) == (param, code), (body, error)
        page = await app.client.get("/v1/generations", headers=app.auth(key))
        assert page.json()["data"] == []


async def test_defaults_are_filled_in_and_shown(tmp_path: Path) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        full = (await app.create(key, **FULL)).json()
        assert {c: full[c] for c in (*CONTROLS, "enhance_prompt")} == {
            "resolution": "720p",
            "generate_audio": False,
            "negative_prompt": None,
            "seed": None,
            "end_image_url": None,
            "enhance_prompt": None,
        }
        assert full["estimated_cost"] == {"amount": 0.1, "currency": "USD"}  # 1 s x 720p
        plain = (await app.create(key, **PLAIN, generate_audio=True)).json()
        assert (plain["resolution"], plain["generate_audio"]) == (None, True)


async def test_controls_are_stored_and_priced_by_configuration(
    tmp_path: Path, database_url: str
) -> None:
    async with serving(tmp_path, database_url) as app:
        key = await app.new_key()
        asked = {
            "resolution": "480p",
            "generate_audio": True,
            "negative_prompt": "blurry",
            "seed": 4_294_967_295,
            "image_url": IMAGE,
            "end_image_url": "https://example.com/last.png",
            "enhance_prompt": False,
        }
        created = await app.create(key, **FULL, duration=2, **asked)
        assert created.status_code == 202, created.text
        shown = (await app.get(key, created.json()["id"])).json()
        assert {name: shown[name] for name in asked} == asked
        assert shown["estimated_cost"]["amount"] == pytest.approx(2 * 0.40)


async def test_idempotency_tells_requests_apart_by_their_controls(tmp_path: Path) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        headers = {**app.auth(key), "Idempotency-Key": "same-key"}
        first = await app.client.post("/v1/generations", json={**FULL, "seed": 1}, headers=headers)
        again = await app.client.post("/v1/generations", json={**FULL, "seed": 1}, headers=headers)
        assert again.json()["id"] == first.json()["id"]
        other = await app.client.post("/v1/generations", json={**FULL, "seed": 2}, headers=headers)
        assert other.status_code == 409, other.text
        assert other.json()["error"]["code"] == "idempotency_key_reused"


async def test_cost_follows_the_variant_and_usage_groups_by_resolution(tmp_path: Path) -> None:
    async with serving(tmp_path, workers=True) as app:
        key = await app.new_key()
        loud = await app.generate(key, **FULL, resolution="480p", generate_audio=True)
        quiet = await app.generate(key, **FULL)
        for done, price in ((loud, 0.40), (quiet, 0.10)):
            assert done["status"] == "completed", done
            # Billed seconds (the video's length here) x the configuration's price.
            assert done["cost"]["amount"] == pytest.approx(done["duration"] * price, rel=0.05)
        usage = await app.client.get(
            "/v1/usage", params={"group_by": "resolution"}, headers=app.auth(key)
        )
        assert usage.status_code == 200, usage.text
        rows = {row["resolution"]: row for row in usage.json()["data"]}
        assert set(rows) == {"480p", "720p"}
        assert rows["480p"]["cost"]["amount"] == loud["cost"]["amount"]
        assert rows["720p"]["generations"] == 1


async def test_models_list_what_they_take_and_each_price(tmp_path: Path) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        listed = await app.client.get("/v1/models/ctl-full", headers=app.auth(key))
        model = listed.json()
        assert model["resolutions"] == ["720p", "480p"] and model["audio"] is False
        assert model["supports"] == [
            "negative_prompt",
            "seed",
            "generate_audio",
            "end_image_url",
            "enhance_prompt",
        ]
        assert model["durations_by_resolution"] == {"480p": [0.5, 1, 2]}
        assert model["pricing"]["per_second"] == 0.10  # the default configuration's
        assert model["pricing"]["variants"][0] == {
            "resolution": "720p",
            "audio": False,
            "per_second": 0.10,
        }
        assert {
            (v["resolution"], v["audio"], v["per_second"]) for v in model["pricing"]["variants"]
        } == {
            ("720p", False, 0.10),
            ("720p", True, 0.20),
            ("480p", False, 0.30),
            ("480p", True, 0.40),
        }
        assert model["routes"][0]["variants"] == model["pricing"]["variants"]
        plain = (await app.client.get("/v1/models/ctl-plain", headers=app.auth(key))).json()
        assert (plain["resolutions"], plain["audio"], plain["supports"]) == ([], True, [])
        assert "durations_by_resolution" not in plain


# --- /v1/videos -------------------------------------------------------------------------------


async def test_videos_size_sets_the_resolution_and_controls_are_extra_fields(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        made = await app.client.post(
            "/v1/videos",
            json={"model": "ctl-full", "prompt": "p", "size": "480x854", "seed": 9},
            headers=app.auth(key),
        )
        assert made.status_code == 200, made.text
        video = made.json()
        assert (video["size"], video["resolution"], video["seed"]) == ("480x854", "480p", 9)
        native = (await app.get(key, video["id"])).json()
        assert (native["aspect_ratio"], native["resolution"]) == ("9:16", "480p")

        # A form, as OpenAI's SDK sends it: the controls are text.
        form = await app.client.post(
            "/v1/videos",
            files={
                "model": (None, "ctl-full"),
                "prompt": (None, "p"),
                "size": (None, "1280x720"),
                "generate_audio": (None, "true"),
                "negative_prompt": (None, "fog"),
            },
            headers=app.auth(key),
        )
        assert form.status_code == 200, form.text
        shown = form.json()
        assert (shown["size"], shown["resolution"], shown["generate_audio"]) == (
            "1280x720",
            "720p",
            True,
        )
        assert shown["negative_prompt"] == "fog"
        assert shown["estimated_cost"]["amount"] == pytest.approx(0.20)


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"size": "1920x1080"}, "size", "resolution_unsupported"),
        ({"size": "3840x2160"}, "size", "resolution_unsupported"),
        ({"resolution": "4k"}, "resolution", "resolution_unsupported"),
        ({"size": "854x480", "seconds": "4"}, "size", "duration_unsupported"),
        ({"seed": "nine"}, "seed", "parameter_invalid_type"),
        ({"model": "ctl-plain", "negative_prompt": "x"}, "negative_prompt", "control_unsupported"),
        ({"model": "ctl-plain", "generate_audio": False}, "generate_audio", "control_unsupported"),
        ({"end_image_url": IMAGE}, "end_image_url", "image_required"),
    ],
)
async def test_videos_refuse_controls_as_generations_do(
    tmp_path: Path, body: dict[str, Any], param: str, code: str
) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        for form in (False, True):
            fields = {"model": "ctl-full", "prompt": "p", **body}
            if form:
                answer = await app.client.post(
                    "/v1/videos",
                    files={k: (None, str(v)) for k, v in fields.items()},
                    headers=app.auth(key),
                )
            else:
                answer = await app.client.post("/v1/videos", json=fields, headers=app.auth(key))
            assert answer.status_code == 400, (form, answer.text)
            error = answer.json()["error"]
            assert (error["param"], error["code"]) == (param, code), (form, error)


async def test_a_size_names_no_resolution_for_a_model_that_lists_none(tmp_path: Path) -> None:
    async with serving(tmp_path) as app:
        key = await app.new_key()
        made = await app.client.post(
            "/v1/videos",
            json={"model": "ctl-plain", "prompt": "p", "size": "1920x1080"},
            headers=app.auth(key),
        )
        assert made.status_code == 200, made.text
        assert made.json()["resolution"] is None


def test_routes_that_cannot_make_what_is_asked_are_never_chosen() -> None:
    """The listing only offers what every usable route honours, so this guards generations
    made before a catalog change: the router skips a route that no longer honours them."""
    loud = Route(
        "veo", "v", 0.5, resolutions=("720p", "1080p"), audio=True, supports=frozenset({"seed"})
    )
    quiet = Route("fal", "f", 0.1, resolutions=("720p",), audio=False, supports=frozenset())
    routes = [quiet, loud]
    assert (
        route_candidates(routes, RouteAsk(DEFAULT_POLICY, Controls(resolution="720p")), {})
        == routes
    )
    assert route_candidates(routes, RouteAsk(DEFAULT_POLICY, Controls(resolution="1080p")), {}) == [
        loud
    ]
    assert route_candidates(
        routes, RouteAsk(DEFAULT_POLICY, Controls(generate_audio=True)), {}
    ) == [loud]
    assert route_candidates(routes, RouteAsk(DEFAULT_POLICY, Controls(seed=3)), {}) == [loud]
    cheap = RoutingPolicy(max_price_per_second=0.2)
    assert route_candidates(routes, RouteAsk(cheap, Controls(seed=3)), {}) == []


SCHEMA_CASES: list[tuple[str, Mapping[str, object]]] = [
    ("/v1/generations", FULL),
    ("/v1/generations", {**FULL, "resolution": "480p"}),
    ("/v1/generations", {**FULL, "resolution": "480p", "duration": 2}),
    ("/v1/generations", {**FULL, "resolution": "480p", "duration": 4}),
    ("/v1/generations", {**FULL, "resolution": "4k"}),
    ("/v1/generations", {**FULL, "end_image_url": IMAGE}),
    ("/v1/generations", {**FULL, "end_image_url": IMAGE, "image_url": IMAGE}),
    ("/v1/generations", {**FULL, "end_image_url": None}),
    ("/v1/generations", {**FULL, "seed": 4_294_967_296}),
    ("/v1/generations", {**FULL, "generate_audio": True, "enhance_prompt": False}),
    ("/v1/generations", {**PLAIN, "seed": 1}),
    ("/v1/generations", {**PLAIN, "seed": None, "resolution": None}),
    ("/v1/generations", {**PLAIN, "generate_audio": False}),
    ("/v1/generations", {**PLAIN, "generate_audio": True}),
    ("/v1/generations", {**PLAIN, "resolution": "720p"}),
    ("/v1/videos", {**FULL, "size": "854x480", "seconds": "4"}),
    ("/v1/videos", {**FULL, "size": "854x480", "seconds": "2"}),
    ("/v1/videos", {**FULL, "size": "854x480"}),
    ("/v1/videos", {**FULL, "size": "1920x1080"}),
    ("/v1/videos", {**FULL, "size": "1792x1024", "seconds": 4}),
    ("/v1/videos", {**FULL, "resolution": "480p", "seconds": "4"}),
    ("/v1/videos", {**FULL, "size": "854x480", "resolution": "720p", "seconds": "4"}),
    ("/v1/videos", {**PLAIN, "size": "1920x1080", "negative_prompt": None}),
    ("/v1/videos", {**PLAIN, "negative_prompt": "fog"}),
]


async def test_the_document_accepts_exactly_what_the_server_does(tmp_path: Path) -> None:
    """The create schemas of /openapi.json agree with the server on each body, the rules
    between fields (an end frame needs an image; a resolution's durations) included."""
    async with serving(tmp_path) as app:
        key = await app.new_key()
        doc = (await app.client.get("/openapi.json")).json()
        for path, body in SCHEMA_CASES:
            content = doc["paths"][path]["post"]["requestBody"]["content"]
            validator = Draft202012Validator(content["application/json"]["schema"])
            answer = await app.client.post(path, json=body, headers=app.auth(key))
            assert answer.status_code in (200, 202, 400), answer.text
            assert validator.is_valid(body) == (answer.status_code != 400), (body, answer.text)


async def test_openais_sdk_sends_the_controls_to_videos(tmp_path: Path) -> None:
    """What a user of OpenAI's SDK writes: `size`, and the controls in `extra_body` (which the
    SDK puts in its multipart form as text); a control the model refuses is the SDK's
    BadRequestError naming it."""
    async with serving(tmp_path) as app:
        key = await app.new_key()
        client = openai.AsyncOpenAI(
            api_key=key.plaintext,
            base_url=str(app.client.base_url).rstrip("/") + "/v1",
            # openai 3 annotates httpx2's client only, and takes httpx's as well (its
            # is_legacy_httpx_async_client): the app's ASGI client is an httpx one.
            http_client=app.client,  # type: ignore[arg-type]
            max_retries=0,
        )
        video = await client.videos.create(
            model="ctl-full",
            prompt="a lighthouse at dusk",
            # Values the SDK's Literals (OpenAI's own sizes and lengths) lack but it sends
            # as given, and this model takes.
            size="480x854",  # type: ignore[arg-type]
            seconds="2",  # type: ignore[arg-type]
            extra_body={"seed": 9, "generate_audio": True, "negative_prompt": "fog"},
        )
        shown = (await app.get(key, video.id)).json()
        assert (shown["aspect_ratio"], shown["resolution"], shown["seed"]) == ("9:16", "480p", 9)
        assert (shown["generate_audio"], shown["negative_prompt"]) == (True, "fog")
        assert shown["estimated_cost"]["amount"] == pytest.approx(0.40 * 2)
        with pytest.raises(openai.BadRequestError) as refused:
            await client.videos.create(
                model="ctl-plain",
                prompt="p",
                extra_body={"seed": 9},
            )
        assert refused.value.body["param"] == "seed"  # type: ignore[index]
