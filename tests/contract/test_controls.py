"""The controls acceptance (issue 13), once per case of every module in
tests/support/contract/controls/ (see its __init__.py): a control the model honours reaches its
provider under the provider's own field names and values (asserted by the case on the body
the fake received); a control it does not honour is a 400 naming `param`, and nothing reaches
any provider.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.contract import controls as controls_package
from tests.support.contract.cases import BY_NAME
from tests.support.contract.controls import ControlsCase
from tests.support.contract.run import case_id, cases_in, provider_routes, started, submitted_after
from tests.support.harness import Harness, running, test_settings
from vidrouter.domain.catalog import Route
from vidrouter.domain.controls import OPTIONAL_CONTROLS, RESOLUTIONS

# A value of each optional control that some model takes; `resolution` and `generate_audio`
# are chosen per model (one it does not offer, the value other than its default).
VALID: dict[str, object] = {
    "negative_prompt": "blurry, low quality",
    "seed": 42,
    "end_image_url": "https://example.com/last-frame.png",
    "enhance_prompt": True,
}


CASES: list[ControlsCase] = cases_in(controls_package)
# Hosts of many makers' models: their cases cover each control once per host, and
# tests/test_controls_{fal,replicate,openrouter}.py send every configuration of every route
# to the host's fake. Every other provider needs each of its models' controls in its cases.
HOSTS = ("fal", "replicate", "openrouter")


def _id(case: ControlsCase) -> str:
    return case_id(case, CASES, "provider", "model")


@contextlib.asynccontextmanager
async def serving(case: ControlsCase, tmp_path: Path) -> AsyncIterator[tuple[Harness, Any]]:
    """Our service, with the case's provider fake behind it (None for `local`)."""
    provider = BY_NAME.get(case.provider)
    if provider is None:
        async with running(test_settings(tmp_path / "data")) as app:
            yield app, None
        return
    async with started(provider, tmp_path) as run:
        yield run.app, run.fake


def _unsupported_value(name: str, model: dict[str, Any]) -> object:
    if name == "resolution":
        return next(r for r in RESOLUTIONS if r not in model.get("resolutions", []))
    if name == "generate_audio":
        return not model.get("audio", False)
    return VALID[name]


def _create_body(case: ControlsCase, **extra: object) -> dict[str, Any]:
    body: dict[str, Any] = {"model": case.model, "prompt": "a red fox runs through snow"}
    if case.duration is not None:
        body["duration"] = case.duration
    return {**body, **extra}


@pytest.mark.parametrize("case", CASES, ids=_id)
async def test_controls_reach_the_provider_or_are_refused(
    case: ControlsCase, tmp_path: Path
) -> None:
    async with serving(case, tmp_path) as (app, fake):
        key = await app.new_key()
        listed = await app.client.get(f"/v1/models/{case.model}", headers=app.auth(key))
        assert listed.status_code == 200, listed.text
        model = listed.json()
        # The inputs the model needs (a first frame, a source video) go with each refusal too.
        needs = ("image_url", "type", "video", "references")
        image = {k: case.body[k] for k in needs if k in case.body}
        for name in case.unsupported:
            value = _unsupported_value(name, model)
            refused = await app.create(key, **_create_body(case, **image, **{name: value}))
            assert refused.status_code == 400, (name, value, refused.text)
            assert refused.json()["error"]["param"] == name, refused.text
        if fake is not None:
            assert fake.plan.requests == [], "a refused create reached the provider"
            assert getattr(fake, "submitted", []) == []
        created = await app.create(key, **_create_body(case, **case.body))
        assert created.status_code == 202, created.text
        generation_id = created.json()["id"]
        if fake is not None:
            case.expect(await submitted_after(fake, app, key, generation_id))
            return
        done = await app.wait_for(key, generation_id, timeout=120)
        stored = await app.service.generation_store.get(generation_id)
        assert stored is not None
        case.expect(
            {
                **done,
                "video_width": stored.video_width,
                "video_height": stored.video_height,
                "video_duration": stored.video_duration,
            }
        )


