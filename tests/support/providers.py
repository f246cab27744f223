"""What the per-provider test files share: their fake served on a port, settings holding the
provider's environment, and the limits our API checks before any provider is called."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pytest
from starlette.types import ASGIApp

from tests.support.harness import Harness, assert_error, running, test_settings
from tests.support.images import data_uri, png
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog
from vidrouter.providers.base import (
    InvalidInput,
    JobState,
    Provider,
    ProviderJob,
    ProviderRequest,
    ProviderStatus,
)
from vidrouter.providers.config import AdapterConfig
from vidrouter.settings import Settings
from vidrouter.store.keys import NewKey

F = TypeVar("F")
P = TypeVar("P", bound=Provider)


def route_fields(provider: str, provider_model: str) -> dict[str, Any]:
    """What the engine hands an adapter from the built-in catalog's route of `provider` for
    `provider_model`: its `options` and `supports` (ProviderRequest's fields)."""
    for model in load_catalog().models:
        for route in model.routes:
            if (route.provider, route.provider_model) == (provider, provider_model):
                return {"options": dict(route.options), "supports": route.supports or frozenset()}
    raise LookupError(f"no {provider} route for {provider_model} in the catalog")


def fake_fixture(make: Callable[[], F], app: Callable[[F], ASGIApp] | None = None) -> Any:
    """A fixture `fake`: a fresh fake from `make`, served, as `(fake, its URL)`; `app` takes
    the fake's ASGI app (default: its `app` attribute)."""

    @pytest.fixture
    async def fake() -> AsyncIterator[tuple[F, str]]:
        made = make()
        async with serve_app(app(made) if app else made.app) as url:  # type: ignore[attr-defined]
            yield made, url

    return fake


def adapter_fixture(
    make: Callable[[], F],
    adapter: Callable[[AdapterConfig], P],
    env: Mapping[str, str],
    path: str = "",
) -> Any:
    """A fixture: a fresh fake from `make`, served, and the `adapter` configured with its
    URL (and `path` under it) and the environment `env`, as `(fake, adapter)`."""

    @pytest.fixture
    async def served() -> AsyncIterator[tuple[F, P]]:
        made = make()
        config = partial(AdapterConfig, credential=env.get)
        async with served_adapter(
            asgi_of(made), lambda url: adapter(config(url + path))
        ) as provider:
            yield made, provider

    return served


def keyed_adapter(
    fake: Any, adapter: Callable[[AdapterConfig], P], key_env: str
) -> contextlib.AbstractAsyncContextManager[P]:
    """The `adapter` served against `fake`, holding the fake's `api_key` in `key_env`."""
    credential = {key_env: fake.api_key}.get
    return served_adapter(asgi_of(fake), lambda url: adapter(AdapterConfig(url, credential)))


def asgi_of(fake: Any) -> ASGIApp:
    """The fake's ASGI app: its `app`, or what its `app()` builds."""
    app = fake.app
    return app() if inspect.ismethod(app) else app  # type: ignore[no-any-return]


@contextlib.asynccontextmanager
async def served_adapter(app: ASGIApp, make: Callable[[str], P]) -> AsyncIterator[P]:
    """The adapter `make(url)` builds against `app` served on a port, closed on the way out."""
    async with serve_app(app) as url:
        provider = make(url)
        try:
            yield provider
        finally:
            await provider.aclose()


def keyed_settings(
    tmp_path: Path, environ: dict[str, str], key_env: str, key: str | None, **overrides: Any
) -> Settings:
    """Settings with the provider's `environ`, and its credential `key` in `key_env` unless
    it is None."""
    if key is not None:
        environ = {**environ, key_env: key}
    return test_settings(tmp_path / "data", environ=environ, **overrides)


async def assert_limits_refused(
    app: Harness, key: NewKey, model: str, cases: Iterable[tuple[dict[str, Any], str]]
) -> None:
    """Each case's fields on a create of `model` are a 400 with its code, naming the duration
    or the aspect ratio as the param."""
    for extra, code in cases:
        response = await app.create(key, model=model, prompt="p", **extra)
        assert response.status_code == 400, (extra, response.text)
        error = response.json()["error"]
        assert error["code"] == code, extra
        assert error["param"] == ("duration" if code.startswith("duration") else "aspect_ratio")


async def assert_create_refused_unsent(
    settings: Settings, fake: Any, code: str, **body: Any
) -> None:
    """A create of `body` is a 400 with `code`, and the provider (`fake`) is never called."""
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        assert_error(await app.create(key, **body), 400, code)
    assert fake.plan.requests == []


async def assert_creates_refused(
    app: Harness, key: NewKey, cases: Iterable[tuple[dict[str, Any], str]], **base: Any
) -> None:
    """Each case's fields over `base` are a create refused with a 400 and its code."""
    for extra, code in cases:
        assert_error(await app.create(key, **{**base, **extra}), 400, code)


async def models_listed(settings: Settings) -> dict[str, dict[str, Any]]:
    """`GET /v1/models` with these settings, by model id."""
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
    return {m["id"]: m for m in listed}


async def until_ended(provider: Provider, job: ProviderJob, most: int = 20) -> ProviderStatus:
    """The job's status once it is no longer queued or running (polled at most `most` times)."""
    for _ in range(most):
        status = await provider.poll(job)
        if status.state not in (JobState.QUEUED, JobState.RUNNING):
            return status
    raise AssertionError(f"job {job.id} still running after {most} polls")


@contextlib.asynccontextmanager
async def running_against(
    tmp_path: Path, app: ASGIApp, environ: Callable[[str], dict[str, str]], **overrides: Any
) -> AsyncIterator[Harness]:
    """Our service (with workers) against the fake `app` served on a port: `environ(url)`
    points the adapter at it; `overrides` are settings."""
    async with serve_app(app) as url:
        settings = test_settings(tmp_path / "data", environ=environ(url), **overrides)
        async with running(settings) as service:
            yield service


async def generate_against(
    tmp_path: Path, app: ASGIApp, environ: Callable[[str], dict[str, str]], **body: Any
) -> dict[str, Any]:
    """One generation through our API against a served fake: `environ(url)` points the
    adapter at the fake; `body` is the create request. The finished generation."""
    async with running_against(tmp_path, app, environ, provider_delay_scale=0.01) as service:
        return await service.generate(**body)


async def image_to_video_against(
    tmp_path: Path, app: ASGIApp, environ: Callable[[str], dict[str, str]], model: str
) -> dict[str, Any]:
    """`generate_against` with a 3-second image-to-video of `model` from a 64x36 PNG."""
    image = data_uri(png(64, 36))
    return await generate_against(
        tmp_path, app, environ, model=model, prompt="it moves", duration=3, image_url=image
    )


async def assert_cancel_sends_nothing(
    provider: Provider, fake: Any, request: ProviderRequest
) -> None:
    """Cancelling a job of a provider without a cancel call sends it nothing."""
    job = await provider.submit(request)
    before = len(fake.plan.requests)
    await provider.cancel(job)
    assert len(fake.plan.requests) == before


async def assert_refused_unsent(provider: Provider, fake: Any, *requests: ProviderRequest) -> None:
    """Each request is refused as invalid before the provider is called at all."""
    for bad in requests:
        with pytest.raises(InvalidInput):
            await provider.submit(bad)
    assert fake.plan.requests == []
