"""fal's controls (issue 13): each route's declared fields reach its app under the names the
app's schema uses, and the fake (which checks every input like fal's apps) accepts them.

The helpers here (`configurations`, `declared_fields_problems`) are shared by the Replicate
and OpenRouter control tests: the three hosts declare their fields the same way.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest

from tests.fakes.fal import APPS, FalFake
from tests.support.images import png
from tests.support.servers import serve_app
from vidrouter.domain.catalog import ModelSpec, Route, load_catalog
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import JobState, ProviderRequest
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.controls_fields import field_name
from vidrouter.providers.fal.adapter import FalProvider

KEY = "test-key"
PNG_URI = "data:image/png;base64," + base64.b64encode(png(2, 2)).decode()
END_URI = "data:image/png;base64," + base64.b64encode(png(3, 3)).decode()
SET = {"negative_prompt": "blurry, text", "seed": 4_000_000_000, "enhance_prompt": False}


def host_routes(provider: str) -> list[tuple[ModelSpec, Route]]:
    return [(m, r) for m in load_catalog().models for r in m.routes if r.provider == provider]


def configurations(model: ModelSpec, route: Route) -> Iterator[ProviderRequest]:
    """A request for every configuration the route prices, then one with every optional
    control it supports set to a value that is not the provider's default."""
    supports = route.supports or frozenset()
    audios = [route.audio, *([not route.audio] if "generate_audio" in supports else [])]
    i2v_only = "text-to-video" not in model.capabilities or "image-to" in route.provider_model
    for resolution in route.resolutions or ():
        for audio in audios:
            yield request_for(
                model, route, Controls(resolution, audio), PNG_URI if i2v_only else None
            )
    controls = Controls(
        (route.resolutions or (None,))[-1],
        audios[-1],
        **{name: value for name, value in SET.items() if name in supports},
    )
    end = "end_image_url" in supports
    if end:
        controls = replace(controls, end_image_url=END_URI)
    yield request_for(model, route, controls, PNG_URI if end or i2v_only else None)


def request_for(
    model: ModelSpec, route: Route, controls: Controls, image: str | None
) -> ProviderRequest:
    allowed = route.durations_by_resolution.get(controls.resolution or "")
    durations = allowed or route.durations or model.durations or (model.default_duration,)
    duration = model.default_duration if model.default_duration in durations else durations[0]
    ratio = next(r for r in model.aspect_ratios if r in (route.aspect_ratios or (r,)))
    return ProviderRequest(
        "gen_controls",
        route.provider_model,
        "a fox",
        duration,
        ratio,
        image_url=image,
        options=route.options,
        controls=controls,
    )


def declared_fields_problems(
    provider: str, defaults: Mapping[str, str] | None = None, built_in: tuple[str, ...] = ()
) -> list[str]:
    """Routes whose declarations a request could ask for but whose options send nowhere:
    a supported control without a field, several resolutions without a resolution field."""
    problems = []
    for model, route in host_routes(provider):
        wanted = [c for c in route.supports or () if c not in built_in]
        if len(route.resolutions or ()) > 1:
            wanted.append("resolution")
        problems += [
            f"{model.id} {route.key}: {name}"
            for name in wanted
            if field_name(route.options, name, defaults) is None
        ]
    return problems


def sent(request: ProviderRequest, body: Mapping[str, Any], name: str, value: object) -> None:
    """`value` is in `body` at the route's field for control `name`."""
    path = field_name(request.options, name)
    assert path is not None, name
    found: Any = body
    for part in path.split("."):
        found = found[part]
    assert found == value, (name, path, found, value)


@pytest.fixture
async def fal() -> AsyncIterator[tuple[FalFake, FalProvider]]:
    fake = FalFake(api_key=KEY, polls_to_finish=0)
    async with serve_app(fake.app()) as url:
        provider = FalProvider(AdapterConfig(url, {"FAL_KEY": KEY}.get))
        try:
            yield fake, provider
        finally:
            await provider.aclose()


def test_every_declared_control_has_a_field() -> None:
    assert declared_fields_problems("fal") == []


async def test_every_configuration_of_every_route_is_accepted_by_its_app(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    for model, route in host_routes("fal"):
        for request in configurations(model, route):
            job = await provider.submit(request)
            status = await provider.poll(job)
            while status.state in (JobState.QUEUED, JobState.RUNNING):
                status = await provider.poll(job)
            assert status.state is JobState.SUCCEEDED, (model.id, request.controls, status.error)
            [app, body] = fake.submissions[-1]
            assert app in APPS
            controls = request.controls
            for name in ("negative_prompt", "seed", "enhance_prompt"):
                if getattr(controls, name) is not None:
                    sent(request, body, name, getattr(controls, name))


async def test_veo_takes_each_control_under_its_own_name(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    [(model, route)] = [(m, r) for m, r in host_routes("fal") if m.id == "veo-3.1"]
    controls = Controls("1080p", False, "blurry", 42)
    await provider.submit(request_for(model, route, controls, None))
    assert fake.submissions[-1] == (
        "fal-ai/veo3.1",
        {
            "prompt": "a fox",
            "duration": "8s",
            "aspect_ratio": "16:9",
            "resolution": "1080p",
            "generate_audio": False,
            "negative_prompt": "blurry",
            "seed": 42,
        },
    )


async def test_kling_v3_sends_the_end_frame_to_the_image_app_as_end_image_url(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    [(model, route)] = [(m, r) for m, r in host_routes("fal") if m.id == "kling-v3"]
    controls = Controls("1080p", True, "no text", end_image_url=END_URI)
    await provider.submit(request_for(model, route, controls, PNG_URI))
    app, body = fake.submissions[-1]
    assert app == "fal-ai/kling-video/v3/pro/image-to-video"
    assert {k: body[k] for k in ("start_image_url", "end_image_url", "generate_audio")} == {
        "start_image_url": PNG_URI,
        "end_image_url": END_URI,
        "generate_audio": True,
    }
    assert body["negative_prompt"] == "no text"


async def test_hailuo_takes_enhance_prompt_as_prompt_optimizer(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    [(model, route)] = [(m, r) for m, r in host_routes("fal") if m.id == "hailuo-02"]
    await provider.submit(
        request_for(model, route, Controls("768p", False, enhance_prompt=False), None)
    )
    assert fake.submitted[-1] == {"prompt": "a fox", "duration": "6", "prompt_optimizer": False}


async def test_an_input_the_app_does_not_take_fails_the_run_as_fal_reports_it(
    fal: tuple[FalFake, FalProvider],
) -> None:
    """The fake checks like fal's apps: an unknown input is pydantic's extra_forbidden."""
    _, provider = fal
    request = ProviderRequest(
        "gen_1",
        "fal-ai/minimax/hailuo-02/standard/text-to-video",
        "a fox",
        6,
        "16:9",
        options={"aspect_ratio_field": "", "field.seed": "seed"},
        controls=Controls(seed=3),
    )
    job = await provider.submit(request)
    status = await provider.poll(job)
    while status.state in (JobState.QUEUED, JobState.RUNNING):
        status = await provider.poll(job)
    assert status.state is JobState.FAILED
    assert status.error is not None and status.error.code == "invalid_input"
    assert "Extra inputs are not permitted" in status.error.message