def _sent(case: ControlsCase, route: Route) -> set[str]:
    """The controls a case asks for that differ from the route's default configuration."""
    default = {"resolution": (route.resolutions or (None,))[0], "generate_audio": route.audio}
    return {
        name
        for name, value in case.body.items()
        if name in ("resolution", *OPTIONAL_CONTROLS) and default.get(name) != value
    }


@pytest.mark.parametrize("provider", sorted({c.provider for c in CASES}))
def test_the_cases_cover_every_control_of_the_provider(provider: str, tmp_path: Path) -> None:
    """The acceptance, counted: each control a route of this provider honours is asked for
    (away from its default) by a case, and each it cannot honour is refused by one; for a
    maker's own API, model by model."""
    routes = provider_routes(provider, tmp_path)
    by_model = dict(routes)
    missing: dict[str, set[str]] = {}
    for model, route in routes:
        scope = provider if provider in HOSTS else model
        mine = [c for c in CASES if c.provider == provider and scope in (provider, c.model)]
        sent = set().union(*(_sent(c, by_model[c.model]) for c in mine))
        refused = set().union(*(c.unsupported for c in mine))
        several = len(route.resolutions or ()) > 1
        honoured = set(route.supports or ()) | ({"resolution"} if several else set())
        refusable = (set(OPTIONAL_CONTROLS) - set(route.supports or ())) | {"resolution"}
        missing.setdefault(f"{scope}: never asked for", set()).update(honoured - sent)
        missing.setdefault(f"{scope}: never refused", set()).update(refusable - refused)
    gaps = {where: sorted(names) for where, names in missing.items() if names}
    assert not gaps, gaps


VIDEOS_CASES = [
    # JSON: the size is Veo's portrait 1080p; the controls are extra fields.
    (
        "veo",
        {"model": "veo-3.1", "size": "1080x1920", "seconds": "8", "negative_prompt": "rain"},
        lambda body: (
            body["parameters"]
            == {"aspectRatio": "9:16", "durationSeconds": 8, "resolution": "1080p"}
            | {"negativePrompt": "rain"}
        ),
    ),
    # A form, as OpenAI's SDK sends one: every field is text.
    (
        "kling",
        {
            "model": "kling-v3",
            "size": "1280x720",
            "seconds": "5",
            "generate_audio": "true",
            "negative_prompt": "blur",
        },
        lambda body: (
            (body["aspect_ratio"], body["mode"], body["sound"], body["negative_prompt"])
            == ("16:9", "std", "on", "blur")
        ),
    ),
]


@pytest.mark.parametrize(("provider", "fields", "check"), VIDEOS_CASES, ids=["veo", "kling"])
async def test_videos_size_and_controls_reach_the_provider(
    provider: str, fields: dict[str, str], check: Any, tmp_path: Path
) -> None:
    """/v1/videos: `size` is the aspect ratio and the resolution, the controls are the same
    as on /v1/generations; a control the model refuses is a 400 before any request."""
    async with started(BY_NAME[provider], tmp_path) as run:
        app, fake = run.app, run.fake
        key = await app.new_key()
        as_form = provider == "kling"
        base: dict[str, object] = {**fields, "prompt": "a red fox runs through snow"}

        async def post(body: dict[str, object]) -> Any:
            if as_form:
                parts = {name: (None, str(value)) for name, value in body.items()}
                return await app.client.post("/v1/videos", files=parts, headers=app.auth(key))
            return await app.client.post("/v1/videos", json=body, headers=app.auth(key))

        refused = await post({**base, "seed": 7})  # neither Veo nor Kling takes a seed
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert (error["param"], error["code"]) == ("seed", "control_unsupported"), error
        assert fake.plan.requests == [] and fake.submitted == []
        made = await post(base)
        assert made.status_code == 200, made.text
        body = await submitted_after(fake, app, key, made.json()["id"])
        assert check(body), body
